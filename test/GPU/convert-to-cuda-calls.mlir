// RUN: dtf-opt --dtf-convert-to-cuda-calls --cse --split-input-file %s | FileCheck %s

// The library functions are declared once, with C wrappers, on memrefs of
// dynamic shape.
// CHECK-DAG: func.func private @dtf_cuda_gemm_f32(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @dtf_cuda_conv2d_f32(memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, i64, i64, i64, i64, i64, i64) attributes {llvm.emit_c_interface}

// matmul: operands cross over read-only, the result is a fresh buffer the
// call writes; transposes are 0/1 flags.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16x4xf32>)
// CHECK: %[[C:.*]] = memref.alloc() : memref<8x4xf32>
// CHECK: %[[AM:.*]] = bufferization.to_memref %[[A]] read_only : memref<16x8xf32>
// CHECK: %[[AD:.*]] = memref.cast %[[AM]] : memref<16x8xf32> to memref<?x?xf32>
// CHECK: %[[BM:.*]] = bufferization.to_memref %[[B]] read_only : memref<16x4xf32>
// CHECK: %[[BD:.*]] = memref.cast %[[BM]] : memref<16x4xf32> to memref<?x?xf32>
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[CD:.*]] = memref.cast %[[C]] : memref<8x4xf32> to memref<?x?xf32>
// CHECK: call @dtf_cuda_gemm_f32(%[[AD]], %[[BD]], %[[CD]], %[[ONE]], %[[ZERO]])
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[C]] restrict writable : memref<8x4xf32>
// CHECK: return %[[R]]
func.func @matmul(%a: tensor<16x8xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %0 = dtf.matmul %a, %b {transpose_a = true} : tensor<16x8xf32>, tensor<16x4xf32>
  return %0 : tensor<8x4xf32>
}

// conv2d with symmetric SAME padding (5x5, stride 1: 2 on each side):
// cuDNN pads; the HWIO filter is transposed to OHWI. The last two operands
// are the dilations, 1 when the op has none.
// CHECK-LABEL: func.func @conv2d_same
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x8x3xf32>, %[[W:.*]]: tensor<5x5x3x4xf32>)
// CHECK: %[[Y:.*]] = memref.alloc() : memref<2x8x8x4xf32>
// CHECK: %[[XM:.*]] = bufferization.to_memref %[[X]] read_only
// CHECK: %[[XD:.*]] = memref.cast %[[XM]]
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x5x5x3xf32>
// CHECK: %[[OHWI:.*]] = linalg.transpose ins(%[[W]] : tensor<5x5x3x4xf32>) outs(%[[INIT]] : tensor<4x5x5x3xf32>) permutation = [3, 0, 1, 2]
// CHECK: %[[WM:.*]] = bufferization.to_memref %[[OHWI]] read_only
// CHECK: %[[WD:.*]] = memref.cast %[[WM]]
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: %[[YD:.*]] = memref.cast %[[Y]]
// CHECK: call @dtf_cuda_conv2d_f32(%[[XD]], %[[WD]], %[[YD]], %[[ONE]], %[[ONE]], %[[TWO]], %[[TWO]], %[[ONE]], %[[ONE]])
func.func @conv2d_same(%x: tensor<2x8x8x3xf32>, %w: tensor<5x5x3x4xf32>) -> tensor<2x8x8x4xf32> {
  %0 = dtf.conv2d %x, %w strides [1, 1, 1, 1] padding SAME : tensor<2x8x8x3xf32>, tensor<5x5x3x4xf32>
  return %0 : tensor<2x8x8x4xf32>
}

