//===- DTFOps.td - dtf dialect operations ------------------*- tablegen -*-===//
//
// Ops follow TensorFlow's semantics (NHWC convolutions, NumPy broadcasting,
// SAME/VALID padding); result types are inferred wherever TensorFlow's shape
// functions determine them, and a shape mismatch names both shapes.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_IR_DTFOPS_TD
#define DTF_IR_DTFOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "dialects/dtf/IR/DTFDialect.td"
include "dialects/dtf/IR/DTFTypes.td"
include "dialects/dtf/IR/DTFAttrs.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def DTF_FloatTensor : RankedTensorOf<[AnyFloat]>;
def DTF_NumericTensor : RankedTensorOf<[AnyFloat, AnySignlessInteger]>;
// What the CPU kernels order: floats and 32- or 64-bit integers, not i1.
def DTF_OrderedTensor : RankedTensorOf<[AnyFloat, I32, I64]>;
def DTF_Tensor : RankedTensorOf<[AnyType]>;
def DTF_ScalarFloatTensor : 0DTensorOf<[AnyFloat]>;
def DTF_Matrix : TensorRankOf<[AnyFloat], [2]>;
def DTF_Image : TensorRankOf<[AnyFloat], [4]>;

def DTF_Window : ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<4>]>;

// The resource operand of an op that reads or writes a variable.
class DTF_ResourceArg<list<MemoryEffect> effects>
    : Arg<DTF_ResourceType, "variable", effects>;

//===----------------------------------------------------------------------===//
// Graph inputs and state
//===----------------------------------------------------------------------===//

def DTF_PlaceholderOp : DTF_Op<"placeholder", [Pure]> {
  let summary = "a tensor fed into the graph by name at each step";
  let description = [{
    TensorFlow's `tf.placeholder`: the executor feeds a tensor of exactly this
    type under `name` (a batch of images, a batch of labels).

    ```mlir
    %x = dtf.placeholder "x" : tensor<100x784xf32>
    ```

    Dimension 0 may be dynamic (`tensor<?x784xf32>`, TensorFlow's `shape=[None,
    784]`): the batch size is then chosen when the model is compiled
    (`--dtf-specialize-batch`, dtf-run's `--batch_size`).
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs DTF_Tensor:$output);
  let assemblyFormat = "$name attr-dict `:` type($output)";
}

def DTF_LearningPhaseOp : DTF_Op<"learning_phase", [Pure]> {
  let summary = "whether this step trains: true in a training step, false "
                "when the model is evaluated";
  let description = [{
    Keras's learning phase, and the `training` flag of a TF1 script
    (`tf.compat.v1.placeholder_with_default(False, [])` fed True by the
    training loop), which switches dropout on and batch normalization to
    the batch's moments. The executor gives each run its value
    (runtime/ABI.md, "The learning phase"); a model with it is the same
    function for training and for validation.

    ```mlir
    %training = dtf.learning_phase : tensor<i1>
    ```
  }];
  let results = (outs 0DTensorOf<[I1]>:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
}

def DTF_RandomGenerator : Resource<"::dtf::ir::RandomGeneratorResource">;

def DTF_RandomUniformOp : DTF_Op<"random_uniform",
    [MemoryEffects<[MemRead<DTF_RandomGenerator>,
                    MemWrite<DTF_RandomGenerator>]>]> {
  let summary = "new uniform samples in [0, 1) at every run";
  let description = [{
    TensorFlow's stateful RandomUniform, which `tf.nn.dropout` draws its
    mask from: every run of the function draws new samples. They follow
    `seed` and the run (the executor's `RunOptions::randomStream`:
    a worker's task index and its count of training steps), so a run is
    reproducible, and two workers draw different masks where TensorFlow's
    worker processes, seeded alike, would repeat each other's. The values
    are DTF's counter-based generator's, not TensorFlow's Philox samples:
    equal in distribution, not bit-equal. A dimension left dynamic is the
    batch, which `--dtf-specialize-batch` fixes; the kernel needs a static
    shape.

    ```mlir
    %u = dtf.random_uniform seed 7 : tensor<32x256xf32>
    ```
  }];
  let arguments = (ins I64Attr:$seed);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat = "`seed` $seed attr-dict `:` type($output)";
}

def DTF_ConstantOp : DTF_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "output"]>]> {
  let summary = "a constant tensor";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs DTF_Tensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def DTF_VariableOp : DTF_Op<"variable"> {
  let summary = "a named, mutable tensor that persists across steps";
  let description = [{
    TensorFlow's `tf.Variable`. The result is a handle; `dtf.read`,
    `dtf.assign` and `dtf.assign_add` use it. `trainable` variables are the
    ones `dtf.minimize` differentiates with respect to. Names are unique
    within a block.

    ```mlir
    %w = dtf.variable "hid_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 1>)
        : !dtf.resource<tensor<784x100xf32>>
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false}
        : !dtf.resource<tensor<i64>>
    ```

    `colocate_with` names another variable of the block that this one must
    live beside, as TensorFlow's colocation constraint `loc:@name`: the
    optimizer's slots (`hid_w/Adam`) are colocated with their variable so
    that the fused update reads both on one PS task. Placement puts the
    variable on its target's device (following chains), and sharding splits
    it with its target.

    ```mlir
    %m = dtf.variable "hid_w/Adam" init(#dtf.zeros) colocate_with("hid_w")
        {trainable = false} : !dtf.resource<tensor<784x100xf32>>
    ```

    A trainable variable may name the optimizer that updates it with
    `dtf.optimizer`, overriding its `dtf.minimize`'s: TensorFlow's
    DNNLinearCombinedClassifier trains the linear part's weights with FTRL
    and the DNN's with Adagrad in one train op.

    ```mlir
    %w = dtf.variable "c0/weights" init(#dtf.zeros)
        {dtf.optimizer = #dtf.ftrl<learning_rate = 0.2>}
        : !dtf.resource<tensor<1000x1xf32>>
    ```

    A table of type `tensor<?xDxT>` with `dtf.dynamic_table` grows a row
    for each id training meets (`#dtf.dynamic_table`); only it and the
    slots colocated with it have a dynamic first dimension.
  }];
  let arguments = (ins StrAttr:$name, DTF_InitializerAttr:$initializer,
                       DefaultValuedAttr<BoolAttr, "true">:$trainable,
                       OptionalAttr<StrAttr>:$colocate_with);
  let results = (outs Res<DTF_ResourceType, "", [MemAlloc]>:$handle);
  let assemblyFormat = [{
    $name `init` `(` $initializer `)`
    (`colocate_with` `(` $colocate_with^ `)`)? attr-dict `:`
    qualified(type($handle))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The type of the tensor the variable holds.
    ::mlir::RankedTensorType getValueType() {
      return getHandle().getType().getValueType();
    }
    /// The variable named by `colocate_with` in the same block, or null.
    VariableOp getColocationTarget();
    /// The variable's #dtf.dynamic_table, or null for a fixed variable.
    DynamicTableAttr getDynamicTable() {
      return (*this)->getAttrOfType<DynamicTableAttr>(
          DTFDialect::getDynamicTableAttrName());
    }
    bool isDynamicTable() { return static_cast<bool>(getDynamicTable()); }
  }];
}

def DTF_ReadOp : DTF_Op<"read", [InferTypeOpAdaptor]> {
  let summary = "the current value of a variable";
  let arguments = (ins DTF_ResourceArg<[MemRead]>:$resource);
  let results = (outs DTF_Tensor:$value);
  let assemblyFormat = "$resource attr-dict `:` qualified(type($resource))";
}

class DTF_UpdateOp<string mnemonic, string doc>
    : DTF_Op<mnemonic, [TypesMatchWith<
        "value has the variable's type", "resource", "value",
        "::llvm::cast<::dtf::ir::ResourceType>($_self).getValueType()">]> {
  let summary = doc;
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$resource,
                       DTF_Tensor:$value);
  let assemblyFormat =
      "$resource `,` $value attr-dict `:` qualified(type($resource))";
}

def DTF_AssignOp : DTF_UpdateOp<"assign", "replaces the value of a variable">;
def DTF_AssignAddOp
    : DTF_UpdateOp<"assign_add", "adds a tensor to the value of a variable">;

//===----------------------------------------------------------------------===//
// Linear algebra and elementwise math
//===----------------------------------------------------------------------===//

def DTF_MatMulOp : DTF_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "matrix product of two 2-D tensors";
  let description = [{
    `op(a) x op(b)` where `op` transposes when `transpose_a`/`transpose_b`
    is set; the inner dimensions must agree.

    ```mlir
    %y = dtf.matmul %x, %w : tensor<100x784xf32>, tensor<784x100xf32>
    ```
  }];
  let arguments = (ins DTF_Matrix:$a, DTF_Matrix:$b,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_a,
                       DefaultValuedAttr<BoolAttr, "false">:$transpose_b);
  let results = (outs DTF_Matrix:$output);
  let assemblyFormat = "$a `,` $b attr-dict `:` type($a) `,` type($b)";
}

