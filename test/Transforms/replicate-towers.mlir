// --dtf-replicate-towers on a placed training graph: a softmax regression
// on batches of 4, placed by --dtf-place-variables on worker 0, replicated
// into towers on workers 1 and 2.
// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables %s > %t.placed
// RUN: dtf-opt --dtf-replicate-towers=devices=/job:worker/task:1,/job:worker/task:2 %t.placed | FileCheck %s
// One tower on the model's own device is the input, unchanged.
// RUN: dtf-opt --dtf-replicate-towers=devices=/job:worker/task:0 %t.placed > %t.one
// RUN: diff %t.placed %t.one
// The towers partition into one function per worker, and the partitions
// verify.
// RUN: dtf-opt --dtf-replicate-towers=devices=/job:worker/task:1,/job:worker/task:2 \
// RUN:   --dtf-partition --dtf-verify-partitions %t.placed | FileCheck %s --check-prefix=PART
// The example MLP, as dtf-run trains it in-graph on two workers.
// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables \
// RUN:   --dtf-replicate-towers=devices=/job:worker/task:0,/job:worker/task:1 \
// RUN:   --dtf-partition --dtf-verify-partitions %examples/mnist_mlp.mlir \
// RUN:   | FileCheck %s --check-prefix=MNIST

// Each placeholder stays on worker 0, where it is fed, and is sliced there
// into the two towers' rows.
// CHECK-LABEL: func.func @main() -> (tensor<f32>, tensor<4xi64>)
// CHECK:      %[[X:.*]] = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>
// CHECK-NEXT: %[[X0:.*]] = dtf.slice %[[X]] offsets [0, 0] sizes [2, 3] {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>
// CHECK-NEXT: %[[X1:.*]] = dtf.slice %[[X]] offsets [2, 0] sizes [2, 3] {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>
// CHECK-NEXT: %[[L:.*]] = dtf.placeholder "labels" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x2xf32>
// CHECK-NEXT: %[[L0:.*]] = dtf.slice %[[L]] offsets [0, 0] sizes [2, 2] {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK-NEXT: %[[L1:.*]] = dtf.slice %[[L]] offsets [2, 0] sizes [2, 2] {dtf.device = #dtf.device<"/job:worker/task:0">}
// The forward pass, once per tower on half of the batch; both read the
// same weights from the PS task.
// CHECK-NEXT: %[[W:.*]] = dtf.read {{.*}} {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<3x2xf32>>
// CHECK-NEXT: %[[LOGITS0:.*]] = dtf.matmul %[[X0]], %[[W]] {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<2x3xf32>, tensor<3x2xf32>
// CHECK-NEXT: %[[LOGITS1:.*]] = dtf.matmul %[[X1]], %[[W]] {dtf.device = #dtf.device<"/job:worker/task:2">} : tensor<2x3xf32>, tensor<3x2xf32>
// CHECK-NEXT: %[[XENT0:.*]] = dtf.softmax_cross_entropy_with_logits %[[LOGITS0]], %[[L0]] {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<2x2xf32>, tensor<2x2xf32>
// CHECK-NEXT: %[[XENT1:.*]] = dtf.softmax_cross_entropy_with_logits %[[LOGITS1]], %[[L1]] {dtf.device = #dtf.device<"/job:worker/task:2">}
// CHECK-NEXT: %[[LOSS0:.*]] = dtf.reduce_mean %[[XENT0]] {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<2xf32>
// CHECK-NEXT: %[[LOSS1:.*]] = dtf.reduce_mean %[[XENT1]] {dtf.device = #dtf.device<"/job:worker/task:2">} : tensor<2xf32>
// The seed of the backward pass and reduce_mean's 1/4 do not depend on the
// batch: computed once, on the first tower's device. The seed has the
// batch's shape, so each tower takes its rows of it.
// CHECK-NEXT: dtf.constant {dtf.device = #dtf.device<"/job:worker/task:1">} dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: dtf.reshape {{.*}} {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: dtf.broadcast_to {{.*}} {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<1xf32> -> tensor<4xf32>
// CHECK-NEXT: dtf.constant {dtf.device = #dtf.device<"/job:worker/task:1">} dense<2.500000e-01> : tensor<f32>
// CHECK-NEXT: %[[SEED:.*]] = dtf.mul {{.*}} {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4xf32>, tensor<f32>
// CHECK-NEXT: %[[SEED0:.*]] = dtf.slice %[[SEED]] offsets [0] sizes [2] {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: %[[SEED1:.*]] = dtf.slice %[[SEED]] offsets [2] sizes [2] {dtf.device = #dtf.device<"/job:worker/task:1">}
// The backward pass, once per tower.
// CHECK-NEXT: %[[DLOGITS0:.*]] = dtf.softmax_cross_entropy_with_logits_grad %[[SEED0]], %[[LOGITS0]], %[[L0]] {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
// CHECK-NEXT: %[[DLOGITS1:.*]] = dtf.softmax_cross_entropy_with_logits_grad %[[SEED1]], %[[LOGITS1]], %[[L1]] {dtf.device = #dtf.device<"/job:worker/task:2">}
// CHECK-NEXT: %[[DW0:.*]] = dtf.matmul %[[X0]], %[[DLOGITS0]] {dtf.device = #dtf.device<"/job:worker/task:1">, transpose_a = true} : tensor<2x3xf32>, tensor<2x2xf32>
// CHECK-NEXT: %[[DW1:.*]] = dtf.matmul %[[X1]], %[[DLOGITS1]] {dtf.device = #dtf.device<"/job:worker/task:2">, transpose_a = true} : tensor<2x3xf32>, tensor<2x2xf32>
// The towers' gradients are summed beside the variable (each is its rows'
// share of the whole batch's gradient) and feed the one update.
// CHECK-NEXT: %[[B1P:.*]] = dtf.read
// CHECK-NEXT: %[[B2P:.*]] = dtf.read
// CHECK-NEXT: %[[DW:.*]] = dtf.add %[[DW0]], %[[DW1]] {dtf.device = #dtf.device<"/job:ps/task:0">} : tensor<3x2xf32>, tensor<3x2xf32>
// CHECK-NEXT: dtf.apply_adam {{.*}}, %[[B1P]], %[[B2P]], %[[DW]] learning_rate
// CHECK-SAME:   {dtf.device = #dtf.device<"/job:ps/task:0">}
// Adam's beta powers and the global step's increment are computed once.
// CHECK-NEXT: dtf.read
// CHECK-NEXT: dtf.constant {dtf.device = #dtf.device<"/job:worker/task:1">} dense<0.899999976> : tensor<f32>
// CHECK-NEXT: dtf.mul {{.*}} {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<f32>, tensor<f32>
// CHECK-NEXT: dtf.assign
// CHECK-NEXT: dtf.read
// CHECK-NEXT: dtf.constant {dtf.device = #dtf.device<"/job:worker/task:1">} dense<9.990000e-01> : tensor<f32>
// CHECK-NEXT: dtf.mul {{.*}} {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<f32>, tensor<f32>
// CHECK-NEXT: dtf.assign
// CHECK-NEXT: dtf.constant {dtf.device = #dtf.device<"/job:worker/task:1">} dense<1> : tensor<i64>
// CHECK-NEXT: dtf.assign_add
// CHECK-NEXT: %[[P0:.*]] = dtf.argmax %[[LOGITS0]], 1 {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: %[[P1:.*]] = dtf.argmax %[[LOGITS1]], 1 {dtf.device = #dtf.device<"/job:worker/task:2">}
// The loss is the towers' mean; the predictions, a row per example, are
// joined back into the batch's.
// CHECK-NEXT: %[[SUM:.*]] = dtf.add %[[LOSS0]], %[[LOSS1]] {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<f32>, tensor<f32>
// CHECK-NEXT: %[[HALF:.*]] = dtf.constant {dtf.device = #dtf.device<"/job:worker/task:1">} dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[LOSS:.*]] = dtf.mul %[[SUM]], %[[HALF]] {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: %[[P:.*]] = dtf.concat %[[P0]], %[[P1]] axis 0 {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<2xi64>, tensor<2xi64>
// CHECK-NEXT: return %[[LOSS]], %[[P]] : tensor<f32>, tensor<4xi64>

