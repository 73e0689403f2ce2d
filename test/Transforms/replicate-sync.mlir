// RUN: dtf-opt --dtf-replicate="mode=sync replicas-to-aggregate=2 total-replicas=3" %s | FileCheck %s
// RUN: dtf-opt --dtf-replicate="mode=sync replicas-to-aggregate=2 total-replicas=3" --mlir-print-op-generic %s | dtf-opt | FileCheck %s
// By default all worker tasks are aggregated, and none is spare.
// RUN: dtf-opt --dtf-replicate=mode=sync %s | FileCheck %s --check-prefix=ALL
// One replica per update: nothing to average.
// RUN: dtf-opt --dtf-replicate="mode=sync replicas-to-aggregate=1" %s | FileCheck %s --check-prefix=ONE

// Synchronous between-graph replication (TensorFlow's SyncReplicasOptimizer)
// of a hand-placed linear model trained with Adam, as --dtf-expand-optimizer
// and --dtf-place-variables leave it: global_step, b, its slots and the beta
// powers (colocated with b, whose name sorts first) on ps0; w and its slots
// on ps1; everything else on worker 0. Three workers run; the gradients of
// two of them make one update, and the third one's are dropped as stale.

// CHECK-LABEL: module attributes
// CHECK-SAME:    dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 2, total_replicas = 3>
// ALL:         dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 3, total_replicas = 3>
// ONE:         dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 1, total_replicas = 1>

// PS task 0 takes two replicas' gradients of b, averages them, applies
// Adam, advances its beta powers and increments the global step once.
// CHECK:       func.func @ps_0(%[[DB0:.*]]: tensor<2xf32>, %[[DB1:.*]]: tensor<2xf32>)
// CHECK-SAME:    attributes {dtf.device = #dtf.device<"/job:ps/task:0">, dtf.gradients = ["b"]}
// CHECK-NEXT:    %[[STEP:.*]] = dtf.variable "global_step"
// CHECK-NEXT:    %[[B:.*]] = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT:    %[[B_M:.*]] = dtf.variable "b/Adam" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT:    %[[B_V:.*]] = dtf.variable "b/Adam_1" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT:    %[[BETA1:.*]] = dtf.variable "beta1_power" init(#dtf.constant<0.9>) {trainable = false} : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    %[[BETA2:.*]] = dtf.variable "beta2_power" init(#dtf.constant<0.999>) {trainable = false} : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    %[[DB_SUM:.*]] = dtf.add %[[DB0]], %[[DB1]] : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT:    %[[HALF:.*]] = dtf.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[DB:.*]] = dtf.mul %[[DB_SUM]], %[[HALF]] : tensor<2xf32>, tensor<f32>
// CHECK-NEXT:    %[[B1:.*]] = dtf.read %[[BETA1]]
// CHECK-NEXT:    %[[B2:.*]] = dtf.read %[[BETA2]]
// CHECK-NEXT:    dtf.apply_adam %[[B]], %[[B_M]], %[[B_V]], %[[B1]], %[[B2]], %[[DB]] learning_rate 1.000000e-02
// CHECK-NEXT:    %[[B1_NOW:.*]] = dtf.read %[[BETA1]]
// CHECK-NEXT:    %[[BETA1_C:.*]] = dtf.constant dense<0.899999976> : tensor<f32>
// CHECK-NEXT:    %[[B1_NEXT:.*]] = dtf.mul %[[B1_NOW]], %[[BETA1_C]]
// CHECK-NEXT:    dtf.assign %[[BETA1]], %[[B1_NEXT]]
// CHECK-NEXT:    %[[B2_NOW:.*]] = dtf.read %[[BETA2]]
// CHECK-NEXT:    %[[BETA2_C:.*]] = dtf.constant dense<9.990000e-01> : tensor<f32>
// CHECK-NEXT:    %[[B2_NEXT:.*]] = dtf.mul %[[B2_NOW]], %[[BETA2_C]]
// CHECK-NEXT:    dtf.assign %[[BETA2]], %[[B2_NEXT]]
// CHECK-NEXT:    %[[INC:.*]] = dtf.constant dense<1> : tensor<i64>
// CHECK-NEXT:    dtf.assign_add %[[STEP]], %[[INC]] : !dtf.resource<tensor<i64>>
// CHECK-NEXT:    return

