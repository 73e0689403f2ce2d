// RUN: dtf-opt --dtf-convert-to-cuda-calls --split-input-file --verify-diagnostics %s

func.func @f64_matmul(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> tensor<2x4xf64> {
  // expected-error @+1 {{'dtf.matmul' op runs on a GPU with f32 elements only, got 'tensor<2x3xf64>'}}
  %0 = dtf.matmul %a, %b : tensor<2x3xf64>, tensor<3x4xf64>
  return %0 : tensor<2x4xf64>
}

// -----

func.func @dynamic_conv(%x: tensor<?x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<?x8x8x4xf32> {
  // expected-error @+1 {{'dtf.conv2d' op needs static shapes to run on a GPU, got 'tensor<?x8x8x3xf32>'}}
  %0 = dtf.conv2d %x, %w strides [1, 1, 1, 1] padding SAME : tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32>
  return %0 : tensor<?x8x8x4xf32>
}
