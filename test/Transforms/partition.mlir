// RUN: dtf-opt %s -split-input-file --dtf-partition | FileCheck %s
// Partitions are not partitioned again.
// RUN: dtf-opt %s -split-input-file --dtf-partition --dtf-partition | FileCheck %s
// The output parses again and passes the partition checks: every operand
// is local, every send has its recv, and nothing can deadlock.
// RUN: dtf-opt %s -split-input-file --dtf-partition | dtf-opt -split-input-file --dtf-verify-partitions -o /dev/null

// A diamond over three workers: x is computed on worker 0, used on workers
// 1 and 2, whose results meet again on worker 0. Each partition keeps its
// ops in their original order; x is sent once to each of the two workers,
// right after it is computed, and each recv comes right before its use.
// Partitions are ordered by device name; the client's (worker 0) keeps the
// signature.
// CHECK-LABEL: func.func @diamond_worker_0
// CHECK-SAME: (%[[ARG:.*]]: tensor<4xf32>) -> tensor<4xf32> attributes {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK-NEXT: %[[X:.*]] = dtf.neg %[[ARG]] {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK-NEXT: dtf.send %[[X]], "edge_0_dtf.neg" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<4xf32>
// CHECK-NEXT: dtf.send %[[X]], "edge_0_dtf.neg" from "/job:worker/task:0" to "/job:worker/task:2" : tensor<4xf32>
// CHECK-NEXT: %[[A:.*]] = dtf.recv "edge_1_dtf.relu" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<4xf32>
// CHECK-NEXT: %[[B:.*]] = dtf.recv "edge_2_dtf.log" from "/job:worker/task:2" to "/job:worker/task:0" : tensor<4xf32>
// CHECK-NEXT: %[[C:.*]] = dtf.add %[[A]], %[[B]] {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK-NEXT: return %[[C]] : tensor<4xf32>
// CHECK-LABEL: func.func @diamond_worker_1
// CHECK-SAME: () attributes {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: %[[X1:.*]] = dtf.recv "edge_0_dtf.neg" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<4xf32>
// CHECK-NEXT: %[[A1:.*]] = dtf.relu %[[X1]] {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: dtf.send %[[A1]], "edge_1_dtf.relu" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<4xf32>
// CHECK-NEXT: return
// CHECK-LABEL: func.func @diamond_worker_2
// CHECK-SAME: () attributes {dtf.device = #dtf.device<"/job:worker/task:2">}
// CHECK-NEXT: %[[X2:.*]] = dtf.recv "edge_0_dtf.neg" from "/job:worker/task:0" to "/job:worker/task:2" : tensor<4xf32>
// CHECK-NEXT: %[[B2:.*]] = dtf.log %[[X2]] {dtf.device = #dtf.device<"/job:worker/task:2">}
// CHECK-NEXT: dtf.send %[[B2]], "edge_2_dtf.log" from "/job:worker/task:2" to "/job:worker/task:0" : tensor<4xf32>
// CHECK-NEXT: return
// CHECK-NOT: func.func @diamond
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2", "w:3"]>} {
  func.func @diamond(%arg: tensor<4xf32>) -> tensor<4xf32> {
    %x = dtf.neg %arg {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4xf32>
    %a = dtf.relu %x {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4xf32>
    %b = dtf.log %x {dtf.device = #dtf.device<"/job:worker/task:2">} : tensor<4xf32>
    %c = dtf.add %a, %b {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4xf32>, tensor<4xf32>
    return %c : tensor<4xf32>
  }
}

// -----

// A chain through three devices and back to the client: the argument is
// sent from the client's partition, which only receives the result.
// CHECK-LABEL: func.func @chain_ps_0()
// CHECK-NEXT: %[[B0:.*]] = dtf.recv "edge_2_dtf.neg" from "/job:worker/task:2" to "/job:ps/task:0"
// CHECK-NEXT: %[[C0:.*]] = dtf.log %[[B0]]
// CHECK-NEXT: dtf.send %[[C0]], "edge_3_dtf.log" from "/job:ps/task:0" to "/job:worker/task:0"
// CHECK-NEXT: return
// CHECK-LABEL: func.func @chain_worker_0
// CHECK-SAME: (%[[ARG:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: dtf.send %[[ARG]], "edge_0_arg0" from "/job:worker/task:0" to "/job:worker/task:1"
// CHECK-NEXT: %[[R:.*]] = dtf.recv "edge_3_dtf.log" from "/job:ps/task:0" to "/job:worker/task:0"
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func @chain_worker_1()
// CHECK-NEXT: %[[IN1:.*]] = dtf.recv "edge_0_arg0" from "/job:worker/task:0" to "/job:worker/task:1"
// CHECK-NEXT: %[[A1:.*]] = dtf.relu %[[IN1]]
// CHECK-NEXT: dtf.send %[[A1]], "edge_1_dtf.relu" from "/job:worker/task:1" to "/job:worker/task:2"
// CHECK-NEXT: return
// CHECK-LABEL: func.func @chain_worker_2()
// CHECK-NEXT: %[[IN2:.*]] = dtf.recv "edge_1_dtf.relu" from "/job:worker/task:1" to "/job:worker/task:2"
// CHECK-NEXT: %[[B2:.*]] = dtf.neg %[[IN2]]
// CHECK-NEXT: dtf.send %[[B2]], "edge_2_dtf.neg" from "/job:worker/task:2" to "/job:ps/task:0"
// CHECK-NEXT: return
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2", "w:3"]>} {
  func.func @chain(%arg: tensor<4xf32>) -> tensor<4xf32> {
    %a = dtf.relu %arg {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4xf32>
    %b = dtf.neg %a {dtf.device = #dtf.device<"/job:worker/task:2">} : tensor<4xf32>
    %c = dtf.log %b {dtf.device = #dtf.device<"/job:ps/task:0">} : tensor<4xf32>
    return %c : tensor<4xf32>
  }
}

// -----

// One transfer per value and destination, however many uses there are: x
// is used three times on worker 1 and twice on the PS, and returned.
// Results used on the producer's device are not transferred. The sends of
// x follow the order of the first uses on each destination.
// CHECK-LABEL: func.func @fan_out_ps_0()
// CHECK-NEXT: dtf.variable "v"
// CHECK-NEXT: %[[XP:.*]] = dtf.recv "edge_0_dtf.placeholder" from "/job:worker/task:0" to "/job:ps/task:0"
// CHECK-NEXT: dtf.assign %{{.*}}, %[[XP]]
// CHECK-NEXT: dtf.assign_add %{{.*}}, %[[XP]]
// CHECK-NEXT: return
// CHECK-LABEL: func.func @fan_out_worker_0()
// CHECK-NEXT: %[[X:.*]] = dtf.placeholder "x"
// CHECK-NEXT: dtf.send %[[X]], "edge_0_dtf.placeholder" from "/job:worker/task:0" to "/job:worker/task:1"
// CHECK-NEXT: dtf.send %[[X]], "edge_0_dtf.placeholder" from "/job:worker/task:0" to "/job:ps/task:0"
// CHECK-NEXT: %[[M:.*]] = dtf.recv "edge_1_dtf.mul" from "/job:worker/task:1" to "/job:worker/task:0"
// CHECK-NEXT: return %[[X]], %[[M]]
// CHECK-LABEL: func.func @fan_out_worker_1()
// CHECK-NEXT: %[[X1:.*]] = dtf.recv "edge_0_dtf.placeholder" from "/job:worker/task:0" to "/job:worker/task:1"
// CHECK-NEXT: %[[N:.*]] = dtf.neg %[[X1]]
// CHECK-NEXT: %[[S:.*]] = dtf.add %[[X1]], %[[N]]
// CHECK-NEXT: %[[P:.*]] = dtf.mul %[[S]], %[[X1]]
// CHECK-NEXT: dtf.send %[[P]], "edge_1_dtf.mul" from "/job:worker/task:1" to "/job:worker/task:0"
// CHECK-NEXT: return
// CHECK-NOT: dtf.recv
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @fan_out() -> (tensor<4xf32>, tensor<4xf32>) {
    %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<4xf32>>
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4xf32>
    %n = dtf.neg %x {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4xf32>
    dtf.assign %v, %x {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<4xf32>>
    %s = dtf.add %x, %n {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4xf32>, tensor<4xf32>
    dtf.assign_add %v, %x {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<4xf32>>
    %p = dtf.mul %s, %x {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4xf32>, tensor<4xf32>
    return %x, %p : tensor<4xf32>, tensor<4xf32>
  }
}

// -----

// An op with a region moves as a whole, with what its body uses from
// other devices received before it. Functions without placed ops, and
// declarations, are left alone; the rendezvous keys stay distinct across
// the partitioned functions of a module.
// CHECK-LABEL: func.func private @external()
// CHECK-LABEL: func.func @unplaced
// CHECK-NEXT: dtf.neg
// CHECK-LABEL: func.func @region_worker_0
// CHECK-NEXT: %[[X:.*]] = dtf.placeholder "x"
// CHECK-NEXT: dtf.send %[[X]], "edge_0_dtf.placeholder" from "/job:worker/task:0" to "/job:worker/task:1"
// CHECK-NEXT: %[[R:.*]] = dtf.recv "edge_1_scf.execute_region" from "/job:worker/task:1" to "/job:worker/task:0"
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func @region_worker_1
// CHECK-NEXT: %[[X1:.*]] = dtf.recv "edge_0_dtf.placeholder"
// CHECK-NEXT: %[[E:.*]] = scf.execute_region -> tensor<4xf32> {
// CHECK-NEXT:   %[[N:.*]] = dtf.neg %[[X1]]
// CHECK-NEXT:   scf.yield %[[N]]
// CHECK-NEXT: } {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: dtf.send %[[E]], "edge_1_scf.execute_region"
// CHECK-LABEL: func.func @second_worker_0
// CHECK: dtf.send {{.*}}"edge_2_dtf.placeholder"
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func private @external()
  func.func @unplaced(%x: tensor<4xf32>) -> tensor<4xf32> {
    %n = dtf.neg %x : tensor<4xf32>
    return %n : tensor<4xf32>
  }
  func.func @region() -> tensor<4xf32> {
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4xf32>
    %e = scf.execute_region -> tensor<4xf32> {
      %n = dtf.neg %x : tensor<4xf32>
      scf.yield %n : tensor<4xf32>
    } {dtf.device = #dtf.device<"/job:worker/task:1">}
    return %e : tensor<4xf32>
  }
  func.func @second() {
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4xf32>
    %n = dtf.neg %x {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4xf32>
    return
  }
}
