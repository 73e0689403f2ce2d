// GraphDefs at the edges of what the importer reads, imported as TensorFlow
// reads them rather than crashing.
// RUN: split-file %s %t

// A Const that spells one value for its whole shape is a splat, however
// large the shape: one value, never listed element by element.
// RUN: dtf-translate --import-graphdef %t/splat.pbtxt --outputs=zeros,half \
// RUN:   | FileCheck %s --check-prefix=SPLAT
// SPLAT: dtf.constant dense<0.000000e+00> : tensor<100000x100000xf32>
// SPLAT: dtf.constant dense<5.000000e-01> : tensor<4294967296xf32>

// A folded shape of one size broadcasts against an empty one to none.
// RUN: dtf-translate --import-graphdef %t/empty-shape.pbtxt --outputs=r \
// RUN:   | FileCheck %s --check-prefix=EMPTY
// EMPTY: dtf.reshape %{{.*}} : tensor<1xf32> -> tensor<f32>

//--- splat.pbtxt
node { name: "zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 100000 } dim { size: 100000 } } } } } }
node { name: "half" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4294967296 } } float_val: 0.5 } } } }
//--- empty-shape.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 1 } } } } }
node { name: "empty" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 0 } } } } } }
node { name: "five" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 5 } } } }
node { name: "shape" op: "Sub" input: "empty" input: "five" }
node { name: "r" op: "Reshape" input: "x" input: "shape" }
