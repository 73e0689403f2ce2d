// RUN: dtf-gradcheck %s | FileCheck %s
// Gradients of matmul wrt both operands, plain and transposed.

// CHECK-DAG: @plain a: 6 of 6 elements
// CHECK-DAG: @plain b: 12 of 12 elements
// CHECK-DAG: @transposed a: 6 of 6 elements
// CHECK-DAG: @transposed b: 12 of 12 elements
// CHECK: gradient check passed

func.func @plain() -> tensor<f32> {
  %a = dtf.variable "a" init(#dtf.random_normal<stddev = 1.0, seed = 1>) : !dtf.resource<tensor<2x3xf32>>
  %b = dtf.variable "b" init(#dtf.random_normal<stddev = 1.0, seed = 2>) : !dtf.resource<tensor<3x4xf32>>
  %r = dtf.placeholder "r" : tensor<2x4xf32>
  %av = dtf.read %a : !dtf.resource<tensor<2x3xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<3x4xf32>>
  %y = dtf.matmul %av, %bv : tensor<2x3xf32>, tensor<3x4xf32>
  %p = dtf.mul %y, %r : tensor<2x4xf32>, tensor<2x4xf32>
  %loss = dtf.reduce_sum %p : tensor<2x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @transposed() -> tensor<f32> {
  %a = dtf.variable "a" init(#dtf.random_normal<stddev = 1.0, seed = 3>) : !dtf.resource<tensor<3x2xf32>>
  %b = dtf.variable "b" init(#dtf.random_normal<stddev = 1.0, seed = 4>) : !dtf.resource<tensor<4x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x4xf32>
  %av = dtf.read %a : !dtf.resource<tensor<3x2xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<4x3xf32>>
  %y = dtf.matmul %av, %bv {transpose_a = true, transpose_b = true} : tensor<3x2xf32>, tensor<4x3xf32>
  %p = dtf.mul %y, %r : tensor<2x4xf32>, tensor<2x4xf32>
  %loss = dtf.reduce_sum %p : tensor<2x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}
