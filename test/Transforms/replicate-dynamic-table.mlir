// RUN: dtf-opt --dtf-replicate %s | FileCheck %s
// A dynamic table has no rows to check ids against: its pull carries no
// table_rows, and the PS function updates it by the pushed ids.
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2224"]>} {
  func.func @main() -> tensor<f32> {
    %table = dtf.variable "hashed" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table, dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<?x8xf32>>
    %ids = dtf.placeholder "ids" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<12xi64>
    %rows = dtf.embedding_lookup %table[%ids] {dtf.device = #dtf.device<"/job:worker/task:0">} : !dtf.resource<tensor<?x8xf32>>, tensor<12xi64>
    %loss = dtf.reduce_sum %rows {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<12x8xf32>
    dtf.sparse_apply_gradient_descent %table[%ids], %rows learning_rate 0.1 {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<?x8xf32>>, tensor<12xi64>, tensor<12x8xf32>
    return %loss : tensor<f32>
  }
}
// CHECK: dtf.sparse_gradients = ["hashed"]
// CHECK: dtf.variable "hashed" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table} : !dtf.resource<tensor<?x8xf32>>
// CHECK: dtf.sparse_apply_gradient_descent %{{.*}}[%arg0], %arg1 learning_rate 1.000000e-01 : !dtf.resource<tensor<?x8xf32>>, tensor<?xi64>, tensor<?x8xf32>
// CHECK-LABEL: func.func @worker
// CHECK: dtf.pull_rows "hashed" from "/job:ps/task:0" [%{{.*}}] : tensor<12xi64> -> tensor<12x8xf32>