class DTF_BroadcastBinaryOp<string mnemonic, string doc,
                            list<Trait> traits = [],
                            Type tensor = DTF_NumericTensor>
    : DTF_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor], traits)> {
  let summary = doc;
  let description = [{
    Elementwise with NumPy broadcasting: shapes are aligned at the trailing
    dimension and each pair of dimensions must be equal or one of them 1.
  }];
  let arguments = (ins tensor:$lhs, tensor:$rhs);
  let results = (outs tensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

def DTF_AddOp : DTF_BroadcastBinaryOp<"add", "elementwise sum", [Commutative]>;
def DTF_SubOp : DTF_BroadcastBinaryOp<"sub", "elementwise difference">;
def DTF_MulOp
    : DTF_BroadcastBinaryOp<"mul", "elementwise product", [Commutative]>;
def DTF_DivOp : DTF_BroadcastBinaryOp<"div", "elementwise quotient">;
def DTF_DivNoNanOp
    : DTF_BroadcastBinaryOp<"div_no_nan",
                            "elementwise quotient, 0 where the divisor is 0",
                            [], DTF_FloatTensor>;
// TensorFlow's Minimum and Maximum: NaN in either operand gives NaN.
def DTF_MinimumOp : DTF_BroadcastBinaryOp<"minimum", "elementwise minimum",
                                          [Commutative]>;
def DTF_MaximumOp : DTF_BroadcastBinaryOp<"maximum", "elementwise maximum",
                                          [Commutative]>;
def DTF_PowOp : DTF_BroadcastBinaryOp<"pow", "elementwise lhs to the power rhs",
                                      [], DTF_FloatTensor>;

class DTF_CompareOp<string mnemonic, string doc, list<Trait> traits = [],
                    Type tensor = DTF_OrderedTensor>
    : DTF_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptor], traits)> {
  let summary = doc # ", with broadcasting, as i1";
  let arguments = (ins tensor:$lhs, tensor:$rhs);
  let results = (outs RankedTensorOf<[I1]>:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)";
}

def DTF_EqualOp
    : DTF_CompareOp<"equal", "elementwise equality", [Commutative], DTF_Tensor>;
def DTF_NotEqualOp : DTF_CompareOp<"not_equal", "elementwise inequality",
                                   [Commutative], DTF_Tensor>;
// Ordered comparisons: false where either operand is NaN, as in TensorFlow.
def DTF_GreaterOp : DTF_CompareOp<"greater", "elementwise lhs > rhs">;
def DTF_GreaterEqualOp
    : DTF_CompareOp<"greater_equal", "elementwise lhs >= rhs">;
def DTF_LessOp : DTF_CompareOp<"less", "elementwise lhs < rhs">;
def DTF_LessEqualOp : DTF_CompareOp<"less_equal", "elementwise lhs <= rhs">;

def DTF_LogicalAndOp
    : DTF_BroadcastBinaryOp<"logical_and", "elementwise conjunction",
                            [Commutative], RankedTensorOf<[I1]>>;
def DTF_LogicalOrOp
    : DTF_BroadcastBinaryOp<"logical_or", "elementwise disjunction",
                            [Commutative], RankedTensorOf<[I1]>>;

def DTF_SelectOp : DTF_Op<"select", [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise choice between two tensors by a condition";
  let description = [{
    TensorFlow's `SelectV2` (`tf.where(condition, x, y)`): the condition and
    both values broadcast together (NumPy rules), and each element of the
    result is `on_true`'s where the condition holds, `on_false`'s elsewhere.

    ```mlir
    %y = dtf.select %mask, %x, %zeros
        : tensor<100x10xi1>, tensor<100x10xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$condition, DTF_Tensor:$on_true,
                       DTF_Tensor:$on_false);
  let results = (outs DTF_Tensor:$output);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:` type($condition) `,`
    type($on_true) `,` type($on_false)
  }];
}

def DTF_BiasAddOp : DTF_Op<"bias_add", [Pure, InferTypeOpAdaptor]> {
  let summary = "adds a 1-D bias along the last dimension";
  let arguments = (ins DTF_FloatTensor:$input,
                       TensorRankOf<[AnyFloat], [1]>:$bias);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat =
      "$input `,` $bias attr-dict `:` type($input) `,` type($bias)";
}

class DTF_UnaryOp<string mnemonic, string doc, Type tensor = DTF_FloatTensor>
    : DTF_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = doc;
  let arguments = (ins tensor:$input);
  let results = (outs tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def DTF_NegOp : DTF_UnaryOp<"neg", "elementwise negation", DTF_NumericTensor>;
def DTF_ReluOp : DTF_UnaryOp<"relu", "elementwise max(x, 0)">;
def DTF_LogOp : DTF_UnaryOp<"log", "elementwise natural logarithm">;
def DTF_ExpOp : DTF_UnaryOp<"exp", "elementwise e to the power x">;
def DTF_TanhOp : DTF_UnaryOp<"tanh", "elementwise hyperbolic tangent">;
def DTF_SqrtOp : DTF_UnaryOp<"sqrt", "elementwise square root">;
def DTF_RsqrtOp : DTF_UnaryOp<"rsqrt", "elementwise 1 / sqrt(x)">;
def DTF_FloorOp
    : DTF_UnaryOp<"floor", "elementwise largest integer not above x">;
def DTF_AbsOp
    : DTF_UnaryOp<"abs", "elementwise absolute value", DTF_NumericTensor>;
def DTF_SignOp : DTF_UnaryOp<"sign", "elementwise -1, 0 or 1 by the sign of x "
                                     "(NaN for NaN)", DTF_NumericTensor>;
def DTF_LogicalNotOp : DTF_UnaryOp<"logical_not", "elementwise negation of "
                                   "i1", RankedTensorOf<[I1]>>;
def DTF_StopGradientOp : DTF_UnaryOp<"stop_gradient", "the input, through "
                                     "which no gradient flows", DTF_Tensor> {
  let description = [{
    TensorFlow's `tf.stop_gradient`: the value is the input's, and
    `--dtf-autodiff` treats the result as a constant (batch normalization's
    moments, the shift of a stable log-sum-exp).
  }];
}
def DTF_SoftmaxOp : DTF_UnaryOp<"softmax", "softmax along the last dimension"> {
  let hasVerifier = 1;
}

def DTF_ClipByValueOp : DTF_Op<"clip_by_value",
    [Pure, SameOperandsAndResultType]> {
  let summary = "clamps each element to [min, max]";
  let arguments = (ins DTF_FloatTensor:$input, F64Attr:$min, F64Attr:$max);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat =
      "$input `,` $min `,` $max attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def DTF_SoftmaxCrossEntropyWithLogitsOp
    : DTF_Op<"softmax_cross_entropy_with_logits",
             [Pure, InferTypeOpAdaptor]> {
  let summary = "per-example cross-entropy of softmax(logits) and labels";
  let description = [{
    TensorFlow's `tf.nn.softmax_cross_entropy_with_logits`: for logits and
    label distributions of shape [N, C], returns
    `-sum(labels * log_softmax(logits), 1)` of shape [N], computed stably.
  }];
  let arguments = (ins DTF_Matrix:$logits, DTF_Matrix:$labels);
  let results = (outs TensorRankOf<[AnyFloat], [1]>:$loss);
  let assemblyFormat =
      "$logits `,` $labels attr-dict `:` type($logits) `,` type($labels)";
}

def DTF_SparseSoftmaxCrossEntropyWithLogitsOp
    : DTF_Op<"sparse_softmax_cross_entropy_with_logits",
             [Pure, InferTypeOpAdaptor]> {
  let summary = "per-example cross-entropy of softmax(logits) and class ids";
  let description = [{
    TensorFlow's `tf.nn.sparse_softmax_cross_entropy_with_logits`: for
    logits of shape [N, C] and integer class ids of shape [N] in [0, C),
    returns `-log_softmax(logits)[i, labels[i]]` of shape [N], computed
    stably. A class id outside [0, C) is a run-time error, as in TensorFlow.
  }];
  let arguments = (ins DTF_Matrix:$logits,
                       TensorRankOf<[I32, I64], [1]>:$labels);
  let results = (outs TensorRankOf<[AnyFloat], [1]>:$loss);
  let assemblyFormat =
      "$logits `,` $labels attr-dict `:` type($logits) `,` type($labels)";
}

//===----------------------------------------------------------------------===//
// Embeddings and sparse features
//
// A categorical feature is a batch of integer ids; an embedding table is a
// variable of [rows, width...] looked up by them. Ragged (multi-hot)
// features come padded to a static [batch, L] with the id -1 in empty slots
// (runtime/ABI.md, "Ragged features"): a looked-up padding slot is a zero
// row and gets no gradient. The gradient of a table with respect to a
// lookup is sparse (TensorFlow's IndexedSlices): the ids and one row per
// id, never a dense table-sized tensor.
//===----------------------------------------------------------------------===//

def DTF_EmbeddingLookupOp : DTF_Op<"embedding_lookup", [InferTypeOpAdaptor]> {
  let summary = "rows of a variable at integer ids (tf.nn.embedding_lookup)";
  let description = [{
    TensorFlow's ResourceGather on axis 0: the result has the shape of `ids`
    followed by the table's dimensions after the first. An id of -1 (a
    padding slot of a ragged feature) gives a zero row; any other id outside
    [0, rows) is a run-time error naming the table and the id.

    The gradient of `table` is sparse: `--dtf-autodiff` pairs the flattened
    ids with the rows of the result's gradient, and the optimizer updates
    those rows only. After replication a worker reads the rows it needs with
    `dtf.pull_rows`.

    ```mlir
    %rows = dtf.embedding_lookup %table[%ids]
        : !dtf.resource<tensor<1000x16xf32>>, tensor<100x5xi64>
    ```
  }];
  let arguments = (ins DTF_ResourceArg<[MemRead]>:$table,
                       RankedTensorOf<[I32, I64]>:$ids,
                       OptionalAttr<DTF_RowShardAttr>:$shard);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat = [{
    $table `[` $ids `]` attr-dict `:` qualified(type($table)) `,` type($ids)
  }];
  let hasVerifier = 1;
}

def DTF_EmbeddingCombineOp : DTF_Op<"embedding_combine",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "one row per example from the looked-up rows of a ragged "
                "feature";
  let description = [{
    The reduction of `tf.nn.embedding_lookup_sparse`: for the rows
    `[B, L, D]` looked up at the padded ids `[B, L]`, with optional per-id
    `weights` `[B, L]` (1 when absent), returns `[B, D]` where example `b`
    is `sum_l w[b,l] * rows[b,l]` (`sum`), divided by `sum_l w[b,l]`
    (`mean`) or by `sqrt(sum_l w[b,l]^2)` (`sqrtn`); slots whose id is -1
    are left out, and an example with no ids gets a zero row.
    `embedding_lookup_sparse(table, ids, weights, combiner)` is
    `embedding_combine` of `embedding_lookup %table[%ids]`.

    ```mlir
    %emb = dtf.embedding_combine mean %rows, %ids
        : tensor<100x5x16xf32>, tensor<100x5xi64>
    ```
  }];
  let arguments = (ins DTF_CombinerAttr:$combiner, DTF_FloatTensor:$rows,
                       TensorRankOf<[I32, I64], [2]>:$ids,
                       Optional<TensorRankOf<[AnyFloat], [2]>>:$weights);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat = [{
    custom<Combiner>($combiner) $rows `,` $ids (`weights` $weights^)? attr-dict
    `:` type($rows) `,` type($ids) (`,` type($weights)^)?
  }];
}

