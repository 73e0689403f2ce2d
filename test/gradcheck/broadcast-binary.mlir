// RUN: dtf-gradcheck %s | FileCheck %s
// add, sub, mul and div with NumPy broadcasting: the gradient of the
// broadcast operand is summed over the broadcast dimensions.

// CHECK-DAG: @add a: 6 of 6
// CHECK-DAG: @add b: 3 of 3
// CHECK-DAG: @sub a: 6 of 6
// CHECK-DAG: @sub b: 2 of 2
// CHECK-DAG: @mul a: 6 of 6
// CHECK-DAG: @mul b: 1 of 1
// CHECK-DAG: @div a: 6 of 6
// CHECK-DAG: @div b: 3 of 3
// CHECK: gradient check passed

func.func @add() -> tensor<f32> {
  %a = dtf.variable "a" init(#dtf.random_normal<stddev = 1.0, seed = 1>) : !dtf.resource<tensor<2x3xf32>>
  %b = dtf.variable "b" init(#dtf.random_normal<stddev = 1.0, seed = 2>) : !dtf.resource<tensor<3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %av = dtf.read %a : !dtf.resource<tensor<2x3xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<3xf32>>
  %y = dtf.add %av, %bv : tensor<2x3xf32>, tensor<3xf32>
  %p = dtf.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @sub() -> tensor<f32> {
  %a = dtf.variable "a" init(#dtf.random_normal<stddev = 1.0, seed = 3>) : !dtf.resource<tensor<2x3xf32>>
  %b = dtf.variable "b" init(#dtf.random_normal<stddev = 1.0, seed = 4>) : !dtf.resource<tensor<2x1xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %av = dtf.read %a : !dtf.resource<tensor<2x3xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<2x1xf32>>
  %y = dtf.sub %av, %bv : tensor<2x3xf32>, tensor<2x1xf32>
  %p = dtf.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @mul() -> tensor<f32> {
  %a = dtf.variable "a" init(#dtf.random_normal<stddev = 1.0, seed = 5>) : !dtf.resource<tensor<2x3xf32>>
  %b = dtf.variable "b" init(#dtf.random_normal<stddev = 1.0, seed = 6>) : !dtf.resource<tensor<f32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %av = dtf.read %a : !dtf.resource<tensor<2x3xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<f32>>
  %y = dtf.mul %bv, %av : tensor<f32>, tensor<2x3xf32>
  %p = dtf.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @div() -> tensor<f32> {
  %a = dtf.variable "a" init(#dtf.random_normal<stddev = 1.0, seed = 7>) : !dtf.resource<tensor<2x3xf32>>
  // Kept away from zero: mean 2, stddev 0.2.
  %b = dtf.variable "b" init(#dtf.random_normal<mean = 2.0, stddev = 0.2, seed = 8>) : !dtf.resource<tensor<3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %av = dtf.read %a : !dtf.resource<tensor<2x3xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<3xf32>>
  %y = dtf.div %av, %bv : tensor<2x3xf32>, tensor<3xf32>
  %p = dtf.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}
