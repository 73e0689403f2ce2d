// RUN: dtf-gradcheck --samples=64 %s | FileCheck %s
// The layer math of TF1 models: transpose, log_softmax, tile, batch_matmul
// and reduce_prod. one_hot has no gradient (its only operand is integer
// class ids); its labels weigh a log-softmax here.

// CHECK-DAG: @transpose x: 24 of 24
// CHECK-DAG: @log_softmax x: 15 of 15
// CHECK-DAG: @one_hot_labels logits: 12 of 12
// CHECK-DAG: @tile x: 6 of 6
// CHECK-DAG: @batch_matmul x: 24 of 24
// CHECK-DAG: @batch_matmul y: 30 of 30
// CHECK-DAG: @batch_matmul_adjoint x: 24 of 24
// CHECK-DAG: @batch_matmul_adjoint y: 30 of 30
// CHECK-DAG: @batch_matmul_broadcast x: 12 of 12
// CHECK-DAG: @batch_matmul_broadcast y: 24 of 24
// CHECK-DAG: @reduce_prod x: 12 of 12
// CHECK-DAG: @reduce_prod_zeros x: 6 of 6
// CHECK-DAG: @reduce_prod_zeros z: 2 of 2
// CHECK: gradient check passed

func.func @transpose() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 1>) : !dtf.resource<tensor<2x3x4xf32>>
  %r = dtf.placeholder "r" : tensor<4x2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3x4xf32>>
  %y = dtf.transpose %xv permutation [2, 0, 1] : tensor<2x3x4xf32>
  %p = dtf.mul %y, %r : tensor<4x2x3xf32>, tensor<4x2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<4x2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @log_softmax() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 2.0, seed = 2>) : !dtf.resource<tensor<3x5xf32>>
  %r = dtf.placeholder "r" : tensor<3x5xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<3x5xf32>>
  %y = dtf.log_softmax %xv : tensor<3x5xf32>
  %p = dtf.mul %y, %r : tensor<3x5xf32>, tensor<3x5xf32>
  %loss = dtf.reduce_sum %p : tensor<3x5xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @one_hot_labels() -> tensor<f32> {
  %logits = dtf.variable "logits" init(#dtf.random_normal<stddev = 1.0, seed = 3>) : !dtf.resource<tensor<3x4xf32>>
  %ids = dtf.constant dense<[0, 3, 2]> : tensor<3xi32>
  %lv = dtf.read %logits : !dtf.resource<tensor<3x4xf32>>
  %labels = dtf.one_hot %ids depth 4 on 0.9 off 0.025 : tensor<3xi32> to f32
  %logp = dtf.log_softmax %lv : tensor<3x4xf32>
  %p = dtf.mul %labels, %logp : tensor<3x4xf32>, tensor<3x4xf32>
  %loss = dtf.reduce_sum %p : tensor<3x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @tile() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 4>) : !dtf.resource<tensor<2x1x3xf32>>
  %r = dtf.placeholder "r" : tensor<4x3x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x1x3xf32>>
  %y = dtf.tile %xv multiples [2, 3, 1] : tensor<2x1x3xf32>
  %p = dtf.mul %y, %r : tensor<4x3x3xf32>, tensor<4x3x3xf32>
  %loss = dtf.reduce_sum %p : tensor<4x3x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @batch_matmul() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 5>) : !dtf.resource<tensor<2x3x4xf32>>
  %y = dtf.variable "y" init(#dtf.random_normal<stddev = 1.0, seed = 6>) : !dtf.resource<tensor<2x5x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x4x5xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3x4xf32>>
  %yv = dtf.read %y : !dtf.resource<tensor<2x5x3xf32>>
  %z = dtf.batch_matmul %xv, %yv {adj_x = true, adj_y = true} : tensor<2x3x4xf32>, tensor<2x5x3xf32>
  %p = dtf.mul %z, %r : tensor<2x4x5xf32>, tensor<2x4x5xf32>
  %loss = dtf.reduce_sum %p : tensor<2x4x5xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @batch_matmul_adjoint() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 7>) : !dtf.resource<tensor<2x4x3xf32>>
  %y = dtf.variable "y" init(#dtf.random_normal<stddev = 1.0, seed = 8>) : !dtf.resource<tensor<2x5x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x4x5xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x4x3xf32>>
  %yv = dtf.read %y : !dtf.resource<tensor<2x5x3xf32>>
  %z = dtf.batch_matmul %xv, %yv {adj_y = true} : tensor<2x4x3xf32>, tensor<2x5x3xf32>
  %p = dtf.mul %z, %r : tensor<2x4x5xf32>, tensor<2x4x5xf32>
  %loss = dtf.reduce_sum %p : tensor<2x4x5xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

// x is broadcast along the batch, y along x's leading batch dimension.
func.func @batch_matmul_broadcast() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 9>) : !dtf.resource<tensor<2x1x2x3xf32>>
  %y = dtf.variable "y" init(#dtf.random_normal<stddev = 1.0, seed = 10>) : !dtf.resource<tensor<2x3x4xf32>>
  %r = dtf.placeholder "r" : tensor<2x2x2x4xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x1x2x3xf32>>
  %yv = dtf.read %y : !dtf.resource<tensor<2x3x4xf32>>
  %z = dtf.batch_matmul %xv, %yv : tensor<2x1x2x3xf32>, tensor<2x3x4xf32>
  %p = dtf.mul %z, %r : tensor<2x2x2x4xf32>, tensor<2x2x2x4xf32>
  %loss = dtf.reduce_sum %p : tensor<2x2x2x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @reduce_prod() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 11>) : !dtf.resource<tensor<3x4xf32>>
  %r = dtf.placeholder "r" : tensor<4xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<3x4xf32>>
  %y = dtf.reduce_prod %xv {axes = array<i64: 0>} : tensor<3x4xf32>
  %p = dtf.mul %y, %r : tensor<4xf32>, tensor<4xf32>
  %loss = dtf.reduce_sum %p : tensor<4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

// Each row holds one zero, z's: z's gradient is the product of the row's
// others, x's is zero.
func.func @reduce_prod_zeros() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 12>) : !dtf.resource<tensor<2x3xf32>>
  %z = dtf.variable "z" init(#dtf.zeros) : !dtf.resource<tensor<2x1xf32>>
  %r = dtf.placeholder "r" : tensor<2xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %zv = dtf.read %z : !dtf.resource<tensor<2x1xf32>>
  %rows = dtf.concat %xv, %zv axis 1 : tensor<2x3xf32>, tensor<2x1xf32>
  %y = dtf.reduce_prod %rows {axes = array<i64: 1>} : tensor<2x4xf32>
  %p = dtf.mul %y, %r : tensor<2xf32>, tensor<2xf32>
  %loss = dtf.reduce_sum %p : tensor<2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}