def DTF_EmbeddingCombineGradOp : DTF_Op<"embedding_combine_grad", [Pure]> {
  let summary = "gradient of embedding_combine with respect to its rows";
  let description = [{
    `[B, L, D]`: slot `(b, l)` gets `dy[b] * w[b,l]` scaled as the combiner
    scaled example `b`; padding slots get zero rows.
  }];
  let arguments = (ins DTF_CombinerAttr:$combiner, DTF_FloatTensor:$dy,
                       TensorRankOf<[I32, I64], [2]>:$ids,
                       Optional<TensorRankOf<[AnyFloat], [2]>>:$weights);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat = [{
    custom<Combiner>($combiner) $dy `,` $ids (`weights` $weights^)? attr-dict
    `:` type($dy) `,` type($ids) (`,` type($weights)^)? `->` type($output)
  }];
  let hasVerifier = 1;
}

def DTF_GatherOp : DTF_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "slices of a tensor at integer ids along axis 0 (tf.gather)";
  let description = [{
    As `dtf.embedding_lookup`, on a value rather than a variable: the
    result has the shape of `ids` followed by the dimensions of `params`
    after the first; -1 gives zeros.
  }];
  let arguments = (ins DTF_FloatTensor:$params,
                       RankedTensorOf<[I32, I64]>:$ids);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat =
      "$params `[` $ids `]` attr-dict `:` type($params) `,` type($ids)";
}

def DTF_UnsortedSegmentSumOp : DTF_Op<"unsorted_segment_sum",
    [Pure, InferTypeOpAdaptor]> {
  let summary = "sums of rows by segment id (tf.math.unsorted_segment_sum)";
  let description = [{
    Row `i` of `data` (`[N, D...]`) is added to row `segment_ids[i]` of the
    `[num_segments, D...]` result; negative ids are dropped, as in
    TensorFlow, and an id at or past `num_segments` is a run-time error.
  }];
  let arguments = (ins DTF_FloatTensor:$data,
                       TensorRankOf<[I32, I64], [1]>:$segment_ids,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_segments);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat = [{
    $data `,` $segment_ids `num_segments` $num_segments attr-dict `:`
    type($data) `,` type($segment_ids)
  }];
}

