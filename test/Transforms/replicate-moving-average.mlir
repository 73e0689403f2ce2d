// RUN: dtf-opt --dtf-replicate -split-input-file %s | FileCheck %s
// RUN: dtf-opt --dtf-replicate="mode=sync replicas-to-aggregate=2 total-replicas=2" -split-input-file %s | FileCheck %s --check-prefix=SYNC

// Batch normalization's moving mean in between-graph replication: the worker
// computes its batch's mean and pushes it as it pushes a gradient; the PS
// task of the moving mean updates it in place, beside the optimizer's
// update of the weights.
//
// CHECK-LABEL: module attributes
// CHECK:       func.func @ps_0(%[[DW:.*]]: tensor<4x2xf32>, %[[BATCH_MEAN:.*]]: tensor<4xf32>)
// CHECK-SAME:    dtf.gradients = ["w", "bn/moving_mean"]
// CHECK:         %[[MEAN:.*]] = dtf.variable "bn/moving_mean"
// CHECK:         dtf.apply_gradient_descent %{{.*}}, %[[DW]]
// CHECK:         dtf.assign_moving_average %[[MEAN]], %[[BATCH_MEAN]] decay 7.500000e-01
// CHECK:       func.func @worker()
// CHECK-NOT:     dtf.pull "bn/moving_mean"
// CHECK:         %[[X:.*]] = dtf.placeholder "x"
// CHECK:         %[[MEAN_OF_X:.*]] = dtf.reduce_mean %[[X]]
// CHECK:         dtf.push_gradients to "/job:ps/task:0" step %{{.*}} (%{{.*}}, %[[MEAN_OF_X]]) {names = ["w", "bn/moving_mean"]}
//
// In sync mode the replicas' batch means are averaged, as their gradients
// are, before the one update of the global step.
// SYNC-LABEL:  func.func @ps_0
// SYNC-SAME:     (%[[DW0:[^:]*]]: tensor<4x2xf32>, %[[M0:[^:]*]]: tensor<4xf32>, %[[DW1:[^:]*]]: tensor<4x2xf32>, %[[M1:[^:]*]]: tensor<4xf32>)
// SYNC:          %[[SUM:.*]] = dtf.add %[[M0]], %[[M1]]
// SYNC:          %[[AVERAGE:.*]] = dtf.mul %[[SUM]], %{{.*}} : tensor<4xf32>, tensor<f32>
// SYNC:          dtf.assign_moving_average %{{.*}}, %[[AVERAGE]] decay 7.500000e-01
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223", "localhost:2224"]>} {
  func.func @main() -> tensor<f32> {
    %step = dtf.variable "global_step" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<i64>>
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<4x2xf32>>
    %mean = dtf.variable "bn/moving_mean" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<4xf32>>
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x4xf32>
    %w_value = dtf.read %w {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<4x2xf32>>
    %mm = dtf.matmul %x, %w_value {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x4xf32>, tensor<4x2xf32>
    %loss = dtf.reduce_sum %mm {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x2xf32>
    %dw = dtf.mul %w_value, %w_value {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x2xf32>, tensor<4x2xf32>
    dtf.apply_gradient_descent %w, %dw learning_rate 0.5 {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<4x2xf32>>
    %batch_mean = dtf.reduce_mean %x {axes = array<i64: 0>, dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x4xf32>
    dtf.assign_moving_average %mean, %batch_mean decay 0.75 {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<4xf32>>
    %one = dtf.constant {dtf.device = #dtf.device<"/job:ps/task:0">} dense<1> : tensor<i64>
    dtf.assign_add %step, %one {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<i64>>
    return %loss : tensor<f32>
  }
}
