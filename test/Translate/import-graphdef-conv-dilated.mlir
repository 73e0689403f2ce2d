// Dilated convolutions as TF1 scripts write them (the graph written by
// Inputs/make_conv_dilated_graphs.py with TensorFlow): tf.nn.conv2d with
// dilations is one Conv2D with its dilations attribute;
// tf.compat.v1.layers.conv2d with a dilation_rate and tf.nn.atrous_conv2d
// are tf.nn.convolution's SpaceToBatchND, Conv2D and BatchToSpaceND. Each is
// imported as one dilated dtf.conv2d.
// RUN: dtf-translate --import-graphdef %S/Inputs/conv_dilated.pbtxt | FileCheck %s
//
// The gradients against finite differences, and TensorFlow's output and
// loss for one batch.
// RUN: dtf-translate --import-graphdef %S/Inputs/conv_dilated.pbtxt --outputs=output -o %t.mlir
// RUN: dtf-gradcheck --samples=8 %t.mlir | FileCheck %s --check-prefix=GRADIENTS
// RUN: dtf-eval-model --variables=%S/Inputs/conv_dilated_values/variables.npz --feed=x=%S/Inputs/conv_dilated_values/x.npy --feed=y_=%S/Inputs/conv_dilated_values/y_.npy --expect=%S/Inputs/conv_dilated_values/expected.npz %t.mlir | FileCheck %s --check-prefix=VALUES

// SAME on 9x9, 3x3 dilated by 2: TensorFlow's paddings [[2, 3], [2, 3]]
// and crops [[0, 1], [0, 1]] are SAME's 2 before and 2 after.
// CHECK:      %[[X:.*]] = dtf.placeholder "x" : tensor<2x9x9x2xf32>
// CHECK:      %[[C1:.*]] = dtf.conv2d %[[X]], %{{.*}} strides [1, 1, 1, 1] dilations [1, 2, 2, 1] padding SAME : tensor<2x9x9x2xf32>, tensor<3x3x2x3xf32>
// CHECK:      %[[T:.*]] = dtf.tanh
// CHECK:      %[[C2:.*]] = dtf.conv2d %[[T]], %{{.*}} strides [1, 1, 1, 1] dilations [1, 3, 3, 1] padding VALID : tensor<2x9x9x3xf32>, tensor<2x2x3x2xf32>
// A filter of one tap along the width: the height's VALID decides.
// CHECK:      dtf.conv2d %[[C2]], %{{.*}} strides [1, 1, 1, 1] dilations [1, 2, 2, 1] padding VALID : tensor<2x6x6x2xf32>, tensor<3x1x2x1xf32>
// CHECK-NOT:  dtf.conv2d

// GRADIENTS-DAG: @main c1/kernel: 8 of 54 elements
// GRADIENTS-DAG: @main c2/kernel: 8 of 24 elements
// GRADIENTS-DAG: @main c3/kernel: 6 of 6 elements
// GRADIENTS: gradient check passed

// VALUES:      result_0: f32[]
// VALUES-NEXT: result_1: f32[2,2,6,1]
// VALUES-NEXT: equal to the expected values (tolerance 1e-05)

// tf.nn.conv2d_transpose with dilations (TensorFlow computes it on GPUs
// only, so the graph is written here): a dilated conv2d_backprop_input.
// RUN: split-file %s %t
// RUN: dtf-translate --import-graphdef %t/transpose.pbtxt --outputs=up | FileCheck %s --check-prefix=TRANSPOSE
// TRANSPOSE: dtf.conv2d_backprop_input %{{.*}}, %{{.*}} strides [1, 1, 1, 1] dilations [1, 2, 2, 1] padding SAME : tensor<3x3x2x4xf32>, tensor<1x5x5x4xf32> -> tensor<1x5x5x2xf32>
// Dilations of 1 are no attribute: the op reads as an undilated one.
// RUN: dtf-translate --import-graphdef %t/transpose.pbtxt --outputs=plain | FileCheck %s --check-prefix=PLAIN
// PLAIN: dtf.conv2d %{{.*}}, %{{.*}} strides [1, 1, 1, 1] padding SAME : tensor<1x5x5x4xf32>, tensor<3x3x4x2xf32>