def DTF_DivideByIdCountOp : DTF_Op<"divide_by_id_count",
    [Pure, AllTypesMatch<["rows", "output"]>]> {
  let summary = "each row divided by the number of times its id occurs";
  let description = [{
    Row `i` of `rows` (`[N, D...]`) divided by the number of entries of
    `ids` (`[N]`) equal to `ids[i]`. Sync replication concatenates the
    sparse gradients of the aggregated replicas (each push's ids distinct):
    the sparse update's sum of the rows of equal ids is then, per id, the
    mean over the replicas whose batches held it, as TensorFlow's
    `SparseConditionalAccumulator` averages element-wise.

    ```mlir
    %mean = dtf.divide_by_id_count %rows, %ids : tensor<?x8xf32>, tensor<?xi64>
    ```
  }];
  let arguments = (ins DTF_FloatTensor:$rows,
                       TensorRankOf<[I32, I64], [1]>:$ids);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat = [{
    $rows `,` $ids attr-dict `:` type($rows) `,` type($ids)
  }];
  let hasVerifier = 1;
}

def DTF_RowsOfIdsOp : DTF_Op<"rows_of_ids", [Pure]> {
  let summary = "the row of each id in the sorted ids of a table's rows";
  let description = [{
    Elementwise over `ids` of any shape: the position of each id in `keys`
    (1-D, sorted ascending, distinct), `N` (the size of `keys`) for an id
    `keys` does not hold, and -1 for the padding id -1. A negative id other
    than -1 is a run-time error naming the id and its position, as a
    dynamic table's PS task refuses it.

    This is how a trained dynamic table (`#dtf.dynamic_table`) is served:
    `dtf-run --export_saved_model` and `--predict` (runtime/train/Inference.h)
    make the table a fixed variable of its `N` rows sorted by id followed by
    one default row (what training reads for an id the table never
    created: its initializer's value, or its mean for a random one), and
    look it up at `rows_of_ids` of the ids against a constant of the sorted
    ids (`translate/graphdef/DynamicTableServing.h`).

    ```mlir
    %keys = dtf.constant dense<[3, 17, 40]> : tensor<3xi64>
    %rows = dtf.rows_of_ids %ids, %keys : tensor<100x5xi64>, tensor<3xi64>
        -> tensor<100x5xi64>
    ```

    When `keys` is a `dtf.constant`, the verifier checks that it is sorted
    and distinct.
  }];
  let arguments = (ins RankedTensorOf<[I64]>:$ids,
                       TensorRankOf<[I64], [1]>:$keys);
  let results = (outs RankedTensorOf<[I64]>:$rows);
  let assemblyFormat = [{
    $ids `,` $keys attr-dict `:` type($ids) `,` type($keys) `->` type($rows)
  }];
  let hasVerifier = 1;
}

def DTF_SigmoidOp : DTF_UnaryOp<"sigmoid", "elementwise 1 / (1 + exp(-x))">;

def DTF_SigmoidCrossEntropyWithLogitsOp
    : DTF_Op<"sigmoid_cross_entropy_with_logits",
             [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise logistic loss of logits against 0/1 labels";
  let description = [{
    TensorFlow's `tf.nn.sigmoid_cross_entropy_with_logits`, computed stably
    as `max(x, 0) - x * z + log(1 + exp(-|x|))`.
  }];
  let arguments = (ins DTF_FloatTensor:$logits, DTF_FloatTensor:$labels);
  let results = (outs DTF_FloatTensor:$loss);
  let assemblyFormat = "$logits `,` $labels attr-dict `:` type($logits)";
}

//===----------------------------------------------------------------------===//
// Reductions and shape manipulation
//===----------------------------------------------------------------------===//

class DTF_ReduceOp<string mnemonic, string doc>
    : DTF_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let summary = doc;
  let description = [{
    Reduces over `axes` (all dimensions when empty; negative axes count from
    the end), keeping them as size 1 when `keep_dims` is set.
  }];
  let arguments = (ins DTF_NumericTensor:$input,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$axes,
                       DefaultValuedAttr<BoolAttr, "false">:$keep_dims);
  let results = (outs DTF_NumericTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def DTF_ReduceSumOp : DTF_ReduceOp<"reduce_sum", "sum over dimensions">;
def DTF_ReduceMeanOp : DTF_ReduceOp<"reduce_mean", "mean over dimensions">;
// NaN propagates: a reduced slice holding a NaN gives NaN, as TensorFlow's.
def DTF_ReduceMaxOp : DTF_ReduceOp<"reduce_max", "maximum over dimensions">;
def DTF_ReduceMinOp : DTF_ReduceOp<"reduce_min", "minimum over dimensions">;

def DTF_ReshapeOp : DTF_Op<"reshape", [Pure]> {
  let summary = "the same elements under another static shape";
  let arguments = (ins DTF_Tensor:$input);
  let results = (outs DTF_Tensor:$output);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def DTF_ConcatOp : DTF_Op<"concat", [Pure, InferTypeOpAdaptor]> {
  let summary = "joins tensors along one axis";
  let description = [{
    TensorFlow's `tf.concat`: every input has the same rank and element type
    and the same sizes except along `axis` (negative counts from the end),
    where the result has the sum. Placement uses it to rebuild the value of a
    sharded variable from the reads of its shards.

    ```mlir
    %w = dtf.concat %w0, %w1 axis 0 : tensor<392x100xf32>, tensor<392x100xf32>
    ```
  }];
  let arguments = (ins Variadic<DTF_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs DTF_Tensor:$output);
  let assemblyFormat = "$inputs `axis` $axis attr-dict `:` type($inputs)";
  let hasFolder = 1;
}

def DTF_SliceOp : DTF_Op<"slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "a static box of a tensor";
  let description = [{
    TensorFlow's `tf.slice` with constant `offsets` (TensorFlow's `begin`)
    and `sizes`: one entry per dimension; a size of -1 extends to the end of
    the dimension. Placement uses it to cut the update of a sharded variable
    into its shards' parts.

    ```mlir
    %g0 = dtf.slice %g offsets [0, 0] sizes [392, -1] : tensor<784x100xf32>
    ```
  }];
  let arguments = (ins DTF_Tensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes);
  let results = (outs DTF_Tensor:$output);
  let assemblyFormat =
      "$input `offsets` $offsets `sizes` $sizes attr-dict `:` type($input)";
  let hasFolder = 1;
}

def DTF_ArgMaxOp : DTF_Op<"argmax", [Pure, InferTypeOpAdaptor]> {
  let summary = "index of the largest element along an axis, as i64";
  let arguments = (ins DTF_NumericTensor:$input, I64Attr:$axis);
  let results = (outs RankedTensorOf<[I64]>:$output);
  let assemblyFormat = "$input `,` $axis attr-dict `:` type($input)";
}

def DTF_CastOp : DTF_Op<"cast", [Pure]> {
  let summary = "converts each element to another element type";
  let arguments = (ins DTF_Tensor:$input);
  let results = (outs DTF_Tensor:$output);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `to` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling (NHWC)
//===----------------------------------------------------------------------===//

def DTF_Conv2DOp : DTF_Op<"conv2d", [Pure, InferTypeOpAdaptor]> {
  let summary = "2-D convolution of NHWC input with an HWIO filter";
  let description = [{
    TensorFlow's `tf.nn.conv2d`: `strides` is `[1, stride_h, stride_w, 1]`;
    with SAME padding the output is `ceil(in / stride)`, with VALID
    `ceil((in - k + 1) / stride)`.

    The optional `dilations` `[1, dilation_h, dilation_w, 1]` spaces the
    filter's taps `dilation` cells apart (tf.nn.atrous_conv2d), so that a
    filter of size `k` spans `(k - 1) * dilation + 1` cells, the `k` of the
    sizes above; absent, every dilation is 1. As tf.nn.convolution and
    Keras require, a convolution is either strided or dilated, not both.

    ```mlir
    %y = dtf.conv2d %x, %f strides [1, 1, 1, 1] padding SAME
        : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
    %z = dtf.conv2d %x, %f strides [1, 1, 1, 1] dilations [1, 2, 2, 1]
        padding VALID : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
    ```
  }];
  let arguments = (ins DTF_Image:$input, DTF_Image:$filter,
                       DTF_Window:$strides, DTF_PaddingAttr:$padding,
                       OptionalAttr<DTF_Window>:$dilations);
  let results = (outs DTF_Image:$output);
  let assemblyFormat = [{
    $input `,` $filter `strides` $strides (`dilations` $dilations^)?
    `padding` custom<Padding>($padding) attr-dict
    `:` type($input) `,` type($filter)
  }];
}

def DTF_MaxPoolOp : DTF_Op<"max_pool", [Pure, InferTypeOpAdaptor]> {
  let summary = "max pooling over NHWC windows";
  let arguments = (ins DTF_Image:$input, DTF_Window:$ksize,
                       DTF_Window:$strides, DTF_PaddingAttr:$padding);
  let results = (outs DTF_Image:$output);
  let assemblyFormat = [{
    $input `ksize` $ksize `strides` $strides `padding` custom<Padding>($padding) attr-dict
    `:` type($input)
  }];
}

def DTF_AvgPoolOp : DTF_Op<"avg_pool", [Pure, InferTypeOpAdaptor]> {
  let summary = "average pooling over NHWC windows";
  let description = [{
    TensorFlow's AvgPool: each output is the mean of its window's cells
    inside the input; with SAME padding the cells of the padding are not
    counted, so an edge window averages fewer cells.
  }];
  let arguments = (ins DTF_Image:$input, DTF_Window:$ksize,
                       DTF_Window:$strides, DTF_PaddingAttr:$padding);
  let results = (outs DTF_Image:$output);
  let assemblyFormat = [{
    $input `ksize` $ksize `strides` $strides `padding` custom<Padding>($padding) attr-dict
    `:` type($input)
  }];
}

//===----------------------------------------------------------------------===//
// Layer math of TF1 models: permutations, log-softmax, one-hot, tiling,
// batched products, products over dimensions
//
// Each attribute TensorFlow takes as a Const input (perm, multiples, depth)
// is an attribute here, so that every result type is known at compile time.
//===----------------------------------------------------------------------===//

def DTF_TransposeOp : DTF_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "permutes the dimensions of a tensor";
  let description = [{
    TensorFlow's `tf.transpose` with a constant `perm`: dimension `i` of the
    result is dimension `permutation[i]` of the input, which names every
    input dimension once.

    ```mlir
    %y = dtf.transpose %x permutation [1, 0] : tensor<3x4xf32>
    ```
  }];
  let arguments = (ins DTF_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs DTF_Tensor:$output);
  let assemblyFormat =
      "$input `permutation` $permutation attr-dict `:` type($input)";
}

def DTF_LogSoftmaxOp : DTF_Op<"log_softmax", [Pure, InferTypeOpAdaptor]> {
  let summary = "log of softmax along the last dimension";
  let description = [{
    TensorFlow's `tf.nn.log_softmax` (LogSoftmax) over the last dimension,
    computed stably as `x - max - log(sum(exp(x - max)))`.
  }];
  let arguments = (ins DTF_FloatTensor:$input);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def DTF_OneHotOp : DTF_Op<"one_hot", [Pure, InferTypeOpAdaptor]> {
  let summary = "one-hot encoding of integer ids along a new last dimension";
  let description = [{
    TensorFlow's `tf.one_hot` with `axis = -1`: the result has the shape of
    `indices` with `depth` appended, and holds `on_value` where the last
    index equals the id and `off_value` elsewhere; an id outside
    `[0, depth)` (a negative one too) gives a row of `off_value`, as in
    TensorFlow. The result, of floats of `element_type`, has no gradient
    with respect to the ids.

    ```mlir
    %labels = dtf.one_hot %ids depth 10 on 1.0 off 0.0
        : tensor<100xi64> to f32
    ```
  }];
  let arguments = (ins RankedTensorOf<[I32, I64]>:$indices, I64Attr:$depth,
                       F64Attr:$on_value, F64Attr:$off_value,
                       TypeAttrOf<AnyFloat>:$element_type);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat = [{
    $indices `depth` $depth `on` $on_value `off` $off_value attr-dict `:`
    type($indices) `to` $element_type
  }];
}

def DTF_TileOp : DTF_Op<"tile", [Pure, InferTypeOpAdaptor]> {
  let summary = "repeats a tensor along each dimension";
  let description = [{
    TensorFlow's `tf.tile` with constant `multiples`, one per dimension
    (each >= 0): dimension `i` of the result is `multiples[i]` copies of
    the input's dimension `i`.

    ```mlir
    %y = dtf.tile %x multiples [1, 3] : tensor<8x4xf32>
    ```
  }];
  let arguments = (ins DTF_Tensor:$input, DenseI64ArrayAttr:$multiples);
  let results = (outs DTF_Tensor:$output);
  let assemblyFormat =
      "$input `multiples` $multiples attr-dict `:` type($input)";
}

def DTF_BatchMatMulOp : DTF_Op<"batch_matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "matrix products over batch dimensions";
  let description = [{
    TensorFlow's BatchMatMulV2 (`tf.linalg.matmul` of tensors of rank >= 3):
    the last two dimensions of each operand are matrices, multiplied as
    `op(x) op(y)` where `op` takes the adjoint (the transpose, for real
    numbers) when `adj_x`/`adj_y` is set; the dimensions before them are
    batch dimensions, which broadcast (NumPy rules).

    ```mlir
    %y = dtf.batch_matmul %q, %k {adj_y = true}
        : tensor<8x4x16xf32>, tensor<8x4x16xf32>
    ```
  }];
  let arguments = (ins DTF_FloatTensor:$x, DTF_FloatTensor:$y,
                       DefaultValuedAttr<BoolAttr, "false">:$adj_x,
                       DefaultValuedAttr<BoolAttr, "false">:$adj_y);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat = "$x `,` $y attr-dict `:` type($x) `,` type($y)";
}

// Zeros make the product of the others the gradient of an element, which no
// quotient of the product gives: hence a gradient op of its own.
def DTF_ReduceProdOp : DTF_ReduceOp<"reduce_prod", "product over dimensions">;

def DTF_ReduceProdGradOp
    : DTF_Op<"reduce_prod_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "gradient of reduce_prod: dy times the product of the others";
  let description = [{
    TensorFlow's _ProdGrad: each element of `input` gets the `dy` of its
    reduced slice times the product of the other elements of that slice
    (the exclusive products from both ends, so that zeros need no
    division). `axes` and `keep_dims` are those of the reduce_prod, whose
    result has the type of `dy`.
  }];
  let arguments = (ins DTF_FloatTensor:$input, DTF_FloatTensor:$dy,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$axes,
                       DefaultValuedAttr<BoolAttr, "false">:$keep_dims);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat =
      "$input `,` $dy attr-dict `:` type($input) `,` type($dy)";
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

def DTF_MinimizeOp : DTF_Op<"minimize"> {
  let summary = "asks for the loss to be minimized by an optimizer";
  let description = [{
    `optimizer.minimize(loss, global_step)`: the `--dtf-autodiff` pass
    replaces it with the gradients of `loss` with respect to every trainable
    variable it depends on, and `--dtf-expand-optimizer` with the updates.
    The global step, if given, is incremented once per applied update.

    With `clip_by_global_norm`, the gradients are first scaled as
    `tf.clip_by_global_norm(gradients, clip_norm)` scales them: by
    `clip_norm / max(global_norm, clip_norm)`, `global_norm` being the L2
    norm of all of them together (a sparse gradient's rows included), so
    that a step never moves the variables by more than `clip_norm` times the
    learning rate. Each worker clips its own gradients before it pushes
    them, as each replica does in TensorFlow.

    ```mlir
    dtf.minimize %loss : tensor<f32>, #dtf.adam<learning_rate = 0.01>
        clip_by_global_norm 5.0 global_step %step : !dtf.resource<tensor<i64>>
    ```
  }];
  let arguments = (ins DTF_ScalarFloatTensor:$loss,
                       DTF_OptimizerAttr:$optimizer,
                       Optional<DTF_ResourceType>:$global_step,
                       OptionalAttr<F64Attr>:$clip_by_global_norm);
  let assemblyFormat = [{
    $loss `:` type($loss) `,` $optimizer
    (`clip_by_global_norm` $clip_by_global_norm^)?
    (`global_step` $global_step^ `:` qualified(type($global_step)))? attr-dict
  }];
  let hasVerifier = 1;
}

def DTF_ApplyGradientsOp : DTF_Op<"apply_gradients",
    [AttrSizedOperandSegments]> {
  let summary = "applies computed gradients to their variables";
  let description = [{
    The second half of `minimize` (TensorFlow's `apply_gradients`):
    `--dtf-autodiff` replaces `dtf.minimize` with the backward pass ending in
    this op, pairing each trainable variable with its gradient;
    `--dtf-expand-optimizer` then turns it into the optimizer's update ops,
    slot variables and the global-step increment.

    ```mlir
    dtf.apply_gradients #dtf.sgd<learning_rate = 0.5>
        (%w, %b : !dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<2xf32>>)
        grads(%dw, %db : tensor<4x2xf32>, tensor<2xf32>)
    ```

    Variables looked up by rows (`dtf.embedding_lookup`) have sparse
    gradients, listed apart: each `sparse_variables` entry is updated at
    the 1-D `sparse_ids` (duplicates and -1 allowed) with one row of
    `sparse_rows` per id, as TensorFlow applies an IndexedSlices gradient.

    ```mlir
    dtf.apply_gradients #dtf.adagrad<learning_rate = 0.1> (%w : ...) grads(%dw : ...)
        sparse(%table : !dtf.resource<tensor<1000x16xf32>>)
        ids(%ids : tensor<500xi64>) rows(%rows : tensor<500x16xf32>)
    ```
  }];
  let arguments = (ins DTF_OptimizerAttr:$optimizer,
                       Variadic<DTF_ResourceType>:$variables,
                       Variadic<DTF_FloatTensor>:$gradients,
                       Variadic<DTF_ResourceType>:$sparse_variables,
                       Variadic<RankedTensorOf<[I32, I64]>>:$sparse_ids,
                       Variadic<DTF_FloatTensor>:$sparse_rows,
                       Optional<DTF_ResourceType>:$global_step);
  let assemblyFormat = [{
    $optimizer (`(` $variables^ `:` qualified(type($variables)) `)`
    `grads` `(` $gradients `:` type($gradients) `)`)?
    (`sparse` `(` $sparse_variables^ `:` qualified(type($sparse_variables)) `)`
     `ids` `(` $sparse_ids `:` type($sparse_ids) `)`
     `rows` `(` $sparse_rows `:` type($sparse_rows) `)`)?
    (`global_step` $global_step^ `:` qualified(type($global_step)))? attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Gradient ops
//
// The ops `--dtf-autodiff` emits for the backward pass; their names and
// semantics are TensorFlow's (ReluGrad, Conv2DBackpropInput, MaxPoolGrad...).
//===----------------------------------------------------------------------===//

def DTF_SigmoidGradOp : DTF_Op<"sigmoid_grad",
    [Pure, SameOperandsAndResultType]> {
  let summary = "gradient of sigmoid from its output y: dy * y * (1 - y)";
  let arguments = (ins DTF_FloatTensor:$y, DTF_FloatTensor:$dy);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat = "$y `,` $dy attr-dict `:` type($y)";
}

def DTF_SigmoidCrossEntropyWithLogitsGradOp
    : DTF_Op<"sigmoid_cross_entropy_with_logits_grad",
             [Pure, SameOperandsAndResultType]> {
  let summary = "gradient of the logistic loss wrt logits: "
                "dloss * (sigmoid(logits) - labels)";
  let arguments = (ins DTF_FloatTensor:$dloss, DTF_FloatTensor:$logits,
                       DTF_FloatTensor:$labels);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat =
      "$dloss `,` $logits `,` $labels attr-dict `:` type($dloss)";
}

def DTF_ReluGradOp : DTF_Op<"relu_grad", [Pure, SameOperandsAndResultType]> {
  let summary = "gradient of relu: dy where x > 0, else 0";
  let arguments = (ins DTF_FloatTensor:$dy, DTF_FloatTensor:$input);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat = "$dy `,` $input attr-dict `:` type($dy)";
}

def DTF_SoftmaxGradOp : DTF_Op<"softmax_grad",
    [Pure, SameOperandsAndResultType]> {
  let summary = "gradient of softmax from its output y: (dy - sum(dy*y)) * y";
  let arguments = (ins DTF_FloatTensor:$dy, DTF_FloatTensor:$softmax);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat = "$dy `,` $softmax attr-dict `:` type($dy)";
}

def DTF_ClipByValueGradOp : DTF_Op<"clip_by_value_grad",
    [Pure, SameOperandsAndResultType]> {
  let summary = "gradient of clip_by_value: dy where min <= x <= max, else 0";
  let arguments = (ins DTF_FloatTensor:$dy, DTF_FloatTensor:$input,
                       F64Attr:$min, F64Attr:$max);
  let results = (outs DTF_FloatTensor:$output);
  let assemblyFormat =
      "$dy `,` $input `,` $min `,` $max attr-dict `:` type($dy)";
}

def DTF_SoftmaxCrossEntropyWithLogitsGradOp
    : DTF_Op<"softmax_cross_entropy_with_logits_grad",
             [Pure, InferTypeOpAdaptor]> {
  let summary = "gradient of the loss wrt logits: dloss * (softmax - labels)";
  let arguments = (ins TensorRankOf<[AnyFloat], [1]>:$dloss,
                       DTF_Matrix:$logits, DTF_Matrix:$labels);
  let results = (outs DTF_Matrix:$output);
  let assemblyFormat = [{
    $dloss `,` $logits `,` $labels attr-dict `:` type($dloss) `,`
    type($logits) `,` type($labels)
  }];
}

def DTF_SparseSoftmaxCrossEntropyWithLogitsGradOp
    : DTF_Op<"sparse_softmax_cross_entropy_with_logits_grad",
             [Pure, InferTypeOpAdaptor]> {
  let summary =
      "gradient of the loss wrt logits: dloss * (softmax - one_hot(labels))";
  let arguments = (ins TensorRankOf<[AnyFloat], [1]>:$dloss,
                       DTF_Matrix:$logits,
                       TensorRankOf<[I32, I64], [1]>:$labels);
  let results = (outs DTF_Matrix:$output);
  let assemblyFormat = [{
    $dloss `,` $logits `,` $labels attr-dict `:` type($dloss) `,`
    type($logits) `,` type($labels)
  }];
}

def DTF_BiasAddGradOp : DTF_Op<"bias_add_grad", [Pure, InferTypeOpAdaptor]> {
  let summary = "gradient of bias_add wrt the bias: dy summed over all but "
                "the last dimension";
  let arguments = (ins DTF_FloatTensor:$dy);
  let results = (outs TensorRankOf<[AnyFloat], [1]>:$output);
  let assemblyFormat = "$dy attr-dict `:` type($dy)";
}

def DTF_BroadcastToOp : DTF_Op<"broadcast_to", [Pure]> {
  let summary = "broadcasts a tensor to a larger shape (NumPy rules)";
  let arguments = (ins DTF_Tensor:$input);
  let results = (outs DTF_Tensor:$output);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def DTF_Conv2DBackpropInputOp : DTF_Op<"conv2d_backprop_input", [Pure]> {
  let summary = "gradient of conv2d wrt its input";
  let description = [{
    The result type is the input's; `dy` must have the type conv2d of such
    an input with `filter` produces, with the same strides, padding and
    dilations.
  }];
  let arguments = (ins DTF_Image:$filter, DTF_Image:$dy, DTF_Window:$strides,
                       DTF_PaddingAttr:$padding,
                       OptionalAttr<DTF_Window>:$dilations);
  let results = (outs DTF_Image:$output);
  let assemblyFormat = [{
    $filter `,` $dy `strides` $strides (`dilations` $dilations^)?
    `padding` custom<Padding>($padding)
    attr-dict `:` type($filter) `,` type($dy) `->` type($output)
  }];
  let hasVerifier = 1;
}

def DTF_Conv2DBackpropFilterOp : DTF_Op<"conv2d_backprop_filter", [Pure]> {
  let summary = "gradient of conv2d wrt its filter";
  let description = [{
    The result type is the filter's; `dy` must have the type conv2d of
    `input` with such a filter produces, with the same strides, padding and
    dilations.
  }];
  let arguments = (ins DTF_Image:$input, DTF_Image:$dy, DTF_Window:$strides,
                       DTF_PaddingAttr:$padding,
                       OptionalAttr<DTF_Window>:$dilations);
  let results = (outs DTF_Image:$output);
  let assemblyFormat = [{
    $input `,` $dy `strides` $strides (`dilations` $dilations^)?
    `padding` custom<Padding>($padding)
    attr-dict `:` type($input) `,` type($dy) `->` type($output)
  }];
  let hasVerifier = 1;
}

def DTF_MaxPoolGradOp : DTF_Op<"max_pool_grad",
    [Pure, AllTypesMatch<["input", "output"]>,
     AllTypesMatch<["output_value", "dy"]>]> {
  let summary = "gradient of max_pool: dy routed to each window's maximum";
  let arguments = (ins DTF_Image:$input, DTF_Image:$output_value,
                       DTF_Image:$dy, DTF_Window:$ksize, DTF_Window:$strides,
                       DTF_PaddingAttr:$padding);
  let results = (outs DTF_Image:$output);
  let assemblyFormat = [{
    $input `,` $output_value `,` $dy `ksize` $ksize `strides` $strides
    `padding` custom<Padding>($padding) attr-dict `:` type($input) `,`
    type($dy)
  }];
  let hasVerifier = 1;
}

def DTF_AvgPoolGradOp : DTF_Op<"avg_pool_grad", [Pure]> {
  let summary = "gradient of avg_pool: each window's dy shared equally by "
                "its cells";
  let description = [{
    TensorFlow's AvgPoolGrad: the result, of the pooled input's type, adds
    to each input cell `dy / n` of every window holding it, `n` the number
    of input cells of that window.
  }];
  let arguments = (ins DTF_Image:$dy, DTF_Window:$ksize, DTF_Window:$strides,
                       DTF_PaddingAttr:$padding);
  let results = (outs DTF_Image:$output);
  let assemblyFormat = [{
    $dy `ksize` $ksize `strides` $strides `padding` custom<Padding>($padding)
    attr-dict `:` type($dy) `->` type($output)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//
// TensorFlow's fused training ops (ApplyGradientDescent, ApplyMomentum,
// ApplyAdam): each reads a gradient and updates a variable and its slots in
// place. `--dtf-expand-optimizer` emits them. An optional `schedule` (the
// optimizer's) makes `learning_rate` the start of a learning-rate schedule,
// evaluated at the global step of the update.
//===----------------------------------------------------------------------===//

class DTF_GradMatchesVariable<string resource>
    : TypesMatchWith<"gradient has the variable's type", resource, "grad",
        "::llvm::cast<::dtf::ir::ResourceType>($_self).getValueType()">;

class DTF_SlotMatchesVariable<string slot>
    : TypesMatchWith<"slot has the variable's type", "var", slot, "$_self">;

def DTF_ApplyGradientDescentOp : DTF_Op<"apply_gradient_descent",
    [DTF_GradMatchesVariable<"var">]> {
  let summary = "var -= learning_rate * grad";
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       DTF_FloatTensor:$grad, F64Attr:$learning_rate,
                       OptionalAttr<DTF_LearningRateScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $var `,` $grad `learning_rate` $learning_rate (`schedule` `(` $schedule^ `)`)? attr-dict `:`
    qualified(type($var))
  }];
}

def DTF_ApplyMomentumOp : DTF_Op<"apply_momentum",
    [DTF_GradMatchesVariable<"var">, DTF_SlotMatchesVariable<"accum">]> {
  let summary = "accum = accum * momentum + grad; var -= lr * accum";
  let description = [{
    With `use_nesterov`, `var -= lr * grad + lr * momentum * accum` (after
    the accumulator update), as TensorFlow's ApplyMomentum.
  }];
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$accum,
                       DTF_FloatTensor:$grad, F64Attr:$learning_rate,
                       F64Attr:$momentum,
                       DefaultValuedAttr<BoolAttr, "false">:$use_nesterov,
                       OptionalAttr<DTF_LearningRateScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $var `,` $accum `,` $grad `learning_rate` $learning_rate `momentum`
    $momentum (`schedule` `(` $schedule^ `)`)? attr-dict `:` qualified(type($var))
  }];
}

def DTF_ApplyAdamOp : DTF_Op<"apply_adam",
    [DTF_GradMatchesVariable<"var">, DTF_SlotMatchesVariable<"m">,
     DTF_SlotMatchesVariable<"v">,
     AllTypesMatch<["beta1_power", "beta2_power"]>]> {
  let summary = "one Adam step on var with its m and v slots";
  let description = [{
    TensorFlow's ApplyAdam, with `beta1_power`/`beta2_power` the running
    powers beta^t:
    `lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)`,
    `m = beta1 * m + (1 - beta1) * g`, `v = beta2 * v + (1 - beta2) * g^2`,
    `var -= lr_t * m / (sqrt(v) + epsilon)`.
  }];
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$m,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$v,
                       DTF_ScalarFloatTensor:$beta1_power,
                       DTF_ScalarFloatTensor:$beta2_power,
                       DTF_FloatTensor:$grad, F64Attr:$learning_rate,
                       F64Attr:$beta1, F64Attr:$beta2, F64Attr:$epsilon,
                       OptionalAttr<DTF_LearningRateScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $var `,` $m `,` $v `,` $beta1_power `,` $beta2_power `,` $grad
    `learning_rate` $learning_rate `beta1` $beta1 `beta2` $beta2 `epsilon`
    $epsilon (`schedule` `(` $schedule^ `)`)? attr-dict `:` qualified(type($var)) `,` type($beta1_power)
  }];
}

def DTF_ApplyAdagradOp : DTF_Op<"apply_adagrad",
    [DTF_GradMatchesVariable<"var">, DTF_SlotMatchesVariable<"accum">]> {
  let summary = "accum += grad^2; var -= lr * grad / sqrt(accum)";
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$accum,
                       DTF_FloatTensor:$grad, F64Attr:$learning_rate,
                       OptionalAttr<DTF_LearningRateScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $var `,` $accum `,` $grad `learning_rate` $learning_rate (`schedule` `(` $schedule^ `)`)? attr-dict `:`
    qualified(type($var))
  }];
}

def DTF_ApplyRMSPropOp : DTF_Op<"apply_rmsprop",
    [DTF_GradMatchesVariable<"var">, DTF_SlotMatchesVariable<"ms">,
     DTF_SlotMatchesVariable<"mom">]> {
  let summary = "one RMSProp step on var with its ms and mom slots";
  let description = [{
    TensorFlow's ApplyRMSProp (`#dtf.rmsprop` says what it computes).
  }];
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$ms,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$mom,
                       DTF_FloatTensor:$grad, F64Attr:$learning_rate,
                       F64Attr:$decay, F64Attr:$momentum, F64Attr:$epsilon,
                       OptionalAttr<DTF_LearningRateScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $var `,` $ms `,` $mom `,` $grad `learning_rate` $learning_rate `decay`
    $decay `momentum` $momentum `epsilon` $epsilon (`schedule` `(` $schedule^ `)`)? attr-dict `:`
    qualified(type($var))
  }];
}

def DTF_ApplyCenteredRMSPropOp : DTF_Op<"apply_centered_rmsprop",
    [DTF_GradMatchesVariable<"var">, DTF_SlotMatchesVariable<"mg">,
     DTF_SlotMatchesVariable<"ms">, DTF_SlotMatchesVariable<"mom">]> {
  let summary = "one centered RMSProp step on var with its mg, ms and mom "
                "slots";
  let description = [{
    TensorFlow's ApplyCenteredRMSProp (`#dtf.rmsprop` with `centered`).
  }];
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$mg,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$ms,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$mom,
                       DTF_FloatTensor:$grad, F64Attr:$learning_rate,
                       F64Attr:$decay, F64Attr:$momentum, F64Attr:$epsilon,
                       OptionalAttr<DTF_LearningRateScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $var `,` $mg `,` $ms `,` $mom `,` $grad `learning_rate` $learning_rate
    `decay` $decay `momentum` $momentum `epsilon` $epsilon (`schedule` `(` $schedule^ `)`)? attr-dict `:`
    qualified(type($var))
  }];
}

