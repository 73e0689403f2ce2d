// Functions of one dtf op (or a few) each, covering every op and case that
// --dtf-lower-to-gpu lowers: NumPy broadcasting, scalars, integers, casts,
// reductions over every/some axes with and without keep_dims, row-wise
// softmax and cross-entropy, reshapes, non-splat constants, matrix products
// with each transpose, and convolution and pooling with symmetric and
// asymmetric (explicitly padded) SAME padding.
//
// Each function runs lowered and as is (on the reference interpreter, i.e.
// the CPU kernels) on the same random arguments, and every result is
// compared: on the GPU by runtime/cuda/exec/tests/CompiledTest.cpp, and as
// --dtf-lower-to-gpu-loops JIT-compiled for the CPU by
// passes/tests/LowerToGPUTest.cpp. An argument's `test.range` gives the
// interval of its random values (default [-1, 1)); integers and booleans
// are rounded down.

// Elementwise arithmetic and broadcasting.

func.func @add_broadcast(%a: tensor<4x1x5xf32>, %b: tensor<3x1xf32>) -> tensor<4x3x5xf32> {
  %0 = dtf.add %a, %b : tensor<4x1x5xf32>, tensor<3x1xf32>
  return %0 : tensor<4x3x5xf32>
}

func.func @sub_mul_div(%a: tensor<7x9xf32>, %b: tensor<7x9xf32>,
                       %c: tensor<9xf32> {test.range = [0.5, 2.0]})
    -> (tensor<7x9xf32>, tensor<7x9xf32>, tensor<7x9xf32>) {
  %0 = dtf.sub %a, %b : tensor<7x9xf32>, tensor<7x9xf32>
  %1 = dtf.mul %a, %b : tensor<7x9xf32>, tensor<7x9xf32>
  %2 = dtf.div %a, %c : tensor<7x9xf32>, tensor<9xf32>
  return %0, %1, %2 : tensor<7x9xf32>, tensor<7x9xf32>, tensor<7x9xf32>
}

func.func @scalars(%a: tensor<f32>, %b: tensor<6x5xf32>, %c: tensor<f32>)
    -> (tensor<6x5xf32>, tensor<f32>, tensor<f32>) {
  %0 = dtf.mul %a, %b : tensor<f32>, tensor<6x5xf32>
  %1 = dtf.sub %a, %c : tensor<f32>, tensor<f32>
  %2 = dtf.neg %1 : tensor<f32>
  return %0, %1, %2 : tensor<6x5xf32>, tensor<f32>, tensor<f32>
}

func.func @f64_chain(%a: tensor<33x17xf64>, %b: tensor<17xf64>) -> tensor<33x17xf64> {
  %0 = dtf.add %a, %b : tensor<33x17xf64>, tensor<17xf64>
  %1 = dtf.relu %0 : tensor<33x17xf64>
  %2 = dtf.mul %1, %a : tensor<33x17xf64>, tensor<33x17xf64>
  return %2 : tensor<33x17xf64>
}

func.func @integers(%a: tensor<4x5xi32> {test.range = [-50.0, 50.0]},
                    %b: tensor<5xi32> {test.range = [1.0, 9.0]})
    -> (tensor<4x5xi32>, tensor<4x5xi32>, tensor<4x5xi32>, tensor<4x5xi32>,
        tensor<4x5xi32>) {
  %0 = dtf.add %a, %b : tensor<4x5xi32>, tensor<5xi32>
  %1 = dtf.sub %a, %b : tensor<4x5xi32>, tensor<5xi32>
  %2 = dtf.mul %a, %b : tensor<4x5xi32>, tensor<5xi32>
  %3 = dtf.div %a, %b : tensor<4x5xi32>, tensor<5xi32>
  %4 = dtf.neg %a : tensor<4x5xi32>
  return %0, %1, %2, %3, %4 : tensor<4x5xi32>, tensor<4x5xi32>,
      tensor<4x5xi32>, tensor<4x5xi32>, tensor<4x5xi32>
}

