// RUN: dtf-opt --dtf-replicate -split-input-file %s | FileCheck %s
// RUN: dtf-opt --dtf-replicate="mode=sync replicas-to-aggregate=2 total-replicas=2" -split-input-file %s | FileCheck %s --check-prefix=SYNC
// A table looked up by rows stays on its PS task: the worker pulls the rows
// of its ids (dtf.pull_rows) and pushes its sparse gradient as ids and rows;
// the PS function takes them with a dynamic number of ids. In sync mode the
// replicas' sparse gradients are concatenated and averaged per id over the
// replicas that touched it (SparseConditionalAccumulator).

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2223"], worker = ["localhost:2224", "localhost:2225"]>} {
  func.func @main() -> (tensor<f32>, tensor<4x1xf32>, tensor<4x1xf32>) attributes {dtf.auc = array<i64: 1, 2>} {
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false, dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<i64>>
    %table = dtf.variable "table" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<1000x8xf32>>
    %accum = dtf.variable "table/Adagrad" init(#dtf.constant<0.1>) colocate_with("table") {trainable = false, dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<1000x8xf32>>
    %ids = dtf.placeholder "ids" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xi64>
    %y = dtf.placeholder "y" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x1xf32>
    %rows = dtf.embedding_lookup %table[%ids] {dtf.device = #dtf.device<"/job:worker/task:0">} : !dtf.resource<tensor<1000x8xf32>>, tensor<4x3xi64>
    %e = dtf.embedding_combine sum %rows, %ids {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3x8xf32>, tensor<4x3xi64>
    %logits = dtf.reduce_sum %e {axes = array<i64: 1>, keep_dims = true, dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x8xf32>
    %p = dtf.sigmoid %logits {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x1xf32>
    %flat = dtf.reshape %ids {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xi64> -> tensor<12xi64>
    %grows = dtf.constant {dtf.device = #dtf.device<"/job:worker/task:0">} dense<1.0> : tensor<12x8xf32>
    %loss = dtf.reduce_mean %p {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x1xf32>
    dtf.sparse_apply_adagrad %table, %accum[%flat], %grows learning_rate 0.1 {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<1000x8xf32>>, tensor<12xi64>, tensor<12x8xf32>
    %one = dtf.constant {dtf.device = #dtf.device<"/job:ps/task:0">} dense<1> : tensor<i64>
    dtf.assign_add %step, %one {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<i64>>
    return %loss, %p, %y : tensor<f32>, tensor<4x1xf32>, tensor<4x1xf32>
  }
}
// CHECK-LABEL: func.func @ps_1
// CHECK-SAME: (%[[IDS:.*]]: tensor<?xi64>, %[[ROWS:.*]]: tensor<?x8xf32>)
// CHECK-SAME: dtf.gradients = [], dtf.sparse_gradients = ["table"]
// CHECK: dtf.sparse_apply_adagrad %{{.*}}, %{{.*}}[%[[IDS]]], %[[ROWS]] learning_rate 1.000000e-01 : !dtf.resource<tensor<1000x8xf32>>, tensor<?xi64>, tensor<?x8xf32>
// CHECK-LABEL: func.func @worker
// CHECK-SAME: attributes {dtf.auc = array<i64: 1, 2>}
// CHECK-NOT: dtf.pull "table"
// CHECK: %[[STEP:.*]] = dtf.pull "global_step" from "/job:ps/task:0"
// CHECK: %[[WIDS:.*]] = dtf.placeholder "ids"
// CHECK: %[[PULLED:.*]] = dtf.pull_rows "table" from "/job:ps/task:1" [%[[WIDS]]] {table_rows = 1000 : i64} : tensor<4x3xi64> -> tensor<4x3x8xf32>
// CHECK: dtf.embedding_combine sum %[[PULLED]], %[[WIDS]]
// CHECK: %[[FLAT:.*]] = dtf.reshape %[[WIDS]]
// CHECK: %[[GROWS:.*]] = dtf.constant dense<1.000000e+00> : tensor<12x8xf32>
// CHECK: dtf.push_gradients to "/job:ps/task:0" step %[[STEP]] () : tensor<i64>
// CHECK: dtf.push_gradients to "/job:ps/task:1" step %[[STEP]] () sparse(%[[FLAT]] : tensor<12xi64>) rows(%[[GROWS]] : tensor<12x8xf32>) {sparse_names = ["table"]} : tensor<i64>

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2224", "localhost:2225"]>} {
  func.func @main() -> tensor<f32> {
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false, dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<i64>>
    %table = dtf.variable "sync_table" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<1000x8xf32>>
    %ids = dtf.placeholder "ids" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<12xi64>
    %rows = dtf.embedding_lookup %table[%ids] {dtf.device = #dtf.device<"/job:worker/task:0">} : !dtf.resource<tensor<1000x8xf32>>, tensor<12xi64>
    %loss = dtf.reduce_sum %rows {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<12x8xf32>
    dtf.sparse_apply_gradient_descent %table[%ids], %rows learning_rate 0.1 {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<1000x8xf32>>, tensor<12xi64>, tensor<12x8xf32>
    %one = dtf.constant {dtf.device = #dtf.device<"/job:ps/task:0">} dense<1> : tensor<i64>
    dtf.assign_add %step, %one {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<i64>>
    return %loss : tensor<f32>
  }
}
// SYNC: func.func @ps_0(%[[IDS0:[^:]*]]: tensor<?xi64>, %[[ROWS0:[^:]*]]: tensor<?x8xf32>, %[[IDS1:[^:]*]]: tensor<?xi64>, %[[ROWS1:[^:]*]]: tensor<?x8xf32>) {{.*}}dtf.sparse_gradients = ["sync_table"]
// SYNC: %[[ALLIDS:.*]] = dtf.concat %[[IDS0]], %[[IDS1]] axis 0
// SYNC: %[[ALLROWS:.*]] = dtf.concat %[[ROWS0]], %[[ROWS1]] axis 0
// SYNC: %[[MEAN:.*]] = dtf.divide_by_id_count %[[ALLROWS]], %[[ALLIDS]] : tensor<?x8xf32>, tensor<?xi64>
// SYNC: dtf.sparse_apply_gradient_descent %{{.*}}[%[[ALLIDS]]], %[[MEAN]] learning_rate 1.000000e-01 : !dtf.resource<tensor<1000x8xf32>>, tensor<?xi64>, tensor<?x8xf32>
