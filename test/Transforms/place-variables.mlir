// The distributed-MNIST MLP over two PS tasks (the example's cluster has
// one; sed adds a second), trained with Adam: round-robin placement in
// creation order, as tf.train.replica_device_setter.
// RUN: sed -e 's/ps = \["localhost:2222"\]/ps = ["localhost:2222", "localhost:2225"]/' %examples/mnist_mlp.mlir \
// RUN:   | dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables \
// RUN:   | FileCheck %s --check-prefix=MLP
// RUN: dtf-opt %s -split-input-file --dtf-place-variables | FileCheck %s

// global_step, hid_w, hid_b, sm_w, sm_b go to ps0, ps1, ps0, ps1, ps0, as in
// TensorFlow. Each Adam slot is colocated with its variable and the beta
// powers with hid_b (its name sorts first): they follow without advancing
// the round-robin.
// MLP-LABEL: func.func @main
// MLP-NEXT: %[[STEP:.*]] = dtf.variable "global_step" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">
// MLP-NEXT: %[[HID_W:.*]] = dtf.variable "hid_w" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// MLP-NEXT: %[[HID_W_M:.*]] = dtf.variable "hid_w/Adam" init(#dtf.zeros) colocate_with("hid_w") {dtf.device = #dtf.device<"/job:ps/task:1">
// MLP-NEXT: %[[HID_W_V:.*]] = dtf.variable "hid_w/Adam_1" init(#dtf.zeros) colocate_with("hid_w") {dtf.device = #dtf.device<"/job:ps/task:1">
// MLP-NEXT: %[[HID_B:.*]] = dtf.variable "hid_b" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// MLP-NEXT: %[[HID_B_M:.*]] = dtf.variable "hid_b/Adam" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">
// MLP-NEXT: %[[HID_B_V:.*]] = dtf.variable "hid_b/Adam_1" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">
// MLP-NEXT: %[[BETA1:.*]] = dtf.variable "beta1_power" {{.*}} colocate_with("hid_b") {dtf.device = #dtf.device<"/job:ps/task:0">
// MLP-NEXT: %[[BETA2:.*]] = dtf.variable "beta2_power" {{.*}} colocate_with("hid_b") {dtf.device = #dtf.device<"/job:ps/task:0">
// MLP-NEXT: %[[SM_W:.*]] = dtf.variable "sm_w" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// MLP-NEXT: %[[SM_W_M:.*]] = dtf.variable "sm_w/Adam" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">
// MLP-NEXT: %[[SM_W_V:.*]] = dtf.variable "sm_w/Adam_1" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">
// MLP-NEXT: %[[SM_B:.*]] = dtf.variable "sm_b" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// MLP-NEXT: %[[SM_B_M:.*]] = dtf.variable "sm_b/Adam" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">
// MLP-NEXT: %[[SM_B_V:.*]] = dtf.variable "sm_b/Adam_1" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">
// Compute goes to the default worker; reads and updates go with their
// variable.
// MLP-NEXT: dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">}
// MLP-NEXT: dtf.placeholder "y_" {dtf.device = #dtf.device<"/job:worker/task:0">}
// MLP-NEXT: dtf.read %[[HID_W]] {dtf.device = #dtf.device<"/job:ps/task:1">}
// MLP-NEXT: dtf.read %[[HID_B]] {dtf.device = #dtf.device<"/job:ps/task:0">}
// MLP-NEXT: dtf.matmul {{.*}} {dtf.device = #dtf.device<"/job:worker/task:0">}
// MLP: %[[P1:.*]] = dtf.read %[[BETA1]] {dtf.device = #dtf.device<"/job:ps/task:0">}
// MLP: %[[P2:.*]] = dtf.read %[[BETA2]] {dtf.device = #dtf.device<"/job:ps/task:0">}
// MLP-NEXT: dtf.apply_adam %[[HID_W]], %[[HID_W_M]], %[[HID_W_V]], %[[P1]], %[[P2]], {{.*}} {dtf.device = #dtf.device<"/job:ps/task:1">}
// MLP-NEXT: dtf.apply_adam %[[HID_B]], %[[HID_B_M]], %[[HID_B_V]], %[[P1]], %[[P2]], {{.*}} {dtf.device = #dtf.device<"/job:ps/task:0">}
// MLP-NEXT: dtf.apply_adam %[[SM_W]], %[[SM_W_M]], %[[SM_W_V]], %[[P1]], %[[P2]], {{.*}} {dtf.device = #dtf.device<"/job:ps/task:1">}
// MLP-NEXT: dtf.apply_adam %[[SM_B]], %[[SM_B_M]], %[[SM_B_V]], %[[P1]], %[[P2]], {{.*}} {dtf.device = #dtf.device<"/job:ps/task:0">}
// MLP: dtf.assign_add %[[STEP]], %{{.*}} {dtf.device = #dtf.device<"/job:ps/task:0">}
// MLP: return

