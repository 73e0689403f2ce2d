// RUN: dtf-gradcheck --samples=24 %s | FileCheck %s
// reduce_sum and reduce_mean over some axes, with and without keep_dims,
// reshape, and slice (tf.split's and tf.unstack's parts: an LSTM's gates).

// CHECK-DAG: @reduce_sum x: 24 of 24
// CHECK-DAG: @reduce_mean x: 24 of 24
// CHECK-DAG: @reduce_mean_all x: 6 of 6
// CHECK-DAG: @reshape x: 6 of 6
// CHECK-DAG: @slice x: 24 of 24
// CHECK: gradient check passed

func.func @reduce_sum() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 1>) : !dtf.resource<tensor<2x3x4xf32>>
  %r = dtf.placeholder "r" : tensor<2x4xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3x4xf32>>
  %s = dtf.reduce_sum %xv {axes = array<i64: 1>} : tensor<2x3x4xf32>
  %p = dtf.mul %s, %r : tensor<2x4xf32>, tensor<2x4xf32>
  %loss = dtf.reduce_sum %p : tensor<2x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @reduce_mean() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 2>) : !dtf.resource<tensor<2x3x4xf32>>
  %r = dtf.placeholder "r" : tensor<1x3x1xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3x4xf32>>
  %s = dtf.reduce_mean %xv {axes = array<i64: 0, -1>, keep_dims = true} : tensor<2x3x4xf32>
  %p = dtf.mul %s, %r : tensor<1x3x1xf32>, tensor<1x3x1xf32>
  %loss = dtf.reduce_sum %p : tensor<1x3x1xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @reduce_mean_all() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 3>) : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %p = dtf.mul %xv, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_mean %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @reshape() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 4>) : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.placeholder "r" : tensor<3x2xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.reshape %xv : tensor<2x3xf32> -> tensor<3x2xf32>
  %p = dtf.mul %y, %r : tensor<3x2xf32>, tensor<3x2xf32>
  %loss = dtf.reduce_sum %p : tensor<3x2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

// Two boxes of x, one inside in every dimension and one at its end: the
// gradient is zero outside them, and both add where they overlap.
func.func @slice() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 5>) : !dtf.resource<tensor<2x3x4xf32>>
  %r = dtf.placeholder "r" : tensor<1x2x2xf32>
  %q = dtf.placeholder "q" : tensor<2x1x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3x4xf32>>
  %inner = dtf.slice %xv offsets [1, 1, 1] sizes [1, 2, 2] : tensor<2x3x4xf32>
  %tail = dtf.slice %xv offsets [0, 2, 1] sizes [-1, 1, -1] : tensor<2x3x4xf32>
  %p = dtf.mul %inner, %r : tensor<1x2x2xf32>, tensor<1x2x2xf32>
  %t = dtf.mul %tail, %q : tensor<2x1x3xf32>, tensor<2x1x3xf32>
  %sp = dtf.reduce_sum %p : tensor<1x2x2xf32>
  %st = dtf.reduce_sum %t : tensor<2x1x3xf32>
  %loss = dtf.add %sp, %st : tensor<f32>, tensor<f32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}
