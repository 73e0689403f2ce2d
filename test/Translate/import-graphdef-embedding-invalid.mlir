// The embedding patterns dtf-translate refuses, each one error line naming
// the node: a SparseTensor input without --max-ids-per-example (and the
// flag's own errors), a shard of a
// partitioned table read other than by a lookup of the whole table, a
// DynamicPartition by neither strategy, shards that are not
// fixed_size_partitioner's split, a Gather on another axis, a
// SparseSegmentSum segmented by other than the SparseTensor's examples, a
// SegmentSum that is no weighted lookup's, FtrlOptimizer with beta.
// RUN: split-file %s %t
// RUN: not dtf-translate --import-graphdef %S/Inputs/embedding_sparse.pbtxt 2> %t/err
// RUN: FileCheck %s --check-prefix=LENGTH < %t/err && count 1 < %t/err
// LENGTH: error: node 'ids/values' (Placeholder): is the values of a SparseTensor input, which DTF feeds padded to [batch, L]: give L with --max-ids-per-example (L for every input, or ids=L for this one)

// An L for one input does not stand for the others; an L for an input the
// graph lacks (a typo) is refused rather than ignored; L must be a number.
// RUN: not dtf-translate --import-graphdef %S/Inputs/wide_deep.pbtxt --max-ids-per-example=c0=5 2> %t/err
// RUN: FileCheck %s --check-prefix=OTHER < %t/err && count 1 < %t/err
// OTHER: error: node 'c1/values' (Placeholder): is the values of a SparseTensor input, which DTF feeds padded to [batch, L]: give L with --max-ids-per-example (L for every input, or c1=L for this one)
// RUN: not dtf-translate --import-graphdef %S/Inputs/wide_deep.pbtxt --max-ids-per-example=5,c9=3 --auc=probabilities,label 2> %t/err
// RUN: FileCheck %s --check-prefix=UNKNOWN < %t/err && count 1 < %t/err
// UNKNOWN: wide_deep.pbtxt: error: --max-ids-per-example names 'c9', which is no SparseTensor input of the graph
// RUN: not dtf-translate --import-graphdef %S/Inputs/wide_deep.pbtxt --max-ids-per-example=c1=x 2> %t/err
// RUN: FileCheck %s --check-prefix=NUMBER < %t/err && count 1 < %t/err
// NUMBER: dtf-translate: --max-ids-per-example: 'c1=x' is not L or NAME=L with L >= 1

// RUN: not dtf-translate --import-graphdef %t/shard-read.pbtxt --outputs=s 2> %t/err
// RUN: FileCheck %s --check-prefix=SHARD < %t/err && count 1 < %t/err
// SHARD: shard-read.pbtxt:1:1: error: node 't/part_0' (VariableV2): is shard 0 of the partitioned table 't', which DTF imports only as looked up by tf.nn.embedding_lookup or embedding_lookup_sparse

// RUN: not dtf-translate --import-graphdef %t/stitch-by-other.pbtxt --outputs=stitch 2> %t/err
// RUN: FileCheck %s --check-prefix=STRATEGY < %t/err && count 1 < %t/err
// STRATEGY: stitch-by-other.pbtxt:15:1: error: node 'D' (DynamicPartition): partitions the ids by 'p' (Placeholder), neither the mod (FloorMod) nor the div (Maximum of FloorDivs) strategy of tf.nn.embedding_lookup

// RUN: not dtf-translate --import-graphdef %t/uneven-shards.pbtxt --outputs=stitch 2> %t/err
// RUN: FileCheck %s --check-prefix=UNEVEN < %t/err && count 1 < %t/err
// UNEVEN: uneven-shards.pbtxt:1:1: error: node 't/part_0' (VariableV2): holds 1 of the 4 rows of 't', where fixed_size_partitioner(2) gives shard 0 2

// RUN: not dtf-translate --import-graphdef %t/gather-axis.pbtxt --outputs=g 2> %t/err
// RUN: FileCheck %s --check-prefix=AXIS < %t/err && count 1 < %t/err
// AXIS: gather-axis.pbtxt:7:1: error: node 'g' (GatherV2): gathers on another axis than 0 or with batch_dims; DTF gathers rows

