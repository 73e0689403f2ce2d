// RUN: dtf-opt --dtf-autodiff=colocate-gradients-with-ops %s | FileCheck %s
// RUN: dtf-opt --dtf-autodiff %s | FileCheck %s --check-prefix=DEFAULT

// Each layer's gradient ops run on the layer's device; ops without a device
// (the loss) keep their gradients unplaced.

module attributes {dtf.cluster = #dtf.cluster<ps = [], worker = ["w0:1", "w1:1"]>} {
  // CHECK-LABEL: func.func @two_layers
  // DEFAULT-LABEL: func.func @two_layers
  func.func @two_layers() {
    %w1 = dtf.variable "w1" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:0">} : !dtf.resource<tensor<4x3xf32>>
    %w2 = dtf.variable "w2" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:1">} : !dtf.resource<tensor<3x2xf32>>
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<5x4xf32>
    %r1 = dtf.read %w1 {dtf.device = #dtf.device<"/job:worker/task:0">} : !dtf.resource<tensor<4x3xf32>>
    %h = dtf.matmul %x, %r1 {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<5x4xf32>, tensor<4x3xf32>
    %a = dtf.relu %h {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<5x3xf32>
    %r2 = dtf.read %w2 {dtf.device = #dtf.device<"/job:worker/task:1">} : !dtf.resource<tensor<3x2xf32>>
    %y = dtf.matmul %a, %r2 {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<5x3xf32>, tensor<3x2xf32>
    %loss = dtf.reduce_sum %y : tensor<5x2xf32>
    dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
    return
  }
  // The second matmul's gradients (wrt %a and wrt w2) on worker 1, then the
  // relu's and the first matmul's on worker 0.
  // CHECK: dtf.matmul {{.*}} {dtf.device = #dtf.device<"/job:worker/task:1">, transpose_b = true}
  // CHECK: dtf.matmul {{.*}} {dtf.device = #dtf.device<"/job:worker/task:1">, transpose_a = true}
  // CHECK: dtf.relu_grad {{.*}} {dtf.device = #dtf.device<"/job:worker/task:0">}
  // CHECK: dtf.matmul {{.*}} {dtf.device = #dtf.device<"/job:worker/task:0">, transpose_a = true}
  // CHECK: dtf.apply_gradients

  // DEFAULT-NOT: dtf.relu_grad {{.*}}dtf.device
  // DEFAULT: dtf.apply_gradients

  // The backward pass starts beside a placed loss: the constant 1 it starts
  // from is not left for the worker-device.
  // CHECK-LABEL: func.func @placed_loss
  // DEFAULT-LABEL: func.func @placed_loss
  func.func @placed_loss() {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:1">} : !dtf.resource<tensor<3xf32>>
    %r = dtf.read %w {dtf.device = #dtf.device<"/job:worker/task:1">} : !dtf.resource<tensor<3xf32>>
    %loss = dtf.reduce_sum %r {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<3xf32>
    dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
    return
  }
  // CHECK: dtf.constant {dtf.device = #dtf.device<"/job:worker/task:1">} dense<1.000000e+00> : tensor<f32>
  // DEFAULT: dtf.constant dense<1.000000e+00> : tensor<f32>
}
