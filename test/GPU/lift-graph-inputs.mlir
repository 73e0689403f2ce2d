// RUN: dtf-opt --dtf-lift-graph-inputs --split-input-file %s | FileCheck %s
// RUN: dtf-opt --pass-pipeline='builtin.module(func.func(dtf-autodiff),dtf-lift-graph-inputs)' %examples/mnist_mlp.mlir | FileCheck %s --check-prefix=MLP

// Feeds and variable reads become read-only arguments after the existing
// ones, one per placeholder or variable name however often it is used; the
// variable, now unused, is erased.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: (%[[SCALE:.*]]: tensor<f32>,
// CHECK-SAME: %[[X:.*]]: tensor<4x3xf32> {bufferization.writable = false, dtf.feed = "x"},
// CHECK-SAME: %[[W:.*]]: tensor<3x2xf32> {bufferization.writable = false, dtf.variable = "w"})
// CHECK-SAME: -> tensor<4x2xf32>
// CHECK-NOT: dtf.variable "w"
// CHECK-NOT: dtf.placeholder
// CHECK-NOT: dtf.read
// CHECK: %[[Y:.*]] = dtf.matmul %[[X]], %[[W]]
// CHECK: %[[Z:.*]] = dtf.matmul %[[X]], %[[W]]
// CHECK: dtf.mul %[[Y]], %[[SCALE]]
func.func @forward(%scale: tensor<f32>) -> tensor<4x2xf32> {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3x2xf32>>
  %x = dtf.placeholder "x" : tensor<4x3xf32>
  %wv = dtf.read %w : !dtf.resource<tensor<3x2xf32>>
  %y = dtf.matmul %x, %wv : tensor<4x3xf32>, tensor<3x2xf32>
  %x2 = dtf.placeholder "x" : tensor<4x3xf32>
  %wv2 = dtf.read %w : !dtf.resource<tensor<3x2xf32>>
  %z = dtf.matmul %x2, %wv2 : tensor<4x3xf32>, tensor<3x2xf32>
  %s = dtf.mul %y, %scale : tensor<4x2xf32>, tensor<f32>
  %r = dtf.add %s, %z : tensor<4x2xf32>, tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

// The gradients dtf.apply_gradients hands to the optimizer become results,
// in its order, named by their variable; the optimizer is recorded on the
// function for the parameter server, and the global step, which only the
// update used, goes away.
// CHECK-LABEL: func.func @gradients
// CHECK-SAME: (%[[DW:.*]]: tensor<3xf32>, %[[DB:.*]]: tensor<3xf32>)
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32> {dtf.gradient = "w"}, tensor<3xf32> {dtf.gradient = "b"})
// CHECK-SAME: attributes {dtf.optimizer = #dtf.sgd<learning_rate = 0.5>}
// CHECK-NEXT: %[[LOSS:.*]] = dtf.constant
// CHECK-NEXT: return %[[LOSS]], %[[DW]], %[[DB]]
func.func @gradients(%dw: tensor<3xf32>, %db: tensor<3xf32>) -> tensor<f32> {
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %loss = dtf.constant dense<1.0> : tensor<f32>
  dtf.apply_gradients #dtf.sgd<learning_rate = 0.5>
      (%w, %b : !dtf.resource<tensor<3xf32>>, !dtf.resource<tensor<3xf32>>)
      grads(%dw, %db : tensor<3xf32>, tensor<3xf32>)
      global_step %step : !dtf.resource<tensor<i64>>
  return %loss : tensor<f32>
}

// The worker computation of the example model takes the feeds, then the
// variables in the order they are first read; the loss and accuracy, then
// the gradients of the trainable variables.
// MLP-LABEL: func.func @main
// MLP-SAME: {bufferization.writable = false, dtf.feed = "x"}
// MLP-SAME: {bufferization.writable = false, dtf.feed = "y_"}
// MLP-SAME: tensor<784x100xf32> {bufferization.writable = false, dtf.variable = "hid_w"}
// MLP-SAME: tensor<100xf32> {bufferization.writable = false, dtf.variable = "hid_b"}
// MLP-SAME: tensor<100x10xf32> {bufferization.writable = false, dtf.variable = "sm_w"}
// MLP-SAME: tensor<10xf32> {bufferization.writable = false, dtf.variable = "sm_b"}
// MLP-SAME: -> (tensor<f32>, tensor<f32>, tensor<784x100xf32> {dtf.gradient = "hid_w"}, tensor<100xf32> {dtf.gradient = "hid_b"}, tensor<100x10xf32> {dtf.gradient = "sm_w"}, tensor<10xf32> {dtf.gradient = "sm_b"})
// MLP-SAME: attributes {dtf.optimizer = #dtf.adam<learning_rate = 0.01>}
// MLP-NOT: dtf.variable
// MLP-NOT: dtf.apply_gradients
