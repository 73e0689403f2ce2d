// A small Wide & Deep as a tf.compat.v1 script writes it (resource
// variables on 2 PS tasks by replica_device_setter): the wide part (a
// weight table per categorical feature, looked up by embedding_lookup_sparse
// "sum", dense weights and a bias) trained by FtrlOptimizer, the deep part
// (embedding tables split by fixed_size_partitioner(2), "mod", combined by
// "sqrtn", relu layers) by AdagradOptimizer, the two train ops grouped with
// the global step's increment, returning the probabilities and the labels
// whose AUC validation reports (--auc). One dtf.minimize with the optimizer of most
// variables (Adagrad); the FTRL variables carry theirs as dtf.optimizer.
// The training pipeline makes it the row-wise program: each shard's and
// table's rows pulled by the ids of the batch (dtf.pull_rows), their
// gradients pushed as sparse segments, updated by sparse Adagrad and FTRL.
// RUN: dtf-translate --import-graphdef %S/Inputs/wide_deep.pbtxt --max-ids-per-example=5 --auc=probabilities,label | FileCheck %s
// One input may get its own L (NAME=L) beside the default:
// RUN: dtf-translate --import-graphdef %S/Inputs/wide_deep.pbtxt --max-ids-per-example=5,c1=3 --auc=probabilities,label | FileCheck %s --check-prefix=OWN
// OWN: dtf.placeholder "c0" : tensor<?x5xi64>
// OWN: dtf.placeholder "c1" : tensor<?x3xi64>
// RUN: dtf-translate --import-graphdef %S/Inputs/wide_deep.pbtxt --max-ids-per-example=5 --auc=probabilities,label \
// RUN:   | dtf-opt --dtf-training-pipeline=batch-size=4 | FileCheck %s --check-prefix=PIPELINE

// CHECK:      module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2223"], worker = ["localhost:2224"]>}
// CHECK:      func.func @main() -> (tensor<f32>, tensor<?x1xf32>, tensor<?x1xf32>) attributes {dtf.auc = array<i64: 1, 2>, dtf.result_names = ["loss", "probabilities", "label"]}
// CHECK-NEXT: %[[STEP:.*]] = dtf.variable "global_step" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<i64>>
// CHECK-NEXT: %[[EMB0:.*]] = dtf.variable "dnn/c0/embedding" init(#dtf.truncated_normal<stddev = 0.25, seed = 1>) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = mod>} : !dtf.resource<tensor<13334x8xf32>>
// CHECK-NEXT: %[[EMB1:.*]] = dtf.variable "dnn/c1/embedding" {{.*}} {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = mod>} : !dtf.resource<tensor<6666x8xf32>>
// CHECK:      dtf.variable "dnn/logits/bias" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<1xf32>>
// CHECK-NEXT: dtf.variable "linear/dense/weights" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">, dtf.optimizer = #dtf.ftrl<learning_rate = 0.1, l1 = 0.001>} : !dtf.resource<tensor<13x1xf32>>
// CHECK-NEXT: %[[W0:.*]] = dtf.variable "linear/c0/weights" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, dtf.optimizer = #dtf.ftrl<learning_rate = 0.1, l1 = 0.001>} : !dtf.resource<tensor<13334x1xf32>>
// CHECK:      %[[C0:.*]] = dtf.placeholder "c0" : tensor<?x5xi64>
// CHECK-NEXT: %[[WROWS:.*]] = dtf.embedding_lookup %[[W0]][%[[C0]]] : !dtf.resource<tensor<13334x1xf32>>, tensor<?x5xi64>
// CHECK-NEXT: dtf.embedding_combine sum %[[WROWS]], %[[C0]] : tensor<?x5x1xf32>, tensor<?x5xi64>
// CHECK:      %[[ROWS:.*]] = dtf.embedding_lookup %[[EMB0]][%[[C0]]] : !dtf.resource<tensor<13334x8xf32>>, tensor<?x5xi64>
// CHECK-NEXT: dtf.embedding_combine sqrtn %[[ROWS]], %[[C0]] : tensor<?x5x8xf32>, tensor<?x5xi64>
// CHECK:      %[[LOGITS:.*]] = dtf.add
// CHECK-NEXT: %[[LABEL:.*]] = dtf.placeholder "label" : tensor<?x1xf32>
// CHECK-NEXT: %[[XENT:.*]] = dtf.sigmoid_cross_entropy_with_logits %[[LOGITS]], %[[LABEL]]
// CHECK-NEXT: %[[LOSS:.*]] = dtf.reduce_mean %[[XENT]]
// CHECK-NEXT: %[[P:.*]] = dtf.sigmoid %[[LOGITS]]
// CHECK-NEXT: dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.adagrad<learning_rate = 0.05> global_step %[[STEP]]
// CHECK-NEXT: return %[[LOSS]], %[[P]], %[[LABEL]]

// PIPELINE-LABEL: func.func @ps_0
// PIPELINE-DAG: dtf.sparse_apply_adagrad {{.*}} : !dtf.resource<tensor<6667x8xf32>>
// PIPELINE-DAG: dtf.sparse_apply_adagrad {{.*}} : !dtf.resource<tensor<3333x8xf32>>
// PIPELINE-DAG: dtf.sparse_apply_ftrl {{.*}} learning_rate 1.000000e-01 power -5.000000e-01 l1 1.000000e-03 l2 0.000000e+00 l2_shrinkage 0.000000e+00 : !dtf.resource<tensor<13334x1xf32>>
// PIPELINE-LABEL: func.func @ps_1
// PIPELINE-DAG: dtf.sparse_apply_adagrad {{.*}} : !dtf.resource<tensor<6667x8xf32>>
// PIPELINE-DAG: dtf.sparse_apply_ftrl {{.*}} : !dtf.resource<tensor<6666x1xf32>>
// PIPELINE-DAG: dtf.apply_ftrl {{.*}} : !dtf.resource<tensor<13x1xf32>>
// PIPELINE-LABEL: func.func @worker
// PIPELINE: %[[C0:.*]] = dtf.placeholder "c0" : tensor<4x5xi64>
// PIPELINE: dtf.pull_rows "linear/c0/weights" from "/job:ps/task:0" [%[[C0]]] {table_rows = 13334 : i64} : tensor<4x5xi64> -> tensor<4x5x1xf32>
// PIPELINE: dtf.pull_rows "dnn/c0/embedding/part_0" from "/job:ps/task:0" [%[[C0]]] {shard = #dtf.row_shard<strategy = mod, shard = 0, num_shards = 2, rows = 13334>, table_rows = 13334 : i64}
// PIPELINE: dtf.pull_rows "dnn/c0/embedding/part_1" from "/job:ps/task:1" [%[[C0]]] {shard = #dtf.row_shard<strategy = mod, shard = 1, num_shards = 2, rows = 13334>, table_rows = 13334 : i64}
// PIPELINE-NOT: dtf.pull "dnn/c0/embedding
// PIPELINE: dtf.push_gradients to "/job:ps/task:0" {{.*}} sparse({{.*}}) rows({{.*}}) {{.*}}sparse_names = ["dnn/c0/embedding/part_0", "dnn/c1/embedding/part_0", "linear/c0/weights"]
// PIPELINE: dtf.push_gradients to "/job:ps/task:1" {{.*}} sparse({{.*}}) rows({{.*}}) {{.*}}sparse_names = ["dnn/c0/embedding/part_1", "dnn/c1/embedding/part_1", "linear/c1/weights"]