def DTF_ApplyAdadeltaOp : DTF_Op<"apply_adadelta",
    [DTF_GradMatchesVariable<"var">, DTF_SlotMatchesVariable<"accum">,
     DTF_SlotMatchesVariable<"accum_update">]> {
  let summary = "one Adadelta step on var with its accum and accum_update "
                "slots";
  let description = [{
    TensorFlow's ApplyAdadelta (`#dtf.adadelta` says what it computes).
  }];
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$accum,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$accum_update,
                       DTF_FloatTensor:$grad, F64Attr:$learning_rate,
                       F64Attr:$rho, F64Attr:$epsilon,
                       OptionalAttr<DTF_LearningRateScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $var `,` $accum `,` $accum_update `,` $grad `learning_rate`
    $learning_rate `rho` $rho `epsilon` $epsilon
    (`schedule` `(` $schedule^ `)`)? attr-dict `:` qualified(type($var))
  }];
}

def DTF_ApplyFtrlOp : DTF_Op<"apply_ftrl",
    [DTF_GradMatchesVariable<"var">, DTF_SlotMatchesVariable<"accum">,
     DTF_SlotMatchesVariable<"linear">]> {
  let summary = "one FTRL-Proximal step on var with its accum and linear slots";
  let description = [{
    TensorFlow's ApplyFtrlV2 (`#dtf.ftrl` says what its attributes are).
  }];
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$accum,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$linear,
                       DTF_FloatTensor:$grad, F64Attr:$learning_rate,
                       F64Attr:$learning_rate_power, F64Attr:$l1, F64Attr:$l2,
                       F64Attr:$l2_shrinkage,
                       OptionalAttr<DTF_LearningRateScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $var `,` $accum `,` $linear `,` $grad `learning_rate` $learning_rate
    `power` $learning_rate_power `l1` $l1 `l2` $l2 `l2_shrinkage` $l2_shrinkage
    (`schedule` `(` $schedule^ `)`)? attr-dict `:` qualified(type($var))
  }];
}

