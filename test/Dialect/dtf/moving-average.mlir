// RUN: dtf-opt %s | FileCheck %s
// RUN: dtf-opt %s --mlir-print-op-generic | dtf-opt | FileCheck %s

// Batch normalization's moving mean, updated from a batch's mean: an update
// of a variable no optimizer trains.
// CHECK-LABEL: func.func @moving_mean
// CHECK:         %[[MEAN:.*]] = dtf.variable "bn/moving_mean" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<4xf32>>
// CHECK:         dtf.assign_moving_average %[[MEAN]], %{{.*}} decay 7.500000e-01 : !dtf.resource<tensor<4xf32>>
func.func @moving_mean(%x: tensor<8x4xf32>) {
  %mean = dtf.variable "bn/moving_mean" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<4xf32>>
  %batch_mean = dtf.reduce_mean %x {axes = array<i64: 0>} : tensor<8x4xf32>
  dtf.assign_moving_average %mean, %batch_mean decay 0.75 : !dtf.resource<tensor<4xf32>>
  return
}
