// RUN: sed -e 's/ps = \["localhost:2222"\]/ps = ["localhost:2222", "localhost:2225"]/' %examples/mnist_mlp.mlir \
// RUN:   | dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables=min-shard-bytes=100000 \
// RUN:   | FileCheck %s --check-prefix=MLP
// RUN: dtf-opt %s -split-input-file --dtf-place-variables="min-shard-bytes=64" | FileCheck %s

// Sharding the MLP with shards of at least 100000 bytes: only hid_w
// (313600 bytes) is bigger; k = min(2 PS tasks, ceil(313600 / 100000),
// 784) = 2 shards of 392 rows, each with its Adam slots, on the next PS
// tasks in round-robin order. Then hid_b goes on to ps1, sm_w to ps0.
// MLP-LABEL: func.func @main
// MLP-NEXT: dtf.variable "global_step" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">
// MLP-NEXT: %[[W0:.*]] = dtf.variable "hid_w/part_0" init(#dtf.truncated_normal<stddev = 0.03571428571428571, seed = 2097152>) {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<392x100xf32>>
// MLP-NEXT: %[[W1:.*]] = dtf.variable "hid_w/part_1" init(#dtf.truncated_normal<stddev = 0.03571428571428571, seed = 2097153>) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<392x100xf32>>
// MLP-NEXT: %[[M0:.*]] = dtf.variable "hid_w/Adam/part_0" init(#dtf.zeros) colocate_with("hid_w/part_0") {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false} : !dtf.resource<tensor<392x100xf32>>
// MLP-NEXT: %[[M1:.*]] = dtf.variable "hid_w/Adam/part_1" init(#dtf.zeros) colocate_with("hid_w/part_1") {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<392x100xf32>>
// MLP-NEXT: %[[V0:.*]] = dtf.variable "hid_w/Adam_1/part_0" init(#dtf.zeros) colocate_with("hid_w/part_0") {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false} : !dtf.resource<tensor<392x100xf32>>
// MLP-NEXT: %[[V1:.*]] = dtf.variable "hid_w/Adam_1/part_1" init(#dtf.zeros) colocate_with("hid_w/part_1") {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<392x100xf32>>
// MLP-NEXT: dtf.variable "hid_b" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// MLP: dtf.variable "sm_w" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// The forward read of hid_w: each shard read on its PS, joined on the worker.
// MLP: %[[X:.*]] = dtf.placeholder "x"
// MLP: %[[R0:.*]] = dtf.read %[[W0]] {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<392x100xf32>>
// MLP-NEXT: %[[R1:.*]] = dtf.read %[[W1]] {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<392x100xf32>>
// MLP-NEXT: %[[W:.*]] = dtf.concat %[[R0]], %[[R1]] axis 0 {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<392x100xf32>, tensor<392x100xf32>
// MLP: dtf.matmul %[[X]], %[[W]] {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<100x784xf32>, tensor<784x100xf32>
// The update: the gradient, computed on the worker, is sliced there and
// each shard updated with its slots on its PS.
// MLP: %[[DW:.*]] = dtf.matmul %[[X]], %{{.*}} {dtf.device = #dtf.device<"/job:worker/task:0">, transpose_a = true} : tensor<100x784xf32>, tensor<100x100xf32>
// MLP: %[[P1:.*]] = dtf.read {{.*}} : !dtf.resource<tensor<f32>>
// MLP-NEXT: %[[P2:.*]] = dtf.read {{.*}} : !dtf.resource<tensor<f32>>
// MLP-NEXT: %[[DW0:.*]] = dtf.slice %[[DW]] offsets [0, 0] sizes [392, 100] {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<784x100xf32>
// MLP-NEXT: dtf.apply_adam %[[W0]], %[[M0]], %[[V0]], %[[P1]], %[[P2]], %[[DW0]] {{.*}} {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<392x100xf32>>, tensor<f32>
// MLP-NEXT: %[[DW1:.*]] = dtf.slice %[[DW]] offsets [392, 0] sizes [392, 100] {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<784x100xf32>
// MLP-NEXT: dtf.apply_adam %[[W1]], %[[M1]], %[[V1]], %[[P1]], %[[P2]], %[[DW1]] {{.*}} {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<392x100xf32>>, tensor<f32>
// MLP-NEXT: dtf.apply_adam
// MLP-NOT: "hid_w"

