// The elementwise math of TF1 models, one dtf op each: activations (Tanh,
// Exp, Sqrt, Rsqrt, Abs, Sign, Floor), Pow, Minimum and Maximum (a Maximum
// of a Minimum is tf.clip_by_value only with constant bounds), DivNoNan
// outside an embedding lookup, comparisons and logical ops, Select with a
// vector condition choosing rows and SelectV2 broadcasting, StopGradient;
// the reductions Max and Min; AvgPool.
// RUN: split-file %s %t
// RUN: dtf-translate --import-graphdef %t/math.pbtxt --outputs=out | FileCheck %s
// CHECK: %[[ROWS:.*]] = dtf.placeholder "rows" : tensor<4xi1>
// CHECK: %[[X:.*]] = dtf.placeholder "x" : tensor<4x3xf32>
// CHECK: %[[T:.*]] = dtf.tanh %[[X]]
// CHECK: %[[E:.*]] = dtf.exp %[[T]]
// CHECK: %[[S:.*]] = dtf.sqrt %[[E]]
// CHECK: %[[RS:.*]] = dtf.rsqrt %[[S]]
// CHECK: %[[A:.*]] = dtf.abs %[[RS]]
// CHECK: %[[SG:.*]] = dtf.sign %[[A]]
// CHECK: %[[F:.*]] = dtf.floor %[[SG]]
// CHECK: %[[Y:.*]] = dtf.placeholder "y" : tensor<4x3xf32>
// CHECK: %[[P:.*]] = dtf.pow %[[F]], %[[Y]]
// CHECK: %[[MIN:.*]] = dtf.minimum %[[P]], %[[Y]]
// CHECK: %[[MAX:.*]] = dtf.maximum %[[MIN]], %[[X]]
// CHECK: %[[D:.*]] = dtf.div_no_nan %[[MAX]], %[[Y]]
// CHECK: %[[SGD:.*]] = dtf.stop_gradient %[[D]]
// CHECK: %[[GT:.*]] = dtf.greater %[[SGD]], %[[X]]
// CHECK: %[[GE:.*]] = dtf.greater_equal %[[X]], %[[Y]]
// CHECK: %[[AND:.*]] = dtf.logical_and %[[GT]], %[[GE]]
// CHECK: %[[LT:.*]] = dtf.less %[[X]], %[[Y]]
// CHECK: %[[OR:.*]] = dtf.logical_or %[[AND]], %[[LT]]
// CHECK: %[[LE:.*]] = dtf.less_equal %[[X]], %[[Y]]
// CHECK: %[[NOT:.*]] = dtf.logical_not %[[LE]]
// CHECK: %[[BOTH:.*]] = dtf.logical_and %[[OR]], %[[NOT]]
// CHECK: %[[NE:.*]] = dtf.not_equal %[[X]], %[[Y]]
// CHECK: %[[ALL:.*]] = dtf.logical_or %[[BOTH]], %[[NE]]
// CHECK: %[[V2:.*]] = dtf.select %[[ALL]], %[[X]], %{{.*}} : tensor<4x3xi1>, tensor<4x3xf32>, tensor<f32>
// CHECK: %[[COLUMN:.*]] = dtf.reshape %[[ROWS]] : tensor<4xi1> -> tensor<4x1xi1>
// CHECK: %[[V1:.*]] = dtf.select %[[COLUMN]], %[[V2]], %[[Y]] : tensor<4x1xi1>, tensor<4x3xf32>, tensor<4x3xf32>
// CHECK: return %[[V1]]

// RUN: dtf-translate --import-graphdef %t/clip.pbtxt --outputs=clipped,bounded | FileCheck %s --check-prefix=CLIP
// CLIP: %[[X:.*]] = dtf.placeholder "x"
// CLIP: %[[C:.*]] = dtf.clip_by_value %[[X]], -1.000000e+00, 1.000000e+00
// CLIP: %[[B:.*]] = dtf.placeholder "b"
// CLIP: %[[MIN:.*]] = dtf.minimum %[[X]], %[[B]]
// CLIP: %[[MAX:.*]] = dtf.maximum %[[MIN]], %{{.*}} : tensor<3xf32>, tensor<f32>
// CLIP: return %[[C]], %[[MAX]]

