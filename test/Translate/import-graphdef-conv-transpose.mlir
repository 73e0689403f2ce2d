// tf.compat.v1.layers.conv2d_transpose (graphs written by
// Inputs/make_conv_transpose_graphs.py with TensorFlow): its
// Conv2DBackpropInput imported as a forward dtf.conv2d_backprop_input of
// the sizes folded at import, differentiated as TensorFlow's
// _Conv2DBackpropInputGrad does.
// RUN: dtf-translate --import-graphdef %S/Inputs/conv_transpose.pbtxt | FileCheck %s
// An unknown batch, from tf.shape of the layer's input, is the value's, and
// --dtf-specialize-batch fixes it.
// RUN: dtf-translate --import-graphdef %S/Inputs/conv_transpose_batch.pbtxt | dtf-opt --pass-pipeline='builtin.module(func.func(dtf-specialize-batch{batch-size=8}))' | FileCheck %s --check-prefix=BATCH
//
// The gradients against finite differences, and TensorFlow's output and
// loss for one batch.
// RUN: dtf-translate --import-graphdef %S/Inputs/conv_transpose.pbtxt --outputs=output -o %t.mlir
// RUN: dtf-gradcheck --samples=8 %t.mlir | FileCheck %s --check-prefix=GRADIENTS
// RUN: dtf-eval-model --variables=%S/Inputs/conv_transpose_values/variables.npz --feed=x=%S/Inputs/conv_transpose_values/x.npy --feed=y_=%S/Inputs/conv_transpose_values/y_.npy --expect=%S/Inputs/conv_transpose_values/expected.npz %t.mlir | FileCheck %s --check-prefix=VALUES

// CHECK:      %[[UP_KERNEL:.*]] = dtf.read %{{.*}} : !dtf.resource<tensor<3x3x2x3xf32>>
// CHECK-NEXT: %[[X:.*]] = dtf.placeholder "x" : tensor<4x5x5x3xf32>
// CHECK-NEXT: %[[UP:.*]] = dtf.conv2d_backprop_input %[[UP_KERNEL]], %[[X]] strides [1, 2, 2, 1] padding SAME : tensor<3x3x2x3xf32>, tensor<4x5x5x3xf32> -> tensor<4x10x10x2xf32>
// CHECK:      dtf.conv2d_backprop_input %{{.*}}, %{{.*}} strides [1, 1, 1, 1] padding VALID : tensor<3x3x1x2xf32>, tensor<4x10x10x2xf32> -> tensor<4x12x12x1xf32>

// BATCH: dtf.conv2d_backprop_input %{{.*}}, %{{.*}} strides [1, 2, 2, 1] padding SAME : tensor<3x3x2x3xf32>, tensor<8x5x5x3xf32> -> tensor<8x10x10x2xf32>
// BATCH: dtf.conv2d_backprop_input %{{.*}}, %{{.*}} strides [1, 1, 1, 1] padding VALID : tensor<3x3x1x2xf32>, tensor<8x10x10x2xf32> -> tensor<8x12x12x1xf32>

// GRADIENTS-DAG: @main up/kernel: 8 of 54 elements
// GRADIENTS-DAG: @main out/kernel: 8 of 18 elements
// GRADIENTS: gradient check passed

// VALUES:      result_0: f32[]
// VALUES-NEXT: result_1: f32[4,12,12,1]
// VALUES-NEXT: equal to the expected values (tolerance 1e-05)
