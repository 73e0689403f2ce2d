// tf.nn.embedding_lookup_sparse on a SparseTensor input (the placeholders
// ids/indices, ids/values, ids/shape of tf.sparse_placeholder), each
// combiner without and with per-id weights: TensorFlow's SparseSegmentSum,
// SparseSegmentMean, SparseSegmentSqrtN of the table, and Unique, a Gather
// of the unique ids' rows and SegmentSum (DivNoNan for mean and sqrtn) with
// weights. Each is dtf.embedding_combine of dtf.embedding_lookup at one
// padded [batch, L] placeholder per SparseTensor ("ids", "weights"), L from
// --max-ids-per-example.
// RUN: dtf-translate --import-graphdef %S/Inputs/embedding_sparse.pbtxt --max-ids-per-example=3 | FileCheck %s

// CHECK:      %[[TABLE:.*]] = dtf.variable "table" {{.*}} : !dtf.resource<tensor<20x4xf32>>
// CHECK-NEXT: %[[IDS:.*]] = dtf.placeholder "ids" : tensor<?x3xi64>
// CHECK-NEXT: %[[R0:.*]] = dtf.embedding_lookup %[[TABLE]][%[[IDS]]] : !dtf.resource<tensor<20x4xf32>>, tensor<?x3xi64>
// CHECK-NEXT: %[[SUM:.*]] = dtf.embedding_combine sum %[[R0]], %[[IDS]] : tensor<?x3x4xf32>, tensor<?x3xi64>
// CHECK-NEXT: %[[W:.*]] = dtf.placeholder "weights" : tensor<?x3xf32>
// CHECK-NEXT: %[[R1:.*]] = dtf.embedding_lookup %[[TABLE]][%[[IDS]]]
// CHECK-NEXT: %[[SUMW:.*]] = dtf.embedding_combine sum %[[R1]], %[[IDS]] weights %[[W]] : tensor<?x3x4xf32>, tensor<?x3xi64>, tensor<?x3xf32>
// CHECK-NEXT: %[[R2:.*]] = dtf.embedding_lookup %[[TABLE]][%[[IDS]]]
// CHECK-NEXT: %[[MEAN:.*]] = dtf.embedding_combine mean %[[R2]], %[[IDS]] :
// CHECK-NEXT: %[[R3:.*]] = dtf.embedding_lookup %[[TABLE]][%[[IDS]]]
// CHECK-NEXT: %[[MEANW:.*]] = dtf.embedding_combine mean %[[R3]], %[[IDS]] weights %[[W]] :
// CHECK-NEXT: %[[R4:.*]] = dtf.embedding_lookup %[[TABLE]][%[[IDS]]]
// CHECK-NEXT: %[[SQRTN:.*]] = dtf.embedding_combine sqrtn %[[R4]], %[[IDS]] :
// CHECK-NEXT: %[[R5:.*]] = dtf.embedding_lookup %[[TABLE]][%[[IDS]]]
// CHECK-NEXT: %[[SQRTNW:.*]] = dtf.embedding_combine sqrtn %[[R5]], %[[IDS]] weights %[[W]] :
// CHECK-NEXT: dtf.concat %[[SUM]], %[[SUMW]], %[[MEAN]], %[[MEANW]], %[[SQRTN]], %[[SQRTNW]] axis 1
// CHECK: dtf.minimize {{.*}} #dtf.adagrad<learning_rate = 0.1>
