// RUN: dtf-opt --dtf-expand-optimizer --split-input-file %s | FileCheck %s
// A variable that names its own optimizer (dtf.optimizer) is updated by it,
// the others by the apply's, as DNNLinearCombinedClassifier trains the
// linear part with FTRL and the DNN with Adagrad in one train op. The
// global step is incremented once, after every update.

// CHECK-LABEL: func.func @wide_and_deep
func.func @wide_and_deep(%ids: tensor<12xi64>, %wide_rows: tensor<12x1xf32>, %deep_rows: tensor<12x8xf32>, %dk: tensor<8x1xf32>, %db: tensor<1xf32>) {
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
  %wide = dtf.variable "c0/weights" init(#dtf.zeros) {dtf.optimizer = #dtf.ftrl<learning_rate = 0.2>} : !dtf.resource<tensor<100x1xf32>>
  %bias = dtf.variable "linear/bias" init(#dtf.zeros) {dtf.optimizer = #dtf.ftrl<learning_rate = 0.2>} : !dtf.resource<tensor<1xf32>>
  %emb = dtf.variable "c0/embedding" init(#dtf.zeros) : !dtf.resource<tensor<100x8xf32>>
  %kernel = dtf.variable "dnn/logits/kernel" init(#dtf.zeros) : !dtf.resource<tensor<8x1xf32>>
  dtf.apply_gradients #dtf.adagrad<learning_rate = 0.05> (%kernel, %bias : !dtf.resource<tensor<8x1xf32>>, !dtf.resource<tensor<1xf32>>) grads(%dk, %db : tensor<8x1xf32>, tensor<1xf32>)
      sparse(%wide, %emb : !dtf.resource<tensor<100x1xf32>>, !dtf.resource<tensor<100x8xf32>>) ids(%ids, %ids : tensor<12xi64>, tensor<12xi64>) rows(%wide_rows, %deep_rows : tensor<12x1xf32>, tensor<12x8xf32>)
      global_step %step : !dtf.resource<tensor<i64>>
  return
}
// CHECK: %[[STEP:.*]] = dtf.variable "global_step"
// CHECK-NEXT: %[[WIDE:.*]] = dtf.variable "c0/weights"
// CHECK-NEXT: %[[WACC:.*]] = dtf.variable "c0/weights/Ftrl" init(#dtf.constant<0.1>) colocate_with("c0/weights")
// CHECK-NEXT: %[[WLIN:.*]] = dtf.variable "c0/weights/Ftrl_1" init(#dtf.zeros) colocate_with("c0/weights")
// CHECK-NEXT: %[[BIAS:.*]] = dtf.variable "linear/bias"
// CHECK-NEXT: %[[BACC:.*]] = dtf.variable "linear/bias/Ftrl"
// CHECK-NEXT: %[[BLIN:.*]] = dtf.variable "linear/bias/Ftrl_1"
// CHECK-NEXT: %[[EMB:.*]] = dtf.variable "c0/embedding"
// CHECK-NEXT: %[[EACC:.*]] = dtf.variable "c0/embedding/Adagrad" init(#dtf.constant<0.1>) colocate_with("c0/embedding")
// CHECK-NEXT: %[[KERNEL:.*]] = dtf.variable "dnn/logits/kernel"
// CHECK-NEXT: %[[KACC:.*]] = dtf.variable "dnn/logits/kernel/Adagrad"
// CHECK-NOT: dtf.apply_gradients
// CHECK-NOT: dtf.assign_add
// CHECK: dtf.apply_adagrad %[[KERNEL]], %[[KACC]], %arg3 learning_rate 5.000000e-02
// CHECK-NEXT: dtf.sparse_apply_adagrad %[[EMB]], %[[EACC]][%arg0], %arg2 learning_rate 5.000000e-02
// CHECK-NOT: dtf.assign_add
// CHECK: dtf.apply_ftrl %[[BIAS]], %[[BACC]], %[[BLIN]], %arg4 learning_rate 2.000000e-01
// CHECK-NEXT: dtf.sparse_apply_ftrl %[[WIDE]], %[[WACC]], %[[WLIN]][%arg0], %arg1 learning_rate 2.000000e-01
// CHECK-NEXT: dtf.constant dense<1> : tensor<i64>
// CHECK-NEXT: dtf.assign_add %[[STEP]]
// CHECK-NOT: dtf.assign_add

// -----

// Every variable overridden: the apply's own optimizer updates nothing, and
// the global step still advances once.
// CHECK-LABEL: func.func @all_overridden
func.func @all_overridden(%dw: tensor<4xf32>) {
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
  %w = dtf.variable "w" init(#dtf.zeros) {dtf.optimizer = #dtf.sgd<learning_rate = 0.5>} : !dtf.resource<tensor<4xf32>>
  dtf.apply_gradients #dtf.adam<learning_rate = 0.01> (%w : !dtf.resource<tensor<4xf32>>) grads(%dw : tensor<4xf32>)
      global_step %step : !dtf.resource<tensor<i64>>
  return
}
// CHECK-NOT: dtf.variable "w/Adam"
// CHECK-NOT: beta1_power
// CHECK: dtf.apply_gradient_descent %{{.*}}, %arg0 learning_rate 5.000000e-01
// CHECK-NEXT: dtf.constant dense<1> : tensor<i64>
// CHECK-NEXT: dtf.assign_add
// CHECK-NOT: dtf.assign_add
