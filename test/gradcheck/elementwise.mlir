// RUN: dtf-gradcheck %s | FileCheck %s
// bias_add, neg, relu, log and clip_by_value.

// CHECK-DAG: @bias_add x: 12 of 12
// CHECK-DAG: @bias_add b: 4 of 4
// CHECK-DAG: @neg x: 6 of 6
// CHECK-DAG: @relu x: 12 of 12
// CHECK-DAG: @log x: 6 of 6
// CHECK-DAG: @clip x: 12 of 12
// CHECK: gradient check passed

func.func @bias_add() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 1>) : !dtf.resource<tensor<3x4xf32>>
  %b = dtf.variable "b" init(#dtf.random_normal<stddev = 1.0, seed = 2>) : !dtf.resource<tensor<4xf32>>
  %r = dtf.placeholder "r" : tensor<3x4xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<3x4xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<4xf32>>
  %y = dtf.bias_add %xv, %bv : tensor<3x4xf32>, tensor<4xf32>
  %p = dtf.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = dtf.reduce_sum %p : tensor<3x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @neg() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 3>) : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.neg %xv : tensor<2x3xf32>
  %p = dtf.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @relu() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 4>) : !dtf.resource<tensor<3x4xf32>>
  %r = dtf.placeholder "r" : tensor<3x4xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<3x4xf32>>
  %y = dtf.relu %xv : tensor<3x4xf32>
  %p = dtf.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = dtf.reduce_sum %p : tensor<3x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @log() -> tensor<f32> {
  // Positive: mean 2, stddev 0.3.
  %x = dtf.variable "x" init(#dtf.random_normal<mean = 2.0, stddev = 0.3, seed = 5>) : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.log %xv : tensor<2x3xf32>
  %p = dtf.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @clip() -> tensor<f32> {
  // Some elements inside [-0.5, 0.5], some clipped.
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 6>) : !dtf.resource<tensor<3x4xf32>>
  %r = dtf.placeholder "r" : tensor<3x4xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<3x4xf32>>
  %y = dtf.clip_by_value %xv, -0.5, 0.5 : tensor<3x4xf32>
  %p = dtf.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = dtf.reduce_sum %p : tensor<3x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}
