// The shape ops of tf.layers models: Split (an LSTM cell's gates) and
// SplitV as dtf.slices; Unpack (static_rnn's time steps) as slices without
// the axis; Pack (tf.stack) as reshapes and a concat; Fill (tf.ones_like,
// zero states) as a broadcast to a shape computed before running, whose
// batch dimension a StridedSlice of a Shape, made a vector by ExpandDims as
// BasicLSTMCell's zero_state does, leaves unknown;
// SquaredDifference; a reduction over Range(0, Rank(x)) as tf.losses
// reduces.
// RUN: split-file %s %t
// RUN: dtf-translate --import-graphdef %t/shapes.pbtxt --outputs=gates:1,stacked,split_v:2,step:1,zeros,loss | FileCheck %s
// CHECK: %[[X:.*]] = dtf.placeholder "x" : tensor<4x8xf32>
// CHECK: %[[G1:.*]] = dtf.slice %[[X]] offsets [0, 2] sizes [4, 2] : tensor<4x8xf32>
// CHECK: %[[S0:.*]] = dtf.reshape %{{.*}} : tensor<4xf32> -> tensor<1x4xf32>
// CHECK: %[[STACKED:.*]] = dtf.concat %[[S0]], %{{.*}} axis 0 : tensor<1x4xf32>, tensor<1x4xf32>
// CHECK: %[[V2:.*]] = dtf.slice %[[X]] offsets [0, 5] sizes [4, 3] : tensor<4x8xf32>
// CHECK: %[[SEQ:.*]] = dtf.placeholder "seq" : tensor<?x3x5xf32>
// CHECK: %[[STEP1:.*]] = dtf.slice %[[SEQ]] offsets [0, 1, 0] sizes [-1, 1, 5] : tensor<?x3x5xf32>
// CHECK: dtf.reshape
// CHECK-NEXT: %[[STEP:.*]] = dtf.reshape %[[STEP1]] : tensor<?x1x5xf32> -> tensor<?x5xf32>
// CHECK: %[[ZEROS:.*]] = dtf.broadcast_to %{{.*}} : tensor<f32> -> tensor<?x16xf32>
// CHECK: %[[D:.*]] = dtf.sub %[[X]], %{{.*}}
// CHECK: %[[SQ:.*]] = dtf.mul %[[D]], %[[D]]
// CHECK: %[[LOSS:.*]] = dtf.reduce_sum %[[SQ]] {axes = array<i64: 0, 1>}
// CHECK: return %[[G1]], %[[STACKED]], %[[V2]], %[[STEP]], %[[ZEROS]], %[[LOSS]]

// RUN: not dtf-translate --import-graphdef %t/uneven.pbtxt --outputs=parts 2>&1 | FileCheck %s --check-prefix=UNEVEN
// UNEVEN: error: node 'parts' (Split): cannot split a dimension of 8 into 3 equal parts

//--- shapes.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 8 } } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
node { name: "gates" op: "Split" input: "one" input: "x" attr { key: "num_split" value { i: 4 } } }
node { name: "row" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } } float_val: 1 } } } }
node { name: "stacked" op: "Pack" input: "row" input: "row" attr { key: "N" value { i: 2 } } attr { key: "axis" value { i: 0 } } }
node { name: "sizes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 2 int_val: 3 int_val: -1 } } } }
node { name: "split_v" op: "SplitV" input: "x" input: "sizes" input: "one" attr { key: "num_split" value { i: 3 } } }
node { name: "seq" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } dim { size: 5 } } } } }
node { name: "step" op: "Unpack" input: "seq" attr { key: "num" value { i: 3 } } attr { key: "axis" value { i: 1 } } }
node { name: "shape" op: "Shape" input: "step" }
node { name: "begin" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "end" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 } } } }
node { name: "batch" op: "StridedSlice" input: "shape" input: "begin" input: "end" input: "end" attr { key: "shrink_axis_mask" value { i: 1 } } }
node { name: "units" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 16 } } } }
node { name: "axis0" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
node { name: "batch_vector" op: "ExpandDims" input: "batch" input: "axis0" }
node { name: "state_shape" op: "ConcatV2" input: "batch_vector" input: "units" input: "axis0" attr { key: "N" value { i: 2 } } }
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
node { name: "zeros" op: "Fill" input: "state_shape" input: "zero" }
node { name: "target" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 8 } } float_val: 0.5 } } } }
node { name: "sqdiff" op: "SquaredDifference" input: "x" input: "target" }
node { name: "rank" op: "Rank" input: "sqdiff" }
node { name: "start" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
node { name: "delta" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
node { name: "range" op: "Range" input: "start" input: "rank" input: "delta" }
node { name: "loss" op: "Sum" input: "sqdiff" input: "range" }
//--- uneven.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 8 } } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
node { name: "parts" op: "Split" input: "one" input: "x" attr { key: "num_split" value { i: 3 } } }
