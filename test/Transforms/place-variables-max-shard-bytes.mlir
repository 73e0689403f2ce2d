// RUN: dtf-opt %s --dtf-place-variables="max-shard-bytes=64 max-shards=8" | FileCheck %s

// max-shard-bytes splits every variable bigger than it, even without
// min-shard-bytes, into as many shards as it takes: a row of w holds 16
// bytes, so a shard holds at most 4 rows and w needs ceil(10 / 4) = 3
// shards (4, 3 and 3 rows). Its slot follows; small (16 bytes) stays whole.
// CHECK-LABEL: func.func @bounded
// CHECK-NEXT: dtf.variable "small" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<4xf32>>
// CHECK-NEXT: dtf.variable "w/part_0" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<4x4xf32>>
// CHECK-NEXT: dtf.variable "w/part_1" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<3x4xf32>>
// CHECK-NEXT: dtf.variable "w/part_2" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<3x4xf32>>
// CHECK-NEXT: dtf.variable "w/m/part_0" {{.*}} colocate_with("w/part_0") {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">
// CHECK-NEXT: dtf.variable "w/m/part_1" {{.*}} colocate_with("w/part_1") {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">
// CHECK-NEXT: dtf.variable "w/m/part_2" {{.*}} colocate_with("w/part_2") {{.*}}{dtf.device = #dtf.device<"/job:ps/task:1">
// CHECK-NEXT: return
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @bounded() {
    %small = dtf.variable "small" init(#dtf.zeros) : !dtf.resource<tensor<4xf32>>
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<10x4xf32>>
    %m = dtf.variable "w/m" init(#dtf.zeros) colocate_with("w") : !dtf.resource<tensor<10x4xf32>>
    return
  }
}
