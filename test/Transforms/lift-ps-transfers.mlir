// RUN: dtf-opt --dtf-lift-ps-transfers %s | FileCheck %s
// The replica function can have another name.
// RUN: sed -e 's/@worker/@replica/' %s | dtf-opt --dtf-lift-ps-transfers=function=replica | FileCheck %s --check-prefix=NAMED
// What dtf-run's workers run: the example, compiled and lifted.
// RUN: dtf-opt --dtf-training-pipeline=mode=sync --dtf-lift-ps-transfers %examples/mnist_mlp.mlir | FileCheck %s --check-prefix=MLP

// The PS functions are left alone.
// CHECK-LABEL: func.func @ps_0
// CHECK-NEXT:    return

// Pulls become placeholders that say where they are read from; the pushes'
// steps and gradients follow the model's results, push after push.
// CHECK-LABEL: func.func @worker() -> (tensor<f32>, tensor<2xf32>, tensor<i64>, tensor<2xf32>, tensor<i64>, tensor<4x2xf32>)
// CHECK-SAME:    attributes {dtf.model_results = 2 : i64,
// CHECK-SAME:    dtf.pushes = [{device = #dtf.device<"/job:ps/task:0">, names = ["b"]}, {device = #dtf.device<"/job:ps/task:1">, names = ["w"]}]}
// CHECK-NEXT:    %[[STEP:.*]] = dtf.placeholder "^pull/global_step" {dtf.pulled_from = #dtf.device<"/job:ps/task:0">} : tensor<i64>
// CHECK-NEXT:    %[[W:.*]] = dtf.placeholder "^pull/w" {dtf.pulled_from = #dtf.device<"/job:ps/task:1">} : tensor<4x2xf32>
// CHECK-NEXT:    %[[B:.*]] = dtf.placeholder "^pull/b" {dtf.pulled_from = #dtf.device<"/job:ps/task:0">} : tensor<2xf32>
// CHECK-NEXT:    %[[X:.*]] = dtf.placeholder "x" : tensor<8x4xf32>
// CHECK-NEXT:    %[[MM:.*]] = dtf.matmul %[[X]], %[[W]]
// CHECK-NEXT:    %[[Y:.*]] = dtf.bias_add %[[MM]], %[[B]]
// CHECK-NEXT:    %[[LOSS:.*]] = dtf.reduce_sum %[[Y]]
// CHECK-NEXT:    %[[G_B:.*]] = dtf.reduce_sum %[[Y]] {axes = array<i64: 0>}
// CHECK-NEXT:    %[[G_W:.*]] = dtf.mul %[[W]], %[[W]]
// CHECK-NOT:     dtf.push_gradients
// CHECK-NEXT:    return %[[LOSS]], %[[G_B]], %[[STEP]], %[[G_B]], %[[STEP]], %[[G_W]]

// NAMED: func.func @replica() -> (tensor<f32>, tensor<2xf32>, tensor<i64>, tensor<2xf32>, tensor<i64>, tensor<4x2xf32>)

// MLP-LABEL: func.func @worker
// MLP-SAME:    dtf.model_results = 2 : i64
// MLP-SAME:    dtf.pushes = [{device = #dtf.device<"/job:ps/task:0">, names = ["hid_w", "hid_b", "sm_w", "sm_b"]}]
// MLP-NOT:     dtf.pull "
// MLP:         dtf.placeholder "^pull/hid_w" {dtf.pulled_from = #dtf.device<"/job:ps/task:0">}
// MLP-NOT:     dtf.pull "
// MLP-NOT:     dtf.push_gradients
// MLP:         return

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"],
                                              worker = ["localhost:2223"]>} {
  func.func @ps_0() attributes {dtf.device = #dtf.device<"/job:ps/task:0">} {
    return
  }
  func.func @worker() -> (tensor<f32>, tensor<2xf32>) {
    %step = dtf.pull "global_step" from "/job:ps/task:0" : tensor<i64>
    %w = dtf.pull "w" from "/job:ps/task:1" : tensor<4x2xf32>
    %b = dtf.pull "b" from "/job:ps/task:0" : tensor<2xf32>
    %x = dtf.placeholder "x" : tensor<8x4xf32>
    %mm = dtf.matmul %x, %w : tensor<8x4xf32>, tensor<4x2xf32>
    %y = dtf.bias_add %mm, %b : tensor<8x2xf32>, tensor<2xf32>
    %loss = dtf.reduce_sum %y : tensor<8x2xf32>
    %g_b = dtf.reduce_sum %y {axes = array<i64: 0>} : tensor<8x2xf32>
    %g_w = dtf.mul %w, %w : tensor<4x2xf32>, tensor<4x2xf32>
    dtf.push_gradients to "/job:ps/task:0" step %step (%g_b) {names = ["b"]} : tensor<i64>, tensor<2xf32>
    dtf.push_gradients to "/job:ps/task:1" step %step (%g_w) {names = ["w"]} : tensor<i64>, tensor<4x2xf32>
    return %loss, %g_b : tensor<f32>, tensor<2xf32>
  }
}
