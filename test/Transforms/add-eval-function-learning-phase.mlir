// RUN: dtf-opt --dtf-add-eval-function %s | FileCheck %s

// An in-graph job runs each function as it is: the learning phase becomes
// true in the training function (dropout on) and false in its evaluation
// copy (dropout off).

// CHECK-LABEL: func.func @main
// CHECK-NOT:   dtf.learning_phase
// CHECK:       %[[TRUE:.*]] = dtf.constant dense<true> : tensor<i1>
// CHECK:       dtf.select %[[TRUE]]
// CHECK-LABEL: func.func @main_eval
// CHECK-NOT:   dtf.learning_phase
// CHECK:       %[[FALSE:.*]] = dtf.constant dense<false> : tensor<i1>
// CHECK:       dtf.select %[[FALSE]]
func.func @main() -> tensor<f32> {
  %x = dtf.placeholder "x" : tensor<4xf32>
  %half = dtf.constant dense<0.5> : tensor<f32>
  %training = dtf.learning_phase : tensor<i1>
  %dropped = dtf.mul %x, %half : tensor<4xf32>, tensor<f32>
  %y = dtf.select %training, %dropped, %x : tensor<i1>, tensor<4xf32>, tensor<4xf32>
  %loss = dtf.reduce_sum %y : tensor<4xf32>
  return %loss : tensor<f32>
}
