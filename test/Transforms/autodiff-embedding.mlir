// RUN: dtf-opt --dtf-autodiff %s | FileCheck %s
// The gradient of a table looked up by rows stays sparse: the ids
// flattened and one row of the lookup's gradient per id (TensorFlow's
// IndexedSlices), two lookups of one table concatenated; embedding_combine,
// sigmoid and the logistic loss differentiate as TensorFlow's rules do.

// CHECK-LABEL: func.func @wide_and_deep
func.func @wide_and_deep() -> tensor<f32> {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<1000x8xf32>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<8x1xf32>>
  %ids = dtf.placeholder "ids" : tensor<4x3xi64>
  %user = dtf.placeholder "user" : tensor<4xi32>
  %y = dtf.placeholder "y" : tensor<4x1xf32>
  %rows = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<1000x8xf32>>, tensor<4x3xi64>
  %e = dtf.embedding_combine mean %rows, %ids : tensor<4x3x8xf32>, tensor<4x3xi64>
  %u = dtf.embedding_lookup %table[%user] : !dtf.resource<tensor<1000x8xf32>>, tensor<4xi32>
  %h = dtf.add %e, %u : tensor<4x8xf32>, tensor<4x8xf32>
  %wv = dtf.read %w : !dtf.resource<tensor<8x1xf32>>
  %logits = dtf.matmul %h, %wv : tensor<4x8xf32>, tensor<8x1xf32>
  %p = dtf.sigmoid %logits : tensor<4x1xf32>
  %xent = dtf.sigmoid_cross_entropy_with_logits %logits, %y : tensor<4x1xf32>
  %both = dtf.add %xent, %p : tensor<4x1xf32>, tensor<4x1xf32>
  %loss = dtf.reduce_mean %both : tensor<4x1xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.adagrad<learning_rate = 0.1>
  return %loss : tensor<f32>
}
// CHECK-DAG: %[[TABLE:.*]] = dtf.variable "table"
// CHECK-DAG: %[[W:.*]] = dtf.variable "w"
// CHECK-DAG: %[[IDS:.*]] = dtf.placeholder "ids"
// CHECK-DAG: %[[USER:.*]] = dtf.placeholder "user"
// CHECK: %[[LOGITS:.*]] = dtf.matmul
// CHECK: %[[P:.*]] = dtf.sigmoid %[[LOGITS]]
// CHECK-DAG: dtf.sigmoid_grad %[[P]], %{{.*}} : tensor<4x1xf32>
// CHECK-DAG: dtf.sigmoid_cross_entropy_with_logits_grad %{{.*}}, %[[LOGITS]], %{{.*}} : tensor<4x1xf32>
// CHECK: %[[DH:.*]] = dtf.matmul %{{.*}}, %{{.*}} {transpose_b = true}
// CHECK: %[[USERIDS:.*]] = dtf.cast %[[USER]] : tensor<4xi32> to tensor<4xi64>
// CHECK: %[[DROWS:.*]] = dtf.embedding_combine_grad mean %[[DH]], %[[IDS]] : tensor<4x8xf32>, tensor<4x3xi64> -> tensor<4x3x8xf32>
// CHECK: %[[FLATIDS:.*]] = dtf.reshape %[[IDS]] : tensor<4x3xi64> -> tensor<12xi64>
// CHECK: %[[FLATROWS:.*]] = dtf.reshape %[[DROWS]] : tensor<4x3x8xf32> -> tensor<12x8xf32>
// CHECK: %[[ALLIDS:.*]] = dtf.concat %[[USERIDS]], %[[FLATIDS]] axis 0 : tensor<4xi64>, tensor<12xi64>
// CHECK: %[[ALLROWS:.*]] = dtf.concat %[[DH]], %[[FLATROWS]] axis 0 : tensor<4x8xf32>, tensor<12x8xf32>
// CHECK: dtf.apply_gradients #dtf.adagrad<learning_rate = 0.1>(%[[W]] : !dtf.resource<tensor<8x1xf32>>) grads(%{{.*}} : tensor<8x1xf32>) sparse(%[[TABLE]] : !dtf.resource<tensor<1000x8xf32>>) ids(%[[ALLIDS]] : tensor<16xi64>) rows(%[[ALLROWS]] : tensor<16x8xf32>)
// CHECK-NOT: dtf.embedding_lookup
// CHECK: return

// A table of no trainable variable gets no gradient, and nothing is
// emitted for the lookup of a non-trainable one.
// CHECK-LABEL: func.func @frozen_table
func.func @frozen_table() -> tensor<f32> {
  %table = dtf.variable "table" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<10x2xf32>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  %ids = dtf.placeholder "ids" : tensor<4xi64>
  %rows = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<10x2xf32>>, tensor<4xi64>
  %wv = dtf.read %w : !dtf.resource<tensor<2xf32>>
  %s = dtf.mul %rows, %wv : tensor<4x2xf32>, tensor<2xf32>
  %loss = dtf.reduce_sum %s : tensor<4x2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}
// CHECK: dtf.apply_gradients #dtf.sgd<learning_rate = 0.1>(%{{.*}} : !dtf.resource<tensor<2xf32>>) grads(%{{.*}} : tensor<2xf32>){{$}}
