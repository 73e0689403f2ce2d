// dtf-translate --export-saved-model: the inference graph of a model as the
// SavedModel dtf-run --export_saved_model writes, in text format. The
// variables are frozen into Consts of their values (constant initializers
// here; a checkpoint's in dtf-run).
// RUN: split-file %s %t

// A classifier with dropout behind the learning phase: the default output
// is the logits of its cross entropy; inference keeps the branch of a false
// learning phase, so the random mask, the labels and the loss are gone.
// RUN: dtf-translate --export-saved-model %t/mlp.mlir | FileCheck %s --check-prefix=MLP
// MLP:      saved_model_schema_version: 1
// MLP:      meta_info_def {
// MLP-NEXT:   tags: "serve"
// MLP:      name: "x"
// MLP-NEXT: op: "Placeholder"
// MLP:      size: -1
// MLP:      size: 3
// MLP:      name: "dense/kernel"
// MLP-NEXT: op: "Const"
// MLP:      tensor_content: "\000\000\200?\000\000\200\277\000\000\000?\000\000\000@\000\000\000\000\000\000\200?"
// MLP:      name: "dense/bias"
// MLP-NEXT: op: "Const"
// MLP:      tensor_content: "\000\000\000\000\000\000\000\000"
// MLP:      name: "MatMul"
// MLP-NEXT: op: "MatMul"
// MLP-NEXT: input: "x"
// MLP-NEXT: input: "dense/kernel"
// MLP:      name: "BiasAdd"
// MLP-NEXT: op: "BiasAdd"
// MLP-NEXT: input: "MatMul"
// MLP-NEXT: input: "dense/bias"
// MLP:      key: "data_format"
// MLP-NEXT: value {
// MLP-NEXT:   s: "NHWC"
// MLP:      name: "Relu"
// MLP-NEXT: op: "Relu"
// MLP-NEXT: input: "BiasAdd"
// MLP-NOT:  op:
// MLP:      versions {
// MLP-NEXT:   producer: 2474
// MLP:      signature_def {
// MLP-NEXT:   key: "serving_default"
// MLP:          inputs {
// MLP-NEXT:       key: "x"
// MLP-NEXT:       value {
// MLP-NEXT:         name: "x:0"
// MLP-NEXT:         dtype: DT_FLOAT
// MLP:          outputs {
// MLP-NEXT:       key: "logits"
// MLP-NEXT:       value {
// MLP-NEXT:         name: "Relu:0"
// MLP:          method_name: "tensorflow/serving/predict"

// The model's own results by position (result:K), which may need the
// labels: they become an input of the signature.
// RUN: dtf-translate --export-saved-model %t/mlp.mlir --outputs=result:1 | FileCheck %s --check-prefix=ACCURACY
// ACCURACY:     name: "y"
// ACCURACY-NEXT: op: "Placeholder"
// ACCURACY:     name: "ArgMax/dimension"
// ACCURACY:     name: "ArgMax"
// ACCURACY-NEXT: op: "ArgMax"
// ACCURACY-NEXT: input: "Relu"
// ACCURACY-NEXT: input: "ArgMax/dimension"
// ACCURACY:     name: "Equal"
// ACCURACY-NEXT: op: "Equal"
// ACCURACY-NEXT: input: "ArgMax"
// ACCURACY-NEXT: input: "y"
// ACCURACY:     name: "Cast"
// ACCURACY:     key: "DstT"
// ACCURACY-NEXT: value {
// ACCURACY-NEXT:   type: DT_FLOAT
// ACCURACY:     key: "SrcT"
// ACCURACY-NEXT: value {
// ACCURACY-NEXT:   type: DT_BOOL
// ACCURACY:     name: "Mean/reduction_indices"
// ACCURACY:     name: "Mean"
// ACCURACY-NEXT: op: "Mean"
// ACCURACY-NEXT: input: "Cast"
// ACCURACY-NEXT: input: "Mean/reduction_indices"
// ACCURACY:     inputs {
// ACCURACY-NEXT:  key: "x"
// ACCURACY:     inputs {
// ACCURACY-NEXT:  key: "y"
// ACCURACY:     outputs {
// ACCURACY-NEXT:  key: "result_1"
// ACCURACY-NEXT:  value {
// ACCURACY-NEXT:    name: "Mean:0"

