// RUN: dtf-opt --dtf-expand-optimizer --split-input-file --verify-diagnostics %s

// Slots hang off a dtf.variable; a resource argument has none to hang from.
func.func @slot_of_argument(%v: !dtf.resource<tensor<3xf32>>, %g: tensor<3xf32>) {
  // expected-error @+1 {{'dtf.apply_gradients' op variable #0 is not defined by a dtf.variable, so #dtf.momentum<learning_rate = 0.1, momentum = 0.9> cannot create its slots}}
  dtf.apply_gradients #dtf.momentum<learning_rate = 0.1, momentum = 0.9> (%v : !dtf.resource<tensor<3xf32>>) grads(%g : tensor<3xf32>)
  return
}

// -----

func.func @nothing_to_update() {
  // expected-error @+1 {{'dtf.apply_gradients' op has no variables to update}}
  "dtf.apply_gradients"() <{optimizer = #dtf.sgd<learning_rate = 0.1>, operandSegmentSizes = array<i32: 0, 0, 0, 0, 0, 0>}> : () -> ()
  return
}

// -----

// dtf.optimizer names the optimizer of a trainable variable or a lifted
// device function; anywhere else it would be silently ignored.
func.func @optimizer_on_placeholder() {
  // expected-error @+1 {{'dtf.optimizer' is only valid on a function or a dtf.variable}}
  %x = dtf.placeholder "x" {dtf.optimizer = #dtf.sgd<learning_rate = 0.1>} : tensor<4xf32>
  return
}

// -----

func.func @optimizer_not_an_optimizer() {
  // expected-error @+1 {{'dtf.optimizer' must be a dtf optimizer attribute}}
  %w = dtf.variable "w" init(#dtf.zeros) {dtf.optimizer = 0.1 : f32} : !dtf.resource<tensor<4xf32>>
  return
}

// -----

func.func @optimizer_on_non_trainable() {
  // expected-error @+1 {{'dtf.optimizer' on variable 'global_step', which is not trainable, so no optimizer updates it}}
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false, dtf.optimizer = #dtf.sgd<learning_rate = 0.1>} : !dtf.resource<tensor<i64>>
  return
}
