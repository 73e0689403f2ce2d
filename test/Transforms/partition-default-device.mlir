// RUN: dtf-opt %s --dtf-partition=default-device=/job:worker/task:1 | FileCheck %s

// Ops without a device go to default-device; placed ops stay where they
// are. The function still counts as placed because some of its ops are.
// CHECK-LABEL: func.func @main_worker_0
// CHECK-SAME: (%[[ARG:.*]]: tensor<4xf32>)
// CHECK-NEXT: dtf.send %[[ARG]], "edge_0_arg0" from "/job:worker/task:0" to "/job:worker/task:1"
// CHECK-NEXT: %[[R:.*]] = dtf.recv "edge_1_dtf.log" from "/job:worker/task:1" to "/job:worker/task:0"
// CHECK-NEXT: %[[S:.*]] = dtf.relu %[[R]] {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK-NEXT: return %[[S]]
// CHECK-LABEL: func.func @main_worker_1()
// CHECK-NEXT: %[[X:.*]] = dtf.recv "edge_0_arg0"
// CHECK-NEXT: %[[N:.*]] = dtf.neg %[[X]] : tensor<4xf32>
// CHECK-NEXT: %[[L:.*]] = dtf.log %[[N]] : tensor<4xf32>
// CHECK-NEXT: dtf.send %[[L]], "edge_1_dtf.log"
// CHECK-NEXT: return
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %n = dtf.neg %x : tensor<4xf32>
    %l = dtf.log %n : tensor<4xf32>
    %r = dtf.relu %l {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4xf32>
    return %r : tensor<4xf32>
  }
}