// An imported graph's ops keep their TensorFlow node names, and an output
// may be named by one.
// RUN: dtf-translate --export-saved-model %t/named.mlir --outputs=dense/BiasAdd:0 | FileCheck %s --check-prefix=NAMED
// NAMED:      name: "dense/MatMul"
// NAMED:      name: "dense/BiasAdd"
// NAMED-NEXT: op: "BiasAdd"
// NAMED-NEXT: input: "dense/MatMul"
// NAMED:      key: "dense/BiasAdd"
// NAMED-NEXT: value {
// NAMED-NEXT:   name: "dense/BiasAdd:0"

// Convolution, pooling, shapes, reductions: each op with the attributes
// and Const inputs TensorFlow's op takes.
// RUN: dtf-translate --export-saved-model %t/ops.mlir --outputs=result:1,result:2 | FileCheck %s --check-prefix=OPS
// OPS:      name: "images"
// OPS:      name: "conv/filter"
// OPS:      tensor_content: "\000\000\000?\000\000\000?
// OPS:      name: "Conv2D"
// OPS-NEXT: op: "Conv2D"
// OPS-NEXT: input: "images"
// OPS-NEXT: input: "conv/filter"
// OPS:      key: "padding"
// OPS-NEXT: value {
// OPS-NEXT:   s: "SAME"
// OPS:      name: "MaxPool"
// OPS:      key: "ksize"
// OPS-NEXT: value {
// OPS-NEXT:   list {
// OPS-NEXT:     i: 1
// OPS-NEXT:     i: 2
// OPS-NEXT:     i: 2
// OPS-NEXT:     i: 1
// OPS:      s: "VALID"
// OPS:      name: "AvgPool"
// OPS:      name: "Sub"
// OPS:      name: "Reshape/shape"
// OPS:      tensor_content: "\002\000\000\000\000\000\000\000\010\000\000\000\000\000\000\000"
// OPS:      name: "Reshape"
// OPS-NEXT: op: "Reshape"
// OPS:      name: "Tanh"
// OPS:      name: "Sigmoid"
// OPS:      name: "Slice/begin"
// OPS:      name: "Slice/size"
// OPS:      tensor_content: "\002\000\000\000\000\000\000\000\377\377\377\377\377\377\377\377"
// OPS:      name: "Slice"
// OPS-NEXT: op: "Slice"
// OPS-NEXT: input: "Sigmoid"
// OPS-NEXT: input: "Slice/begin"
// OPS-NEXT: input: "Slice/size"
// OPS:      name: "ConcatV2/axis"
// OPS:      name: "ConcatV2"
// OPS-NEXT: op: "ConcatV2"
// OPS-NEXT: input: "Slice"
// OPS-NEXT: input: "Tanh"
// OPS-NEXT: input: "ConcatV2/axis"
// OPS:      key: "N"
// OPS-NEXT: value {
// OPS-NEXT:   i: 2
// OPS:      name: "RealDiv"
// OPS:      name: "ClipByValue/clip_value_min"
// OPS:      name: "ClipByValue/clip_value_max"
// OPS:      name: "ClipByValue"
// OPS-NEXT: op: "ClipByValue"
// OPS:      name: "Softmax"
// OPS:      name: "ArgMax"
// OPS-NOT:  name: "Sum"
// OPS:      key: "result_1"
// OPS-NEXT: value {
// OPS-NEXT:   name: "Softmax:0"
// OPS:      key: "result_2"
// OPS-NEXT: value {
// OPS-NEXT:   name: "ArgMax:0"
// OPS-NEXT:   dtype: DT_INT64