func.func @equal(%a: tensor<6x4xi64> {test.range = [0.0, 3.0]},
                 %b: tensor<4xi64> {test.range = [0.0, 3.0]},
                 %c: tensor<5xf32>) -> (tensor<6x4xi1>, tensor<5xi1>) {
  %0 = dtf.equal %a, %b : tensor<6x4xi64>, tensor<4xi64>
  %1 = dtf.equal %c, %c : tensor<5xf32>, tensor<5xf32>
  return %0, %1 : tensor<6x4xi1>, tensor<5xi1>
}

// Unary ops and their gradients.

func.func @unary(%x: tensor<3x4x5xf32> {test.range = [-2.0, 2.0]})
    -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>) {
  %0 = dtf.neg %x : tensor<3x4x5xf32>
  %1 = dtf.relu %x : tensor<3x4x5xf32>
  %2 = dtf.clip_by_value %x, -1.0, 0.5 : tensor<3x4x5xf32>
  return %0, %1, %2 : tensor<3x4x5xf32>, tensor<3x4x5xf32>, tensor<3x4x5xf32>
}

func.func @log(%x: tensor<300xf32> {test.range = [0.001, 5.0]}) -> tensor<300xf32> {
  %0 = dtf.log %x : tensor<300xf32>
  return %0 : tensor<300xf32>
}

func.func @gradients(%dy: tensor<8x6xf32>, %x: tensor<8x6xf32> {test.range = [-2.0, 2.0]})
    -> (tensor<8x6xf32>, tensor<8x6xf32>) {
  %0 = dtf.relu_grad %dy, %x : tensor<8x6xf32>
  %1 = dtf.clip_by_value_grad %dy, %x, -1.0, 1.0 : tensor<8x6xf32>
  return %0, %1 : tensor<8x6xf32>, tensor<8x6xf32>
}

func.func @bias_add(%x: tensor<2x3x4x8xf32>, %b: tensor<8xf32>) -> tensor<2x3x4x8xf32> {
  %0 = dtf.bias_add %x, %b : tensor<2x3x4x8xf32>, tensor<8xf32>
  return %0 : tensor<2x3x4x8xf32>
}

func.func @casts(%x: tensor<10xf32> {test.range = [-5.0, 5.0]},
                 %i: tensor<10xi32> {test.range = [-3.0, 3.0]},
                 %b: tensor<10xi1> {test.range = [0.0, 2.0]})
    -> (tensor<10xi32>, tensor<10xi64>, tensor<10xf64>, tensor<10xi1>,
        tensor<10xf32>, tensor<10xi1>, tensor<10xf32>, tensor<10xi64>) {
  %0 = dtf.cast %x : tensor<10xf32> to tensor<10xi32>
  %1 = dtf.cast %x : tensor<10xf32> to tensor<10xi64>
  %2 = dtf.cast %x : tensor<10xf32> to tensor<10xf64>
  %3 = dtf.cast %0 : tensor<10xi32> to tensor<10xi1>
  %4 = dtf.cast %i : tensor<10xi32> to tensor<10xf32>
  %5 = dtf.cast %i : tensor<10xi32> to tensor<10xi1>
  %6 = dtf.cast %b : tensor<10xi1> to tensor<10xf32>
  %7 = dtf.cast %b : tensor<10xi1> to tensor<10xi64>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<10xi32>, tensor<10xi64>,
      tensor<10xf64>, tensor<10xi1>, tensor<10xf32>, tensor<10xi1>,
      tensor<10xf32>, tensor<10xi64>
}

// Reductions.

func.func @reduce_all(%x: tensor<5x6x7xf32>) -> (tensor<f32>, tensor<f32>) {
  %0 = dtf.reduce_sum %x : tensor<5x6x7xf32>
  %1 = dtf.reduce_mean %x : tensor<5x6x7xf32>
  return %0, %1 : tensor<f32>, tensor<f32>
}

