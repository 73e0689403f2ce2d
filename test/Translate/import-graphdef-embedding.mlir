// tf.nn.embedding_lookup of an int64 placeholder on one table, trained by
// AdagradOptimizer (SparseApplyAdagrad of the deduplicated IndexedSlices):
// a dtf.embedding_lookup of the table variable, Adagrad with the slot's
// initial accumulator value, tf.nn.sigmoid_cross_entropy_with_logits (a
// subgraph of Select, Log1p, Exp in TensorFlow) as one op, and tf.sigmoid.
// (Inputs/make_embedding_graphs.py writes the GraphDef.)
// RUN: dtf-translate --import-graphdef %S/Inputs/embedding.pbtxt --outputs=probabilities | FileCheck %s

// CHECK:      %[[STEP:.*]] = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// CHECK-NEXT: %[[TABLE:.*]] = dtf.variable "table" init(#dtf.truncated_normal<stddev = 0.1, seed = 1>) : !dtf.resource<tensor<20x4xf32>>
// CHECK-NEXT: %[[IDS:.*]] = dtf.placeholder "ids" : tensor<?x3xi64>
// CHECK-NEXT: %[[ROWS:.*]] = dtf.embedding_lookup %[[TABLE]][%[[IDS]]] : !dtf.resource<tensor<20x4xf32>>, tensor<?x3xi64>
// CHECK-NEXT: %[[SUM:.*]] = dtf.reduce_sum %[[ROWS]] {axes = array<i64: 2>}
// CHECK-NEXT: %[[LOGITS:.*]] = dtf.reduce_sum %[[SUM]] {axes = array<i64: 1>, keep_dims = true}
// CHECK-NEXT: %[[LABEL:.*]] = dtf.placeholder "label" : tensor<?x1xf32>
// CHECK-NEXT: %[[XENT:.*]] = dtf.sigmoid_cross_entropy_with_logits %[[LOGITS]], %[[LABEL]] : tensor<?x1xf32>
// CHECK-NEXT: %[[LOSS:.*]] = dtf.reduce_mean %[[XENT]]
// CHECK-NEXT: %[[P:.*]] = dtf.sigmoid %[[LOGITS]] : tensor<?x1xf32>
// CHECK-NEXT: dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.adagrad<learning_rate = 0.1> global_step %[[STEP]]
// CHECK-NEXT: return %[[LOSS]], %[[P]]
