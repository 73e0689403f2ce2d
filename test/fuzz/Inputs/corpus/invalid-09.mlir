func.func @conv2d_backprop_filter_strides(%x: tensor<100x28x28x1xf32>, %dy: tensor<100x28x28x32xf32>) {
  // expected-error @+1 {{strides must be [1, h, w, 1] with h, w >= 1 (NHWC), got [1, 1, 1, 2]}}
  %0 = dtf.conv2d_backprop_filter %x, %dy strides [1, 1, 1, 2] padding SAME : tensor<100x28x28x1xf32>, tensor<100x28x28x32xf32> -> tensor<5x5x1x32xf32>
  return
}
