// The initial values TensorFlow's compat.v1 initializers build, as
// dtf-translate imports them (hand-written GraphDefs with the node
// structure and names TF 2.x's tf.compat.v1 gives them):
// - glorot_uniform, the default of get_variable and layers.dense, for a
//   [4, 3] kernel: random_uniform with limit sqrt(6 / (4 + 3)),
//   Add(Mul(RandomUniform, Sub(max, min)), min);
// - random_uniform_initializer(-0.05, 0.05, seed=3) with no graph seed
//   (seed 87654321, seed2 3), its Add an Add;
// - random_uniform with a Python 0 as minval: Mul(RandomUniform, max), and
//   with [0, 1) the RandomUniform itself;
// - he_normal and glorot_normal (truncated, stddev sqrt(scale) /
//   0.87962566103423978 computed into a Const) and variance_scaling's
//   untruncated_normal;
// - a numpy array; ones, as a Const and (a large variable) as a Fill;
// - orthogonal_initializer (Inputs/orthogonal.pbtxt, written by TensorFlow
//   with Inputs/make_orthogonal_graph.py): a wide matrix, whose Q is
//   transposed, with a gain and a seed, and a rank-3 kernel.
// RUN: split-file %s %t
// RUN: dtf-translate --import-graphdef %t/glorot-uniform.pbtxt --outputs=dense/kernel/read | FileCheck %s --check-prefix=GLOROT
// GLOROT: dtf.variable "dense/kernel" init(#dtf.random_uniform<minval = -0.9258201, maxval = 0.9258201, seed = 0>) {trainable = false} : !dtf.resource<tensor<4x3xf32>>

// RUN: dtf-translate --import-graphdef %t/uniform-seed.pbtxt --outputs=v/read | FileCheck %s --check-prefix=SEED
// SEED: dtf.variable "v" init(#dtf.random_uniform<minval = -0.05, maxval = 0.05, seed = 3>) {trainable = false} : !dtf.resource<tensor<2x5xf32>>

// RUN: dtf-translate --import-graphdef %t/uniform-zero-min.pbtxt --outputs=w/read,u/read | FileCheck %s --check-prefix=ZERO-MIN
// ZERO-MIN: dtf.variable "w" init(#dtf.random_uniform<minval = 0.0, maxval = 3.0, seed = 0>) {trainable = false} : !dtf.resource<tensor<3xf32>>
// ZERO-MIN: dtf.variable "u" init(#dtf.random_uniform<minval = 0.0, maxval = 1.0, seed = 1>) {trainable = false} : !dtf.resource<tensor<3xf32>>

// RUN: dtf-translate --import-graphdef %t/normal.pbtxt --outputs=he/read,glorot/read,untruncated/read | FileCheck %s --check-prefix=NORMAL
// NORMAL: dtf.variable "he" init(#dtf.truncated_normal<stddev = 0.8038724, seed = 0>) {trainable = false} : !dtf.resource<tensor<4x3xf32>>
// NORMAL: dtf.variable "glorot" init(#dtf.truncated_normal<stddev = 0.6076704, seed = 7>) {trainable = false} : !dtf.resource<tensor<4x3xf32>>
// NORMAL: dtf.variable "untruncated" init(#dtf.random_normal<stddev = 0.6076704, seed = 0>) {trainable = false} : !dtf.resource<tensor<4x3xf32>>

// RUN: dtf-translate --import-graphdef %t/numpy.pbtxt --outputs=b/read | FileCheck %s --check-prefix=NUMPY
// NUMPY: dtf.variable "b" init(#dtf.dense_init<dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.500000e+00]]> : tensor<2x2xf32>>) {trainable = false} : !dtf.resource<tensor<2x2xf32>>

// RUN: dtf-translate --import-graphdef %t/ones.pbtxt --outputs=small/read,large/read | FileCheck %s --check-prefix=ONES
// ONES: dtf.variable "small" init(#dtf.constant<1.0>) {trainable = false} : !dtf.resource<tensor<2x3xf32>>
// ONES: dtf.variable "large" init(#dtf.constant<1.0>) {trainable = false} : !dtf.resource<tensor<40x30xf32>>

// RUN: dtf-translate --import-graphdef %S/Inputs/orthogonal.pbtxt --outputs=w/read,v/read | FileCheck %s --check-prefix=ORTHOGONAL
// ORTHOGONAL: dtf.variable "w" init(#dtf.orthogonal<gain = 2.0, seed = 7>) {trainable = false} : !dtf.resource<tensor<3x5xf32>>
// ORTHOGONAL: dtf.variable "v" init(#dtf.orthogonal<seed = 0>) {trainable = false} : !dtf.resource<tensor<4x2x3xf32>>

