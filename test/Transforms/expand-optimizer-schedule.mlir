// RUN: dtf-opt --dtf-expand-optimizer --split-input-file %s | FileCheck %s

// An optimizer's learning-rate schedule goes to each of its updates, dense
// and sparse, which evaluate it at the global step of the update.
// CHECK-LABEL: func.func @momentum
// CHECK-SAME: (%[[DW:.*]]: tensor<2xf32>)
// CHECK:      dtf.apply_momentum %{{.*}}, %{{.*}}, %[[DW]] learning_rate 5.000000e-02 momentum 9.000000e-01 schedule(#dtf.exponential_decay<decay_steps = 1000.0, decay_rate = 0.9, staircase = true>) : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT: %[[ONE:.*]] = dtf.constant dense<1> : tensor<i64>
// CHECK-NEXT: dtf.assign_add %{{.*}}, %[[ONE]]
func.func @momentum(%dw: tensor<2xf32>) {
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  dtf.apply_gradients #dtf.momentum<learning_rate = 0.05, momentum = 0.9, schedule = #dtf.exponential_decay<decay_steps = 1000.0, decay_rate = 0.9, staircase = true>> (%w : !dtf.resource<tensor<2xf32>>) grads(%dw : tensor<2xf32>) global_step %step : !dtf.resource<tensor<i64>>
  return
}

// -----

// CHECK-LABEL: func.func @adagrad_rows
// CHECK: dtf.apply_adagrad %{{.*}}, %{{.*}}, %{{.*}} learning_rate 1.000000e-01 schedule(#dtf.cosine_decay<decay_steps = 100.0>) :
// CHECK: dtf.sparse_apply_adagrad %{{.*}}, %{{.*}}[%{{.*}}], %{{.*}} learning_rate 1.000000e-01 schedule(#dtf.cosine_decay<decay_steps = 100.0>) :
func.func @adagrad_rows(%ids: tensor<3xi64>, %rows: tensor<3x4xf32>, %dw: tensor<2xf32>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<10x4xf32>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  dtf.apply_gradients #dtf.adagrad<learning_rate = 0.1, schedule = #dtf.cosine_decay<decay_steps = 100.0>> (%w : !dtf.resource<tensor<2xf32>>) grads(%dw : tensor<2xf32>)
      sparse(%table : !dtf.resource<tensor<10x4xf32>>) ids(%ids : tensor<3xi64>) rows(%rows : tensor<3x4xf32>)
  return
}