// What TensorFlow's Conv2D refuses, and what is not tf.nn.convolution's
// dilated convolution, is one error naming the node.
// RUN: not dtf-translate --import-graphdef %t/invalid.pbtxt --outputs=strided 2> %t/err
// RUN: FileCheck %s --check-prefix=STRIDED < %t/err && count 1 < %t/err
// STRIDED: error: node 'strided' (Conv2D): strides [1, 2, 2, 1] and dilations [1, 2, 2, 1]: a convolution is strided or dilated, not both (as tf.nn.convolution and Keras require)
// RUN: not dtf-translate --import-graphdef %t/invalid.pbtxt --outputs=three 2> %t/err
// RUN: FileCheck %s --check-prefix=THREE < %t/err && count 1 < %t/err
// THREE: error: node 'three' (Conv2D): needs a 'dilations' of 4 integers
// RUN: not dtf-translate --import-graphdef %t/invalid.pbtxt --outputs=batch 2> %t/err
// RUN: FileCheck %s --check-prefix=BATCH < %t/err && count 1 < %t/err
// BATCH: error: node 'batch' (Conv2D): dilations of the batch and channel dimensions must be 1, got [2, 1, 1, 1]
// RUN: not dtf-translate --import-graphdef %t/invalid.pbtxt --outputs=alone 2> %t/err
// RUN: FileCheck %s --check-prefix=ALONE < %t/err && count 1 < %t/err
// ALONE: error: node 'alone' (BatchToSpaceND): is imported only as the end of a dilated convolution, BatchToSpaceND(Conv2D(SpaceToBatchND(x))) as tf.nn.convolution builds it; its input is a Placeholder
// RUN: not dtf-translate --import-graphdef %t/invalid.pbtxt --outputs=unbatched 2> %t/err
// RUN: FileCheck %s --check-prefix=UNBATCHED < %t/err && count 1 < %t/err
// UNBATCHED: error: node 'unbatched' (BatchToSpaceND): is imported only as the end of a dilated convolution, BatchToSpaceND(Conv2D(SpaceToBatchND(x))) as tf.nn.convolution builds it; the Conv2D's input is a Placeholder
// RUN: not dtf-translate --import-graphdef %t/invalid.pbtxt --outputs=unknown 2> %t/err
// RUN: FileCheck %s --check-prefix=UNKNOWN < %t/err && count 1 < %t/err
// UNKNOWN: error: node 'unknown' (BatchToSpaceND): is imported only as the end of a dilated convolution, BatchToSpaceND(Conv2D(SpaceToBatchND(x))) as tf.nn.convolution builds it; the image 'tensor<1x?x8x2xf32>' and filter 'tensor<3x3x2x2xf32>' must have static heights and widths
// RUN: not dtf-translate --import-graphdef %t/invalid.pbtxt --outputs=uneven 2> %t/err
// RUN: FileCheck %s --check-prefix=UNEVEN < %t/err && count 1 < %t/err
// UNEVEN: error: node 'uneven' (BatchToSpaceND): is imported only as the end of a dilated convolution, BatchToSpaceND(Conv2D(SpaceToBatchND(x))) as tf.nn.convolution builds it; its paddings [1, 0, 0, 0] and crops [0, 0, 0, 0] are neither TensorFlow's SAME nor its VALID padding
// RUN: not dtf-translate --import-graphdef %t/invalid.pbtxt --outputs=blocks 2> %t/err
// RUN: FileCheck %s --check-prefix=BLOCKS < %t/err && count 1 < %t/err
// BLOCKS: error: node 'blocks' (BatchToSpaceND): is imported only as the end of a dilated convolution, BatchToSpaceND(Conv2D(SpaceToBatchND(x))) as tf.nn.convolution builds it; the block shapes must be the same 2 spatial dilations, with paddings and crops of [2, 2]
// RUN: not dtf-translate --import-graphdef %t/invalid.pbtxt --outputs=inner 2> %t/err
// RUN: FileCheck %s --check-prefix=INNER < %t/err && count 1 < %t/err
// INNER: error: node 'inner' (BatchToSpaceND): is imported only as the end of a dilated convolution, BatchToSpaceND(Conv2D(SpaceToBatchND(x))) as tf.nn.convolution builds it; the Conv2D must be VALID, undilated and of stride 1

// Blocks of 1 dilate nothing: an undilated dtf.conv2d.
// RUN: dtf-translate --import-graphdef %t/invalid.pbtxt --outputs=ones | FileCheck %s --check-prefix=ONES
// ONES: dtf.conv2d %{{.*}}, %{{.*}} strides [1, 1, 1, 1] padding VALID : tensor<1x8x8x2xf32>, tensor<3x3x2x2xf32>

// A dilated convolution exported to a SavedModel keeps its dilations.
// RUN: dtf-translate --export-saved-model %t/export.mlir --outputs=result:0 | FileCheck %s --check-prefix=EXPORT
// EXPORT:      op: "Conv2D"
// EXPORT:      key: "dilations"
// EXPORT-NEXT: value {
// EXPORT-NEXT:   list {
// EXPORT-NEXT:     i: 1
// EXPORT-NEXT:     i: 2
// EXPORT-NEXT:     i: 3
// EXPORT-NEXT:     i: 1

