// RUN: dtf-opt --dtf-replicate -split-input-file %s | FileCheck %s
// The worker function carries no placement.
// RUN: dtf-opt --dtf-replicate -split-input-file %s | FileCheck %s --check-prefix=WORKER
// The output is valid IR and survives a generic round trip.
// RUN: dtf-opt --dtf-replicate -split-input-file --mlir-print-op-generic %s | dtf-opt -split-input-file | FileCheck %s

// Asynchronous between-graph replication of hand-placed training graphs,
// as --dtf-place-variables and --dtf-expand-optimizer leave them. Each push
// is applied at once: the PS functions take one replica's gradients.

// A linear model with momentum, placed over two PS tasks: global_step, b
// and its slot on ps0, w and its slot on ps1, everything else on worker 0.
//
// CHECK-LABEL: module attributes
// CHECK-SAME:    dtf.replication = #dtf.replication<mode = async, replicas_to_aggregate = 2, total_replicas = 2>
//
// PS task 0 holds global_step, b and its slot; it applies the gradient of b
// and increments the global step.
// CHECK:       func.func @ps_0(%[[DB:.*]]: tensor<2xf32>)
// CHECK-SAME:    attributes {dtf.device = #dtf.device<"/job:ps/task:0">, dtf.gradients = ["b"]}
// CHECK-NEXT:    %[[STEP:.*]] = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// CHECK-NEXT:    %[[B:.*]] = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT:    %[[B_M:.*]] = dtf.variable "b/Momentum"
// CHECK-NEXT:    dtf.apply_momentum %[[B]], %[[B_M]], %[[DB]] learning_rate 1.000000e-01 momentum 9.000000e-01 : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT:    %[[ONE:.*]] = dtf.constant dense<1> : tensor<i64>
// CHECK-NEXT:    dtf.assign_add %[[STEP]], %[[ONE]] : !dtf.resource<tensor<i64>>
// CHECK-NEXT:    return
//
// CHECK:       func.func @ps_1(%[[DW:.*]]: tensor<4x2xf32>)
// CHECK-SAME:    attributes {dtf.device = #dtf.device<"/job:ps/task:1">, dtf.gradients = ["w"]}
// CHECK-NEXT:    %[[W:.*]] = dtf.variable "w" init(#dtf.truncated_normal<stddev = 0.5, seed = 1>) : !dtf.resource<tensor<4x2xf32>>
// CHECK-NEXT:    %[[W_M:.*]] = dtf.variable "w/Momentum"
// CHECK-NEXT:    dtf.apply_momentum %[[W]], %[[W_M]], %[[DW]]
// CHECK-NEXT:    return
//
// The worker pulls each variable once, global step first, though w is read
// twice; it carries no placement.
// CHECK:       func.func @worker() -> (tensor<f32>, tensor<i64>) {
// CHECK-NEXT:    %[[P_STEP:.*]] = dtf.pull "global_step" from "/job:ps/task:0" : tensor<i64>
// CHECK-NEXT:    %[[P_W:.*]] = dtf.pull "w" from "/job:ps/task:1" : tensor<4x2xf32>
// CHECK-NEXT:    %[[P_B:.*]] = dtf.pull "b" from "/job:ps/task:0" : tensor<2xf32>
// CHECK-NOT:     dtf.pull
// CHECK:         %[[MM:.*]] = dtf.matmul %{{.*}}, %[[P_W]]
// CHECK-NEXT:    %[[Y:.*]] = dtf.bias_add %[[MM]], %[[P_B]]
// CHECK-NEXT:    %[[LOSS:.*]] = dtf.reduce_sum %[[Y]]
// CHECK:         %[[G_B:.*]] = dtf.bias_add_grad
// CHECK:         %[[G_W:.*]] = dtf.mul %[[P_W]], %{{.*}} : tensor<4x2xf32>, tensor<f32>
// The gradients go to the task of their variable, tagged with the step.
// CHECK-NEXT:    dtf.push_gradients to "/job:ps/task:0" step %[[P_STEP]] (%[[G_B]]) {names = ["b"]} : tensor<i64>, tensor<2xf32>
// CHECK-NEXT:    dtf.push_gradients to "/job:ps/task:1" step %[[P_STEP]] (%[[G_W]]) {names = ["w"]} : tensor<i64>, tensor<4x2xf32>
// A fetch of a variable is its pulled value, as of the start of the step.
// CHECK-NEXT:    return %[[LOSS]], %[[P_STEP]] : tensor<f32>, tensor<i64>
// CHECK-NOT:   func.func
//
// WORKER-LABEL: func.func @worker
// WORKER-NOT:   dtf.device
// WORKER:       return
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"],
                                              worker = ["localhost:2223", "localhost:2224"]>} {
  func.func @main() -> (tensor<f32>, tensor<i64>) {
    %step = dtf.variable "global_step" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<i64>>
    %w = dtf.variable "w" init(#dtf.truncated_normal<stddev = 0.5, seed = 1>) {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<4x2xf32>>
    %w_m = dtf.variable "w/Momentum" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false} : !dtf.resource<tensor<4x2xf32>>
    %b = dtf.variable "b" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %b_m = dtf.variable "b/Momentum" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<2xf32>>
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x4xf32>
    %w_value = dtf.read %w {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<4x2xf32>>
    %b_value = dtf.read %b {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %mm = dtf.matmul %x, %w_value {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x4xf32>, tensor<4x2xf32>
    %y = dtf.bias_add %mm, %b_value {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x2xf32>, tensor<2xf32>
    %loss = dtf.reduce_sum %y {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x2xf32>
    // Gradients: d(loss)/d(b) and a stand-in for d(loss)/d(w) that reads w
    // again.
    %dy = dtf.constant {dtf.device = #dtf.device<"/job:worker/task:0">} dense<1.0> : tensor<8x2xf32>
    %db = dtf.bias_add_grad %dy {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x2xf32>
    %w_again = dtf.read %w {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<4x2xf32>>
    %decay = dtf.constant {dtf.device = #dtf.device<"/job:worker/task:0">} dense<0.1> : tensor<f32>
    %dw = dtf.mul %w_again, %decay {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x2xf32>, tensor<f32>
    dtf.apply_momentum %w, %w_m, %dw learning_rate 0.1 momentum 0.9 {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<4x2xf32>>
    dtf.apply_momentum %b, %b_m, %db learning_rate 0.1 momentum 0.9 {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %one = dtf.constant {dtf.device = #dtf.device<"/job:worker/task:0">} dense<1> : tensor<i64>
    dtf.assign_add %step, %one {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<i64>>
    // The step is also a fetch.
    %step_value = dtf.read %step {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<i64>>
    return %loss, %step_value : tensor<f32>, tensor<i64>
  }
}

// -----

// Without a global step, async pushes are tagged with step 0.
// CHECK-LABEL: module attributes
// CHECK:       func.func @ps_0(%[[G:.*]]: tensor<2xf32>) attributes {dtf.device = #dtf.device<"/job:ps/task:0">, dtf.gradients = ["b"]}
// CHECK-NEXT:    %[[B:.*]] = dtf.variable "b"
// CHECK-NEXT:    dtf.apply_gradient_descent %[[B]], %[[G]] learning_rate 5.000000e-01
// CHECK-NEXT:    return
// CHECK:       func.func @worker() -> tensor<f32>
// CHECK-NEXT:    %[[P_B:.*]] = dtf.pull "b" from "/job:ps/task:0" : tensor<2xf32>
// CHECK-NEXT:    %[[ZERO:.*]] = dtf.constant dense<0> : tensor<i64>
// CHECK:         dtf.push_gradients to "/job:ps/task:0" step %[[ZERO]] (%{{.*}}) {names = ["b"]} : tensor<i64>, tensor<2xf32>
//
// WORKER-LABEL: func.func @worker
// WORKER-NOT:   dtf.device
// WORKER:       return
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() -> tensor<f32> {
    %b = dtf.variable "b" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x2xf32>
    %b_value = dtf.read %b {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %y = dtf.bias_add %x, %b_value {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x2xf32>, tensor<2xf32>
    %loss = dtf.reduce_sum %y {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x2xf32>
    %dy = dtf.constant {dtf.device = #dtf.device<"/job:worker/task:0">} dense<1.0> : tensor<8x2xf32>
    %db = dtf.bias_add_grad %dy {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<8x2xf32>
    dtf.apply_gradient_descent %b, %db learning_rate 0.5 {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    return %loss : tensor<f32>
  }
}

// -----

// Four PS tasks: ps0 holds only the global step, ps3 only a variable that
// nothing updates. Every task holding variables gets a function; the worker
// pushes to those that update something, with no gradients to ps0, and does
// not push to ps3. The ops may carry a device part, and the worker's ops run
// wherever they were placed.
// CHECK-LABEL: module attributes
// CHECK:       func.func @ps_0() attributes {dtf.device = #dtf.device<"/job:ps/task:0">, dtf.gradients = []}
// CHECK-NEXT:    %[[STEP:.*]] = dtf.variable "global_step"
// CHECK-NEXT:    %[[ONE:.*]] = dtf.constant dense<1> : tensor<i64>
// CHECK-NEXT:    dtf.assign_add %[[STEP]], %[[ONE]]
// CHECK-NEXT:    return
// CHECK:       func.func @ps_1(%{{.*}}: tensor<2x2xf32>) attributes {dtf.device = #dtf.device<"/job:ps/task:1">, dtf.gradients = ["w"]}
// CHECK:       func.func @ps_2(%{{.*}}: tensor<2xf32>) attributes {dtf.device = #dtf.device<"/job:ps/task:2">, dtf.gradients = ["b"]}
// CHECK:       func.func @ps_3() attributes {dtf.device = #dtf.device<"/job:ps/task:3">, dtf.gradients = []}
// CHECK-NEXT:    dtf.variable "scale" init(#dtf.constant<2.0>) {trainable = false} : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    return
// CHECK:       func.func @worker() -> tensor<f32>
// CHECK-NEXT:    %[[P_STEP:.*]] = dtf.pull "global_step" from "/job:ps/task:0" : tensor<i64>
// CHECK-NEXT:    dtf.pull "w" from "/job:ps/task:1"
// CHECK-NEXT:    dtf.pull "b" from "/job:ps/task:2"
// CHECK-NEXT:    dtf.pull "scale" from "/job:ps/task:3"
// CHECK:         dtf.push_gradients to "/job:ps/task:0" step %[[P_STEP]] () : tensor<i64>
// CHECK-NEXT:    dtf.push_gradients to "/job:ps/task:1" step %[[P_STEP]] (%{{.*}}) {names = ["w"]}
// CHECK-NEXT:    dtf.push_gradients to "/job:ps/task:2" step %[[P_STEP]] (%{{.*}}) {names = ["b"]}
// CHECK-NEXT:    return
//
// WORKER-LABEL: func.func @worker
// WORKER-NOT:   dtf.device
// WORKER:       return
module attributes {dtf.cluster = #dtf.cluster<ps = ["ps0:2222", "ps1:2222", "ps2:2222", "ps3:2222"],
                                              worker = ["worker0:2222", "worker1:2222", "worker2:2222"]>} {
  func.func @main() -> tensor<f32> {
    %step = dtf.variable "global_step" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<i64>>
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1/device:CPU:0">} : !dtf.resource<tensor<2x2xf32>>
    %b = dtf.variable "b" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:2">} : !dtf.resource<tensor<2xf32>>
    %scale = dtf.variable "scale" init(#dtf.constant<2.0>) {dtf.device = #dtf.device<"/job:ps/task:3">, trainable = false} : !dtf.resource<tensor<f32>>
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:1/device:GPU:0">} : tensor<4x2xf32>
    %w_value = dtf.read %w : !dtf.resource<tensor<2x2xf32>>
    %b_value = dtf.read %b : !dtf.resource<tensor<2xf32>>
    %scale_value = dtf.read %scale : !dtf.resource<tensor<f32>>
    %mm = dtf.matmul %x, %w_value {dtf.device = #dtf.device<"/job:worker/task:1/device:GPU:0">} : tensor<4x2xf32>, tensor<2x2xf32>
    %y = dtf.bias_add %mm, %b_value {dtf.device = #dtf.device<"/job:worker/task:1/device:CPU:0">} : tensor<4x2xf32>, tensor<2xf32>
    %scaled = dtf.mul %y, %scale_value {dtf.device = #dtf.device<"/job:ps/task:3">} : tensor<4x2xf32>, tensor<f32>
    %loss = dtf.reduce_sum %scaled : tensor<4x2xf32>
    %dw = dtf.mul %w_value, %scale_value : tensor<2x2xf32>, tensor<f32>
    %db = dtf.mul %b_value, %scale_value : tensor<2xf32>, tensor<f32>
    dtf.apply_gradient_descent %w, %dw learning_rate 0.5 : !dtf.resource<tensor<2x2xf32>>
    dtf.apply_gradient_descent %b, %db learning_rate 0.5 : !dtf.resource<tensor<2xf32>>
    %one = dtf.constant dense<1> : tensor<i64>
    dtf.assign_add %step, %one : !dtf.resource<tensor<i64>>
    return %loss : tensor<f32>
  }
}