// What is not recognized is one error naming the node: a Qr that is not
// orthogonal_initializer's signed Q; a uniform range that is no Sub of Consts; an empty range; a constant of
// another shape than its variable's.
// RUN: not dtf-translate --import-graphdef %t/unrecognized.pbtxt --outputs=q/read 2> %t/err
// RUN: FileCheck %s --check-prefix=UNRECOGNIZED < %t/err && count 1 < %t/err
// UNRECOGNIZED: unrecognized.pbtxt:4:1: error: node 'q/Initializer/orthogonal/Qr' (Qr): is not an initial value DTF recognizes (a Const, Fill, a product of those, tf.truncated_normal / tf.random_normal's Add(Mul(sample, stddev), mean), tf.random_uniform's Add(Mul(sample, Sub(max, min)), min), or tf.orthogonal_initializer's signed Q of a Qr)

// RUN: not dtf-translate --import-graphdef %t/sub-of-variable.pbtxt --outputs=s/read 2> %t/err
// RUN: FileCheck %s --check-prefix=SUB < %t/err && count 1 < %t/err
// SUB: sub-of-variable.pbtxt:6:1: error: node 's/Initializer/random_uniform/sub' (Sub): input 0 must be a scalar Const, got 's' (VariableV2)

// RUN: not dtf-translate --import-graphdef %t/empty-range.pbtxt --outputs=e/read 2> %t/err
// RUN: FileCheck %s --check-prefix=EMPTY < %t/err && count 1 < %t/err
// EMPTY: empty-range.pbtxt:5:1: error: node 'e/Initializer/random_uniform/RandomUniform' (RandomUniform): minval must be less than maxval, got [5.000000e-01, 5.000000e-01)

// RUN: not dtf-translate --import-graphdef %t/numpy-shape.pbtxt --outputs=m/read 2> %t/err
// RUN: FileCheck %s --check-prefix=NUMPY-SHAPE < %t/err && count 1 < %t/err
// NUMPY-SHAPE: numpy-shape.pbtxt:1:1: error: node 'm' (VariableV2): of type 'tensor<4xf32>' is initialized with a constant of type 'tensor<2x2xf32>'

