// RUN: dtf-opt --dtf-expand-optimizer --split-input-file %s | FileCheck %s
// Sparse gradients become the sparse updates of TensorFlow's optimizers:
// the rows of the ids only, and of their slots' rows (Adagrad's
// accumulator, lazy Adam's moments), with the slots named as TensorFlow
// names them.

// CHECK-LABEL: func.func @adagrad
func.func @adagrad(%ids: tensor<12xi64>, %rows: tensor<12x8xf32>, %dw: tensor<8x1xf32>) {
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<8x1xf32>>
  dtf.apply_gradients #dtf.adagrad<learning_rate = 0.5, initial_accumulator_value = 0.2> (%w : !dtf.resource<tensor<8x1xf32>>) grads(%dw : tensor<8x1xf32>)
      sparse(%table : !dtf.resource<tensor<100x8xf32>>) ids(%ids : tensor<12xi64>) rows(%rows : tensor<12x8xf32>)
      global_step %step : !dtf.resource<tensor<i64>>
  return
}
// CHECK: %[[TABLE:.*]] = dtf.variable "table"
// CHECK-NEXT: %[[TACC:.*]] = dtf.variable "table/Adagrad" init(#dtf.constant<0.2>) colocate_with("table") {trainable = false} : !dtf.resource<tensor<100x8xf32>>
// CHECK-NEXT: %[[W:.*]] = dtf.variable "w"
// CHECK-NEXT: %[[WACC:.*]] = dtf.variable "w/Adagrad" init(#dtf.constant<0.2>) colocate_with("w")
// CHECK: dtf.apply_adagrad %[[W]], %[[WACC]], %arg2 learning_rate 5.000000e-01
// CHECK-NEXT: dtf.sparse_apply_adagrad %[[TABLE]], %[[TACC]][%arg0], %arg1 learning_rate 5.000000e-01 : !dtf.resource<tensor<100x8xf32>>, tensor<12xi64>, tensor<12x8xf32>
// CHECK: dtf.assign_add

// -----

// CHECK-LABEL: func.func @sgd_only_sparse
func.func @sgd_only_sparse(%ids: tensor<12xi64>, %rows: tensor<12x8xf32>) {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  dtf.apply_gradients #dtf.sgd<learning_rate = 0.5>
      sparse(%table : !dtf.resource<tensor<100x8xf32>>) ids(%ids : tensor<12xi64>) rows(%rows : tensor<12x8xf32>)
  return
}
// CHECK: dtf.sparse_apply_gradient_descent %{{.*}}[%arg0], %arg1 learning_rate 5.000000e-01
// CHECK-NOT: dtf.variable

// -----

// Lazy Adam on the table; the beta powers go beside the variable whose
// name sorts first, dense or sparse.
// CHECK-LABEL: func.func @lazy_adam
func.func @lazy_adam(%ids: tensor<12xi64>, %rows: tensor<12x8xf32>, %dw: tensor<8x1xf32>) {
  %table = dtf.variable "a_table" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<8x1xf32>>
  dtf.apply_gradients #dtf.adam<learning_rate = 0.01> (%w : !dtf.resource<tensor<8x1xf32>>) grads(%dw : tensor<8x1xf32>)
      sparse(%table : !dtf.resource<tensor<100x8xf32>>) ids(%ids : tensor<12xi64>) rows(%rows : tensor<12x8xf32>)
  return
}
// CHECK: %[[TABLE:.*]] = dtf.variable "a_table"
// CHECK-NEXT: %[[M:.*]] = dtf.variable "a_table/Adam" init(#dtf.zeros) colocate_with("a_table")
// CHECK-NEXT: %[[V:.*]] = dtf.variable "a_table/Adam_1"
// CHECK-NEXT: %[[B1:.*]] = dtf.variable "beta1_power" init(#dtf.constant<{{.*}}>) colocate_with("a_table")
// CHECK: dtf.apply_adam
// CHECK: dtf.sparse_apply_adam %[[TABLE]], %[[M]], %[[V]], %{{.*}}, %{{.*}}[%arg0], %arg1 learning_rate 1.000000e-02

// -----

// FTRL-Proximal: "accum" (var/Ftrl) from initial_accumulator_value and
// "linear" (var/Ftrl_1) of zeros, as FtrlOptimizer names its slots; the
// table by rows.
// CHECK-LABEL: func.func @ftrl
func.func @ftrl(%ids: tensor<12xi64>, %rows: tensor<12x1xf32>, %dw: tensor<8x1xf32>) {
  %table = dtf.variable "wide" init(#dtf.zeros) : !dtf.resource<tensor<100x1xf32>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<8x1xf32>>
  dtf.apply_gradients #dtf.ftrl<learning_rate = 0.1, l1 = 0.01, l2 = 0.001> (%w : !dtf.resource<tensor<8x1xf32>>) grads(%dw : tensor<8x1xf32>)
      sparse(%table : !dtf.resource<tensor<100x1xf32>>) ids(%ids : tensor<12xi64>) rows(%rows : tensor<12x1xf32>)
  return
}
// CHECK: %[[TABLE:.*]] = dtf.variable "wide"
// CHECK-NEXT: %[[TACC:.*]] = dtf.variable "wide/Ftrl" init(#dtf.constant<0.1>) colocate_with("wide")
// CHECK-NEXT: %[[TLIN:.*]] = dtf.variable "wide/Ftrl_1" init(#dtf.zeros) colocate_with("wide")
// CHECK: %[[W:.*]] = dtf.variable "w"
// CHECK-NEXT: %[[WACC:.*]] = dtf.variable "w/Ftrl"
// CHECK-NEXT: %[[WLIN:.*]] = dtf.variable "w/Ftrl_1"
// CHECK: dtf.apply_ftrl %[[W]], %[[WACC]], %[[WLIN]], %arg2 learning_rate 1.000000e-01 power -5.000000e-01 l1 1.000000e-02 l2 1.000000e-03 l2_shrinkage 0.000000e+00
// CHECK-NEXT: dtf.sparse_apply_ftrl %[[TABLE]], %[[TACC]], %[[TLIN]][%arg0], %arg1 learning_rate 1.000000e-01 power -5.000000e-01 l1 {{.*}} l2 {{.*}} l2_shrinkage 0.000000e+00 : !dtf.resource<tensor<100x1xf32>>, tensor<12xi64>, tensor<12x1xf32>
