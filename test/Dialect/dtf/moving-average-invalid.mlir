// The verifier of dtf.assign_moving_average.
// RUN: dtf-opt %s -split-input-file -verify-diagnostics

func.func @decay_above_one(%value: tensor<4xf32>) {
  %mean = dtf.variable "mean" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<4xf32>>
  // expected-error @+1 {{decay must be in [0, 1], got 1.5}}
  dtf.assign_moving_average %mean, %value decay 1.5 : !dtf.resource<tensor<4xf32>>
  return
}

// -----

func.func @trainable(%value: tensor<4xf32>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4xf32>>
  // expected-error @+1 {{updates the trainable variable 'w'; a moving average is of a variable no optimizer trains}}
  dtf.assign_moving_average %w, %value decay 0.99 : !dtf.resource<tensor<4xf32>>
  return
}

// -----

func.func @value_type(%value: tensor<3xf32>) {
  %mean = dtf.variable "mean" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<4xf32>>
  // expected-error @+1 {{failed to verify that value has the variable's type}}
  "dtf.assign_moving_average"(%mean, %value) {decay = 0.5 : f64} : (!dtf.resource<tensor<4xf32>>, tensor<3xf32>) -> ()
  return
}
