func.func @conv2d_strides_count(%x: tensor<1x28x28x1xf32>, %f: tensor<5x5x1x32xf32>) {
  // expected-error @+1 {{strides must be [1, h, w, 1] with h, w >= 1 (NHWC), got [1, 2, 2]}}
  %0 = dtf.conv2d %x, %f strides [1, 2, 2] padding SAME : tensor<1x28x28x1xf32>, tensor<5x5x1x32xf32>
  return
}