def DTF_AssignMovingAverageOp : DTF_Op<"assign_moving_average",
    [TypesMatchWith<"value has the variable's type", "var", "value",
        "::llvm::cast<::dtf::ir::ResourceType>($_self).getValueType()">]> {
  let summary = "var -= (var - value) * (1 - decay)";
  let description = [{
    TensorFlow's `assign_moving_average(variable, value, decay)`
    (moving_averages.py): the exponential moving average that batch
    normalization keeps of its batches' mean and variance, which a TF1
    train op runs through `tf.GraphKeys.UPDATE_OPS`. `decay` is the layer's
    `momentum` (0.99 for `tf.compat.v1.layers.batch_normalization`).

    ```mlir
    dtf.assign_moving_average %moving_mean, %batch_mean decay 0.99
        : !dtf.resource<tensor<16xf32>>
    ```

    `value` is computed by a worker from its batch; the variable is not
    trained. Between-graph replication pushes `value` to the variable's PS
    task as it pushes a gradient, and the task updates the variable's
    current value. A synchronous step averages the replicas' values first:
    one update per global step, of the mean of their batches' statistics,
    where TensorFlow's replicas would each apply their own.
  }];
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       DTF_FloatTensor:$value, F64Attr:$decay);
  let assemblyFormat = [{
    $var `,` $value `decay` $decay attr-dict `:` qualified(type($var))
  }];
  let hasVerifier = 1;
}

