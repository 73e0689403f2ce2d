// RUN: dtf-opt %s -split-input-file -verify-diagnostics

// The verifiers of the elementwise math ops and average pooling
// (math-ops.mlir): each operand constraint and shape rule, one case each.

func.func @pow_of_integers(%a: tensor<3xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = dtf.pow %a, %a : tensor<3xi32>, tensor<3xi32>
  return
}

// -----

func.func @div_no_nan_of_integers(%a: tensor<3xi64>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = dtf.div_no_nan %a, %a : tensor<3xi64>, tensor<3xi64>
  return
}

// -----

func.func @minimum_element_types(%a: tensor<3xf32>, %b: tensor<3xf64>) {
  // expected-error @+1 {{element types differ: 'tensor<3xf32>' and 'tensor<3xf64>'}}
  %0 = dtf.minimum %a, %b : tensor<3xf32>, tensor<3xf64>
  return
}

// -----

func.func @greater_of_booleans(%a: tensor<3xi1>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point or 32-bit signless integer or 64-bit signless integer values}}
  %0 = dtf.greater %a, %a : tensor<3xi1>, tensor<3xi1>
  return
}

// -----

func.func @less_broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{shapes are not broadcast-compatible: 'tensor<2x3xf32>' and 'tensor<2xf32>'}}
  %0 = dtf.less %a, %b : tensor<2x3xf32>, tensor<2xf32>
  return
}

// -----

func.func @logical_and_of_floats(%a: tensor<3xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = dtf.logical_and %a, %a : tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @tanh_of_integers(%a: tensor<3xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = dtf.tanh %a : tensor<3xi32>
  return
}

// -----

func.func @select_condition_type(%c: tensor<3xf32>, %a: tensor<3xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = dtf.select %c, %a, %a : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  return
}

// -----

func.func @select_value_types(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xi32>) {
  // expected-error @+1 {{element types differ: 'tensor<3xf32>' and 'tensor<3xi32>'}}
  %0 = dtf.select %c, %a, %b : tensor<3xi1>, tensor<3xf32>, tensor<3xi32>
  return
}

// -----

func.func @select_condition_shape(%c: tensor<2xi1>, %a: tensor<2x3xf32>) {
  // expected-error @+1 {{condition is not broadcast-compatible with the values: 'tensor<2xi1>' and 'tensor<2x3xf32>'}}
  %0 = dtf.select %c, %a, %a : tensor<2xi1>, tensor<2x3xf32>, tensor<2x3xf32>
  return
}

// -----

func.func @learning_phase_type() {
  // expected-error @+1 {{result #0 must be 0D tensor of 1-bit signless integer values}}
  %0 = dtf.learning_phase : tensor<2xi1>
  return
}

// -----

func.func @avg_pool_grad_dy(%dy: tensor<1x3x3x2xf32>) {
  // expected-error @+1 {{'dtf.avg_pool_grad' op avg_pool of 'tensor<1x5x5x2xf32>' gives 'tensor<1x2x2x2xf32>', but dy is 'tensor<1x3x3x2xf32>'}}
  %0 = dtf.avg_pool_grad %dy ksize [1, 3, 3, 1] strides [1, 3, 3, 1] padding SAME : tensor<1x3x3x2xf32> -> tensor<1x5x5x2xf32>
  return
}

// -----

func.func @random_uniform_integers() {
  // expected-error @+1 {{'dtf.random_uniform' op result #0 must be ranked tensor of floating-point values}}
  %u = dtf.random_uniform seed 1 : tensor<4xi32>
  return
}