func.func @reduce_axes(%x: tensor<5x6x7xf32>)
    -> (tensor<1x6x1xf32>, tensor<5x7xf32>, tensor<6xf32>) {
  %0 = dtf.reduce_sum %x {axes = array<i64: 0, -1>, keep_dims = true} : tensor<5x6x7xf32>
  %1 = dtf.reduce_mean %x {axes = array<i64: 1>} : tensor<5x6x7xf32>
  %2 = dtf.reduce_mean %x {axes = array<i64: 2, 0>} : tensor<5x6x7xf32>
  return %0, %1, %2 : tensor<1x6x1xf32>, tensor<5x7xf32>, tensor<6xf32>
}

func.func @reduce_integers(%x: tensor<4x9xi32> {test.range = [-100.0, 100.0]},
                           %s: tensor<f32>)
    -> (tensor<4xi32>, tensor<i32>, tensor<f32>) {
  %0 = dtf.reduce_sum %x {axes = array<i64: 1>} : tensor<4x9xi32>
  %1 = dtf.reduce_sum %x : tensor<4x9xi32>
  %2 = dtf.reduce_sum %s : tensor<f32>
  return %0, %1, %2 : tensor<4xi32>, tensor<i32>, tensor<f32>
}

func.func @bias_add_grad(%dy: tensor<3x4x5x6xf32>) -> tensor<6xf32> {
  %0 = dtf.bias_add_grad %dy : tensor<3x4x5x6xf32>
  return %0 : tensor<6xf32>
}

func.func @argmax(%x: tensor<5x7x3xf32>, %v: tensor<9xf32>,
                  %i: tensor<4x6xi64> {test.range = [0.0, 4.0]})
    -> (tensor<5x3xi64>, tensor<i64>, tensor<4xi64>, tensor<5x7xi64>) {
  %0 = dtf.argmax %x, 1 : tensor<5x7x3xf32>
  %1 = dtf.argmax %v, 0 : tensor<9xf32>
  %2 = dtf.argmax %i, -1 : tensor<4x6xi64>
  %3 = dtf.argmax %x, 2 : tensor<5x7x3xf32>
  return %0, %1, %2, %3 : tensor<5x3xi64>, tensor<i64>, tensor<4xi64>, tensor<5x7xi64>
}

// Softmax and cross-entropy.

func.func @softmax(%x: tensor<6x10xf32> {test.range = [-5.0, 5.0]}, %v: tensor<7xf32>,
                   %t: tensor<2x3x4xf32>)
    -> (tensor<6x10xf32>, tensor<7xf32>, tensor<2x3x4xf32>) {
  %0 = dtf.softmax %x : tensor<6x10xf32>
  %1 = dtf.softmax %v : tensor<7xf32>
  %2 = dtf.softmax %t : tensor<2x3x4xf32>
  return %0, %1, %2 : tensor<6x10xf32>, tensor<7xf32>, tensor<2x3x4xf32>
}

func.func @softmax_grad(%dy: tensor<6x10xf32>, %x: tensor<6x10xf32>) -> tensor<6x10xf32> {
  %y = dtf.softmax %x : tensor<6x10xf32>
  %0 = dtf.softmax_grad %dy, %y : tensor<6x10xf32>
  return %0 : tensor<6x10xf32>
}

func.func @cross_entropy(%logits: tensor<8x10xf32> {test.range = [-20.0, 20.0]},
                         %labels: tensor<8x10xf32> {test.range = [0.0, 1.0]},
                         %dloss: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8x10xf32>) {
  %0 = dtf.softmax_cross_entropy_with_logits %logits, %labels
      : tensor<8x10xf32>, tensor<8x10xf32>
  %1 = dtf.softmax_cross_entropy_with_logits_grad %dloss, %logits, %labels
      : tensor<8xf32>, tensor<8x10xf32>, tensor<8x10xf32>
  return %0, %1 : tensor<8xf32>, tensor<8x10xf32>
}

// Shapes and constants.