// w (10x4xf32, 160 bytes) over three PS tasks with shards of at least 64
// bytes: k = min(3, ceil(160 / 64), 10) = 3, rows 4, 3, 3. Its momentum
// slot shards with it; `scale`, colocated with it but of another type,
// stays whole beside the first shard. Small variables stay whole.
// CHECK-LABEL: func.func @uneven
// CHECK-SAME: (%[[G:.*]]: tensor<10x4xf32>)
// CHECK-NEXT: %[[SMALL:.*]] = dtf.variable "small" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<4xf32>>
// CHECK-NEXT: %[[W0:.*]] = dtf.variable "w/part_0" init(#dtf.random_normal<stddev = 1.0, seed = 8388608>) {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<4x4xf32>>
// CHECK-NEXT: %[[W1:.*]] = dtf.variable "w/part_1" init(#dtf.random_normal<stddev = 1.0, seed = 8388609>) {dtf.device = #dtf.device<"/job:ps/task:2">} : !dtf.resource<tensor<3x4xf32>>
// CHECK-NEXT: %[[W2:.*]] = dtf.variable "w/part_2" init(#dtf.random_normal<stddev = 1.0, seed = 8388610>) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<3x4xf32>>
// CHECK-NEXT: %[[A0:.*]] = dtf.variable "w/Momentum/part_0" init(#dtf.zeros) colocate_with("w/part_0") {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false} : !dtf.resource<tensor<4x4xf32>>
// CHECK-NEXT: %[[A1:.*]] = dtf.variable "w/Momentum/part_1" init(#dtf.zeros) colocate_with("w/part_1") {dtf.device = #dtf.device<"/job:ps/task:2">, trainable = false} : !dtf.resource<tensor<3x4xf32>>
// CHECK-NEXT: %[[A2:.*]] = dtf.variable "w/Momentum/part_2" init(#dtf.zeros) colocate_with("w/part_2") {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<3x4xf32>>
// CHECK-NEXT: %[[SCALE:.*]] = dtf.variable "scale" init(#dtf.constant<2.0>) colocate_with("w/part_0") {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<f32>>
// CHECK-NEXT: %[[STEP:.*]] = dtf.variable "step" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<i64>>
// Reads: one per shard, then a concat on the worker.
// CHECK-NEXT: %[[R0:.*]] = dtf.read %[[W0]] {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: %[[R1:.*]] = dtf.read %[[W1]] {dtf.device = #dtf.device<"/job:ps/task:2">}
// CHECK-NEXT: %[[R2:.*]] = dtf.read %[[W2]] {dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK-NEXT: %[[R:.*]] = dtf.concat %[[R0]], %[[R1]], %[[R2]] axis 0 {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
// A read placed by the user keeps its device on the concat.
// CHECK-NEXT: %[[Q0:.*]] = dtf.read %[[W0]] {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: %[[Q1:.*]] = dtf.read %[[W1]] {dtf.device = #dtf.device<"/job:ps/task:2">}
// CHECK-NEXT: %[[Q2:.*]] = dtf.read %[[W2]] {dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK-NEXT: %[[Q:.*]] = dtf.concat %[[Q0]], %[[Q1]], %[[Q2]] axis 0 {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: %[[SUM:.*]] = dtf.add %[[R]], %[[Q]] {dtf.device = #dtf.device<"/job:worker/task:0">}
// Updates: one per shard, of the matching rows. The slices of a value
// computed on worker 1 run on worker 1.
// CHECK-NEXT: %[[S0:.*]] = dtf.slice %[[SUM]] offsets [0, 0] sizes [4, 4] {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<10x4xf32>
// CHECK-NEXT: dtf.assign %[[W0]], %[[S0]] {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<4x4xf32>>
// CHECK-NEXT: %[[S1:.*]] = dtf.slice %[[SUM]] offsets [4, 0] sizes [3, 4] {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<10x4xf32>
// CHECK-NEXT: dtf.assign %[[W1]], %[[S1]] {dtf.device = #dtf.device<"/job:ps/task:2">} : !dtf.resource<tensor<3x4xf32>>
// CHECK-NEXT: %[[S2:.*]] = dtf.slice %[[SUM]] offsets [7, 0] sizes [3, 4] {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<10x4xf32>
// CHECK-NEXT: dtf.assign %[[W2]], %[[S2]] {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<3x4xf32>>
// CHECK-NEXT: %[[DOUBLE:.*]] = dtf.add %[[G]], %[[G]] {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: %[[T0:.*]] = dtf.slice %[[DOUBLE]] offsets [0, 0] sizes [4, 4] {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: dtf.assign_add %[[W0]], %[[T0]] {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: %[[T1:.*]] = dtf.slice %[[DOUBLE]] offsets [4, 0] sizes [3, 4] {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: dtf.assign_add %[[W1]], %[[T1]] {dtf.device = #dtf.device<"/job:ps/task:2">}
// CHECK-NEXT: %[[T2:.*]] = dtf.slice %[[DOUBLE]] offsets [7, 0] sizes [3, 4] {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: dtf.assign_add %[[W2]], %[[T2]] {dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK-NEXT: %[[U0:.*]] = dtf.slice %[[G]] offsets [0, 0] sizes [4, 4] {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK-NEXT: dtf.apply_momentum %[[W0]], %[[A0]], %[[U0]] {{.*}} {dtf.device = #dtf.device<"/job:ps/task:1">, use_nesterov = true}
// CHECK-NEXT: %[[U1:.*]] = dtf.slice %[[G]] offsets [4, 0] sizes [3, 4]
// CHECK-NEXT: dtf.apply_momentum %[[W1]], %[[A1]], %[[U1]] {{.*}} {dtf.device = #dtf.device<"/job:ps/task:2">, use_nesterov = true}
// CHECK-NEXT: %[[U2:.*]] = dtf.slice %[[G]] offsets [7, 0] sizes [3, 4]
// CHECK-NEXT: dtf.apply_momentum %[[W2]], %[[A2]], %[[U2]] {{.*}} {dtf.device = #dtf.device<"/job:ps/task:0">, use_nesterov = true}
// CHECK-NEXT: %[[GS0:.*]] = dtf.slice %[[G]] offsets [0, 0] sizes [4, 4]
// CHECK-NEXT: dtf.apply_gradient_descent %[[W0]], %[[GS0]] {{.*}} {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK: dtf.apply_gradient_descent %[[W2]]
// CHECK-NEXT: dtf.read %[[SCALE]] {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: return %[[R]]

