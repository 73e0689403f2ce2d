// RUN: dtf-opt --dtf-training-pipeline %s | FileCheck %s
// RUN: dtf-opt --dtf-training-pipeline --dtf-lift-ps-transfers %s | FileCheck %s --check-prefix=LIFTED
// A table split by rows over two PS tasks: each task's function updates its
// shard at local rows (no #dtf.row_shard there); the worker pulls the rows
// of each shard by the ids of the whole table and pushes each shard the
// sparse gradient with the shard it addresses (sparse_shards), which the
// runtime turns into the rows of that shard's own ids.

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"], worker = ["localhost:2223"]>} {
  func.func @main() -> tensor<f32> {
    %table = dtf.variable "table" init(#dtf.zeros) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = mod>} : !dtf.resource<tensor<11x8xf32>>
    %ids = dtf.placeholder "ids" : tensor<4x3xi64>
    %rows = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<11x8xf32>>, tensor<4x3xi64>
    %loss = dtf.reduce_sum %rows : tensor<4x3x8xf32>
    dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
    return %loss : tensor<f32>
  }
}
// CHECK-LABEL: func.func @ps_0
// CHECK-SAME: dtf.sparse_gradients = ["table/part_0"]
// CHECK: dtf.sparse_apply_gradient_descent %{{.*}}[%arg0], %arg1 learning_rate 5.000000e-01 : !dtf.resource<tensor<6x8xf32>>
// CHECK-LABEL: func.func @ps_1
// CHECK-SAME: dtf.sparse_gradients = ["table/part_1"]
// CHECK: dtf.sparse_apply_gradient_descent %{{.*}}[%arg0], %arg1 learning_rate 5.000000e-01 : !dtf.resource<tensor<5x8xf32>>
// CHECK-LABEL: func.func @worker
// CHECK: %[[IDS:.*]] = dtf.placeholder "ids"
// CHECK: dtf.pull_rows "table/part_0" from "/job:ps/task:0" [%[[IDS]]] {shard = #dtf.row_shard<strategy = mod, shard = 0, num_shards = 2, rows = 11>, table_rows = 11 : i64}
// CHECK: dtf.pull_rows "table/part_1" from "/job:ps/task:1" [%[[IDS]]] {shard = #dtf.row_shard<strategy = mod, shard = 1, num_shards = 2, rows = 11>, table_rows = 11 : i64}
// CHECK: dtf.push_gradients to "/job:ps/task:0" {{.*}}{sparse_names = ["table/part_0"], sparse_shards = [#dtf.row_shard<strategy = mod, shard = 0, num_shards = 2, rows = 11>]}
// CHECK: dtf.push_gradients to "/job:ps/task:1" {{.*}}{sparse_names = ["table/part_1"], sparse_shards = [#dtf.row_shard<strategy = mod, shard = 1, num_shards = 2, rows = 11>]}

// LIFTED-LABEL: func.func @worker
// LIFTED-SAME: dtf.pushes = [{device = #dtf.device<"/job:ps/task:0">, names = [], sparse_names = ["table/part_0"], sparse_shards = [#dtf.row_shard<strategy = mod, shard = 0, num_shards = 2, rows = 11>]}, {device = #dtf.device<"/job:ps/task:1">, names = [], sparse_names = ["table/part_1"], sparse_shards = [#dtf.row_shard<strategy = mod, shard = 1, num_shards = 2, rows = 11>]}]