//--- glorot-uniform.pbtxt
node { name: "dense/kernel" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 3 } } } } }
node { name: "dense/kernel/Initializer/random_uniform/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } tensor_content: "\004\000\000\000\003\000\000\000" } } } }
node { name: "dense/kernel/Initializer/random_uniform/min" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: -0.9258201 } } } }
node { name: "dense/kernel/Initializer/random_uniform/max" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.9258201 } } } }
node { name: "dense/kernel/Initializer/random_uniform/RandomUniform" op: "RandomUniform" input: "dense/kernel/Initializer/random_uniform/shape" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } attr { key: "seed" value { i: 0 } } attr { key: "seed2" value { i: 0 } } }
node { name: "dense/kernel/Initializer/random_uniform/sub" op: "Sub" input: "dense/kernel/Initializer/random_uniform/max" input: "dense/kernel/Initializer/random_uniform/min" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "dense/kernel/Initializer/random_uniform/mul" op: "Mul" input: "dense/kernel/Initializer/random_uniform/RandomUniform" input: "dense/kernel/Initializer/random_uniform/sub" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "dense/kernel/Initializer/random_uniform" op: "AddV2" input: "dense/kernel/Initializer/random_uniform/mul" input: "dense/kernel/Initializer/random_uniform/min" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "dense/kernel/Assign" op: "Assign" input: "dense/kernel" input: "dense/kernel/Initializer/random_uniform" }
node { name: "dense/kernel/read" op: "Identity" input: "dense/kernel" }
//--- uniform-seed.pbtxt
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 5 } } } } }
node { name: "v/Initializer/random_uniform/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } tensor_content: "\002\000\000\000\005\000\000\000" } } } }
node { name: "v/Initializer/random_uniform/min" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: -0.05 } } } }
node { name: "v/Initializer/random_uniform/max" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.05 } } } }
node { name: "v/Initializer/random_uniform/RandomUniform" op: "RandomUniform" input: "v/Initializer/random_uniform/shape" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } attr { key: "seed" value { i: 87654321 } } attr { key: "seed2" value { i: 3 } } }
node { name: "v/Initializer/random_uniform/sub" op: "Sub" input: "v/Initializer/random_uniform/max" input: "v/Initializer/random_uniform/min" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "v/Initializer/random_uniform/mul" op: "Mul" input: "v/Initializer/random_uniform/RandomUniform" input: "v/Initializer/random_uniform/sub" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "v/Initializer/random_uniform" op: "Add" input: "v/Initializer/random_uniform/mul" input: "v/Initializer/random_uniform/min" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "v/Assign" op: "Assign" input: "v" input: "v/Initializer/random_uniform" }
node { name: "v/read" op: "Identity" input: "v" }
//--- uniform-zero-min.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "w/Initializer/random_uniform/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } tensor_content: "\003\000\000\000" } } } }
node { name: "w/Initializer/random_uniform/max" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 3 } } } }
node { name: "w/Initializer/random_uniform/RandomUniform" op: "RandomUniform" input: "w/Initializer/random_uniform/shape" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } attr { key: "seed" value { i: 0 } } attr { key: "seed2" value { i: 0 } } }
node { name: "w/Initializer/random_uniform" op: "Mul" input: "w/Initializer/random_uniform/RandomUniform" input: "w/Initializer/random_uniform/max" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/Initializer/random_uniform" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "u" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "u/Initializer/random_uniform/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } tensor_content: "\003\000\000\000" } } } }
node { name: "u/Initializer/random_uniform" op: "RandomUniform" input: "u/Initializer/random_uniform/shape" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } attr { key: "seed" value { i: 1 } } attr { key: "seed2" value { i: 0 } } }
node { name: "u/Assign" op: "Assign" input: "u" input: "u/Initializer/random_uniform" }
node { name: "u/read" op: "Identity" input: "u" }
//--- normal.pbtxt
node { name: "he" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 3 } } } } }
node { name: "he/Initializer/truncated_normal/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } tensor_content: "\004\000\000\000\003\000\000\000" } } } }
node { name: "he/Initializer/truncated_normal/mean" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
node { name: "he/Initializer/truncated_normal/stddev" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.8038724 } } } }
node { name: "he/Initializer/truncated_normal/TruncatedNormal" op: "TruncatedNormal" input: "he/Initializer/truncated_normal/shape" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } attr { key: "seed" value { i: 0 } } attr { key: "seed2" value { i: 0 } } }
node { name: "he/Initializer/truncated_normal/mul" op: "Mul" input: "he/Initializer/truncated_normal/TruncatedNormal" input: "he/Initializer/truncated_normal/stddev" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "he/Initializer/truncated_normal" op: "AddV2" input: "he/Initializer/truncated_normal/mul" input: "he/Initializer/truncated_normal/mean" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "he/Assign" op: "Assign" input: "he" input: "he/Initializer/truncated_normal" }
node { name: "he/read" op: "Identity" input: "he" }
node { name: "glorot" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 3 } } } } }
node { name: "glorot/Initializer/truncated_normal/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } tensor_content: "\004\000\000\000\003\000\000\000" } } } }
node { name: "glorot/Initializer/truncated_normal/mean" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
node { name: "glorot/Initializer/truncated_normal/stddev" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.6076704 } } } }
node { name: "glorot/Initializer/truncated_normal/TruncatedNormal" op: "TruncatedNormal" input: "glorot/Initializer/truncated_normal/shape" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } attr { key: "seed" value { i: 87654321 } } attr { key: "seed2" value { i: 7 } } }
node { name: "glorot/Initializer/truncated_normal/mul" op: "Mul" input: "glorot/Initializer/truncated_normal/TruncatedNormal" input: "glorot/Initializer/truncated_normal/stddev" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "glorot/Initializer/truncated_normal" op: "AddV2" input: "glorot/Initializer/truncated_normal/mul" input: "glorot/Initializer/truncated_normal/mean" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "glorot/Assign" op: "Assign" input: "glorot" input: "glorot/Initializer/truncated_normal" }
node { name: "glorot/read" op: "Identity" input: "glorot" }
node { name: "untruncated" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 3 } } } } }
node { name: "untruncated/Initializer/random_normal/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } tensor_content: "\004\000\000\000\003\000\000\000" } } } }
node { name: "untruncated/Initializer/random_normal/mean" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
node { name: "untruncated/Initializer/random_normal/stddev" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.6076704 } } } }
node { name: "untruncated/Initializer/random_normal/RandomStandardNormal" op: "RandomStandardNormal" input: "untruncated/Initializer/random_normal/shape" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } attr { key: "seed" value { i: 0 } } attr { key: "seed2" value { i: 0 } } }
node { name: "untruncated/Initializer/random_normal/mul" op: "Mul" input: "untruncated/Initializer/random_normal/RandomStandardNormal" input: "untruncated/Initializer/random_normal/stddev" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "untruncated/Initializer/random_normal" op: "AddV2" input: "untruncated/Initializer/random_normal/mul" input: "untruncated/Initializer/random_normal/mean" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "untruncated/Assign" op: "Assign" input: "untruncated" input: "untruncated/Initializer/random_normal" }
node { name: "untruncated/read" op: "Identity" input: "untruncated" }
//--- numpy.pbtxt
node { name: "b" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } } }
node { name: "b/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 1 float_val: 2 float_val: 3 float_val: 4.5 } } } }
node { name: "b/Assign" op: "Assign" input: "b" input: "b/initial_value" }
node { name: "b/read" op: "Identity" input: "b" }
//--- ones.pbtxt
node { name: "small" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
node { name: "small/Initializer/ones" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 3 } } float_val: 1 } } } }
node { name: "small/Assign" op: "Assign" input: "small" input: "small/Initializer/ones" }
node { name: "small/read" op: "Identity" input: "small" }
node { name: "large" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 40 } dim { size: 30 } } } } }
node { name: "large/Initializer/ones/shape_as_tensor" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } tensor_content: "\050\000\000\000\036\000\000\000" } } } }
node { name: "large/Initializer/ones/Const" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "large/Initializer/ones" op: "Fill" input: "large/Initializer/ones/shape_as_tensor" input: "large/Initializer/ones/Const" attr { key: "T" value { type: DT_FLOAT } } attr { key: "index_type" value { type: DT_INT32 } } }
node { name: "large/Assign" op: "Assign" input: "large" input: "large/Initializer/ones" }
node { name: "large/read" op: "Identity" input: "large" }
//--- unrecognized.pbtxt
node { name: "q" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } } }
node { name: "q/Initializer/orthogonal/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } tensor_content: "\002\000\000\000\002\000\000\000" } } } }
node { name: "q/Initializer/orthogonal/RandomStandardNormal" op: "RandomStandardNormal" input: "q/Initializer/orthogonal/shape" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } attr { key: "seed" value { i: 0 } } attr { key: "seed2" value { i: 0 } } }
node { name: "q/Initializer/orthogonal/Qr" op: "Qr" input: "q/Initializer/orthogonal/RandomStandardNormal" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "q/Initializer/orthogonal" op: "Mul" input: "q/Initializer/orthogonal/Qr" input: "q/Initializer/orthogonal/Qr:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "q/Assign" op: "Assign" input: "q" input: "q/Initializer/orthogonal" }
node { name: "q/read" op: "Identity" input: "q" }
//--- sub-of-variable.pbtxt
node { name: "s" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "s/Initializer/random_uniform/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } tensor_content: "\002\000\000\000" } } } }
node { name: "s/Initializer/random_uniform/min" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: -1 } } } }
node { name: "s/Initializer/random_uniform/max" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "s/Initializer/random_uniform/RandomUniform" op: "RandomUniform" input: "s/Initializer/random_uniform/shape" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } attr { key: "seed" value { i: 0 } } attr { key: "seed2" value { i: 0 } } }
node { name: "s/Initializer/random_uniform/sub" op: "Sub" input: "s/read" input: "s/Initializer/random_uniform/min" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "s/Initializer/random_uniform/mul" op: "Mul" input: "s/Initializer/random_uniform/RandomUniform" input: "s/Initializer/random_uniform/sub" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "s/Initializer/random_uniform" op: "AddV2" input: "s/Initializer/random_uniform/mul" input: "s/Initializer/random_uniform/min" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "s/Assign" op: "Assign" input: "s" input: "s/Initializer/random_uniform" }
node { name: "s/read" op: "Identity" input: "s" }
//--- empty-range.pbtxt
node { name: "e" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "e/Initializer/random_uniform/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } tensor_content: "\002\000\000\000" } } } }
node { name: "e/Initializer/random_uniform/min" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.5 } } } }
node { name: "e/Initializer/random_uniform/max" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.5 } } } }
node { name: "e/Initializer/random_uniform/RandomUniform" op: "RandomUniform" input: "e/Initializer/random_uniform/shape" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } attr { key: "seed" value { i: 0 } } attr { key: "seed2" value { i: 4 } } }
node { name: "e/Initializer/random_uniform/sub" op: "Sub" input: "e/Initializer/random_uniform/max" input: "e/Initializer/random_uniform/min" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "e/Initializer/random_uniform/mul" op: "Mul" input: "e/Initializer/random_uniform/RandomUniform" input: "e/Initializer/random_uniform/sub" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "e/Initializer/random_uniform" op: "AddV2" input: "e/Initializer/random_uniform/mul" input: "e/Initializer/random_uniform/min" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "e/Assign" op: "Assign" input: "e" input: "e/Initializer/random_uniform" }
node { name: "e/read" op: "Identity" input: "e" }
//--- numpy-shape.pbtxt
node { name: "m" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "m/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 1 float_val: 2 float_val: 3 float_val: 4 } } } }
node { name: "m/Assign" op: "Assign" input: "m" input: "m/initial_value" }
node { name: "m/read" op: "Identity" input: "m" }
