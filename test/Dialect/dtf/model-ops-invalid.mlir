// RUN: dtf-opt %s -split-input-file -verify-diagnostics

// The verifiers of the layer math of TF1 models (model-ops.mlir): each
// attribute constraint and shape rule, one case each.

func.func @transpose_length(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{permutation of 3 dimensions for 'tensor<2x3xf32>' of rank 2}}
  %0 = dtf.transpose %x permutation [0, 1, 2] : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{permutation names dimension 2, out of range for 'tensor<2x3xf32>'}}
  %0 = dtf.transpose %x permutation [2, 0] : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_twice(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{permutation names dimension 0 twice}}
  %0 = dtf.transpose %x permutation [0, 0] : tensor<2x3xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'dtf.transpose' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{'dtf.transpose' op failed to infer returned types}}
  %0 = "dtf.transpose"(%x) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_scalar(%x: tensor<f32>) {
  // expected-error @+1 {{expects a tensor of rank >= 1, got 'tensor<f32>'}}
  %0 = dtf.log_softmax %x : tensor<f32>
  return
}

// -----

func.func @log_softmax_integers(%x: tensor<3xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = dtf.log_softmax %x : tensor<3xi32>
  return
}

// -----

func.func @one_hot_depth(%ids: tensor<3xi64>) {
  // expected-error @+1 {{depth must be >= 0, got -2}}
  %0 = dtf.one_hot %ids depth -2 on 1.0 off 0.0 : tensor<3xi64> to f32
  return
}

// -----

func.func @one_hot_float_ids(%ids: tensor<3xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values}}
  %0 = dtf.one_hot %ids depth 4 on 1.0 off 0.0 : tensor<3xf32> to f32
  return
}

// -----

func.func @one_hot_integer_result(%ids: tensor<3xi64>) {
  // expected-error @+1 {{attribute 'element_type' failed to satisfy constraint: type attribute of floating-point}}
  %0 = dtf.one_hot %ids depth 4 on 1.0 off 0.0 : tensor<3xi64> to i32
  return
}

// -----

func.func @tile_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects one multiple per dimension of 'tensor<2x3xf32>', got 1}}
  %0 = dtf.tile %x multiples [2] : tensor<2x3xf32>
  return
}

// -----

func.func @tile_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{multiple -1 of dimension 1 is negative}}
  %0 = dtf.tile %x multiples [1, -1] : tensor<2x3xf32>
  return
}

// -----

func.func @batch_matmul_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x4xf32>) {
  // expected-error @+1 {{expects two tensors of rank >= 3, got 'tensor<2x3xf32>' and 'tensor<2x3x4xf32>'}}
  %0 = dtf.batch_matmul %a, %b : tensor<2x3xf32>, tensor<2x3x4xf32>
  return
}

// -----

func.func @batch_matmul_inner(%a: tensor<2x3x4xf32>, %b: tensor<2x3x4xf32>) {
  // expected-error @+1 {{inner dimensions differ: 'tensor<2x3x4xf32>' and 'tensor<2x3x4xf32>' multiply 4 by 3}}
  %0 = dtf.batch_matmul %a, %b : tensor<2x3x4xf32>, tensor<2x3x4xf32>
  return
}

// -----

func.func @batch_matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error @+1 {{batch dimensions are not broadcast-compatible: 'tensor<2x3x4xf32>' and 'tensor<3x4x5xf32>'}}
  %0 = dtf.batch_matmul %a, %b : tensor<2x3x4xf32>, tensor<3x4x5xf32>
  return
}

// -----

func.func @batch_matmul_elements(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf64>) {
  // expected-error @+1 {{element types differ: 'tensor<2x3x4xf32>' and 'tensor<2x4x5xf64>'}}
  %0 = dtf.batch_matmul %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf64>
  return
}

// -----

func.func @reduce_prod_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for 'tensor<2x3xf32>'}}
  %0 = dtf.reduce_prod %x {axes = array<i64: 2>} : tensor<2x3xf32>
  return
}

// -----

func.func @reduce_prod_grad_dy(%x: tensor<2x3xf32>, %dy: tensor<3xf32>) {
  // expected-error @+1 {{reduce_prod of 'tensor<2x3xf32>' gives 'tensor<2xf32>', but dy is 'tensor<3xf32>'}}
  %0 = dtf.reduce_prod_grad %x, %dy {axes = array<i64: 1>} : tensor<2x3xf32>, tensor<3xf32>
  return
}
