// RUN: dtf-opt %s --dtf-partition=client-device=/job:worker/task:1 | FileCheck %s
// RUN: dtf-opt %s --dtf-partition=client-device=/job:worker/task:1 | dtf-opt --dtf-verify-partitions -o /dev/null

// The client's partition takes the arguments and returns the results, here
// on worker 1; worker 0 gets the argument it needs from there.
// CHECK-LABEL: func.func @main_worker_0()
// CHECK-SAME: attributes {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK-NEXT: %[[X:.*]] = dtf.recv "edge_0_arg0" from "/job:worker/task:1" to "/job:worker/task:0"
// CHECK-NEXT: %[[N:.*]] = dtf.neg %[[X]]
// CHECK-NEXT: dtf.send %[[N]], "edge_1_dtf.neg" from "/job:worker/task:0" to "/job:worker/task:1"
// CHECK-NEXT: return
// CHECK-LABEL: func.func @main_worker_1
// CHECK-SAME: (%[[ARG:.*]]: tensor<4xf32> {test.name = "x"}) -> (tensor<4xf32> {test.name = "y"})
// CHECK-SAME: attributes {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: dtf.send %[[ARG]], "edge_0_arg0" from "/job:worker/task:1" to "/job:worker/task:0"
// CHECK-NEXT: %[[R:.*]] = dtf.recv "edge_1_dtf.neg" from "/job:worker/task:0" to "/job:worker/task:1"
// CHECK-NEXT: return %[[R]]
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @main(%x: tensor<4xf32> {test.name = "x"}) -> (tensor<4xf32> {test.name = "y"}) {
    %n = dtf.neg %x {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4xf32>
    return %n : tensor<4xf32>
  }
}