// 3x3, stride 2 on 8: TensorFlow pads 0 before and 1 after, which cuDNN
// cannot; the input is padded with zeros explicitly.
// CHECK-LABEL: func.func @conv2d_asymmetric
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x8x3xf32>, %[[W:.*]]: tensor<3x3x3x4xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 1, 1, 0]
// CHECK: tensor.yield %[[ZERO]]
// CHECK: tensor<2x8x8x3xf32> to tensor<2x9x9x3xf32>
// CHECK: %[[PM:.*]] = bufferization.to_memref %[[P]] read_only : memref<2x9x9x3xf32>
// CHECK: %[[PD:.*]] = memref.cast %[[PM]]
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[NONE:.*]] = arith.constant 0 : i64
// CHECK: call @dtf_cuda_conv2d_f32(%[[PD]], %{{.*}}, %{{.*}}, %[[TWO]], %[[TWO]], %[[NONE]], %[[NONE]], %[[ONE:.*]], %[[ONE]])
func.func @conv2d_asymmetric(%x: tensor<2x8x8x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<2x4x4x4xf32> {
  %0 = dtf.conv2d %x, %w strides [1, 2, 2, 1] padding SAME : tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>
  return %0 : tensor<2x4x4x4xf32>
}

// The input gradient of that convolution is the gradient of the padded
// input, sliced back.
// CHECK-LABEL: func.func @conv2d_backprop_input
// CHECK: %[[DX:.*]] = memref.alloc() : memref<2x9x9x3xf32>
// CHECK: linalg.transpose
// CHECK: call @dtf_cuda_conv2d_backprop_input_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[TWO:.*]], %[[TWO]], %[[NONE:.*]], %[[NONE]], %[[ONE:.*]], %[[ONE]])
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[DX]] restrict writable : memref<2x9x9x3xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[T]][0, 0, 0, 0] [2, 8, 8, 3] [1, 1, 1, 1] : tensor<2x9x9x3xf32> to tensor<2x8x8x3xf32>
// CHECK: return %[[S]]
func.func @conv2d_backprop_input(%w: tensor<3x3x3x4xf32>, %dy: tensor<2x4x4x4xf32>) -> tensor<2x8x8x3xf32> {
  %0 = dtf.conv2d_backprop_input %w, %dy strides [1, 2, 2, 1] padding SAME : tensor<3x3x3x4xf32>, tensor<2x4x4x4xf32> -> tensor<2x8x8x3xf32>
  return %0 : tensor<2x8x8x3xf32>
}

// The filter gradient comes back in OHWI and is transposed to HWIO.
// CHECK-LABEL: func.func @conv2d_backprop_filter
// CHECK: %[[DW:.*]] = memref.alloc() : memref<4x3x3x3xf32>
// CHECK: call @dtf_cuda_conv2d_backprop_filter_f32
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[DW]] restrict writable : memref<4x3x3x3xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<3x3x3x4xf32>
// CHECK: %[[HWIO:.*]] = linalg.transpose ins(%[[T]] : tensor<4x3x3x3xf32>) outs(%[[INIT]] : tensor<3x3x3x4xf32>) permutation = [1, 2, 3, 0]
// CHECK: return %[[HWIO]]
func.func @conv2d_backprop_filter(%x: tensor<2x8x8x3xf32>, %dy: tensor<2x8x8x4xf32>) -> tensor<3x3x3x4xf32> {
  %0 = dtf.conv2d_backprop_filter %x, %dy strides [1, 1, 1, 1] padding SAME : tensor<2x8x8x3xf32>, tensor<2x8x8x4xf32> -> tensor<3x3x3x4xf32>
  return %0 : tensor<3x3x3x4xf32>
}

