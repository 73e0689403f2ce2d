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