// RUN: not dtf-translate --import-graphdef %t/sparse-segments.pbtxt --outputs=s --max-ids-per-example=2 2> %t/err
// RUN: FileCheck %s --check-prefix=SEGMENTS < %t/err && count 1 < %t/err
// SEGMENTS: sparse-segments.pbtxt:8:1: error: node 's' (SparseSegmentSum): segments its rows by 'seg', not by the examples of 'sp' (the first column of sp/indices)

// RUN: not dtf-translate --import-graphdef %t/segment-sum.pbtxt --outputs=s 2> %t/err
// RUN: FileCheck %s --check-prefix=SEGMENTSUM < %t/err && count 1 < %t/err
// SEGMENTSUM: segment-sum.pbtxt:3:1: error: node 's' (SegmentSum): sums 'x', not the product of rows and weights of a weighted embedding_lookup_sparse

// RUN: not dtf-translate --import-graphdef %t/ftrl-beta.pbtxt 2> %t/err
// RUN: FileCheck %s --check-prefix=BETA < %t/err && count 1 < %t/err
// BETA: ftrl-beta.pbtxt:19:1: error: node 'Ftrl/update_w/ApplyFtrl' (ApplyFtrl): FtrlOptimizer's beta (1.000000e+00) is not one of DTF's FTRL parameters

