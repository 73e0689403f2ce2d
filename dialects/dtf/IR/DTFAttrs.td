//===- DTFAttrs.td - dtf dialect attributes ----------------*- tablegen -*-===//

#ifndef DTF_IR_DTFATTRS_TD
#define DTF_IR_DTFATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "dialects/dtf/IR/DTFDialect.td"

class DTF_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<DTF_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// A float hyper-parameter, stored as an APFloat (double semantics) so that
// it can be hashed and compared bitwise. Printed in the shortest form that
// parses back to the same double, so that 0.01 stays 0.01.
class DTF_F64Parameter<string desc, string default = "">
    : AttrOrTypeParameter<"::llvm::APFloat", desc> {
  let parser = "::dtf::ir::parseF64Parameter($_parser)";
  let printer = "::dtf::ir::printF64Parameter($_printer, $_self)";
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
  let defaultValue = !if(!empty(default), "", "::llvm::APFloat(" # default # ")");
}

// A dense array printed as it parses, `[1, 2]`, without the `array<i64: >`
// that a standalone attribute has.
class DTF_DenseArrayParameter<string attr, string desc>
    : AttrOrTypeParameter<"::mlir::" # attr, desc> {
  let printer = "$_self.print($_printer)";
}

class DTF_BoolParameter<string desc, string default>
    : AttrOrTypeParameter<"bool", desc> {
  let parser = "::dtf::ir::parseBoolParameter($_parser)";
  let printer = "$_printer << ($_self ? \"true\" : \"false\")";
  let defaultValue = default;
}

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

def DTF_DeviceAttr : DTF_Attr<"Device", "device"> {
  let summary = "a TensorFlow device name: /job:J/task:N[/device:TYPE:K]";
  let description = [{
    Names where an op runs, with TensorFlow's device-name syntax. The job is
    `ps` or `worker`; the optional device part is `CPU` or `GPU` with an
    index. Carried by ops as the discardable attribute `dtf.device`.

    ```mlir
    #dtf.device<"/job:ps/task:0">
    #dtf.device<"/job:worker/task:1/device:GPU:0">
    ```
  }];
  let parameters = (ins StringRefParameter<"job name">:$job,
                        "int64_t":$task,
                        StringRefParameter<"device type or empty", "\"\"">:$deviceType,
                        "int64_t":$deviceIndex);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Parses a device name such as "/job:worker/task:1/device:GPU:0". On
    /// failure, returns a message naming the malformed part.
    static ::mlir::FailureOr<DeviceAttr>
    parseDeviceName(::mlir::MLIRContext *context, ::llvm::StringRef name,
                    std::string &error);
    /// The canonical device name, e.g. "/job:ps/task:0".
    std::string getName() const;
    bool hasDevicePart() const { return !getDeviceType().empty(); }
    /// The task this device belongs to, without the device part.
    DeviceAttr getTaskDevice() const;
  }];
}

def DTF_ClusterAttr : DTF_Attr<"Cluster", "cluster"> {
  let summary = "the tasks of a cluster: ps and worker host:port lists";
  let description = [{
    TensorFlow's ClusterSpec, attached to the module as `dtf.cluster`.

    ```mlir
    module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"],
        worker = ["localhost:2223", "localhost:2224"]>} { ... }
    ```
  }];
  let parameters = (ins "::mlir::ArrayAttr":$ps, "::mlir::ArrayAttr":$worker);
  let assemblyFormat = "`<` `ps` `=` $ps `,` `worker` `=` $worker `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Number of tasks of `job` ("ps" or "worker"); 0 for any other job.
    int64_t getNumTasks(::llvm::StringRef job) const;
  }];
}

//===----------------------------------------------------------------------===//
// Replication
//===----------------------------------------------------------------------===//

def DTF_ReplicationMode : I32EnumAttr<"ReplicationMode",
    "how a PS task applies the gradients that replicas push", [
    I32EnumAttrCase<"Async", 0, "async">,
    I32EnumAttrCase<"Sync", 1, "sync">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dtf::ir";
}