//--- transpose.pbtxt
node { name: "sizes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } } int_val: 1 int_val: 5 int_val: 5 int_val: 2 } } } }
node { name: "filter" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } dim { size: 3 } dim { size: 2 } dim { size: 4 } } } } }
node { name: "value" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 1 } dim { size: 5 } dim { size: 5 } dim { size: 4 } } } } }
node { name: "up" op: "Conv2DBackpropInput" input: "sizes" input: "filter" input: "value" attr { key: "T" value { type: DT_FLOAT } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "SAME" } } attr { key: "dilations" value { list { i: 1 i: 2 i: 2 i: 1 } } } }
node { name: "kernel" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } dim { size: 3 } dim { size: 4 } dim { size: 2 } } } } }
node { name: "plain" op: "Conv2D" input: "value" input: "kernel" attr { key: "T" value { type: DT_FLOAT } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "SAME" } } attr { key: "dilations" value { list { i: 1 i: 1 i: 1 i: 1 } } } }
//--- invalid.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 1 } dim { size: 8 } dim { size: 8 } dim { size: 2 } } } } }
node { name: "f" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } dim { size: 3 } dim { size: 2 } dim { size: 2 } } } } }
node { name: "strided" op: "Conv2D" input: "x" input: "f" attr { key: "T" value { type: DT_FLOAT } } attr { key: "strides" value { list { i: 1 i: 2 i: 2 i: 1 } } } attr { key: "padding" value { s: "SAME" } } attr { key: "dilations" value { list { i: 1 i: 2 i: 2 i: 1 } } } }
node { name: "three" op: "Conv2D" input: "x" input: "f" attr { key: "T" value { type: DT_FLOAT } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "SAME" } } attr { key: "dilations" value { list { i: 1 i: 2 i: 2 } } } }
node { name: "batch" op: "Conv2D" input: "x" input: "f" attr { key: "T" value { type: DT_FLOAT } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "SAME" } } attr { key: "dilations" value { list { i: 2 i: 1 i: 1 i: 1 } } } }
node { name: "block" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 2 int_val: 2 } } } }
node { name: "zeros" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { size: 2 } } int_val: 0 int_val: 0 int_val: 0 int_val: 0 } } } }
node { name: "uneven_pads" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } dim { size: 2 } } int_val: 1 int_val: 0 int_val: 0 int_val: 0 } } } }
node { name: "block3" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 3 int_val: 3 } } } }
node { name: "alone" op: "BatchToSpaceND" input: "x" input: "block" input: "zeros" }
node { name: "s2b_uneven" op: "SpaceToBatchND" input: "x" input: "block" input: "uneven_pads" }
node { name: "conv_uneven" op: "Conv2D" input: "s2b_uneven" input: "f" attr { key: "T" value { type: DT_FLOAT } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "VALID" } } }
node { name: "uneven" op: "BatchToSpaceND" input: "conv_uneven" input: "block" input: "zeros" }
node { name: "s2b" op: "SpaceToBatchND" input: "x" input: "block" input: "zeros" }
node { name: "conv_valid" op: "Conv2D" input: "s2b" input: "f" attr { key: "T" value { type: DT_FLOAT } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "VALID" } } }
node { name: "blocks" op: "BatchToSpaceND" input: "conv_valid" input: "block3" input: "zeros" }
node { name: "conv_same" op: "Conv2D" input: "s2b" input: "f" attr { key: "T" value { type: DT_FLOAT } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "SAME" } } }
node { name: "inner" op: "BatchToSpaceND" input: "conv_same" input: "block" input: "zeros" }
node { name: "conv_x" op: "Conv2D" input: "x" input: "f" attr { key: "T" value { type: DT_FLOAT } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "VALID" } } }
node { name: "unbatched" op: "BatchToSpaceND" input: "conv_x" input: "block" input: "zeros" }
node { name: "xu" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 1 } dim { size: -1 } dim { size: 8 } dim { size: 2 } } } } }
node { name: "s2b_u" op: "SpaceToBatchND" input: "xu" input: "block" input: "zeros" }
node { name: "conv_u" op: "Conv2D" input: "s2b_u" input: "f" attr { key: "T" value { type: DT_FLOAT } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "VALID" } } }
node { name: "unknown" op: "BatchToSpaceND" input: "conv_u" input: "block" input: "zeros" }
node { name: "block1" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1 int_val: 1 } } } }
node { name: "s2b_1" op: "SpaceToBatchND" input: "x" input: "block1" input: "zeros" }
node { name: "conv_1" op: "Conv2D" input: "s2b_1" input: "f" attr { key: "T" value { type: DT_FLOAT } } attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "VALID" } } }
node { name: "ones" op: "BatchToSpaceND" input: "conv_1" input: "block1" input: "zeros" }
//--- export.mlir
module {
  func.func @main() -> tensor<1x8x8x2xf32> {
    %f = dtf.variable "conv/filter" init(#dtf.constant<0.5>) : !dtf.resource<tensor<3x3x1x2xf32>>
    %x = dtf.placeholder "images" : tensor<1x8x8x1xf32>
    %fv = dtf.read %f : !dtf.resource<tensor<3x3x1x2xf32>>
    %c = dtf.conv2d %x, %fv strides [1, 1, 1, 1] dilations [1, 2, 3, 1] padding SAME : tensor<1x8x8x1xf32>, tensor<3x3x1x2xf32>
    return %c : tensor<1x8x8x2xf32>
  }
}
