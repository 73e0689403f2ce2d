// RUN: dtf-opt %s | dtf-opt | FileCheck %s
// A dynamic table round-trips: its type's first dimension is dynamic, its
// min_count defaults to 1, its slots follow it, and lookups and sparse
// updates address it by ids.

// CHECK-LABEL: func.func @dynamic_table
func.func @dynamic_table(%ids: tensor<4x3xi64>, %flat: tensor<12xi64>, %grad: tensor<12x8xf32>) -> tensor<4x3x8xf32> {
  // CHECK: dtf.variable "t" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table} : !dtf.resource<tensor<?x8xf32>>
  %t = dtf.variable "t" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table} : !dtf.resource<tensor<?x8xf32>>
  // CHECK: dtf.variable "u" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table<min_count = 3>} : !dtf.resource<tensor<?x8xf32>>
  %u = dtf.variable "u" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table<min_count = 3>} : !dtf.resource<tensor<?x8xf32>>
  // CHECK: dtf.variable "t/Adagrad" init(#dtf.constant<0.1>) colocate_with("t") {trainable = false} : !dtf.resource<tensor<?x8xf32>>
  %acc = dtf.variable "t/Adagrad" init(#dtf.constant<0.1>) colocate_with("t") {trainable = false} : !dtf.resource<tensor<?x8xf32>>
  // CHECK: dtf.embedding_lookup %{{.*}}[%{{.*}}] : !dtf.resource<tensor<?x8xf32>>, tensor<4x3xi64>
  %rows = dtf.embedding_lookup %t[%ids] : !dtf.resource<tensor<?x8xf32>>, tensor<4x3xi64>
  // CHECK: dtf.sparse_apply_adagrad
  dtf.sparse_apply_adagrad %t, %acc[%flat], %grad learning_rate 0.1 : !dtf.resource<tensor<?x8xf32>>, tensor<12xi64>, tensor<12x8xf32>
  return %rows : tensor<4x3x8xf32>
}