// PS task 1 gets its own copy of the beta powers, which it advances once per
// update too, so that the copies stay equal; it has no global step.
// CHECK:       func.func @ps_1(%[[DW0:.*]]: tensor<4x2xf32>, %[[DW1:.*]]: tensor<4x2xf32>)
// CHECK-SAME:    attributes {dtf.device = #dtf.device<"/job:ps/task:1">, dtf.gradients = ["w"]}
// CHECK-NEXT:    %[[W:.*]] = dtf.variable "w"
// CHECK-NEXT:    %[[W_M:.*]] = dtf.variable "w/Adam"
// CHECK-NEXT:    %[[W_V:.*]] = dtf.variable "w/Adam_1"
// CHECK-NEXT:    %[[BETA1:.*]] = dtf.variable "beta1_power" init(#dtf.constant<0.9>) {trainable = false} : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    %[[BETA2:.*]] = dtf.variable "beta2_power" init(#dtf.constant<0.999>) {trainable = false} : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    %[[DW_SUM:.*]] = dtf.add %[[DW0]], %[[DW1]] : tensor<4x2xf32>, tensor<4x2xf32>
// CHECK-NEXT:    %[[HALF:.*]] = dtf.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[DW:.*]] = dtf.mul %[[DW_SUM]], %[[HALF]] : tensor<4x2xf32>, tensor<f32>
// CHECK-NEXT:    %[[B1:.*]] = dtf.read %[[BETA1]]
// CHECK-NEXT:    %[[B2:.*]] = dtf.read %[[BETA2]]
// CHECK-NEXT:    dtf.apply_adam %[[W]], %[[W_M]], %[[W_V]], %[[B1]], %[[B2]], %[[DW]]
// CHECK-NEXT:    %[[B1_NOW:.*]] = dtf.read %[[BETA1]]
// CHECK-NEXT:    %[[BETA1_C:.*]] = dtf.constant dense<0.899999976> : tensor<f32>
// CHECK-NEXT:    %[[B1_NEXT:.*]] = dtf.mul %[[B1_NOW]], %[[BETA1_C]]
// CHECK-NEXT:    dtf.assign %[[BETA1]], %[[B1_NEXT]]
// CHECK-NEXT:    %[[B2_NOW:.*]] = dtf.read %[[BETA2]]
// CHECK-NEXT:    %[[BETA2_C:.*]] = dtf.constant dense<9.990000e-01> : tensor<f32>
// CHECK-NEXT:    %[[B2_NEXT:.*]] = dtf.mul %[[B2_NOW]], %[[BETA2_C]]
// CHECK-NEXT:    dtf.assign %[[BETA2]], %[[B2_NEXT]]
// CHECK-NEXT:    return

// The worker pulls the step and the trained variables (not the optimizer
// state), computes, and pushes one gradient per variable.
// CHECK:       func.func @worker() -> tensor<f32>
// CHECK-NEXT:    %[[P_STEP:.*]] = dtf.pull "global_step" from "/job:ps/task:0" : tensor<i64>
// CHECK-NEXT:    %[[P_W:.*]] = dtf.pull "w" from "/job:ps/task:1" : tensor<4x2xf32>
// CHECK-NEXT:    %[[P_B:.*]] = dtf.pull "b" from "/job:ps/task:0" : tensor<2xf32>
// CHECK-NEXT:    %[[X:.*]] = dtf.placeholder "x" : tensor<8x4xf32>
// CHECK-NEXT:    %[[MM:.*]] = dtf.matmul %[[X]], %[[P_W]]
// CHECK-NEXT:    %[[Y:.*]] = dtf.bias_add %[[MM]], %[[P_B]]
// CHECK-NEXT:    %[[LOSS:.*]] = dtf.reduce_sum %[[Y]]
// CHECK-NEXT:    %[[DY:.*]] = dtf.constant dense<1.000000e+00> : tensor<8x2xf32>
// CHECK-NEXT:    %[[G_B:.*]] = dtf.bias_add_grad %[[DY]]
// CHECK-NEXT:    %[[G_W:.*]] = dtf.matmul %[[X]], %[[DY]] {transpose_a = true}
// CHECK-NEXT:    dtf.push_gradients to "/job:ps/task:0" step %[[P_STEP]] (%[[G_B]]) {names = ["b"]} : tensor<i64>, tensor<2xf32>
// CHECK-NEXT:    dtf.push_gradients to "/job:ps/task:1" step %[[P_STEP]] (%[[G_W]]) {names = ["w"]} : tensor<i64>, tensor<4x2xf32>
// CHECK-NEXT:    return %[[LOSS]] : tensor<f32>
// CHECK-NEXT:  }
// CHECK-NEXT: }

