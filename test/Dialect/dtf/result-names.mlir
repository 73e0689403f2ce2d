// RUN: dtf-opt %s | dtf-opt | FileCheck %s

// A function names its results for validation's reports; the names
// round-trip.

// CHECK-LABEL: func.func @model
// CHECK-SAME: dtf.result_names = ["loss", "accuracy/Mean"]
func.func @model(%loss: tensor<f32>, %accuracy: tensor<f32>) -> (tensor<f32>, tensor<f32>) attributes {dtf.result_names = ["loss", "accuracy/Mean"]} {
  return %loss, %accuracy : tensor<f32>, tensor<f32>
}