def DTF_PartitionStrategy : I32EnumAttr<"PartitionStrategy",
    "how the ids of a table map to the shards of its rows", [
    I32EnumAttrCase<"Div", 0, "div">,
    I32EnumAttrCase<"Mod", 1, "mod">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dtf::ir";
}

def DTF_PartitionerAttr : DTF_Attr<"Partitioner", "partitioner"> {
  let summary = "how many shards a table's rows are split into, and how";
  let description = [{
    On a `dtf.variable` as `dtf.partitioner`: TensorFlow's
    `fixed_size_partitioner(shards)` with the `partition_strategy` of
    `embedding_lookup`. `div` gives each shard a contiguous range of ids
    (the first `rows % shards` shards one row more), `mod` gives id `i` to
    shard `i % shards` as row `i / shards`. `--dtf-place-variables` splits
    the variable (and its colocated slots) into that many shards, each on a
    PS task, and rewrites its lookups and sparse updates to address them.
  }];
  let parameters = (ins "int64_t":$shards,
                        EnumParameter<DTF_PartitionStrategy>:$strategy);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_DynamicTableAttr : DTF_Attr<"DynamicTable", "dynamic_table"> {
  let summary = "a table whose rows are created for the ids training meets";
  let description = [{
    On a `dtf.variable` of type `!dtf.resource<tensor<?xDxT>>` as
    `dtf.dynamic_table`: an embedding table keyed by arbitrary non-negative
    int64 ids (hashed features and crosses, no vocabulary), as Monolith's
    collisionless table or TensorFlow Recommenders-Addons' dynamic
    embedding. Its PS task creates a row, with the variable's initializer,
    for an id once `min_count` pushes have carried it; until then a lookup
    of the id reads the row the initializer gives it and its gradients are
    dropped. The table is only ever looked up and updated by rows; its
    optimizer slots (`colocate_with` it) follow its rows. Its ids span
    [0, 2^63 - 1): a `dtf.partitioner` splits that range.

    ```mlir
    %t = dtf.variable "x0/weights" init(#dtf.zeros)
        {dtf.dynamic_table = #dtf.dynamic_table<min_count = 2>}
        : !dtf.resource<tensor<?x1xf32>>
    ```
  }];
  let parameters = (ins DefaultValuedParameter<"int64_t", "1">:$min_count);
  let assemblyFormat = "(`<` struct(params)^ `>`)?";
  let genVerifyDecl = 1;
}

def DTF_RowShardAttr : DTF_Attr<"RowShard", "row_shard"> {
  let summary = "which rows of a partitioned table one of its shards holds";
  let description = [{
    On a lookup, a row pull or a sparse update of shard `shard` of a table
    of `rows` rows split into `num_shards` by `strategy`: the op's ids are
    ids of the whole table; it reads or updates the rows of the ids this
    shard holds, at their rows within the shard, and gives zero rows (a
    lookup) or leaves alone (an update) the others.
  }];
  let parameters = (ins EnumParameter<DTF_PartitionStrategy>:$strategy,
                        "int64_t":$shard, "int64_t":$num_shards,
                        "int64_t":$rows);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number of rows this shard holds.
    int64_t getShardRows() const;
  }];
}