//--- shard-read.pbtxt
node { name: "t/part_0" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } } }
node { name: "t/part_0/zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 0 } } } }
node { name: "t/part_0/Assign" op: "Assign" input: "t/part_0" input: "t/part_0/zeros" }
node { name: "t/part_0/read" op: "Identity" input: "t/part_0" }
node { name: "t/part_1" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } } }
node { name: "t/part_1/zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 0 } } } }
node { name: "t/part_1/Assign" op: "Assign" input: "t/part_1" input: "t/part_1/zeros" }
node { name: "t/part_1/read" op: "Identity" input: "t/part_1" }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {  } int_val: 0 } } } }
node { name: "s" op: "Sum" input: "t/part_0/read" input: "axes" }
//--- stitch-by-other.pbtxt
node { name: "t/part_0" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } } }
node { name: "t/part_0/zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 0 } } } }
node { name: "t/part_0/Assign" op: "Assign" input: "t/part_0" input: "t/part_0/zeros" }
node { name: "t/part_0/read" op: "Identity" input: "t/part_0" }
node { name: "t/part_1" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } } }
node { name: "t/part_1/zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 0 } } } }
node { name: "t/part_1/Assign" op: "Assign" input: "t/part_1" input: "t/part_1/zeros" }
node { name: "t/part_1/read" op: "Identity" input: "t/part_1" }
node { name: "ids" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "two" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {  } int64_val: 2 } } } }
node { name: "mod" op: "FloorMod" input: "ids" input: "two" }
node { name: "div" op: "FloorDiv" input: "ids" input: "two" }
node { name: "cast" op: "Cast" input: "mod" attr { key: "DstT" value { type: DT_INT32 } } }
node { name: "D" op: "DynamicPartition" input: "div" input: "p" attr { key: "num_partitions" value { i: 2 } } }
node { name: "D1" op: "DynamicPartition" input: "ids" input: "p" attr { key: "num_partitions" value { i: 2 } } }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {  } int_val: 0 } } } }
node { name: "g0" op: "GatherV2" input: "t/part_0/read" input: "D" input: "axis" }
node { name: "g1" op: "GatherV2" input: "t/part_1/read" input: "D:1" input: "axis" }
node { name: "stitch" op: "ParallelDynamicStitch" input: "D1" input: "D1:1" input: "g0" input: "g1" attr { key: "N" value { i: 2 } } }
//--- uneven-shards.pbtxt
node { name: "t/part_0" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 1 } dim { size: 2 } } } } }
node { name: "t/part_0/zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 2 } } float_val: 0 } } } }
node { name: "t/part_0/Assign" op: "Assign" input: "t/part_0" input: "t/part_0/zeros" }
node { name: "t/part_0/read" op: "Identity" input: "t/part_0" }
node { name: "t/part_1" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } dim { size: 2 } } } } }
node { name: "t/part_1/zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } dim { size: 2 } } float_val: 0 } } } }
node { name: "t/part_1/Assign" op: "Assign" input: "t/part_1" input: "t/part_1/zeros" }
node { name: "t/part_1/read" op: "Identity" input: "t/part_1" }
node { name: "ids" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "two" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape {  } int64_val: 2 } } } }
node { name: "mod" op: "FloorMod" input: "ids" input: "two" }
node { name: "div" op: "FloorDiv" input: "ids" input: "two" }
node { name: "cast" op: "Cast" input: "mod" attr { key: "DstT" value { type: DT_INT32 } } }
node { name: "D" op: "DynamicPartition" input: "div" input: "cast" attr { key: "num_partitions" value { i: 2 } } }
node { name: "D1" op: "DynamicPartition" input: "ids" input: "cast" attr { key: "num_partitions" value { i: 2 } } }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {  } int_val: 0 } } } }
node { name: "g0" op: "GatherV2" input: "t/part_0/read" input: "D" input: "axis" }
node { name: "g1" op: "GatherV2" input: "t/part_1/read" input: "D:1" input: "axis" }
node { name: "stitch" op: "ParallelDynamicStitch" input: "D1" input: "D1:1" input: "g0" input: "g1" attr { key: "N" value { i: 2 } } }
//--- gather-axis.pbtxt
node { name: "t" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 2 } } } } }
node { name: "t/zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 2 } } float_val: 0 } } } }
node { name: "t/Assign" op: "Assign" input: "t" input: "t/zeros" }
node { name: "t/read" op: "Identity" input: "t" }
node { name: "ids" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {  } int_val: 1 } } } }
node { name: "g" op: "GatherV2" input: "t/read" input: "ids" input: "axis" }
//--- sparse-segments.pbtxt
node { name: "t" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 5 } dim { size: 2 } } } } }
node { name: "t/zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 5 } dim { size: 2 } } float_val: 0 } } } }
node { name: "t/Assign" op: "Assign" input: "t" input: "t/zeros" }
node { name: "t/read" op: "Identity" input: "t" }
node { name: "sp/values" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "shape" value { shape { dim { size: -1 } } } } }
node { name: "sp/indices" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
node { name: "seg" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "shape" value { shape { dim { size: -1 } } } } }
node { name: "s" op: "SparseSegmentSum" input: "t/read" input: "sp/values" input: "seg" }
//--- segment-sum.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 2 } } } } }
node { name: "seg" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "s" op: "SegmentSum" input: "x" input: "seg" }
//--- ftrl-beta.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/zeros" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/zeros" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "mul" op: "Mul" input: "w/read" input: "x" }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {  } int_val: 0 } } } }
node { name: "loss" op: "Sum" input: "mul" input: "axes" }
node { name: "gradients/grad_ys_0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/loss_grad/Tile" op: "Tile" input: "gradients/grad_ys_0" }
node { name: "Ftrl/learning_rate" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {  } float_val: 0.1 } } } }
node { name: "Ftrl/l1" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {  } float_val: 0.0 } } } }
node { name: "Ftrl/l2" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {  } float_val: 0.0 } } } }
node { name: "Ftrl/beta" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {  } float_val: 1.0 } } } }
node { name: "Ftrl/denominator" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {  } float_val: 0.2 } } } }
node { name: "Ftrl/power" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {  } float_val: -0.5 } } } }
node { name: "Ftrl/truediv" op: "RealDiv" input: "Ftrl/beta" input: "Ftrl/denominator" }
node { name: "Ftrl/add" op: "AddV2" input: "Ftrl/l2" input: "Ftrl/truediv" }
node { name: "Ftrl/update_w/ApplyFtrl" op: "ApplyFtrl" input: "w" input: "w/Ftrl" input: "w/Ftrl_1" input: "gradients/loss_grad/Tile" input: "Ftrl/learning_rate" input: "Ftrl/l1" input: "Ftrl/add" input: "Ftrl/power" }