// A dynamic dimension of a shape TensorFlow takes as an input (tf.zeros of
// the batch, an RNN's initial state) is the batch size, read from the
// first placeholder of a dynamic batch.
// RUN: dtf-translate --export-saved-model %t/state.mlir --outputs=result:0 | FileCheck %s --check-prefix=STATE
// STATE:      name: "x"
// STATE:      name: "batch_size/Shape"
// STATE-NEXT: op: "Shape"
// STATE-NEXT: input: "x"
// STATE:      name: "batch_size"
// STATE-NEXT: op: "StridedSlice"
// STATE-NEXT: input: "batch_size/Shape"
// STATE-NEXT: input: "batch_size/begin"
// STATE-NEXT: input: "batch_size/end"
// STATE-NEXT: input: "batch_size/strides"
// STATE:      name: "BroadcastTo/dims"
// STATE:      tensor_content: "\002\000\000\000\000\000\000\000"
// STATE:      name: "BroadcastTo/shape"
// STATE-NEXT: op: "ConcatV2"
// STATE-NEXT: input: "batch_size"
// STATE-NEXT: input: "BroadcastTo/dims"
// STATE-NEXT: input: "BroadcastTo/axis"
// STATE:      name: "BroadcastTo"
// STATE-NEXT: op: "BroadcastTo"
// STATE-NEXT: input: "Const"
// STATE-NEXT: input: "BroadcastTo/shape"
// STATE:      name: "AddV2"
// STATE-NEXT: op: "AddV2"
// STATE-NEXT: input: "MatMul"
// STATE-NEXT: input: "BroadcastTo"

// Embedding tables, sharded or not, are Consts of the whole table. A lookup
// (and dtf.gather) gathers at max(id, 0), GatherV2 refusing -1, and selects
// a zero row for a padding id; a combine selects zeros for the padding
// slots, sums over them, and divides (mean, sqrtn) by a divisor that is 1
// for an example without ids. The ids keep their dtype in the signature.
// RUN: dtf-translate --export-saved-model %t/embedding.mlir --outputs=result:0,result:1,result:2,result:3 | FileCheck %s --check-prefix=EMBED
// EMBED:      name: "ids"
// EMBED-NEXT: op: "Placeholder"
// EMBED-NEXT: attr {
// EMBED-NEXT:   key: "dtype"
// EMBED-NEXT:   value {
// EMBED-NEXT:     type: DT_INT64
// EMBED:      name: "emb"
// EMBED-NEXT: op: "Const"
// EMBED:      name: "embedding_lookup/valid"
// EMBED-NEXT: op: "GreaterEqual"
// EMBED-NEXT: input: "ids"
// EMBED-NEXT: input: "embedding_lookup/zero_id"
// EMBED:      name: "embedding_lookup/safe_ids"
// EMBED-NEXT: op: "Maximum"
// EMBED-NEXT: input: "ids"
// EMBED-NEXT: input: "embedding_lookup/zero_id"
// EMBED:      name: "embedding_lookup/GatherV2"
// EMBED-NEXT: op: "GatherV2"
// EMBED-NEXT: input: "emb"
// EMBED-NEXT: input: "embedding_lookup/safe_ids"
// EMBED-NEXT: input: "embedding_lookup/axis"
// EMBED:        key: "Tindices"
// EMBED-NEXT:   value {
// EMBED-NEXT:     type: DT_INT64
// EMBED:      name: "embedding_lookup/valid_row"
// EMBED-NEXT: op: "ExpandDims"
// EMBED-NEXT: input: "embedding_lookup/valid"
// EMBED:      name: "embedding_lookup"
// EMBED-NEXT: op: "SelectV2"
// EMBED-NEXT: input: "embedding_lookup/valid_row"
// EMBED-NEXT: input: "embedding_lookup/GatherV2"
// EMBED-NEXT: input: "embedding_lookup/zero"
// The sum: the rows of the ids, zeros at the padding slots, summed.
// EMBED:      name: "embedding_combine/masked"
// EMBED-NEXT: op: "SelectV2"
// EMBED-NEXT: input: "embedding_combine/valid_row"
// EMBED-NEXT: input: "embedding_lookup"
// EMBED-NEXT: input: "embedding_combine/zero"
// EMBED:      name: "embedding_combine"
// EMBED-NEXT: op: "Sum"
// EMBED-NEXT: input: "embedding_combine/masked"
// EMBED-NEXT: input: "embedding_combine/reduction_indices"
// The weighted mean: a padding slot's weight is 0.
// EMBED:      name: "embedding_combine_1/weights"
// EMBED-NEXT: op: "SelectV2"
// EMBED-NEXT: input: "embedding_combine_1/valid"
// EMBED-NEXT: input: "w"
// EMBED-NEXT: input: "embedding_combine_1/zero"
// EMBED:      name: "embedding_combine_1/weighted"
// EMBED-NEXT: op: "Mul"
// EMBED-NEXT: input: "embedding_lookup"
// EMBED-NEXT: input: "embedding_combine_1/weight_row"
// EMBED:      name: "embedding_combine_1/total"
// EMBED-NEXT: op: "Sum"
// EMBED-NEXT: input: "embedding_combine_1/masked"
// EMBED:      name: "embedding_combine_1/sum_weights"
// EMBED-NEXT: op: "Sum"
// EMBED-NEXT: input: "embedding_combine_1/weights"
// EMBED:      name: "embedding_combine_1/any"
// EMBED-NEXT: op: "Any"
// EMBED-NEXT: input: "embedding_combine_1/valid"
// EMBED:      name: "embedding_combine_1/divisor"
// EMBED-NEXT: op: "SelectV2"
// EMBED-NEXT: input: "embedding_combine_1/any"
// EMBED-NEXT: input: "embedding_combine_1/sum_weights"
// EMBED-NEXT: input: "embedding_combine_1/one"
// EMBED:      name: "embedding_combine_1"
// EMBED-NEXT: op: "RealDiv"
// EMBED-NEXT: input: "embedding_combine_1/total"
// EMBED-NEXT: input: "embedding_combine_1/divisor"
// sqrtn without weights: each id weighs 1.
// EMBED:      name: "embedding_combine_2/weights"
// EMBED-NEXT: op: "Cast"
// EMBED-NEXT: input: "embedding_combine_2/valid"
// EMBED:      name: "embedding_combine_2/squares"
// EMBED-NEXT: op: "Mul"
// EMBED:      name: "embedding_combine_2/sqrt"
// EMBED-NEXT: op: "Sqrt"
// EMBED-NEXT: input: "embedding_combine_2/sum_squares"
// EMBED:      name: "embedding_combine_2"
// EMBED-NEXT: op: "RealDiv"
// EMBED-NEXT: input: "embedding_combine_2/total"
// EMBED-NEXT: input: "embedding_combine_2/divisor"
// EMBED:      name: "Gather/GatherV2"
// EMBED-NEXT: op: "GatherV2"
// EMBED-NEXT: input: "Const"
// EMBED-NEXT: input: "Gather/safe_ids"
// EMBED:      name: "Gather"
// EMBED-NEXT: op: "SelectV2"
// EMBED-NEXT: input: "Gather/valid_row"
// EMBED-NEXT: input: "Gather/GatherV2"
// EMBED-NEXT: input: "Gather/zero"
// EMBED:      key: "ids"
// EMBED-NEXT: value {
// EMBED-NEXT:   name: "ids:0"
// EMBED-NEXT:   dtype: DT_INT64