def DTF_ReplicationAttr : DTF_Attr<"Replication", "replication"> {
  let summary = "how the module was replicated: update mode and replica counts";
  let description = [{
    Attached to the module as `dtf.replication` by `--dtf-replicate`
    (between-graph replication); the runtime reads it to know how PS tasks
    apply pushed gradients.

    - `async`: each push is applied at once (Hogwild style); the PS
      functions take one replica's gradients.
    - `sync`: TensorFlow's SyncReplicasOptimizer. A PS task averages the
      gradients of `replicas_to_aggregate` replicas of one step and applies
      them once; of the `total_replicas` replicas that run, the gradients of
      the late ones are stale and dropped.

    `1 <= replicas_to_aggregate <= total_replicas` in both modes.

    ```mlir
    #dtf.replication<mode = sync, replicas_to_aggregate = 2, total_replicas = 3>
    ```
  }];
  let parameters = (ins EnumParameter<DTF_ReplicationMode>:$mode,
                        "int64_t":$replicas_to_aggregate,
                        "int64_t":$total_replicas);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Number of replicas' gradients a PS function takes per variable:
    /// `replicas_to_aggregate` in sync mode, one in async mode.
    int64_t getNumGradientGroups() const {
      return getMode() == ReplicationMode::Sync ? getReplicasToAggregate()
                                                : 1;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Variable initializers
//===----------------------------------------------------------------------===//

def DTF_ZerosInitAttr : DTF_Attr<"ZerosInit", "zeros"> {
  let summary = "initializes a variable with zeros";
}

def DTF_ConstantInitAttr : DTF_Attr<"ConstantInit", "constant"> {
  let summary = "initializes every element of a variable with one value";
  let parameters = (ins DTF_F64Parameter<"fill value">:$value);
  let assemblyFormat = "`<` $value `>`";
}

def DTF_TruncatedNormalInitAttr
    : DTF_Attr<"TruncatedNormalInit", "truncated_normal"> {
  let summary = "normal samples, redrawn beyond two standard deviations";
  let parameters = (ins DTF_F64Parameter<"mean", "0.0">:$mean,
                        DTF_F64Parameter<"standard deviation">:$stddev,
                        "int64_t":$seed);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_RandomNormalInitAttr : DTF_Attr<"RandomNormalInit", "random_normal"> {
  let summary = "normal samples";
  let parameters = (ins DTF_F64Parameter<"mean", "0.0">:$mean,
                        DTF_F64Parameter<"standard deviation">:$stddev,
                        "int64_t":$seed);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_RandomUniformInitAttr
    : DTF_Attr<"RandomUniformInit", "random_uniform"> {
  let summary = "uniform samples in [minval, maxval)";
  let description = [{
    Independent samples of the uniform distribution on [minval, maxval), as
    TensorFlow's `random_uniform_initializer` and the uniform variance
    scaling initializers (`glorot_uniform`, `he_uniform`, `lecun_uniform`)
    draw them. The samples follow `seed` deterministically on every platform
    (runtime/core/Initializers.h), but they are not TensorFlow's: TensorFlow
    draws from its Philox stream, DTF from its own generator, so the values
    are equal in distribution, not bit-equal, to those of the same seed in
    TensorFlow. A sample that rounds to `maxval` in the variable's element
    type is drawn again.

    ```mlir
    %w = dtf.variable "w" init(#dtf.random_uniform<minval = -0.05, maxval = 0.05, seed = 3>)
        : !dtf.resource<tensor<784x100xf32>>
    ```
  }];
  let parameters = (ins DTF_F64Parameter<"lower bound, inclusive">:$minval,
                        DTF_F64Parameter<"upper bound, exclusive">:$maxval,
                        "int64_t":$seed);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_OrthogonalInitAttr : DTF_Attr<"OrthogonalInit", "orthogonal"> {
  let summary = "a random orthogonal matrix times gain";
  let description = [{
    TensorFlow's `orthogonal_initializer` (Saxe et al.): the variable, of
    rank 2 or more, flattened to a matrix of its last dimension's columns
    and the product of the others as rows, is `gain` times an orthogonal
    matrix drawn uniformly (Haar): the Q of the QR decomposition of a
    matrix of standard normal samples in its taller orientation, each
    column signed as R's diagonal, transposed where the rows are fewer.
    Its rows or its columns, whichever are fewer, are orthonormal. The
    samples follow `seed` as `#dtf.random_normal`'s do: equal in
    distribution to TensorFlow's, not bit-equal.

    ```mlir
    %w = dtf.variable "rnn/kernel" init(#dtf.orthogonal<gain = 1.0, seed = 7>)
        : !dtf.resource<tensor<128x128xf32>>
    ```
  }];
  let parameters = (ins DTF_F64Parameter<"gain", "1.0">:$gain,
                        "int64_t":$seed);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_DenseInitAttr : DTF_Attr<"DenseInit", "dense_init"> {
  let summary = "initializes a variable with given element values";
  let description = [{
    The variable starts as `value`, whose type is the variable's: the
    initial value of a TensorFlow variable that is a constant of differing
    elements (a numpy array, `tf.constant_initializer` of an array). A
    variable split into shards by rows gets its rows of `value` in each
    shard.

    ```mlir
    %b = dtf.variable "b" init(#dtf.dense_init<dense<[0.5, -1.0]> : tensor<2xf32>>)
        : !dtf.resource<tensor<2xf32>>
    ```
  }];
  let parameters = (ins "::mlir::DenseElementsAttr":$value);
  let assemblyFormat = "`<` $value `>`";
  let genVerifyDecl = 1;
}

def DTF_InitializerAttr : AnyAttrOf<[DTF_ZerosInitAttr, DTF_ConstantInitAttr,
                                     DTF_TruncatedNormalInitAttr,
                                     DTF_RandomNormalInitAttr,
                                     DTF_RandomUniformInitAttr,
                                     DTF_OrthogonalInitAttr,
                                     DTF_DenseInitAttr]>;

//===----------------------------------------------------------------------===//
// Learning-rate schedules
//
// TensorFlow's `tf.compat.v1.train.*_decay`: the learning rate as a function
// of the global step. An optimizer carries one as its `schedule`, which
// starts from the optimizer's `learning_rate`; each update evaluates it at
// the global step its gradients were computed at (the step a worker's push
// carries, as TensorFlow computes the rate and the gradients in one session
// run), in float32 and in TensorFlow's order of operations
// (runtime/core/LearningRateSchedule.h).
//===----------------------------------------------------------------------===//

def DTF_ExponentialDecayAttr : DTF_Attr<"ExponentialDecay", "exponential_decay"> {
  let summary = "learning_rate * decay_rate ^ (step / decay_steps)";
  let description = [{
    `tf.compat.v1.train.exponential_decay`; with `staircase` the exponent is
    `floor(step / decay_steps)`, so the rate drops every `decay_steps`.

    ```mlir
    #dtf.momentum<learning_rate = 0.05, momentum = 0.9,
                  schedule = #dtf.exponential_decay<decay_steps = 1000, decay_rate = 0.9, staircase = true>>
    ```
  }];
  let parameters = (ins DTF_F64Parameter<"steps per decay">:$decay_steps,
                        DTF_F64Parameter<"factor per decay_steps">:$decay_rate,
                        DTF_BoolParameter<"whole decays only", "false">:$staircase);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_PolynomialDecayAttr : DTF_Attr<"PolynomialDecay", "polynomial_decay"> {
  let summary = "from learning_rate to end_learning_rate along (1 - t)^power";
  let description = [{
    `tf.compat.v1.train.polynomial_decay`:
    `(learning_rate - end_learning_rate) * (1 - step / decay_steps)^power +
     end_learning_rate`, with the step held at `decay_steps` after it; with
    `cycle`, `decay_steps` grows to the first multiple of itself at or above
    the step instead, so that the decay starts over.
  }];
  let parameters = (ins DTF_F64Parameter<"steps to the end rate">:$decay_steps,
                        DTF_F64Parameter<"rate at the end", "0.0001">:$end_learning_rate,
                        DTF_F64Parameter<"power of the polynomial", "1.0">:$power,
                        DTF_BoolParameter<"start over after decay_steps", "false">:$cycle);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_CosineDecayAttr : DTF_Attr<"CosineDecay", "cosine_decay"> {
  let summary = "a half cosine from learning_rate down to alpha * learning_rate";
  let description = [{
    `tf.compat.v1.train.cosine_decay` (Loshchilov and Hutter's SGDR without
    restarts): `learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * t)) +
    alpha)` with `t = min(step, decay_steps) / decay_steps`.
  }];
  let parameters = (ins DTF_F64Parameter<"steps of the half cosine">:$decay_steps,
                        DTF_F64Parameter<"final fraction of the rate", "0.0">:$alpha);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_PiecewiseConstantAttr
    : DTF_Attr<"PiecewiseConstant", "piecewise_constant"> {
  let summary = "values[i] from step boundaries[i - 1] + 1 to boundaries[i]";
  let description = [{
    `tf.compat.v1.train.piecewise_constant`: `values[0]` up to and including
    step `boundaries[0]`, `values[1]` after it up to `boundaries[1]`, and so
    on; the last value after the last boundary. The optimizer's
    `learning_rate` must be `values[0]`, the rate the schedule starts at.

    ```mlir
    #dtf.sgd<learning_rate = 0.1,
             schedule = #dtf.piecewise_constant<boundaries = [1000, 2000],
                                                values = [0.1, 0.01, 0.001]>>
    ```
  }];
  let parameters = (ins DTF_DenseArrayParameter<"DenseI64ArrayAttr", "the last step of each value but the last">:$boundaries,
                        DTF_DenseArrayParameter<"DenseF64ArrayAttr", "the learning rates">:$values);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_LearningRateScheduleAttr
    : AnyAttrOf<[DTF_ExponentialDecayAttr, DTF_PolynomialDecayAttr,
                 DTF_CosineDecayAttr, DTF_PiecewiseConstantAttr]>;

// An optimizer's optional learning-rate schedule (one of
// DTF_LearningRateScheduleAttr, checked by the optimizer's verifier).
def DTF_ScheduleParameter
    : OptionalParameter<"::mlir::Attribute",
                        "learning-rate schedule from the global step">;

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

def DTF_SGDAttr : DTF_Attr<"SGD", "sgd"> {
  let summary = "plain gradient descent: var -= learning_rate * grad";
  let parameters = (ins DTF_F64Parameter<"learning rate">:$learning_rate,
                        DTF_ScheduleParameter:$schedule);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_MomentumAttr : DTF_Attr<"Momentum", "momentum"> {
  let summary = "gradient descent with momentum (optionally Nesterov)";
  let parameters = (ins DTF_F64Parameter<"learning rate">:$learning_rate,
                        DTF_F64Parameter<"momentum">:$momentum,
                        DTF_BoolParameter<"Nesterov momentum", "false">:$use_nesterov,
                        DTF_ScheduleParameter:$schedule);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_AdamAttr : DTF_Attr<"Adam", "adam"> {
  let summary = "Adam, with TensorFlow's AdamOptimizer defaults";
  let parameters = (ins DTF_F64Parameter<"learning rate", "0.001">:$learning_rate,
                        DTF_F64Parameter<"beta1", "0.9">:$beta1,
                        DTF_F64Parameter<"beta2", "0.999">:$beta2,
                        DTF_F64Parameter<"epsilon", "1e-08">:$epsilon,
                        DTF_ScheduleParameter:$schedule);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_AdagradAttr : DTF_Attr<"Adagrad", "adagrad"> {
  let summary = "Adagrad, as TensorFlow's AdagradOptimizer";
  let description = [{
    `accum += grad^2; var -= learning_rate * grad / sqrt(accum)`, with every
    accumulator starting at `initial_accumulator_value` (TensorFlow's
    default 0.1). The usual optimizer of embedding tables: its sparse update
    touches the looked-up rows and their accumulators only.
  }];
  let parameters = (ins DTF_F64Parameter<"learning rate">:$learning_rate,
                        DTF_F64Parameter<"initial accumulator value", "0.1">:$initial_accumulator_value,
                        DTF_ScheduleParameter:$schedule);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_FtrlAttr : DTF_Attr<"Ftrl", "ftrl"> {
  let summary = "FTRL-Proximal, as TensorFlow's FtrlOptimizer";
  let description = [{
    McMahan et al.'s Follow-The-Regularized-Leader with L1 and L2
    regularization (TensorFlow's ApplyFtrlV2): per coordinate an
    accumulator of squared gradients (starting at
    `initial_accumulator_value`) and a linear term (starting at 0) from
    which the weight is computed in closed form, 0 while `|linear| <= l1`:
    the sparse models of the wide part of Wide & Deep. `l2_shrinkage`
    shrinks the weights towards 0 in the gradient (FtrlOptimizer's
    `l2_shrinkage_regularization_strength`).
  }];
  let parameters = (ins DTF_F64Parameter<"learning rate">:$learning_rate,
                        DTF_F64Parameter<"learning rate power", "-0.5">:$learning_rate_power,
                        DTF_F64Parameter<"initial accumulator value", "0.1">:$initial_accumulator_value,
                        DTF_F64Parameter<"L1 regularization", "0.0">:$l1,
                        DTF_F64Parameter<"L2 regularization", "0.0">:$l2,
                        DTF_F64Parameter<"L2 shrinkage", "0.0">:$l2_shrinkage,
                        DTF_ScheduleParameter:$schedule);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_RMSPropAttr : DTF_Attr<"RMSProp", "rmsprop"> {
  let summary = "RMSProp, as TensorFlow 1's RMSPropOptimizer";
  let description = [{
    Per element, a decaying mean of squared gradients `ms` and a momentum
    accumulator `mom`:
    `ms = decay * ms + (1 - decay) * grad^2;
     mom = momentum * mom + learning_rate * grad / sqrt(ms + epsilon);
     var -= mom`.
    `centered` also keeps the mean gradient `mg` and divides by
    `sqrt(ms - mg^2 + epsilon)`, an estimate of the variance. As in
    TensorFlow 1, `ms` starts at 1 (Keras's RMSprop starts it at 0), `mom`
    and `mg` at 0; the slots are named `<var>/RMSProp`, then `mg`
    (centered) and `mom` as `<var>/RMSProp_1`, `<var>/RMSProp_2`.
  }];
  let parameters = (ins DTF_F64Parameter<"learning rate">:$learning_rate,
                        DTF_F64Parameter<"decay", "0.9">:$decay,
                        DTF_F64Parameter<"momentum", "0.0">:$momentum,
                        DTF_F64Parameter<"epsilon", "1e-10">:$epsilon,
                        DTF_BoolParameter<"centered", "false">:$centered,
                        DTF_ScheduleParameter:$schedule);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_AdadeltaAttr : DTF_Attr<"Adadelta", "adadelta"> {
  let summary = "Adadelta, as TensorFlow 1's AdadeltaOptimizer";
  let description = [{
    Per element, decaying means of squared gradients `accum` and of squared
    updates `accum_update`, both starting at 0:
    `accum = rho * accum + (1 - rho) * grad^2;
     update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad;
     var -= learning_rate * update;
     accum_update = rho * accum_update + (1 - rho) * update^2`.
    The slots are named `<var>/Adadelta` (accum) and `<var>/Adadelta_1`
    (accum_update). TensorFlow's defaults are a learning rate of 0.001,
    `rho` 0.95 and `epsilon` 1e-8 (Zeiler's paper uses a learning rate of
    1).
  }];
  let parameters = (ins DTF_F64Parameter<"learning rate">:$learning_rate,
                        DTF_F64Parameter<"rho", "0.95">:$rho,
                        DTF_F64Parameter<"epsilon", "1e-8">:$epsilon,
                        DTF_ScheduleParameter:$schedule);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def DTF_OptimizerAttr : AnyAttrOf<[DTF_SGDAttr, DTF_MomentumAttr, DTF_AdamAttr,
                                   DTF_AdagradAttr, DTF_FtrlAttr,
                                   DTF_RMSPropAttr, DTF_AdadeltaAttr]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def DTF_Padding : I32EnumAttr<"Padding", "TensorFlow window padding", [
    I32EnumAttrCase<"SAME", 0>,
    I32EnumAttrCase<"VALID", 1>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dtf::ir";
}

def DTF_PaddingAttr : EnumAttr<DTF_Dialect, DTF_Padding, "padding">;

def DTF_Combiner : I32EnumAttr<"Combiner",
    "how embedding_combine reduces the rows of one example", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"mean", 1>,
    I32EnumAttrCase<"sqrtn", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dtf::ir";
}

def DTF_CombinerAttr : EnumAttr<DTF_Dialect, DTF_Combiner, "combiner">;

#endif // DTF_IR_DTFATTRS_TD
