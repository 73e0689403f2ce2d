// RUN: dtf-opt %s -split-input-file --dtf-place-variables=strategy=greedy-bytes | FileCheck %s
// RUN: sed -e 's/ps = \["localhost:2222"\]/ps = ["localhost:2222", "localhost:2225"]/' %examples/mnist_mlp.mlir \
// RUN:   | dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables=strategy=greedy-bytes \
// RUN:   | FileCheck %s --check-prefix=MLP

// Each variable goes to the PS task with the fewest bytes so far, ties to
// the lowest index (TensorFlow's GreedyLoadBalancingStrategy with
// byte_size_load_fn). Loads (ps0, ps1) after each: a 400 -> (400, 0);
// b 40 -> (400, 40); c 40 -> (400, 80); d 1000 -> (400, 1080); e 8 ->
// (408, 1080); f 1000 -> (1408, 1080); g 8 -> (1408, 1088).
// CHECK-LABEL: func.func @greedy
// CHECK: dtf.variable "a" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK: dtf.variable "b" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK: dtf.variable "c" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK: dtf.variable "d" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK: dtf.variable "e" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK: dtf.variable "f" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK: dtf.variable "g" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @greedy() {
    %a = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<100xf32>>
    %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<10xf32>>
    %c = dtf.variable "c" init(#dtf.zeros) : !dtf.resource<tensor<10xi32>>
    %d = dtf.variable "d" init(#dtf.zeros) : !dtf.resource<tensor<10x25xf32>>
    %e = dtf.variable "e" init(#dtf.zeros) : !dtf.resource<tensor<i64>>
    %f = dtf.variable "f" init(#dtf.zeros) : !dtf.resource<tensor<500xf16>>
    %g = dtf.variable "g" init(#dtf.zeros) : !dtf.resource<tensor<8xi1>>
    return
  }
}

// -----

// A variable counts with everything colocated with it: w and its two slots
// weigh 3 x 400 bytes, so x (800 bytes) and y go to ps1. A pinned variable
// loads its task without asking the strategy: z sees ps0 at 1200 + 2000.
// CHECK-LABEL: func.func @with_slots
// CHECK: dtf.variable "w" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK: dtf.variable "w/m" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">
// CHECK: dtf.variable "w/v" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">
// CHECK: dtf.variable "x" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK: dtf.variable "y" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK: dtf.variable "pinned" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK: dtf.variable "z" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @with_slots() {
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<100xf32>>
    %m = dtf.variable "w/m" init(#dtf.zeros) colocate_with("w") {trainable = false} : !dtf.resource<tensor<100xf32>>
    %v = dtf.variable "w/v" init(#dtf.zeros) colocate_with("w") {trainable = false} : !dtf.resource<tensor<100xf32>>
    %x = dtf.variable "x" init(#dtf.zeros) : !dtf.resource<tensor<200xf32>>
    %y = dtf.variable "y" init(#dtf.zeros) : !dtf.resource<tensor<10xf32>>
    %p = dtf.variable "pinned" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<500xf32>>
    %z = dtf.variable "z" init(#dtf.zeros) : !dtf.resource<tensor<10xf32>>
    return
  }
}

// On the MLP, hid_w with its Adam slots (940800 bytes) outweighs all the
// rest, which therefore shares ps0.
// MLP-LABEL: func.func @main
// MLP: dtf.variable "global_step" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">
// MLP: dtf.variable "hid_w" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">}
// MLP: dtf.variable "hid_w/Adam" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">
// MLP: dtf.variable "hid_w/Adam_1" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">
// MLP: dtf.variable "hid_b" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// MLP: dtf.variable "beta1_power" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">
// MLP: dtf.variable "sm_w" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// MLP: dtf.variable "sm_w/Adam" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">
// MLP: dtf.variable "sm_b" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