// Aggregating all three replicas: three groups, summed, times 1/3.
// ALL:         func.func @ps_0(%[[A0:.*]]: tensor<2xf32>, %[[A1:.*]]: tensor<2xf32>, %[[A2:.*]]: tensor<2xf32>)
// ALL-NEXT:      dtf.variable "global_step"
// ALL:           %[[S01:.*]] = dtf.add %[[A0]], %[[A1]]
// ALL-NEXT:      %[[S012:.*]] = dtf.add %[[S01]], %[[A2]]
// ALL-NEXT:      %[[THIRD:.*]] = dtf.constant dense<0.333333343> : tensor<f32>
// ALL-NEXT:      dtf.mul %[[S012]], %[[THIRD]]
// ALL:         func.func @ps_1(%{{.*}}: tensor<4x2xf32>, %{{.*}}: tensor<4x2xf32>, %{{.*}}: tensor<4x2xf32>)

// ONE:         func.func @ps_0(%[[G:.*]]: tensor<2xf32>)
// ONE-NOT:       dtf.add
// ONE:           dtf.apply_adam %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[G]]
// ONE:         func.func @ps_1(%{{.*}}: tensor<4x2xf32>)

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"],
                                              worker = ["localhost:2223", "localhost:2224", "localhost:2226"]>} {
  func.func @main() -> tensor<f32> {
    %step = dtf.variable "global_step" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<i64>>
    %w = dtf.variable "w" init(#dtf.truncated_normal<stddev = 0.5, seed = 1>) {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<4x2xf32>>
    %w_m = dtf.variable "w/Adam" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false} : !dtf.resource<tensor<4x2xf32>>
    %w_v = dtf.variable "w/Adam_1" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false} : !dtf.resource<tensor<4x2xf32>>
    %b = dtf.variable "b" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %b_m = dtf.variable "b/Adam" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<2xf32>>
    %b_v = dtf.variable "b/Adam_1" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<2xf32>>
    %beta1 = dtf.variable "beta1_power" init(#dtf.constant<0.9>) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<f32>>
    %beta2 = dtf.variable "beta2_power" init(#dtf.constant<0.999>) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<f32>>
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x4xf32>
    %w_value = dtf.read %w {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<4x2xf32>>
    %b_value = dtf.read %b {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %mm = dtf.matmul %x, %w_value {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x4xf32>, tensor<4x2xf32>
    %y = dtf.bias_add %mm, %b_value {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x2xf32>, tensor<2xf32>
    %loss = dtf.reduce_sum %y {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x2xf32>
    // The backward pass of reduce_sum(bias_add(matmul(x, w), b)).
    %dy = dtf.constant {dtf.device = #dtf.device<"/job:worker/task:0">} dense<1.0> : tensor<8x2xf32>
    %db = dtf.bias_add_grad %dy {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x2xf32>
    %dw = "dtf.matmul"(%x, %dy) <{transpose_a = true}> {dtf.device = #dtf.device<"/job:worker/task:0">} : (tensor<8x4xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
    // Adam, as --dtf-expand-optimizer writes it.
    %beta1_value = dtf.read %beta1 {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<f32>>
    %beta2_value = dtf.read %beta2 {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<f32>>
    dtf.apply_adam %w, %w_m, %w_v, %beta1_value, %beta2_value, %dw learning_rate 0.01 beta1 0.9 beta2 0.999 epsilon 1.0e-08 {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<4x2xf32>>, tensor<f32>
    dtf.apply_adam %b, %b_m, %b_v, %beta1_value, %beta2_value, %db learning_rate 0.01 beta1 0.9 beta2 0.999 epsilon 1.0e-08 {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>, tensor<f32>
    %beta1_now = dtf.read %beta1 {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<f32>>
    %beta1_c = dtf.constant {dtf.device = #dtf.device<"/job:worker/task:0">} dense<0.9> : tensor<f32>
    %beta1_next = dtf.mul %beta1_now, %beta1_c {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<f32>, tensor<f32>
    dtf.assign %beta1, %beta1_next {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<f32>>
    %beta2_now = dtf.read %beta2 {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<f32>>
    %beta2_c = dtf.constant {dtf.device = #dtf.device<"/job:worker/task:0">} dense<0.999> : tensor<f32>
    %beta2_next = dtf.mul %beta2_now, %beta2_c {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<f32>, tensor<f32>
    dtf.assign %beta2, %beta2_next {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<f32>>
    %one = dtf.constant {dtf.device = #dtf.device<"/job:worker/task:0">} dense<1> : tensor<i64>
    dtf.assign_add %step, %one {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<i64>>
    return %loss : tensor<f32>
  }
}