module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2", "p:3"], worker = ["w:1", "w:2"]>} {
  func.func @uneven(%g: tensor<10x4xf32>) -> tensor<10x4xf32> {
    %small = dtf.variable "small" init(#dtf.zeros) : !dtf.resource<tensor<4xf32>>
    %w = dtf.variable "w" init(#dtf.random_normal<stddev = 1.0, seed = 7>) : !dtf.resource<tensor<10x4xf32>>
    %a = dtf.variable "w/Momentum" init(#dtf.zeros) colocate_with("w") {trainable = false} : !dtf.resource<tensor<10x4xf32>>
    %scale = dtf.variable "scale" init(#dtf.constant<2.0>) colocate_with("w") : !dtf.resource<tensor<f32>>
    %step = dtf.variable "step" init(#dtf.zeros) : !dtf.resource<tensor<i64>>
    %r = dtf.read %w : !dtf.resource<tensor<10x4xf32>>
    %q = dtf.read %w {dtf.device = #dtf.device<"/job:worker/task:1">} : !dtf.resource<tensor<10x4xf32>>
    %sum = dtf.add %r, %q : tensor<10x4xf32>, tensor<10x4xf32>
    dtf.assign %w, %sum : !dtf.resource<tensor<10x4xf32>>
    %double = dtf.add %g, %g {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<10x4xf32>, tensor<10x4xf32>
    dtf.assign_add %w, %double : !dtf.resource<tensor<10x4xf32>>
    dtf.apply_momentum %w, %a, %g learning_rate 0.1 momentum 0.9 {use_nesterov = true} : !dtf.resource<tensor<10x4xf32>>
    dtf.apply_gradient_descent %w, %g learning_rate 0.1 : !dtf.resource<tensor<10x4xf32>>
    %s = dtf.read %scale : !dtf.resource<tensor<f32>>
    return %r : tensor<10x4xf32>
  }
}

// -----

// k is also bounded by dimension 0: two rows make two shards at most.
// CHECK-LABEL: func.func @few_rows
// CHECK-NEXT: dtf.variable "wide/part_0" {{.*}} : !dtf.resource<tensor<1x100xf32>>
// CHECK-NEXT: dtf.variable "wide/part_1" {{.*}} : !dtf.resource<tensor<1x100xf32>>
// CHECK-NEXT: dtf.variable "scalar" {{.*}} : !dtf.resource<tensor<f64>>
// CHECK-NEXT: return
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2", "p:3"], worker = ["w:1"]>} {
  func.func @few_rows() {
    %w = dtf.variable "wide" init(#dtf.zeros) : !dtf.resource<tensor<2x100xf32>>
    %s = dtf.variable "scalar" init(#dtf.zeros) : !dtf.resource<tensor<f64>>
    return
  }
}