// The sparse updates take the rows `rows` of an IndexedSlices gradient at
// the 1-D `ids` of `var`'s first dimension. As TensorFlow's
// Optimizer._apply_sparse_duplicate_indices, the rows of equal ids are
// summed before the update and ids of -1 (padding) are dropped; only the
// rows named, and their slots' rows, change. The number of ids may be
// dynamic: a PS task receives the unique ids of each push.
class DTF_SparseApplyOp<string mnemonic, list<Trait> traits = []>
    : DTF_Op<mnemonic, traits> {
  let hasVerifier = 1;
}

def DTF_SparseApplyGradientDescentOp
    : DTF_SparseApplyOp<"sparse_apply_gradient_descent"> {
  let summary = "var[ids] -= learning_rate * rows";
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       TensorRankOf<[I32, I64], [1]>:$ids,
                       DTF_FloatTensor:$rows, F64Attr:$learning_rate,
                       OptionalAttr<DTF_RowShardAttr>:$shard,
                       OptionalAttr<DTF_LearningRateScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $var `[` $ids `]` `,` $rows `learning_rate` $learning_rate (`schedule` `(` $schedule^ `)`)? attr-dict `:`
    qualified(type($var)) `,` type($ids) `,` type($rows)
  }];
}

def DTF_SparseApplyAdagradOp
    : DTF_SparseApplyOp<"sparse_apply_adagrad",
                        [DTF_SlotMatchesVariable<"accum">]> {
  let summary = "Adagrad on the rows ids of var and accum";
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$accum,
                       TensorRankOf<[I32, I64], [1]>:$ids,
                       DTF_FloatTensor:$rows, F64Attr:$learning_rate,
                       OptionalAttr<DTF_RowShardAttr>:$shard,
                       OptionalAttr<DTF_LearningRateScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $var `,` $accum `[` $ids `]` `,` $rows `learning_rate` $learning_rate
    (`schedule` `(` $schedule^ `)`)? attr-dict `:` qualified(type($var)) `,` type($ids) `,` type($rows)
  }];
}

def DTF_SparseApplyFtrlOp
    : DTF_SparseApplyOp<"sparse_apply_ftrl",
                        [DTF_SlotMatchesVariable<"accum">,
                         DTF_SlotMatchesVariable<"linear">]> {
  let summary = "FTRL-Proximal on the rows ids of var, accum and linear";
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$accum,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$linear,
                       TensorRankOf<[I32, I64], [1]>:$ids,
                       DTF_FloatTensor:$rows, F64Attr:$learning_rate,
                       F64Attr:$learning_rate_power, F64Attr:$l1, F64Attr:$l2,
                       F64Attr:$l2_shrinkage,
                       OptionalAttr<DTF_RowShardAttr>:$shard,
                       OptionalAttr<DTF_LearningRateScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $var `,` $accum `,` $linear `[` $ids `]` `,` $rows `learning_rate`
    $learning_rate `power` $learning_rate_power `l1` $l1 `l2` $l2
    `l2_shrinkage` $l2_shrinkage (`schedule` `(` $schedule^ `)`)? attr-dict `:` qualified(type($var)) `,`
    type($ids) `,` type($rows)
  }];
}

