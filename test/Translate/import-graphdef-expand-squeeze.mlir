// tf.expand_dims (ExpandDims) and tf.squeeze (Squeeze) are dtf.reshape: a
// dimension of size 1 added or removed, the batch dimension left unknown.
// RUN: split-file %s %t
// RUN: dtf-translate --import-graphdef %t/shapes.pbtxt --outputs=back,all | FileCheck %s
// CHECK: %[[X:.*]] = dtf.placeholder "x" : tensor<?x3xf32>
// CHECK: %[[E:.*]] = dtf.reshape %[[X]] : tensor<?x3xf32> -> tensor<?x1x3xf32>
// CHECK: %[[L:.*]] = dtf.reshape %[[E]] : tensor<?x1x3xf32> -> tensor<?x1x3x1xf32>
// CHECK: %[[B:.*]] = dtf.reshape %[[L]] : tensor<?x1x3x1xf32> -> tensor<?x3xf32>
// CHECK: %[[Y:.*]] = dtf.placeholder "y" : tensor<1x4x1xf32>
// CHECK: %[[A:.*]] = dtf.reshape %[[Y]] : tensor<1x4x1xf32> -> tensor<4xf32>
// CHECK: return %[[B]], %[[A]]

// RUN: not dtf-translate --import-graphdef %t/bad.pbtxt --outputs=wide 2>&1 | FileCheck %s --check-prefix=AXIS
// AXIS: bad.pbtxt:3:1: error: node 'wide' (ExpandDims): needs one axis in [-3, 2] for a tensor of rank 2
// RUN: not dtf-translate --import-graphdef %t/bad.pbtxt --outputs=not_one 2>&1 | FileCheck %s --check-prefix=NOT-ONE
// NOT-ONE: bad.pbtxt:4:1: error: node 'not_one' (Squeeze): squeezes dimension 1 of 'tensor<?x3xf32>', which is not one of size 1
// RUN: not dtf-translate --import-graphdef %t/bad.pbtxt --outputs=unknown 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: bad.pbtxt:5:1: error: node 'unknown' (Squeeze): squeezes every dimension of size 1, and dimension 0 has an unknown size; name the dimensions (squeeze_dims)

//--- shapes.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
node { name: "last" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: -1 } } } }
node { name: "expanded" op: "ExpandDims" input: "x" input: "one" }
node { name: "appended" op: "ExpandDims" input: "expanded" input: "last" }
node { name: "back" op: "Squeeze" input: "appended" attr { key: "squeeze_dims" value { list { i: 1 i: -1 } } } }
node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 1 } dim { size: 4 } dim { size: 1 } } } } }
node { name: "all" op: "Squeeze" input: "y" }
//--- bad.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
node { name: "three" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 3 } } } }
node { name: "wide" op: "ExpandDims" input: "x" input: "three" }
node { name: "not_one" op: "Squeeze" input: "x" attr { key: "squeeze_dims" value { list { i: 1 } } } }
node { name: "unknown" op: "Squeeze" input: "x" }
