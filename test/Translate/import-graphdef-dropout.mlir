// tf.nn.dropout as TensorFlow 1 builds it: a RandomUniform of the shape of
// its input (Shape, folded at import: the batch stays unknown), kept where
// it is at least the rate, the kept values scaled by 1 / (1 - rate). The
// RandomUniform becomes a dtf.random_uniform of its op seed (seed2), drawn
// anew at every step.
// RUN: split-file %s %t
// RUN: dtf-translate --import-graphdef %t/dropout.pbtxt --outputs=out | FileCheck %s
// CHECK:      %[[X:.*]] = dtf.placeholder "x" : tensor<?x4xf32>
// CHECK-NEXT: %[[U:.*]] = dtf.random_uniform seed 5 : tensor<?x4xf32>
// CHECK-NEXT: %[[RATE:.*]] = dtf.constant dense<2.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[KEEP:.*]] = dtf.greater_equal %[[U]], %[[RATE]]
// CHECK-NEXT: %[[SCALE:.*]] = dtf.constant dense<1.250000e+00> : tensor<f32>
// CHECK-NEXT: %[[SCALED:.*]] = dtf.mul %[[X]], %[[SCALE]]
// CHECK-NEXT: %[[ZERO:.*]] = dtf.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[OUT:.*]] = dtf.select %[[KEEP]], %[[SCALED]], %[[ZERO]]
// CHECK-NEXT: return %[[OUT]]

//--- dropout.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: -1 } dim { size: 4 } } } } }
node { name: "dropout/Const" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1.25 } } } }
node { name: "dropout/Mul" op: "Mul" input: "x" input: "dropout/Const" }
node { name: "dropout/Shape" op: "Shape" input: "x" attr { key: "out_type" value { type: DT_INT32 } } }
node { name: "dropout/random_uniform/RandomUniform" op: "RandomUniform" input: "dropout/Shape" attr { key: "T" value { type: DT_INT32 } } attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "seed" value { i: 1 } } attr { key: "seed2" value { i: 5 } } }
node { name: "dropout/GreaterEqual/y" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.2 } } } }
node { name: "dropout/GreaterEqual" op: "GreaterEqual" input: "dropout/random_uniform/RandomUniform" input: "dropout/GreaterEqual/y" }
node { name: "dropout/Const_1" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
node { name: "out" op: "SelectV2" input: "dropout/GreaterEqual" input: "dropout/Mul" input: "dropout/Const_1" }
