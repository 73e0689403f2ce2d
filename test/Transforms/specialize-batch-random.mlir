// RUN: dtf-opt --dtf-specialize-batch=batch-size=32 %s | FileCheck %s

// tf.nn.dropout's mask is sampled in the shape of its input: its unknown
// dimension is the batch.
// CHECK-LABEL: func.func @dropout() -> tensor<32x8xf32>
// CHECK:         %[[U:.*]] = dtf.random_uniform seed 3 : tensor<32x8xf32>
// CHECK:         dtf.greater_equal %[[U]], %{{.*}} : tensor<32x8xf32>, tensor<f32>
// CHECK:         dtf.select %{{.*}} : tensor<32x8xi1>, tensor<32x8xf32>, tensor<f32>{{$}}
func.func @dropout() -> tensor<?x8xf32> {
  %x = dtf.placeholder "x" : tensor<?x8xf32>
  %u = dtf.random_uniform seed 3 : tensor<?x8xf32>
  %rate = dtf.constant dense<0.2> : tensor<f32>
  %keep = dtf.greater_equal %u, %rate : tensor<?x8xf32>, tensor<f32>
  %zero = dtf.constant dense<0.0> : tensor<f32>
  %dropped = dtf.select %keep, %x, %zero : tensor<?x8xi1>, tensor<?x8xf32>, tensor<f32>
  return %dropped : tensor<?x8xf32>
}