// A served dynamic table (translate/graphdef/DynamicTableServing.h): a
// fixed table of its rows sorted by id and the default row, looked up at
// dtf.rows_of_ids of the ids. LowerBound finds each id's position among
// the sorted keys (a [1, N] row) in the ids flattened to one row; the key
// at that position (clamped to the last) tells a held id from an absent
// one, which reads row N, and a negative id stays -1.
// RUN: dtf-translate --export-saved-model %t/served.mlir --outputs=result:0,result:1 | FileCheck %s --check-prefix=SERVED
// SERVED:      name: "wide/ids"
// SERVED-NEXT: op: "Const"
// SERVED:      tensor_content: "\003\000\000\000\000\000\000\000\021\000\000\000\000\000\000\000(\000\000\000\000\000\000\000"
// SERVED:      name: "rows_of_ids/padding"
// SERVED-NEXT: op: "Less"
// SERVED-NEXT: input: "ids"
// SERVED-NEXT: input: "rows_of_ids/zero_id"
// SERVED:      name: "rows_of_ids/sorted_keys"
// SERVED-NEXT: op: "Reshape"
// SERVED-NEXT: input: "wide/ids"
// SERVED-NEXT: input: "rows_of_ids/sorted_keys/shape"
// SERVED:      name: "rows_of_ids/flat_ids"
// SERVED-NEXT: op: "Reshape"
// SERVED-NEXT: input: "ids"
// SERVED-NEXT: input: "rows_of_ids/flat_ids/shape"
// SERVED:      name: "rows_of_ids/LowerBound"
// SERVED-NEXT: op: "LowerBound"
// SERVED-NEXT: input: "rows_of_ids/sorted_keys"
// SERVED-NEXT: input: "rows_of_ids/flat_ids"
// SERVED:        key: "out_type"
// SERVED-NEXT:   value {
// SERVED-NEXT:     type: DT_INT64
// SERVED:      name: "rows_of_ids/ids_shape"
// SERVED-NEXT: op: "Shape"
// SERVED-NEXT: input: "ids"
// SERVED:      name: "rows_of_ids/positions"
// SERVED-NEXT: op: "Reshape"
// SERVED-NEXT: input: "rows_of_ids/LowerBound"
// SERVED-NEXT: input: "rows_of_ids/ids_shape"
// SERVED:      name: "rows_of_ids/clamped_positions"
// SERVED-NEXT: op: "Minimum"
// SERVED-NEXT: input: "rows_of_ids/positions"
// SERVED-NEXT: input: "rows_of_ids/last_position"
// SERVED:      name: "rows_of_ids/key_at"
// SERVED-NEXT: op: "GatherV2"
// SERVED-NEXT: input: "wide/ids"
// SERVED-NEXT: input: "rows_of_ids/clamped_positions"
// SERVED:      name: "rows_of_ids/held"
// SERVED-NEXT: op: "Equal"
// SERVED-NEXT: input: "rows_of_ids/key_at"
// SERVED-NEXT: input: "ids"
// SERVED:      name: "rows_of_ids/default_row"
// SERVED-NEXT: op: "Const"
// SERVED:      tensor_content: "\003\000\000\000\000\000\000\000"
// SERVED:      name: "rows_of_ids/found"
// SERVED-NEXT: op: "SelectV2"
// SERVED-NEXT: input: "rows_of_ids/held"
// SERVED-NEXT: input: "rows_of_ids/positions"
// SERVED-NEXT: input: "rows_of_ids/default_row"
// SERVED:      name: "rows_of_ids"
// SERVED-NEXT: op: "SelectV2"
// SERVED-NEXT: input: "rows_of_ids/padding"
// SERVED-NEXT: input: "rows_of_ids/padding_row"
// SERVED-NEXT: input: "rows_of_ids/found"
// SERVED:      name: "wide"
// SERVED-NEXT: op: "Const"
// SERVED:      name: "embedding_lookup/GatherV2"
// SERVED-NEXT: op: "GatherV2"
// SERVED-NEXT: input: "wide"
// SERVED-NEXT: input: "embedding_lookup/safe_ids"
// The combine's padding slots are the ids' own.
// SERVED:      name: "embedding_combine/valid"
// SERVED-NEXT: op: "GreaterEqual"
// SERVED-NEXT: input: "ids"
// A table that created no row: no search, every id but padding reads row 0.
// SERVED:      name: "rows_of_ids_1/padding"
// SERVED-NEXT: op: "Less"
// SERVED-NOT:  op: "LowerBound"
// SERVED:      name: "rows_of_ids_1/default_row"
// SERVED-NEXT: op: "Const"
// SERVED:      tensor_content: "\000\000\000\000\000\000\000\000"
// SERVED:      name: "rows_of_ids_1"
// SERVED-NEXT: op: "SelectV2"
// SERVED-NEXT: input: "rows_of_ids_1/padding"
// SERVED-NEXT: input: "rows_of_ids_1/padding_row"
// SERVED-NEXT: input: "rows_of_ids_1/default_row"
// SERVED:      name: "embedding_lookup_1/GatherV2"
// SERVED-NEXT: op: "GatherV2"
// SERVED-NEXT: input: "empty"
//--- served.mlir
module {
  func.func @main() -> (tensor<?x1xf32>, tensor<?x1xf32>) {
    %t = dtf.variable "wide" init(#dtf.dense_init<dense<[[0.5], [-1.0], [2.0], [0.0]]> : tensor<4x1xf32>>) : !dtf.resource<tensor<4x1xf32>>
    %keys = dtf.constant dense<[3, 17, 40]> : tensor<3xi64> loc("wide/ids")
    %e = dtf.variable "empty" init(#dtf.dense_init<dense<0.25> : tensor<1x1xf32>>) : !dtf.resource<tensor<1x1xf32>>
    %none = dtf.constant dense<> : tensor<0xi64> loc("empty/ids")
    %ids = dtf.placeholder "ids" : tensor<?x2xi64>
    %r = dtf.rows_of_ids %ids, %keys : tensor<?x2xi64>, tensor<3xi64> -> tensor<?x2xi64>
    %rows = dtf.embedding_lookup %t[%r] : !dtf.resource<tensor<4x1xf32>>, tensor<?x2xi64>
    %sum = dtf.embedding_combine sum %rows, %ids : tensor<?x2x1xf32>, tensor<?x2xi64>
    %d = dtf.rows_of_ids %ids, %none : tensor<?x2xi64>, tensor<0xi64> -> tensor<?x2xi64>
    %drows = dtf.embedding_lookup %e[%d] : !dtf.resource<tensor<1x1xf32>>, tensor<?x2xi64>
    %dsum = dtf.embedding_combine sum %drows, %ids : tensor<?x2x1xf32>, tensor<?x2xi64>
    return %sum, %dsum : tensor<?x1xf32>, tensor<?x1xf32>
  }
}

//--- embedding.mlir
module {
  func.func @main() -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2x3xf32>) {
    %t = dtf.variable "emb" init(#dtf.constant<0.5>) {dtf.partitioner = #dtf.partitioner<shards = 2, strategy = mod>} : !dtf.resource<tensor<4x3xf32>>
    %ids = dtf.placeholder "ids" : tensor<2x2xi64>
    %w = dtf.placeholder "w" : tensor<2x2xf32>
    %rows = dtf.embedding_lookup %t[%ids] : !dtf.resource<tensor<4x3xf32>>, tensor<2x2xi64>
    %sum = dtf.embedding_combine sum %rows, %ids : tensor<2x2x3xf32>, tensor<2x2xi64>
    %mean = dtf.embedding_combine mean %rows, %ids weights %w : tensor<2x2x3xf32>, tensor<2x2xi64>, tensor<2x2xf32>
    %sqrtn = dtf.embedding_combine sqrtn %rows, %ids : tensor<2x2x3xf32>, tensor<2x2xi64>
    %c = dtf.constant dense<1.0> : tensor<4x3xf32>
    %g = dtf.gather %c[%ids] : tensor<4x3xf32>, tensor<2x2xi64>
    return %sum, %mean, %sqrtn, %g : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2x3xf32>
  }
}

//--- state.mlir
module {
  func.func @main() -> tensor<?x2xf32> {
    %w = dtf.variable "w" init(#dtf.constant<1.0>) : !dtf.resource<tensor<3x2xf32>>
    %x = dtf.placeholder "x" : tensor<?x3xf32>
    %wv = dtf.read %w : !dtf.resource<tensor<3x2xf32>>
    %mm = dtf.matmul %x, %wv : tensor<?x3xf32>, tensor<3x2xf32>
    %zero = dtf.constant dense<0.5> : tensor<f32>
    %state = dtf.broadcast_to %zero : tensor<f32> -> tensor<?x2xf32>
    %sum = dtf.add %mm, %state : tensor<?x2xf32>, tensor<?x2xf32>
    return %sum : tensor<?x2xf32>
  }
}

//--- mlp.mlir
module {
  func.func @main() -> (tensor<f32>, tensor<f32>) {
    %w = dtf.variable "dense/kernel" init(#dtf.dense_init<dense<[[1.0, -1.0], [0.5, 2.0], [0.0, 1.0]]> : tensor<3x2xf32>>) : !dtf.resource<tensor<3x2xf32>>
    %b = dtf.variable "dense/bias" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    %x = dtf.placeholder "x" : tensor<?x3xf32>
    %y = dtf.placeholder "y" : tensor<?xi64>
    %phase = dtf.learning_phase : tensor<i1>
    %wv = dtf.read %w : !dtf.resource<tensor<3x2xf32>>
    %bv = dtf.read %b : !dtf.resource<tensor<2xf32>>
    %mm = dtf.matmul %x, %wv : tensor<?x3xf32>, tensor<3x2xf32>
    %h = dtf.bias_add %mm, %bv : tensor<?x2xf32>, tensor<2xf32>
    %r = dtf.relu %h : tensor<?x2xf32>
    %mask = dtf.random_uniform seed 1 : tensor<?x2xf32>
    %dropped = dtf.mul %r, %mask : tensor<?x2xf32>, tensor<?x2xf32>
    %logits = dtf.select %phase, %dropped, %r : tensor<i1>, tensor<?x2xf32>, tensor<?x2xf32>
    %loss = dtf.sparse_softmax_cross_entropy_with_logits %logits, %y : tensor<?x2xf32>, tensor<?xi64>
    %l = dtf.reduce_mean %loss : tensor<?xf32>
    %p = dtf.argmax %logits, 1 : tensor<?x2xf32>
    %c = dtf.equal %p, %y : tensor<?xi64>, tensor<?xi64>
    %cf = dtf.cast %c : tensor<?xi1> to tensor<?xf32>
    %acc = dtf.reduce_mean %cf {axes = array<i64: 0>} : tensor<?xf32>
    dtf.minimize %l : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
    return %l, %acc : tensor<f32>, tensor<f32>
  }
}

//--- named.mlir
module {
  func.func @main() -> tensor<?x2xf32> {
    %w = dtf.variable "dense/kernel" init(#dtf.zeros) : !dtf.resource<tensor<3x2xf32>> loc("dense/kernel")
    %b = dtf.variable "dense/bias" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>> loc("dense/bias")
    %x = dtf.placeholder "x" : tensor<?x3xf32> loc("x")
    %wv = dtf.read %w : !dtf.resource<tensor<3x2xf32>> loc("dense/MatMul/ReadVariableOp")
    %bv = dtf.read %b : !dtf.resource<tensor<2xf32>> loc("dense/BiasAdd/ReadVariableOp")
    %mm = dtf.matmul %x, %wv : tensor<?x3xf32>, tensor<3x2xf32> loc("dense/MatMul")
    %h = dtf.bias_add %mm, %bv : tensor<?x2xf32>, tensor<2xf32> loc("dense/BiasAdd")
    %r = dtf.relu %h : tensor<?x2xf32> loc("dense/Relu")
    return %r : tensor<?x2xf32>
  }
}

//--- ops.mlir
module {
  func.func @main() -> (tensor<f32>, tensor<2x5xf32>, tensor<2xi64>) {
    %f = dtf.variable "conv/filter" init(#dtf.constant<0.5>) : !dtf.resource<tensor<3x3x1x2xf32>>
    %x = dtf.placeholder "images" : tensor<2x4x4x1xf32>
    %fv = dtf.read %f : !dtf.resource<tensor<3x3x1x2xf32>>
    %c = dtf.conv2d %x, %fv strides [1, 1, 1, 1] padding SAME : tensor<2x4x4x1xf32>, tensor<3x3x1x2xf32>
    %m = dtf.max_pool %c ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding VALID : tensor<2x4x4x2xf32>
    %a = dtf.avg_pool %c ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<2x4x4x2xf32>
    %s = dtf.sub %m, %a : tensor<2x2x2x2xf32>, tensor<2x2x2x2xf32>
    %r = dtf.reshape %s : tensor<2x2x2x2xf32> -> tensor<2x8xf32>
    %t = dtf.tanh %r : tensor<2x8xf32>
    %g = dtf.sigmoid %t : tensor<2x8xf32>
    %h = dtf.slice %g offsets [0, 1] sizes [2, -1] : tensor<2x8xf32>
    %k = dtf.concat %h, %t axis 1 : tensor<2x7xf32>, tensor<2x8xf32>
    %q = dtf.slice %k offsets [0, 0] sizes [2, 5] : tensor<2x15xf32>
    %d = dtf.div %q, %q : tensor<2x5xf32>, tensor<2x5xf32>
    %cl = dtf.clip_by_value %d, 0.0, 6.0 : tensor<2x5xf32>
    %sm = dtf.softmax %cl : tensor<2x5xf32>
    %am = dtf.argmax %sm, 1 : tensor<2x5xf32>
    %ci = dtf.cast %am : tensor<2xi64> to tensor<2xf32>
    %sum = dtf.reduce_sum %ci {axes = array<i64: 0>, keep_dims = true} : tensor<2xf32>
    %mx = dtf.reduce_max %sum : tensor<1xf32>
    return %mx, %sm, %am : tensor<f32>, tensor<2x5xf32>, tensor<2xi64>
  }
}
