// RUN: dtf-gradcheck %s | FileCheck %s
// softmax and softmax_cross_entropy_with_logits.

// CHECK-DAG: @softmax x: 12 of 12
// CHECK-DAG: @xent logits: 12 of 12
// CHECK: gradient check passed

func.func @softmax() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 1>) : !dtf.resource<tensor<3x4xf32>>
  %r = dtf.placeholder "r" : tensor<3x4xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<3x4xf32>>
  %y = dtf.softmax %xv : tensor<3x4xf32>
  %p = dtf.mul %y, %r : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = dtf.reduce_sum %p : tensor<3x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @xent() -> tensor<f32> {
  %logits = dtf.variable "logits" init(#dtf.random_normal<stddev = 1.0, seed = 2>) : !dtf.resource<tensor<3x4xf32>>
  %labels = dtf.placeholder "labels" : tensor<3x4xf32>
  %r = dtf.placeholder "r" : tensor<3xf32>
  %lv = dtf.read %logits : !dtf.resource<tensor<3x4xf32>>
  %xent = dtf.softmax_cross_entropy_with_logits %lv, %labels : tensor<3x4xf32>, tensor<3x4xf32>
  %p = dtf.mul %xent, %r : tensor<3xf32>, tensor<3xf32>
  %loss = dtf.reduce_sum %p : tensor<3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}
