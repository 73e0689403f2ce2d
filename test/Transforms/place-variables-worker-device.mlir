// RUN: dtf-opt %s --dtf-place-variables=worker-device=/job:worker/task:1/device:GPU:0 | FileCheck %s

// worker-device chooses where the ops that touch no variable run; variables
// and their reads still go to the PS tasks.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[W:.*]] = dtf.variable "w" {{.*}}{dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK-NEXT: %[[X:.*]] = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:1/device:GPU:0">}
// CHECK-NEXT: %[[R:.*]] = dtf.read %[[W]] {dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK-NEXT: dtf.matmul %[[X]], %[[R]] {dtf.device = #dtf.device<"/job:worker/task:1/device:GPU:0">}
// CHECK-NEXT: return
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @main() -> tensor<8x2xf32> {
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
    %x = dtf.placeholder "x" : tensor<8x4xf32>
    %r = dtf.read %w : !dtf.resource<tensor<4x2xf32>>
    %y = dtf.matmul %x, %r : tensor<8x4xf32>, tensor<4x2xf32>
    return %y : tensor<8x2xf32>
  }
}
