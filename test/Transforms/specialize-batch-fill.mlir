// RUN: dtf-opt --dtf-specialize-batch=batch-size=32 %s | FileCheck %s

// tf.ones_like and an RNN's zero state are imported as a broadcast to a
// shape computed from a batch's: its unknown dimension is the batch.
// CHECK-LABEL: func.func @fill() -> (tensor<32x3xf32>, tensor<f32>)
// CHECK:         dtf.placeholder "x" : tensor<32x3xf32>
// CHECK:         dtf.broadcast_to %{{.*}} : tensor<f32> -> tensor<32x8xf32>
// CHECK:         dtf.reduce_sum %{{.*}} : tensor<32x8xf32>
func.func @fill() -> (tensor<?x3xf32>, tensor<f32>) {
  %x = dtf.placeholder "x" : tensor<?x3xf32>
  %zero = dtf.constant dense<0.0> : tensor<f32>
  %state = dtf.broadcast_to %zero : tensor<f32> -> tensor<?x8xf32>
  %sum = dtf.reduce_sum %state : tensor<?x8xf32>
  return %x, %sum : tensor<?x3xf32>, tensor<f32>
}