def DTF_SparseApplyAdamOp
    : DTF_SparseApplyOp<"sparse_apply_adam",
                        [DTF_SlotMatchesVariable<"m">,
                         DTF_SlotMatchesVariable<"v">,
                         AllTypesMatch<["beta1_power", "beta2_power"]>]> {
  let summary = "lazy Adam: Adam on the rows ids of var, m and v only";
  let description = [{
    `tf.contrib.opt.LazyAdamOptimizer`'s update: the moments of rows that no
    id names do not decay, so a step costs the touched rows only.
  }];
  let arguments = (ins DTF_ResourceArg<[MemRead, MemWrite]>:$var,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$m,
                       DTF_ResourceArg<[MemRead, MemWrite]>:$v,
                       DTF_ScalarFloatTensor:$beta1_power,
                       DTF_ScalarFloatTensor:$beta2_power,
                       TensorRankOf<[I32, I64], [1]>:$ids,
                       DTF_FloatTensor:$rows, F64Attr:$learning_rate,
                       F64Attr:$beta1, F64Attr:$beta2, F64Attr:$epsilon,
                       OptionalAttr<DTF_RowShardAttr>:$shard,
                       OptionalAttr<DTF_LearningRateScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $var `,` $m `,` $v `,` $beta1_power `,` $beta2_power `[` $ids `]` `,` $rows
    `learning_rate` $learning_rate `beta1` $beta1 `beta2` $beta2 `epsilon`
    $epsilon (`schedule` `(` $schedule^ `)`)? attr-dict `:` qualified(type($var)) `,` type($beta1_power) `,`
    type($ids) `,` type($rows)
  }];
}

//===----------------------------------------------------------------------===//
// Cross-device transfers
//
// `--dtf-partition` cuts every edge between devices into a `dtf.send` in the
// producer's partition and a `dtf.recv` in the consumer's, as TensorFlow's
// _Send/_Recv. Both name the same rendezvous key: the source device, the
// destination device and the tensor name; the runtime adds the step id, so
// that the key of one transfer is unique per step.
//===----------------------------------------------------------------------===//

def DTF_Rendezvous : Resource<"::dtf::ir::RendezvousResource">;

class DTF_TransferOp<string mnemonic, list<Trait> traits = []>
    : DTF_Op<mnemonic, traits> {
  code transferClassDeclaration = [{
    /// The rendezvous key without the step id:
    /// "<send device>;<recv device>;<tensor name>".
    std::string getRendezvousKey() {
      return getSendDevice().getName() + ";" + getRecvDevice().getName() +
             ";" + getTensorName().str();
    }
  }];
  let extraClassDeclaration = transferClassDeclaration;
  let hasVerifier = 1;
}

def DTF_SendOp : DTF_TransferOp<"send",
    [MemoryEffects<[MemWrite<DTF_Rendezvous>]>]> {
  let summary = "hands a tensor to another device";
  let description = [{
    Publishes `value` under the rendezvous key (`send_device`, `recv_device`,
    `tensor_name`; the devices are `#dtf.device` attributes, written as their
    names) for the matching `dtf.recv` on `recv_device`. A send never
    blocks: the rendezvous buffers the tensor until it is received, as
    TensorFlow's. Only tensors cross devices; a `!dtf.resource` handle never
    does, so a variable is only ever touched on its own device.

    ```mlir
    dtf.send %hid, "edge_3_dtf.relu" from "/job:worker/task:0"
        to "/job:worker/task:1" : tensor<100x100xf32>
    ```
  }];
  let arguments = (ins DTF_Tensor:$value, StrAttr:$tensor_name,
                       DTF_DeviceAttr:$send_device,
                       DTF_DeviceAttr:$recv_device);
  let assemblyFormat = [{
    $value `,` $tensor_name `from` custom<DeviceName>($send_device) `to`
    custom<DeviceName>($recv_device) attr-dict `:` type($value)
  }];
}

def DTF_RecvOp : DTF_TransferOp<"recv",
    [MemoryEffects<[MemRead<DTF_Rendezvous>, MemWrite<DTF_Rendezvous>]>]> {
  let summary = "receives a tensor from another device";
  let description = [{
    Waits for the tensor the matching `dtf.send` publishes under the same
    rendezvous key and takes it out of the rendezvous (hence the write
    effect: two receives of one key are not interchangeable).

    ```mlir
    %hid = dtf.recv "edge_3_dtf.relu" from "/job:worker/task:0"
        to "/job:worker/task:1" : tensor<100x100xf32>
    ```
  }];
  let arguments = (ins StrAttr:$tensor_name, DTF_DeviceAttr:$send_device,
                       DTF_DeviceAttr:$recv_device);
  let results = (outs DTF_Tensor:$output);
  let assemblyFormat = [{
    $tensor_name `from` custom<DeviceName>($send_device) `to`
    custom<DeviceName>($recv_device) attr-dict `:` type($output)
  }];
}

//===----------------------------------------------------------------------===//
// Between-graph replication
//
// `--dtf-replicate` turns a placed training graph into the program every
// worker replica runs and one update function per PS task. Replicas reach
// the variables only through these two ops, which the runtime implements as
// RPCs to the PS task (runtime/ABI.md).
//===----------------------------------------------------------------------===//

def DTF_ParameterServer : Resource<"::dtf::ir::ParameterServerResource">;

def DTF_PullOp : DTF_Op<"pull",
    [MemoryEffects<[MemRead<DTF_ParameterServer>]>]> {
  let summary = "the current value of a variable held by a PS task";
  let description = [{
    Reads variable `name` from the PS task `device` (a `#dtf.device`,
    written as its name) with the RPC `Pull`; the runtime batches the pulls
    of one step into one RPC per PS task. A worker pulls each variable once
    per step, before computing with it.

    Within one function a pull only reads PS state, so two pulls of the same
    variable with no `dtf.push_gradients` between them may be merged; a push
    writes PS state and orders the pulls around it.

    ```mlir
    %w = dtf.pull "hid_w" from "/job:ps/task:1" : tensor<784x100xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, DTF_DeviceAttr:$device);
  let results = (outs DTF_Tensor:$value);
  let assemblyFormat =
      "$name `from` custom<DeviceName>($device) attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def DTF_PullRowsOp : DTF_Op<"pull_rows",
    [MemoryEffects<[MemRead<DTF_ParameterServer>]>]> {
  let summary = "the rows of a variable held by a PS task at integer ids";
  let description = [{
    What `dtf.embedding_lookup` becomes on a worker: the rows of variable
    `name` on the PS task `device` at `ids`, with the shape of `ids`
    followed by the variable's dimensions after the first. The runtime asks
    the task for each distinct id of the batch once (RPC `PullRows`) and
    never for the whole table; -1 gives a zero row. As `dtf.pull`, it reads
    the values of the step's start. `table_rows`, the rows of the whole
    table, lets the worker refuse an id outside them before asking, naming
    where in the batch it is.

    ```mlir
    %rows = dtf.pull_rows "emb" from "/job:ps/task:0" [%ids]
        : tensor<100x5xi64> -> tensor<100x5x16xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, DTF_DeviceAttr:$device,
                       RankedTensorOf<[I32, I64]>:$ids,
                       OptionalAttr<DTF_RowShardAttr>:$shard,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$table_rows);
  let results = (outs DTF_FloatTensor:$rows);
  let assemblyFormat = [{
    $name `from` custom<DeviceName>($device) ` ` `[` $ids `]` attr-dict `:`
    type($ids) `->` type($rows)
  }];
  let hasVerifier = 1;
}

def DTF_PushGradientsOp : DTF_Op<"push_gradients",
    [MemoryEffects<[MemWrite<DTF_ParameterServer>]>,
     AttrSizedOperandSegments]> {
  let summary = "sends one replica's gradients to a PS task";
  let description = [{
    Sends the gradients of the variables `names` to the PS task `device`
    (RPC `Push`), tagged with the global step `step` the replica read at the
    start of its step. `names` lists the variables in the order of the PS
    function's `dtf.gradients`; the push of a task that holds no gradient
    (e.g. only the global step) is empty, and still runs its PS function.

    ```mlir
    dtf.push_gradients to "/job:ps/task:0" step %step (%d_hid_b, %d_sm_b)
        {names = ["hid_b", "sm_b"]} : tensor<i64>, tensor<100xf32>, tensor<10xf32>
    ```

    Sparse gradients (`sparse_names`, after the dense ones in the PS
    function's `dtf.sparse_gradients` order) go as their ids and rows; the
    runtime sends each distinct id once, with the sum of its rows, and drops
    -1. The gradient of a shard of a partitioned table has its
    `#dtf.row_shard` in `sparse_shards` (`unit` for a whole table): its ids
    are ids of the whole table, and the runtime sends the shard only the
    rows of its own ids, at their rows within the shard.
  }];
  let arguments = (ins DTF_DeviceAttr:$device,
                       0DTensorOf<[AnySignlessInteger]>:$step,
                       Variadic<DTF_FloatTensor>:$gradients,
                       Variadic<TensorRankOf<[I32, I64], [1]>>:$sparse_ids,
                       Variadic<DTF_FloatTensor>:$sparse_rows,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$names,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$sparse_names,
                       OptionalAttr<ArrayAttr>:$sparse_shards);
  let assemblyFormat = [{
    `to` custom<DeviceName>($device) `step` $step ` ` `(` $gradients `)`
    (`sparse` `(` $sparse_ids^ `:` type($sparse_ids) `)`
     `rows` `(` $sparse_rows `:` type($sparse_rows) `)`)? attr-dict
    `:` type($step) (`,` type($gradients)^)?
  }];
  let hasVerifier = 1;
}

#endif // DTF_IR_DTFOPS_TD