// RUN: dtf-translate --import-graphdef %t/extrema.pbtxt --outputs=max,min | FileCheck %s --check-prefix=EXTREMA
// EXTREMA: %[[X:.*]] = dtf.placeholder "x"
// EXTREMA: %[[MAX:.*]] = dtf.reduce_max %[[X]] {axes = array<i64: 1>, keep_dims = true} : tensor<4x3xf32>
// EXTREMA: %[[MIN:.*]] = dtf.reduce_min %[[X]] {axes = array<i64: 0, 1>} : tensor<4x3xf32>
// EXTREMA: return %[[MAX]], %[[MIN]] : tensor<4x1xf32>, tensor<f32>

// RUN: dtf-translate --import-graphdef %t/pool.pbtxt --outputs=pooled | FileCheck %s --check-prefix=POOL
// POOL: %[[X:.*]] = dtf.placeholder "x" : tensor<2x5x5x3xf32>
// POOL: dtf.avg_pool %[[X]] ksize [1, 3, 3, 1] strides [1, 2, 2, 1] padding SAME : tensor<2x5x5x3xf32>

//--- math.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 3 } } } } }
node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 3 } } } } }
node { name: "rows" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
node { name: "tanh" op: "Tanh" input: "x" }
node { name: "exp" op: "Exp" input: "tanh" }
node { name: "sqrt" op: "Sqrt" input: "exp" }
node { name: "rsqrt" op: "Rsqrt" input: "sqrt" }
node { name: "abs" op: "Abs" input: "rsqrt" }
node { name: "sign" op: "Sign" input: "abs" }
node { name: "floor" op: "Floor" input: "sign" }
node { name: "pow" op: "Pow" input: "floor" input: "y" }
node { name: "min" op: "Minimum" input: "pow" input: "y" }
node { name: "max" op: "Maximum" input: "min" input: "x" }
node { name: "div" op: "DivNoNan" input: "max" input: "y" }
node { name: "stop" op: "StopGradient" input: "div" }
node { name: "gt" op: "Greater" input: "stop" input: "x" }
node { name: "ge" op: "GreaterEqual" input: "x" input: "y" }
node { name: "lt" op: "Less" input: "x" input: "y" }
node { name: "le" op: "LessEqual" input: "x" input: "y" }
node { name: "ne" op: "NotEqual" input: "x" input: "y" }
node { name: "and" op: "LogicalAnd" input: "gt" input: "ge" }
node { name: "or" op: "LogicalOr" input: "and" input: "lt" }
node { name: "not" op: "LogicalNot" input: "le" }
node { name: "both" op: "LogicalAnd" input: "or" input: "not" }
node { name: "all" op: "LogicalOr" input: "both" input: "ne" }
node { name: "v2" op: "SelectV2" input: "all" input: "x" input: "zero" }
node { name: "out" op: "Select" input: "rows" input: "v2" input: "y" }
//--- clip.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "hi" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "lo" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: -1 } } } }
node { name: "clip/Minimum" op: "Minimum" input: "x" input: "hi" }
node { name: "clipped" op: "Maximum" input: "clip/Minimum" input: "lo" }
node { name: "bound/Minimum" op: "Minimum" input: "x" input: "b" }
node { name: "bounded" op: "Maximum" input: "bound/Minimum" input: "lo" }
//--- extrema.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 3 } } } } }
node { name: "rows" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 } } } }
node { name: "all" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 0 int_val: 1 } } } }
node { name: "max" op: "Max" input: "x" input: "rows" attr { key: "keep_dims" value { b: true } } }
node { name: "min" op: "Min" input: "x" input: "all" }
//--- pool.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 5 } dim { size: 5 } dim { size: 3 } } } } }
node { name: "pooled" op: "AvgPool" input: "x" attr { key: "ksize" value { list { i: 1 i: 3 i: 3 i: 1 } } } attr { key: "strides" value { list { i: 1 i: 2 i: 2 i: 1 } } } attr { key: "padding" value { s: "SAME" } } attr { key: "data_format" value { s: "NHWC" } } }
