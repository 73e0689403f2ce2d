// RUN: dtf-opt --dtf-convert-to-linalg --split-input-file --verify-diagnostics %s

// The layer math of TF1 models has no linalg lowering: a function holding
// one of its ops is refused by name, not lowered in part.

func.func @transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'dtf.transpose' op has no linalg lowering}}
  %0 = dtf.transpose %x permutation [1, 0] : tensor<2x3xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @log_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'dtf.log_softmax' op has no linalg lowering}}
  %0 = dtf.log_softmax %x : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @one_hot(%ids: tensor<3xi64>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'dtf.one_hot' op has no linalg lowering}}
  %0 = dtf.one_hot %ids depth 4 on 1.0 off 0.0 : tensor<3xi64> to f32
  return %0 : tensor<3x4xf32>
}

// -----

func.func @tile(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'dtf.tile' op has no linalg lowering}}
  %0 = dtf.tile %x multiples [2, 1] : tensor<2x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @batch_matmul(%x: tensor<2x3x4xf32>, %y: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  // expected-error @+1 {{'dtf.batch_matmul' op has no linalg lowering}}
  %0 = dtf.batch_matmul %x, %y : tensor<2x3x4xf32>, tensor<2x4x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

func.func @reduce_prod(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'dtf.reduce_prod' op has no linalg lowering}}
  %0 = dtf.reduce_prod %x {axes = array<i64: 1>} : tensor<2x3xf32>
  return %0 : tensor<2xf32>
}