func.func @shapes(%x: tensor<4x6xf32>, %s: tensor<f32>, %c: tensor<3x1xf32>)
    -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<1x1xf32>, tensor<2x3x4xf32>) {
  %0 = dtf.reshape %x : tensor<4x6xf32> -> tensor<2x3x4xf32>
  %1 = dtf.relu %0 : tensor<2x3x4xf32>
  %2 = dtf.reshape %s : tensor<f32> -> tensor<1x1xf32>
  %3 = dtf.broadcast_to %c : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %0, %1, %2, %3 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<1x1xf32>, tensor<2x3x4xf32>
}

func.func @constants(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %c = dtf.constant dense<[[1.0, -2.0, 3.5], [0.25, 5.0, -6.0]]> : tensor<2x3xf32>
  %one = dtf.constant dense<1.0> : tensor<f32>
  %0 = dtf.mul %x, %c : tensor<2x3xf32>, tensor<2x3xf32>
  %1 = dtf.add %x, %one : tensor<2x3xf32>, tensor<f32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// Library calls: cuBLAS.

func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %at: tensor<16x8xf32>,
                  %bt: tensor<4x16xf32>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %0 = dtf.matmul %a, %b : tensor<8x16xf32>, tensor<16x4xf32>
  %1 = dtf.matmul %at, %b {transpose_a = true} : tensor<16x8xf32>, tensor<16x4xf32>
  %2 = dtf.matmul %a, %bt {transpose_b = true} : tensor<8x16xf32>, tensor<4x16xf32>
  %3 = dtf.matmul %at, %bt {transpose_a = true, transpose_b = true}
      : tensor<16x8xf32>, tensor<4x16xf32>
  return %0, %1, %2, %3 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

func.func @dense_layer(%x: tensor<10x30xf32>, %w: tensor<30x20xf32>, %b: tensor<20xf32>)
    -> tensor<10x20xf32> {
  %0 = dtf.matmul %x, %w : tensor<10x30xf32>, tensor<30x20xf32>
  %1 = dtf.bias_add %0, %b : tensor<10x20xf32>, tensor<20xf32>
  %2 = dtf.relu %1 : tensor<10x20xf32>
  return %2 : tensor<10x20xf32>
}

// Library calls: cuDNN. 8x8 inputs with stride 2 and windows of 3 need
// TensorFlow's asymmetric SAME padding (0 before, 1 after).

func.func @conv2d(%x: tensor<2x8x8x3xf32>, %w: tensor<3x3x3x4xf32>,
                  %v: tensor<2x9x7x2xf32>, %k: tensor<2x3x2x3xf32>)
    -> (tensor<2x8x8x4xf32>, tensor<2x4x4x4xf32>, tensor<2x8x3x3xf32>) {
  %0 = dtf.conv2d %x, %w strides [1, 1, 1, 1] padding SAME
      : tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>
  %1 = dtf.conv2d %x, %w strides [1, 2, 2, 1] padding SAME
      : tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>
  %2 = dtf.conv2d %v, %k strides [1, 1, 2, 1] padding VALID
      : tensor<2x9x7x2xf32>, tensor<2x3x2x3xf32>
  return %0, %1, %2 : tensor<2x8x8x4xf32>, tensor<2x4x4x4xf32>, tensor<2x8x3x3xf32>
}

func.func @conv2d_backprop(%x: tensor<2x8x8x3xf32>, %w: tensor<3x3x3x4xf32>,
                           %dy: tensor<2x8x8x4xf32>, %dys: tensor<2x4x4x4xf32>)
    -> (tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<2x8x8x3xf32>,
        tensor<3x3x3x4xf32>) {
  %0 = dtf.conv2d_backprop_input %w, %dy strides [1, 1, 1, 1] padding SAME
      : tensor<3x3x3x4xf32>, tensor<2x8x8x4xf32> -> tensor<2x8x8x3xf32>
  %1 = dtf.conv2d_backprop_filter %x, %dy strides [1, 1, 1, 1] padding SAME
      : tensor<2x8x8x3xf32>, tensor<2x8x8x4xf32> -> tensor<3x3x3x4xf32>
  %2 = dtf.conv2d_backprop_input %w, %dys strides [1, 2, 2, 1] padding SAME
      : tensor<3x3x3x4xf32>, tensor<2x4x4x4xf32> -> tensor<2x8x8x3xf32>
  %3 = dtf.conv2d_backprop_filter %x, %dys strides [1, 2, 2, 1] padding SAME
      : tensor<2x8x8x3xf32>, tensor<2x4x4x4xf32> -> tensor<3x3x3x4xf32>
  return %0, %1, %2, %3 : tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>,
      tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>
}

// Dilated: 3x3 by 2 spans 5x5 (SAME pads 2 on each side, as cuDNN can);
// 2x3 by 3x2 spans 4x5 (SAME pads 1 before and 2 after in height,
// explicitly).
func.func @conv2d_dilated(%x: tensor<2x8x8x3xf32>, %w: tensor<3x3x3x4xf32>,
                          %dy: tensor<2x8x8x4xf32>, %k: tensor<2x3x3x2xf32>,
                          %dk: tensor<2x8x8x2xf32>)
    -> (tensor<2x8x8x4xf32>, tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>,
        tensor<2x8x8x2xf32>, tensor<2x8x8x3xf32>, tensor<2x3x3x2xf32>) {
  %0 = dtf.conv2d %x, %w strides [1, 1, 1, 1] dilations [1, 2, 2, 1]
      padding SAME : tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>
  %1 = dtf.conv2d_backprop_input %w, %dy strides [1, 1, 1, 1]
      dilations [1, 2, 2, 1] padding SAME
      : tensor<3x3x3x4xf32>, tensor<2x8x8x4xf32> -> tensor<2x8x8x3xf32>
  %2 = dtf.conv2d_backprop_filter %x, %dy strides [1, 1, 1, 1]
      dilations [1, 2, 2, 1] padding SAME
      : tensor<2x8x8x3xf32>, tensor<2x8x8x4xf32> -> tensor<3x3x3x4xf32>
  %3 = dtf.conv2d %x, %k strides [1, 1, 1, 1] dilations [1, 3, 2, 1]
      padding SAME : tensor<2x8x8x3xf32>, tensor<2x3x3x2xf32>
  %4 = dtf.conv2d_backprop_input %k, %dk strides [1, 1, 1, 1]
      dilations [1, 3, 2, 1] padding SAME
      : tensor<2x3x3x2xf32>, tensor<2x8x8x2xf32> -> tensor<2x8x8x3xf32>
  %5 = dtf.conv2d_backprop_filter %x, %dk strides [1, 1, 1, 1]
      dilations [1, 3, 2, 1] padding SAME
      : tensor<2x8x8x3xf32>, tensor<2x8x8x2xf32> -> tensor<2x3x3x2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x8x8x4xf32>, tensor<2x8x8x3xf32>,
      tensor<3x3x3x4xf32>, tensor<2x8x8x2xf32>, tensor<2x8x8x3xf32>,
      tensor<2x3x3x2xf32>
}

func.func @max_pool(%x: tensor<2x8x8x3xf32>, %dy: tensor<2x4x4x3xf32>)
    -> (tensor<2x4x4x3xf32>, tensor<2x4x4x3xf32>, tensor<2x8x8x3xf32>,
        tensor<2x8x8x3xf32>) {
  %0 = dtf.max_pool %x ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME
      : tensor<2x8x8x3xf32>
  %1 = dtf.max_pool %x ksize [1, 3, 3, 1] strides [1, 2, 2, 1] padding SAME
      : tensor<2x8x8x3xf32>
  %2 = dtf.max_pool_grad %x, %0, %dy ksize [1, 2, 2, 1] strides [1, 2, 2, 1]
      padding SAME : tensor<2x8x8x3xf32>, tensor<2x4x4x3xf32>
  %3 = dtf.max_pool_grad %x, %1, %dy ksize [1, 3, 3, 1] strides [1, 2, 2, 1]
      padding SAME : tensor<2x8x8x3xf32>, tensor<2x4x4x3xf32>
  return %0, %1, %2, %3 : tensor<2x4x4x3xf32>, tensor<2x4x4x3xf32>,
      tensor<2x8x8x3xf32>, tensor<2x8x8x3xf32>
}