// Dilations go to cuDNN, and the padding is TensorFlow's for the cells the
// dilated filter spans: 3x3 dilated by 2 spans 5x5, 2 on each side; 2x2
// dilated by 3 spans 4x4, 1 before and 2 after, padded explicitly.
// CHECK-LABEL: func.func @conv2d_dilated
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: call @dtf_cuda_conv2d_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %[[ONE]], %[[TWO]], %[[TWO]], %[[TWO]], %[[TWO]])
// CHECK: call @dtf_cuda_conv2d_backprop_input_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %[[ONE]], %[[TWO]], %[[TWO]], %[[TWO]], %[[TWO]])
// CHECK: call @dtf_cuda_conv2d_backprop_filter_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %[[ONE]], %[[TWO]], %[[TWO]], %[[TWO]], %[[TWO]])
// CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 2, 2, 0]
// CHECK: tensor<2x8x8x3xf32> to tensor<2x11x11x3xf32>
// CHECK-DAG: %[[NONE:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3 : i64
// CHECK: call @dtf_cuda_conv2d_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %[[ONE]], %[[NONE]], %[[NONE]], %[[THREE]], %[[THREE]])
func.func @conv2d_dilated(%x: tensor<2x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %dy: tensor<2x8x8x4xf32>, %v: tensor<2x2x3x4xf32>) -> (tensor<2x8x8x4xf32>, tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<2x8x8x4xf32>) {
  %0 = dtf.conv2d %x, %w strides [1, 1, 1, 1] dilations [1, 2, 2, 1] padding SAME : tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>
  %1 = dtf.conv2d_backprop_input %w, %dy strides [1, 1, 1, 1] dilations [1, 2, 2, 1] padding SAME : tensor<3x3x3x4xf32>, tensor<2x8x8x4xf32> -> tensor<2x8x8x3xf32>
  %2 = dtf.conv2d_backprop_filter %x, %dy strides [1, 1, 1, 1] dilations [1, 2, 2, 1] padding SAME : tensor<2x8x8x3xf32>, tensor<2x8x8x4xf32> -> tensor<3x3x3x4xf32>
  %3 = dtf.conv2d %x, %v strides [1, 1, 1, 1] dilations [1, 3, 3, 1] padding SAME : tensor<2x8x8x3xf32>, tensor<2x2x3x4xf32>
  return %0, %1, %2, %3 : tensor<2x8x8x4xf32>, tensor<2x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<2x8x8x4xf32>
}

// Pooling pads asymmetrically with -inf, which never wins the max, and
// routes the gradient through the padded input.
// CHECK-LABEL: func.func @max_pool
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x8x3xf32>, %[[DY:.*]]: tensor<2x4x4x3xf32>)
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 1, 1, 0]
// CHECK: tensor.yield %[[NEGINF]]
// CHECK: %[[Y:.*]] = memref.alloc() : memref<2x4x4x3xf32>
// CHECK-DAG: %[[THREE:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[NONE:.*]] = arith.constant 0 : i64
// CHECK: call @dtf_cuda_max_pool_f32(%[[PD:.*]], %[[YD:.*]], %[[THREE]], %[[THREE]], %[[TWO]], %[[TWO]], %[[NONE]], %[[NONE]])
// CHECK: %[[YT:.*]] = bufferization.to_tensor %[[Y]] restrict writable
// CHECK: %[[DX:.*]] = memref.alloc() : memref<2x9x9x3xf32>
// CHECK: call @dtf_cuda_max_pool_grad_f32(%[[PD]], %{{.*}}, %{{.*}}, %{{.*}}, %[[THREE]], %[[THREE]], %[[TWO]], %[[TWO]], %[[NONE]], %[[NONE]])
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [2, 8, 8, 3] [1, 1, 1, 1] : tensor<2x9x9x3xf32> to tensor<2x8x8x3xf32>
func.func @max_pool(%x: tensor<2x8x8x3xf32>, %dy: tensor<2x4x4x3xf32>) -> (tensor<2x4x4x3xf32>, tensor<2x8x8x3xf32>) {
  %0 = dtf.max_pool %x ksize [1, 3, 3, 1] strides [1, 2, 2, 1] padding SAME : tensor<2x8x8x3xf32>
  %1 = dtf.max_pool_grad %x, %0, %dy ksize [1, 3, 3, 1] strides [1, 2, 2, 1] padding SAME : tensor<2x8x8x3xf32>, tensor<2x4x4x3xf32>
  return %0, %1 : tensor<2x4x4x3xf32>, tensor<2x8x8x3xf32>
}

// -----

// Everything else is left for --dtf-convert-to-linalg.
// CHECK-LABEL: func.func @elementwise
// CHECK-NEXT: dtf.relu
// CHECK-NOT: call
func.func @elementwise(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = dtf.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
