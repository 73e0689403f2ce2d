// RUN: dtf-opt %s --dtf-place-variables="min-shard-bytes=64 max-shards=2" | FileCheck %s

// max-shards caps the number of shards below the number of PS tasks (the
// default cap): w (160 bytes) would make ceil(160 / 64) = 3 shards of at
// least 64 bytes, but gets 2 of 5 rows, on ps0 and ps1; v then goes on to
// ps2 and ps0.
// CHECK-LABEL: func.func @capped
// CHECK-NEXT: dtf.variable "w/part_0" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<5x4xf32>>
// CHECK-NEXT: dtf.variable "w/part_1" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<5x4xf32>>
// CHECK-NEXT: dtf.variable "v/part_0" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:2">} : !dtf.resource<tensor<10x4xi32>>
// CHECK-NEXT: dtf.variable "v/part_1" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<10x4xi32>>
// CHECK-NEXT: return
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2", "p:3"], worker = ["w:1"]>} {
  func.func @capped() {
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<10x4xf32>>
    %v = dtf.variable "v" init(#dtf.zeros) : !dtf.resource<tensor<20x4xi32>>
    return
  }
}
