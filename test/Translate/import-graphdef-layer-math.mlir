// The layer math of TF1 models (Inputs/make_layer_math_graphs.py): each op
// with its constant inputs (perm; depth, on and off values; multiples,
// also computed from static shapes) as the dtf op's attributes; a dynamic
// batch is given its size by --dtf-specialize-batch, which infers every
// result type again. A non-constant attribute input is refused, naming the
// node.
// RUN: dtf-translate --import-graphdef %S/Inputs/layer_math.pbtxt --outputs=transposed,log_probabilities,one_hot,tiled,tiled_by_shape,scores,projected,matrices,batch_v1,product | FileCheck %s
// RUN: dtf-translate --import-graphdef %S/Inputs/layer_math.pbtxt --outputs=transposed,log_probabilities,one_hot,tiled,tiled_by_shape,scores,projected,matrices,batch_v1,product | dtf-opt --dtf-specialize-batch=batch-size=8 | FileCheck %s --check-prefix=BATCH
// RUN: not dtf-translate --import-graphdef %S/Inputs/layer_math.pbtxt --outputs=tiled_by_batch 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: split-file %s %t
// RUN: not dtf-translate --import-graphdef %t/perm.pbtxt --outputs=transposed 2>&1 | FileCheck %s --check-prefix=PERM
// RUN: not dtf-translate --import-graphdef %t/one_hot_axis.pbtxt --outputs=one_hot 2>&1 | FileCheck %s --check-prefix=AXIS

// CHECK: %[[X:.*]] = dtf.placeholder "x" : tensor<?x3x4xf32>
// CHECK: %[[T:.*]] = dtf.transpose %[[X]] permutation [0, 2, 1] : tensor<?x3x4xf32>
// CHECK: %[[LOGITS:.*]] = dtf.placeholder "logits" : tensor<?x10xf32>
// CHECK: %[[LOGP:.*]] = dtf.log_softmax %[[LOGITS]] : tensor<?x10xf32>
// CHECK: %[[IDS:.*]] = dtf.placeholder "ids" : tensor<?xi64>
// CHECK: %[[HOT:.*]] = dtf.one_hot %[[IDS]] depth 10 on 9.000000e-01 off 1.000000e-02 : tensor<?xi64> to f32
// CHECK: %[[TILED:.*]] = dtf.tile %[[X]] multiples [1, 2, 3] : tensor<?x3x4xf32>
// CHECK: %[[BIAS:.*]] = dtf.placeholder "bias" : tensor<1x4xf32>
// CHECK: %[[BY_SHAPE:.*]] = dtf.tile %[[BIAS]] multiples [4, 1] : tensor<1x4xf32>
// CHECK: %[[KEYS:.*]] = dtf.placeholder "keys" : tensor<?x5x4xf32>
// CHECK: %[[SCORES:.*]] = dtf.batch_matmul %[[X]], %[[KEYS]] {adj_y = true} : tensor<?x3x4xf32>, tensor<?x5x4xf32>
// CHECK: %[[W:.*]] = dtf.placeholder "w" : tensor<4x2xf32>
// CHECK: %[[ONE:.*]] = dtf.reshape %[[W]] : tensor<4x2xf32> -> tensor<1x4x2xf32>
// CHECK: %[[PROJECTED:.*]] = dtf.batch_matmul %[[X]], %[[ONE]] : tensor<?x3x4xf32>, tensor<1x4x2xf32>
// CHECK: %[[MATRICES:.*]] = dtf.matmul %[[BIAS]], %[[W]] : tensor<1x4xf32>, tensor<4x2xf32>
// CHECK: %[[V1:.*]] = dtf.batch_matmul %[[KEYS]], %[[X]] {adj_y = true} : tensor<?x5x4xf32>, tensor<?x3x4xf32>
// CHECK: %[[PRODUCT:.*]] = dtf.reduce_prod %[[X]] {axes = array<i64: 1, 2>, keep_dims = true} : tensor<?x3x4xf32>
// CHECK: return %[[T]], %[[LOGP]], %[[HOT]], %[[TILED]], %[[BY_SHAPE]], %[[SCORES]], %[[PROJECTED]], %[[MATRICES]], %[[V1]], %[[PRODUCT]] : tensor<?x4x3xf32>, tensor<?x10xf32>, tensor<?x10xf32>, tensor<?x6x12xf32>, tensor<4x4xf32>, tensor<?x3x5xf32>, tensor<?x3x2xf32>, tensor<1x2xf32>, tensor<?x5x3xf32>, tensor<?x1x1xf32>

// BATCH: dtf.transpose %{{.*}} permutation [0, 2, 1] : tensor<8x3x4xf32>
// BATCH: dtf.log_softmax %{{.*}} : tensor<8x10xf32>
// BATCH: dtf.one_hot %{{.*}} depth 10 on 9.000000e-01 off 1.000000e-02 : tensor<8xi64> to f32
// BATCH: dtf.tile %{{.*}} multiples [1, 2, 3] : tensor<8x3x4xf32>
// BATCH: dtf.batch_matmul %{{.*}}, %{{.*}} {adj_y = true} : tensor<8x3x4xf32>, tensor<8x5x4xf32>
// BATCH: dtf.batch_matmul %{{.*}}, %{{.*}} : tensor<8x3x4xf32>, tensor<1x4x2xf32>
// BATCH: dtf.reduce_prod %{{.*}} {axes = array<i64: 1, 2>, keep_dims = true} : tensor<8x3x4xf32>
// BATCH: return {{.*}} : tensor<8x4x3xf32>, tensor<8x10xf32>, tensor<8x10xf32>, tensor<8x6x12xf32>, tensor<4x4xf32>, tensor<8x3x5xf32>, tensor<8x3x2xf32>, tensor<1x2xf32>, tensor<8x5x3xf32>, tensor<8x1x1xf32>

// PERM: perm.pbtxt:3:1: error: node 'transposed' (Transpose): input 1 must be a Const {{.*}}, got 'perm' (Placeholder)
// TILE: error: node 'tiled_by_batch' (Tile): has multiples computed from a dimension of unknown size; DTF's tile takes constant ones
// AXIS: one_hot_axis.pbtxt:5:1: error: node 'one_hot' (OneHot): encodes along axis 0; DTF's one_hot encodes along the last

//--- perm.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } dim { size: 4 } } } } }
node { name: "perm" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "transposed" op: "Transpose" input: "x" input: "perm" }
//--- one_hot_axis.pbtxt
node { name: "ids" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "depth" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 4 } } } }
node { name: "on" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "off" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
node { name: "one_hot" op: "OneHot" input: "ids" input: "depth" input: "on" input: "off" attr { key: "T" value { type: DT_FLOAT } } attr { key: "axis" value { i: 0 } } }