// Over three PS tasks. A colocated variable takes its target's device,
// through chains and even when defined before the target, without
// advancing the round-robin: a, c, d land on ps0, ps1, ps2 and the next
// variable, e, wraps around to ps0.
// CHECK-LABEL: func.func @round_robin
// CHECK: dtf.variable "a" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK: dtf.variable "a/slot" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK: dtf.variable "a/slot/slot" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK: dtf.variable "before_c" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK: dtf.variable "c" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK: dtf.variable "d" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:2">}
// CHECK: dtf.variable "e" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2", "p:3"], worker = ["w:1"]>} {
  func.func @round_robin() {
    %a = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    %as = dtf.variable "a/slot" init(#dtf.zeros) colocate_with("a") : !dtf.resource<tensor<2xf32>>
    %ass = dtf.variable "a/slot/slot" init(#dtf.zeros) colocate_with("a/slot") : !dtf.resource<tensor<2xf32>>
    %bc = dtf.variable "before_c" init(#dtf.zeros) colocate_with("c") : !dtf.resource<tensor<2xf32>>
    %c = dtf.variable "c" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    %d = dtf.variable "d" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    %e = dtf.variable "e" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    return
  }
}

// -----

// A variable that has a device keeps it, and so does everything colocated
// with it; it does not advance the round-robin. An op that has a device
// keeps it; the other ops touching a variable go with it, the rest to the
// worker; the terminator gets nothing.
// CHECK-LABEL: func.func @pinned
// CHECK-NEXT: %[[A:.*]] = dtf.variable "a" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK-NEXT: %[[P:.*]] = dtf.variable "pinned" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: %[[PS:.*]] = dtf.variable "pinned/slot" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: %[[W:.*]] = dtf.variable "on_worker" {{.*}}{dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: %[[B:.*]] = dtf.variable "b" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: %[[RA:.*]] = dtf.read %[[A]] {dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK-NEXT: %[[RP:.*]] = dtf.read %[[P]] {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: %[[RW:.*]] = dtf.read %[[W]] {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: %[[SUM:.*]] = dtf.add %[[RA]], %[[RP]] {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK-NEXT: %[[MUL:.*]] = dtf.mul %[[SUM]], %[[RW]] {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: dtf.assign %[[B]], %[[MUL]] {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: dtf.apply_momentum %[[P]], %[[PS]], %[[SUM]] {{.*}} {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: return %[[SUM]] : tensor<2xf32>
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1", "w:2"]>} {
  func.func @pinned() -> tensor<2xf32> {
    %a = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    %p = dtf.variable "pinned" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<2xf32>>
    %ps = dtf.variable "pinned/slot" init(#dtf.zeros) colocate_with("pinned") : !dtf.resource<tensor<2xf32>>
    %w = dtf.variable "on_worker" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:1">} : !dtf.resource<tensor<2xf32>>
    %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    %ra = dtf.read %a : !dtf.resource<tensor<2xf32>>
    %rp = dtf.read %p : !dtf.resource<tensor<2xf32>>
    %rw = dtf.read %w : !dtf.resource<tensor<2xf32>>
    %sum = dtf.add %ra, %rp : tensor<2xf32>, tensor<2xf32>
    %mul = dtf.mul %sum, %rw {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<2xf32>, tensor<2xf32>
    dtf.assign %b, %mul : !dtf.resource<tensor<2xf32>>
    dtf.apply_momentum %p, %ps, %sum learning_rate 0.1 momentum 0.9 : !dtf.resource<tensor<2xf32>>
    return %sum : tensor<2xf32>
  }
}

// -----

// The round-robin runs over the whole module, in function order.
// CHECK-LABEL: func.func @first
// CHECK: dtf.variable "x" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK-LABEL: func.func @second
// CHECK: dtf.variable "x" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK: dtf.variable "y" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @first() {
    %x = dtf.variable "x" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    return
  }
  func.func @second() {
    %x = dtf.variable "x" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    %y = dtf.variable "y" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    return
  }
}