// Worker 0 feeds the batch and sends each tower its rows; the towers send
// their gradients to the PS task.
// PART-LABEL: func.func @main_ps_0()
// PART-DAG:   dtf.recv "{{edge_[0-9]+_dtf.matmul}}" from "/job:worker/task:1" to "/job:ps/task:0" : tensor<3x2xf32>
// PART-DAG:   dtf.recv "{{edge_[0-9]+_dtf.matmul}}" from "/job:worker/task:2" to "/job:ps/task:0" : tensor<3x2xf32>
// PART-LABEL: func.func @main_worker_0() -> (tensor<f32>, tensor<4xi64>)
// PART:       dtf.send %{{.*}}, "{{edge_[0-9]+_dtf.slice}}" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<2x3xf32>
// PART:       dtf.send %{{.*}}, "{{edge_[0-9]+_dtf.slice}}" from "/job:worker/task:0" to "/job:worker/task:2" : tensor<2x3xf32>
// PART-LABEL: func.func @main_worker_1()
// PART:       dtf.matmul
// PART-LABEL: func.func @main_worker_2()
// PART:       dtf.matmul

// The MLP's batch of 100 in two towers of 50 on workers 0 and 1; its four
// gradients are summed on the PS task.
// MNIST-LABEL: func.func @main_ps_0()
// MNIST-COUNT-4: dtf.add {{.*}} {dtf.device = #dtf.device<"/job:ps/task:0">}
// MNIST-LABEL: func.func @main_worker_0() -> (tensor<f32>, tensor<f32>)
// MNIST:       dtf.matmul {{.*}} : tensor<50x784xf32>, tensor<784x100xf32>
// MNIST-LABEL: func.func @main_worker_1()
// MNIST:       dtf.matmul {{.*}} : tensor<50x784xf32>, tensor<784x100xf32>
// A softmax regression on batches of 4, trained with Adam, with a global
// step; it returns the mean cross-entropy and the predicted classes.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2", "w:3"]>} {
  func.func @main() -> (tensor<f32>, tensor<4xi64>) {
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3x2xf32>>
    %x = dtf.placeholder "x" : tensor<4x3xf32>
    %labels = dtf.placeholder "labels" : tensor<4x2xf32>
    %wv = dtf.read %w : !dtf.resource<tensor<3x2xf32>>
    %logits = dtf.matmul %x, %wv : tensor<4x3xf32>, tensor<3x2xf32>
    %xent = dtf.softmax_cross_entropy_with_logits %logits, %labels : tensor<4x2xf32>, tensor<4x2xf32>
    %loss = dtf.reduce_mean %xent : tensor<4xf32>
    dtf.minimize %loss : tensor<f32>, #dtf.adam<learning_rate = 0.01> global_step %step : !dtf.resource<tensor<i64>>
    %predicted = dtf.argmax %logits, 1 : tensor<4x2xf32>
    return %loss, %predicted : tensor<f32>, tensor<4xi64>
  }
}
