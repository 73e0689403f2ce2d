// RUN: dtf-opt %s -split-input-file -verify-diagnostics
// One case per diagnostic of dtf.result_names.

// expected-error @+1 {{'dtf.result_names' must be an array of strings on a function}}
func.func @not_strings(%loss: tensor<f32>) -> tensor<f32> attributes {dtf.result_names = [1]} {
  return %loss : tensor<f32>
}

// -----

// expected-error @+1 {{'dtf.result_names' must be an array of strings on a function}}
module attributes {dtf.result_names = ["loss"]} {
}

// -----

// expected-error @+1 {{'dtf.result_names' holds 1 names, but the function has 2 results}}
func.func @too_few(%loss: tensor<f32>) -> (tensor<f32>, tensor<f32>) attributes {dtf.result_names = ["loss"]} {
  return %loss, %loss : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{'dtf.result_names' names result #1 'mean squared error': a name is letters, digits and '_', '.', '/', '-', '>', and starts with a letter, a digit or '.', as TensorFlow's op names}}
func.func @spaces(%loss: tensor<f32>) -> (tensor<f32>, tensor<f32>) attributes {dtf.result_names = ["loss", "mean squared error"]} {
  return %loss, %loss : tensor<f32>, tensor<f32>
}

// -----

// expected-error @+1 {{'dtf.result_names' names result #0 '': a name is}}
func.func @empty(%loss: tensor<f32>) -> tensor<f32> attributes {dtf.result_names = [""]} {
  return %loss : tensor<f32>
}

// -----

// expected-error @+1 {{'dtf.result_names' gives two results the name 'loss'}}
func.func @twice(%loss: tensor<f32>) -> (tensor<f32>, tensor<f32>) attributes {dtf.result_names = ["loss", "loss"]} {
  return %loss, %loss : tensor<f32>, tensor<f32>
}
