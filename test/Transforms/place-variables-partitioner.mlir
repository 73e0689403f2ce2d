// RUN: dtf-opt %s -split-input-file --dtf-place-variables | FileCheck %s
// A table with a dtf.partitioner is split by rows into that many shards,
// its colocated slots with it, each shard on the next PS task: a lookup
// becomes the sum of the shards' lookups (each gives the rows of its own
// ids, zeros for the others), a sparse update one update per shard of the
// rows of its ids. Both carry the #dtf.row_shard they address.

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"], worker = ["localhost:2223"]>} {
  // CHECK-LABEL: func.func @mod_table
  func.func @mod_table(%ids: tensor<4x3xi64>, %flat: tensor<12xi64>, %rows: tensor<12x8xf32>) -> tensor<4x3x8xf32> {
    %table = dtf.variable "table" init(#dtf.zeros) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = mod>} : !dtf.resource<tensor<11x8xf32>>
    %accum = dtf.variable "table/Adagrad" init(#dtf.constant<0.1>) colocate_with("table") {trainable = false} : !dtf.resource<tensor<11x8xf32>>
    %looked = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<11x8xf32>>, tensor<4x3xi64>
    dtf.sparse_apply_adagrad %table, %accum[%flat], %rows learning_rate 0.1 : !dtf.resource<tensor<11x8xf32>>, tensor<12xi64>, tensor<12x8xf32>
    return %looked : tensor<4x3x8xf32>
  }
}
// CHECK: %[[T0:.*]] = dtf.variable "table/part_0" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<6x8xf32>>
// CHECK-NEXT: %[[T1:.*]] = dtf.variable "table/part_1" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<5x8xf32>>
// CHECK-NEXT: %[[A0:.*]] = dtf.variable "table/Adagrad/part_0" {{.*}}colocate_with("table/part_0") {{.*}}"/job:ps/task:0"
// CHECK-NEXT: %[[A1:.*]] = dtf.variable "table/Adagrad/part_1" {{.*}}colocate_with("table/part_1") {{.*}}"/job:ps/task:1"
// CHECK-NEXT: %[[L0:.*]] = dtf.embedding_lookup %[[T0]][%arg0] {dtf.device = #dtf.device<"/job:ps/task:0">, shard = #dtf.row_shard<strategy = mod, shard = 0, num_shards = 2, rows = 11>}
// CHECK-NEXT: %[[L1:.*]] = dtf.embedding_lookup %[[T1]][%arg0] {dtf.device = #dtf.device<"/job:ps/task:1">, shard = #dtf.row_shard<strategy = mod, shard = 1, num_shards = 2, rows = 11>}
// CHECK-NEXT: %[[SUM:.*]] = dtf.add %[[L0]], %[[L1]]
// CHECK-NEXT: dtf.sparse_apply_adagrad %[[T0]], %[[A0]][%arg1], %arg2 learning_rate 1.000000e-01 {dtf.device = #dtf.device<"/job:ps/task:0">, shard = #dtf.row_shard<strategy = mod, shard = 0, num_shards = 2, rows = 11>}
// CHECK-NEXT: dtf.sparse_apply_adagrad %[[T1]], %[[A1]][%arg1], %arg2 learning_rate 1.000000e-01 {dtf.device = #dtf.device<"/job:ps/task:1">, shard = #dtf.row_shard<strategy = mod, shard = 1, num_shards = 2, rows = 11>}
// CHECK-NEXT: return %[[SUM]]

// -----

// With div each shard is a range of ids, so a whole read still works: it
// joins the shards.
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"], worker = ["localhost:2223"]>} {
  // CHECK-LABEL: func.func @div_table
  func.func @div_table(%ids: tensor<4xi64>) -> (tensor<4x8xf32>, tensor<11x8xf32>) {
    %table = dtf.variable "table" init(#dtf.zeros) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = div>} : !dtf.resource<tensor<11x8xf32>>
    %looked = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<11x8xf32>>, tensor<4xi64>
    %whole = dtf.read %table : !dtf.resource<tensor<11x8xf32>>
    return %looked, %whole : tensor<4x8xf32>, tensor<11x8xf32>
  }
}
// CHECK: dtf.embedding_lookup {{.*}}shard = #dtf.row_shard<strategy = div, shard = 0, num_shards = 2, rows = 11>}
// CHECK: dtf.embedding_lookup {{.*}}shard = #dtf.row_shard<strategy = div, shard = 1, num_shards = 2, rows = 11>}
// CHECK: dtf.concat {{.*}} axis 0 {{.*}}: tensor<6x8xf32>, tensor<5x8xf32>

// -----

// A dynamic table's shards split its id space, [0, 2^63 - 1), by mod: each
// holds whichever of its ids are met, so each shard's rows stay dynamic,
// and its slots follow it.
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"], worker = ["localhost:2223"]>} {
  // CHECK-LABEL: func.func @dynamic_table
  func.func @dynamic_table(%ids: tensor<4xi64>, %grad: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %table = dtf.variable "table" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table<min_count = 2>, dtf.partitioner = #dtf.partitioner<shards = 2, strategy = mod>} : !dtf.resource<tensor<?x8xf32>>
    %accum = dtf.variable "table/Adagrad" init(#dtf.constant<0.1>) colocate_with("table") {trainable = false} : !dtf.resource<tensor<?x8xf32>>
    %looked = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<?x8xf32>>, tensor<4xi64>
    dtf.sparse_apply_adagrad %table, %accum[%ids], %grad learning_rate 0.1 : !dtf.resource<tensor<?x8xf32>>, tensor<4xi64>, tensor<4x8xf32>
    return %looked : tensor<4x8xf32>
  }
}
// CHECK: dtf.variable "table/part_0" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, dtf.dynamic_table = #dtf.dynamic_table<min_count = 2>} : !dtf.resource<tensor<?x8xf32>>
// CHECK-NEXT: dtf.variable "table/part_1" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">, dtf.dynamic_table = #dtf.dynamic_table<min_count = 2>} : !dtf.resource<tensor<?x8xf32>>
// CHECK-NEXT: dtf.variable "table/Adagrad/part_0" {{.*}}colocate_with("table/part_0") {{.*}}"/job:ps/task:0"{{.*}}tensor<?x8xf32>
// CHECK-NEXT: dtf.variable "table/Adagrad/part_1" {{.*}}colocate_with("table/part_1") {{.*}}"/job:ps/task:1"{{.*}}tensor<?x8xf32>
// CHECK-NEXT: dtf.embedding_lookup {{.*}}shard = #dtf.row_shard<strategy = mod, shard = 0, num_shards = 2, rows = 9223372036854775807>}
// CHECK-NEXT: dtf.embedding_lookup {{.*}}shard = #dtf.row_shard<strategy = mod, shard = 1, num_shards = 2, rows = 9223372036854775807>}
