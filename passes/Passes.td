//===- Passes.td - dtf transformation passes ---------------*- tablegen -*-===//
//
// Every dtf pass is declared here, one `def` each, in the order a training
// graph goes through them. `Passes.h` exposes the generated constructors,
// option structs and `registerDTFPasses()`; each pass is implemented in its
// own .cpp file of the DTFTransforms library.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_PASSES_PASSES_TD
#define DTF_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

def SpecializeBatchPass : Pass<"dtf-specialize-batch", "func::FuncOp"> {
  let summary = "Give a model's dynamic batch dimension a size";
  let description = [{
    A model may leave the batch dimension of its placeholders dynamic
    (`tensor<?x784xf32>`), as TensorFlow's `tf.placeholder(shape=[None,
    784])` does, so that one model trains with any batch size. DTF compiles
    a model for one batch size, as XLA compiles a graph for one set of
    shapes: the kernels, the gradients' broadcasts and reductions, the
    towers' slices and the transfers between devices are all planned for
    static shapes. This pass is that specialization, the first pass of both
    training pipelines when they are given `batch-size`.

    Dimension 0 of every placeholder that leaves it dynamic becomes
    `batch-size`; then each op's result types are inferred again from its
    new operand types, in order (ops with `InferTypeOpInterface`, ops whose
    result has their operand's type, `dtf.cast`, a `dtf.reshape` whose
    one dynamic dimension follows from its input's element count, and a
    `dtf.broadcast_to` whose dynamic dimensions, computed from a batch's
    shape as `tf.fill` and `tf.zeros` compute them, are the batch), and the
    function's result types follow its `return`.

    Errors: `batch-size` not positive; a placeholder with a dynamic
    dimension other than 0; a value whose shape stays dynamic (an op whose
    result type cannot be inferred), named by the op that produces it.
  }];
  let options = [
    Option<"batchSize", "batch-size", "int64_t", /*default=*/"0",
           "The size of the batch dimension; must be positive (default: "
           "0, none)">,
  ];
  let statistics = [
    Statistic<"numSpecializedPlaceholders", "specialized-placeholders",
              "Number of placeholders given the batch size">,
  ];
  let dependentDialects = ["::dtf::ir::DTFDialect"];
}

def AutodiffPass : Pass<"dtf-autodiff", "func::FuncOp"> {
  let summary = "Replace dtf.minimize with its gradients and apply_gradients";
  let description = [{
    Reverse-mode automatic differentiation, the first half of TensorFlow's
    `optimizer.minimize(loss, global_step)` (`compute_gradients`). Each
    `dtf.minimize %loss` becomes the backward pass of `%loss` with respect
    to every trainable `dtf.variable` that `%loss` depends on through
    differentiable ops, followed by

    ```mlir
    dtf.apply_gradients <optimizer> (vars...) grads(grads...) [global_step]
    ```

    with the variables in creation order. The backward pass starts from a
    constant 1 of the loss type and visits the ops of the loss's backward
    slice in reverse order; the gradients of a value with several uses, and
    of a variable read several times, are summed with `dtf.add`. Gradient
    formulas are TensorFlow's (`math_grad.py`, `nn_grad.py`,
    `array_grad.py`): e.g. `relu` uses `relu_grad` of the relu input,
    `softmax` uses `softmax_grad` of the softmax output, and broadcasting
    binary ops reduce the incoming gradient back to each operand's shape.

    Paths through non-float values (`argmax`, `equal`, `cast` to an integer
    type) carry no gradient and are cut; placeholders, constants and
    non-trainable variables are leaves. Only the operands that lead to a
    trainable variable get gradient ops, so no dead op is emitted.

    The pass fails with an error naming the op when the loss depends on a
    trainable variable through an op without a gradient rule, when the
    labels of `softmax_cross_entropy_with_logits` depend on a trainable
    variable, and when the loss depends on no trainable variable at all.

    With `colocate-gradients-with-ops` (TensorFlow's
    `colocate_gradients_with_ops=True`), the gradient ops of a forward op
    that carries a `dtf.device` get the same device, and so does the
    constant 1 the backward pass starts from (the loss's device), so that a
    model pinned layer by layer to several devices also runs its backward
    pass there instead of on one device.
  }];
  let options = [
    Option<"colocateGradientsWithOps", "colocate-gradients-with-ops", "bool",
           /*default=*/"false",
           "Place each op's gradient ops on the op's dtf.device">,
  ];
  let dependentDialects = ["::dtf::ir::DTFDialect"];
}

def ExpandOptimizerPass : Pass<"dtf-expand-optimizer", "func::FuncOp"> {
  let summary = "Expand dtf.apply_gradients into the optimizer's update ops";
  let description = [{
    The second half of TensorFlow's `minimize` (`apply_gradients`): each
    `dtf.apply_gradients` becomes the optimizer's fused update ops, its slot
    variables and the global-step increment.

    - `#dtf.sgd`: `dtf.apply_gradient_descent` per variable.
    - `#dtf.momentum`: a zero-initialized, non-trainable slot
      `<var>/Momentum` per variable and `dtf.apply_momentum`.
    - `#dtf.adam`: slots `<var>/Adam` (m) and `<var>/Adam_1` (v), the
      non-slot scalars `beta1_power` and `beta2_power` (initialized to beta1
      and beta2, colocated with the variable whose name sorts first, as
      TensorFlow's AdamOptimizer does), `dtf.apply_adam` per variable, then
      `beta1_power *= beta1` and `beta2_power *= beta2`.

    Slot variables are created right after their variable; names already
    taken get TensorFlow's `_N` suffix. Every new variable names the
    variable it is colocated with in `colocate_with` (TensorFlow's
    `loc:@var`), so that `--dtf-place-variables` keeps it there. New
    variables, and the update ops, inherit the `dtf.device` of the variable
    they are colocated with. The
    global step, when given, is incremented by one after all updates.

    A variable whose `dtf.variable` carries `dtf.optimizer` is updated by
    that optimizer instead (DNNLinearCombinedClassifier's FTRL for the
    linear part beside Adagrad for the DNN): the apply is first split into
    one per optimizer, the global step incremented after the last.
  }];
  let dependentDialects = ["::dtf::ir::DTFDialect"];
}

//===----------------------------------------------------------------------===//
// Distribution
//===----------------------------------------------------------------------===//

def PlaceVariablesPass : Pass<"dtf-place-variables", "ModuleOp"> {
  let summary = "Put variables on PS tasks and everything else on a worker";
  let description = [{
    TensorFlow's `tf.train.replica_device_setter` for the module's cluster
    (`dtf.cluster`): every `dtf.variable` gets a `dtf.device` naming a PS
    task, and every other op of a function one device.

    - `strategy=round-robin` (the default) hands out PS tasks in variable
      creation order: over two PS tasks the MLP's `global_step`, `hid_w`,
      `hid_b`, `sm_w`, `sm_b` land on ps0, ps1, ps0, ps1, ps0.
      `strategy=greedy-bytes` puts each variable, weighed with the
      variables colocated with it, on the PS task holding the fewest bytes
      so far (ties to the lowest index), as TensorFlow's
      `GreedyLoadBalancingStrategy` with `byte_size_load_fn`.
    - A variable with `colocate_with` goes to the device of its target
      (following chains) and does not advance the round-robin; its bytes
      count towards the load of that task. Optimizer slots therefore stay
      beside their variable.
    - A variable that already has a `dtf.device` keeps it, and so does
      everything colocated with it; such variables are never sharded.
    - Ops that read or write a variable through its handle (`dtf.read`,
      `dtf.assign`, `dtf.assign_add`, the `dtf.apply_*` updates) go to the
      variable's device, as TensorFlow colocates them; every other op
      without a device gets `worker-device`. Ops that have a device keep it.

    Sharding, as `tf.min_max_variable_partitioner`: a variable of rank >= 1
    bigger than `min-shard-bytes` is split along dimension 0 into
    `k = min(max-shards, ceil(bytes / min-shard-bytes), dim0)` variables
    `<name>/part_<i>` (the first `dim0 % k` shards get one extra row), each
    placed by the strategy on the next PS task. Variables colocated with it
    that have its type (the optimizer slots) are split the same way, shard
    `i` beside shard `i`. Every `dtf.read` of a sharded variable becomes the
    reads of its shards joined by a `dtf.concat` on the worker, and every
    update (`dtf.assign`, `dtf.assign_add`, `dtf.apply_*`) one update per
    shard of the matching `dtf.slice` of the new value or gradient, sliced
    where that value is computed. A randomly initialized shard `i` gets the
    seed `(seed + 1) * 2^20 + i`, so that shards are not copies of one
    sample stream. Another use of a sharded variable is an error.
    `max-shard-bytes` bounds the size of one shard: a variable above it is
    split into as many shards as that takes, and the pass fails when
    `max-shards` or the size of dimension 0 does not allow it.

    The pass fails, before changing anything, when the module has no
    `dtf.cluster` or the cluster no PS task, when `worker-device` is
    malformed or not in the cluster, on an unknown `strategy`, when
    colocated variables are pinned to different devices, when an op touches
    variables on two devices, and on the sharding errors above.
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"round-robin\"",
           "How to choose the PS task of a variable: 'round-robin' (in "
           "creation order) or 'greedy-bytes' (least bytes so far) "
           "(default: round-robin)">,
    Option<"workerDevice", "worker-device", "std::string",
           /*default=*/"\"/job:worker/task:0\"",
           "Device of the ops that neither have a device nor touch a "
           "variable (default: /job:worker/task:0)">,
    Option<"minShardBytes", "min-shard-bytes", "int64_t", /*default=*/"0",
           "Split variables bigger than this into shards of at least this "
           "size (default: 0, never)">,
    Option<"maxShards", "max-shards", "int64_t", /*default=*/"0",
           "Most shards of one variable (default: 0, the number of PS "
           "tasks)">,
    Option<"maxShardBytes", "max-shard-bytes", "int64_t", /*default=*/"0",
           "Largest allowed shard; bigger variables are split further "
           "(default: 0, no limit)">,
  ];
  let statistics = [
    Statistic<"numPlacedVariables", "placed-variables",
              "Number of variables put on a PS task">,
    Statistic<"numShardedVariables", "sharded-variables",
              "Number of variables split into shards">,
  ];
  let dependentDialects = ["::dtf::ir::DTFDialect"];
}

def ReplicateTowersPass : Pass<"dtf-replicate-towers", "ModuleOp"> {
  let summary = "Replicate a model placed on one device into towers";
  let description = [{
    In-graph data parallelism, TensorFlow's multi-tower pattern
    (cifar10_multi_gpu_train.py): a model written for one device runs as
    one tower per device of `devices`, each on its rows of the batch, and
    every variable is updated once per step with the towers' gradients
    combined. It runs after `--dtf-place-variables` and before
    `--dtf-partition`, on the module's one function, whose ops must all
    carry `dtf.device`: the variables, their reads and updates on PS tasks
    (`/job:ps/...`) and everything else on one other device D.

    - Tower ops are the ops on D that use a `dtf.placeholder` on D or the
      result of another tower op. Each is cloned once per tower `i`, in
      place, the clone on `devices[i]` with its result types derived from
      its operands (a reshape keeps dimension 0 batch-major, a broadcast
      keeps its input's dimensions); the originals are erased.
    - Placeholders stay on D, where the client feeds the batch. With N > 1
      towers, tower `i` uses `dtf.slice` of each placeholder, rows
      `[i*B/N, (i+1)*B/N)` of dimension 0, computed on D so that only its
      rows cross to the tower's device.
    - The other ops on D (constants, Adam's beta-power products, the
      global-step increment) are computed once, on `devices[0]`. Those of
      their results that a tower uses and whose dimension 0 is a batch
      size B (the loss gradient's seed, broadcast to the batch's shape) are
      sliced for each tower like the batch, on `devices[0]`.
    - The gradient operand of each `dtf.apply_*` update becomes the sum of
      the towers' gradients (`dtf.add`), on the update's device (the PS
      task). The backward pass was built for the whole batch (its
      constants, such as the 1/B of a `reduce_mean` loss, are shared), so
      each tower's gradient is its rows' share of the whole batch's
      gradient and their sum is the gradient of the unreplicated graph.
      Any other operand of a non-tower op that has per-tower versions (a
      value assigned to a variable that depends on the batch) takes tower
      0's version, as TensorFlow takes the update ops of one tower.
    - The function's results with per-tower versions are the mean of the
      towers' versions (their sum times a constant 1/N), computed on
      `devices[0]`, when they are floating-point tensors, and tower 0's
      version otherwise.
    - A value whose towers' versions have another type than it (a row per
      example: logits, predictions), used by a result or a non-tower op, is
      instead the towers' versions joined along dimension 0 by
      `dtf.concat`, on `devices[0]` for a result and on the user's device
      otherwise.

    With one tower nothing is sliced or combined: `devices=D` gives back
    the input, and one tower on another device moves the tower ops there.

    Errors, before anything changes: no `devices`, or a malformed,
    repeated, PS or out-of-cluster one; not exactly one function, or one
    with several blocks; an op without `dtf.device` (run
    `--dtf-place-variables` first); ops on two devices other than PS tasks
    (the model is already split over devices); a `dtf.minimize` or
    `dtf.apply_gradients` left; no placeholder on D feeding an op there;
    with N > 1, a placeholder feeding the towers that is a scalar, has a
    dynamic dimension 0, or whose dimension 0 N does not divide. While
    cloning, a tower op whose result types cannot be derived for its
    smaller batch is an error.
  }];
  let options = [
    ListOption<"devices", "devices", "std::string",
               "Device of each tower, comma-separated (default: none; "
               "required)">,
  ];
  let statistics = [
    Statistic<"numTowers", "towers", "Number of towers">,
    Statistic<"numClonedOps", "cloned-ops",
              "Number of tower ops created (clones of the model's ops)">,
    Statistic<"numSummedGradients", "summed-gradients",
              "Number of gradients replaced by the sum over the towers">,
  ];
  let dependentDialects = ["::dtf::ir::DTFDialect"];
}

def AddEvalFunctionPass : Pass<"dtf-add-eval-function", "ModuleOp"> {
  let summary = "Add a forward-only copy of a placed training function";
  let description = [{
    The validation graph of an in-graph training job, sharing the training
    graph's placement: `@<function>_eval`, a clone of `@<function>` placed
    right after it, where every op that writes a variable through its
    handle (`dtf.assign`, `dtf.assign_add`, the `dtf.apply_*` updates) is
    erased, then every op without side effects whose results are unused
    (the backward pass, the optimizer's constants, unused reads,
    placeholders and variable declarations). The function's results are
    kept, so the clone computes them from the variables without changing
    them. Each `dtf.learning_phase` becomes a constant: true in
    `@<function>`, false in `@<function>_eval`.

    Runs after placement (and `--dtf-replicate-towers`) and before
    `--dtf-partition`, which partitions both functions into
    `@<function>_<device>` and `@<function>_eval_<device>`, numbering the
    transfers of the whole module so that their rendezvous keys differ.

    Without `function`, the module's only function is copied, whatever its
    name: a model is one function.

    Errors: no `function` given and not exactly one function in the module;
    no function `@<function>`; `@<function>_eval` exists already; a
    `dtf.minimize` or `dtf.apply_gradients` left (run `--dtf-autodiff` and
    `--dtf-expand-optimizer` first).
  }];
  let options = [
    Option<"functionName", "function", "std::string", /*default=*/"\"\"",
           "The training function to copy (default: the module's only "
           "function)">,
  ];
  let statistics = [
    Statistic<"numErasedUpdates", "erased-updates",
              "Number of variable updates left out of the eval function">,
    Statistic<"numErasedDeadOps", "erased-dead-ops",
              "Number of unused ops left out of the eval function">,
  ];
}

def PrintPlacementPass : Pass<"dtf-print-placement", "ModuleOp"> {
  let summary = "Print the variables of each PS task and their bytes";
  let description = [{
    Prints to stdout a table of the module's variables grouped by device:
    every PS task of the cluster (also the empty ones), then any other
    device holding variables, then the unplaced ones; each row gives the
    variable's name, type and bytes, each device its total. The IR is left
    unchanged.

    ```
    PS placement: 2 PS tasks, 5 variables, 318048 bytes
    /job:ps/task:0: 3 variables, 448 bytes
      global_step  tensor<i64>  8
      ...
    ```
  }];
}

def PartitionPass : Pass<"dtf-partition", "ModuleOp"> {
  let summary = "Split each placed function into one function per device";
  let description = [{
    TensorFlow's graph partitioning, in graph: every `func.func` whose ops
    carry `dtf.device` is replaced by one function per device, named
    `@<fn>_<job>_<task>[_<type>_<index>]` (e.g. `@main_ps_0`) with the
    function attribute `dtf.device`. Each partition holds the ops of its
    device in their original order. Every edge between devices becomes a
    `dtf.send` in the producer's partition, right after the producer, and a
    `dtf.recv` in the consumer's, right before the first consumer there:
    exactly one transfer per value and destination device, however many ops
    there use it. Its rendezvous key is (source device, destination device,
    tensor name) with the tensor name `edge_<n>_<producer op name>`, `n`
    numbering the transferred values of the module, so that no two
    transfers of the module share a key.

    Functions that carry `dtf.device` themselves are partitions already and
    are left alone, so running the pass twice changes nothing.

    The partition of `client-device` keeps the function's arguments and
    returns its results, receiving the values computed elsewhere; the other
    partitions take no arguments and return nothing.

    Deadlock freedom: sends never block (the rendezvous buffers tensors, as
    TensorFlow's), so only a recv can wait. Every partition runs its ops in
    the order of one global sequence, the original topological order with
    each send right after its producer and each recv right before its first
    consumer, so the send of every recv comes earlier in that sequence.
    Take the earliest op of the sequence that never completes: it can only
    be a recv, and its send, being earlier, completed and buffered the
    tensor, so the recv completes too. Hence every op completes: the cut
    graph (program order within partitions plus send-to-recv edges) is
    acyclic, and no set of partitions can wait on each other.

    Errors: an op without `dtf.device` (run `--dtf-place-variables` first,
    or give `default-device`); a `!dtf.resource` handle, or any other
    non-tensor value, used on another device than its producer's (a
    variable is only touched where it lives); a function that is called
    (its callers would need every partition).
  }];
  let options = [
    Option<"clientDevice", "client-device", "std::string",
           /*default=*/"\"/job:worker/task:0\"",
           "Device whose partition takes the arguments and returns the "
           "results (default: /job:worker/task:0)">,
    Option<"defaultDevice", "default-device", "std::string",
           /*default=*/"\"\"",
           "Device of the ops without dtf.device (default: none, such ops "
           "are an error)">,
  ];
  let statistics = [
    Statistic<"numPartitions", "partitions", "Number of partitions created">,
    Statistic<"numTransfers", "transfers",
              "Number of send/recv pairs inserted">,
  ];
  let dependentDialects = ["::dtf::ir::DTFDialect",
                           "::mlir::func::FuncDialect"];
}

def VerifyPartitionsPass : Pass<"dtf-verify-partitions", "ModuleOp"> {
  let summary = "Check that partitions only talk through matched send/recv";
  let description = [{
    Checks the output of `--dtf-partition` (or hand-written partitions):
    in every function carrying `dtf.device`,

    - every op is on that device (no `dtf.device` or the same one), and so
      is the producer of each of its operands, also inside regions: no
      cross-device use is left without a transfer;
    - every `dtf.send` is sent from, and every `dtf.recv` received on, that
      device;
    - every rendezvous key (send device, recv device, tensor name) is used by
      exactly one send and one recv, of the same tensor type;
    - the transfers cannot deadlock: the graph of program order within each
      partition plus the edges from each send to its recv is acyclic (sends
      never block, so a cycle is the only way for recvs to wait forever).
  }];
}

def DumpPartitionsPass : Pass<"dtf-dump-partitions", "ModuleOp"> {
  let summary = "Write each partition (.mlir) and a Graphviz DOT of them to =DIR";
  let description = [{
    For people looking at what `--dtf-partition` did: writes into the
    directory `dir` (created with its parents)

    - `<function>.mlir` for every partition, i.e. every function carrying
      `dtf.device` (e.g. `main_ps_0.mlir`): a module holding the module's
      attributes (its `dtf.cluster`) and that function alone, which
      `dtf-opt` parses and `--dtf-verify-partitions` accepts;
    - `partitions.dot`: the partitioned graph for Graphviz, one cluster per
      device (PS tasks blue, workers green), a node per op (variables and
      placeholders named, `dtf.send`/`dtf.recv` in red), a black edge per
      use of a value on its own device, a dashed edge per use of a variable
      handle, and a bold red edge from each `dtf.send` to its `dtf.recv`,
      labelled with the tensor name and type: the cross-device edges.

    ```sh
    dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables \
        --dtf-partition --dtf-dump-partitions=parts -o /dev/null \
        examples/model_parallel_mlp.mlir
    dot -Tpng parts/partitions.dot -o partitions.png
    ```

    `--dtf-dump-partitions=DIR` is short for `--dtf-dump-partitions=dir=DIR`.
    The IR is left unchanged. Errors: no `dir`; a directory or file that
    cannot be written; a module without partitions (run `--dtf-partition`
    first); a `dtf.recv` without its `dtf.send` in the module.
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"\"\"",
           "Directory to write the partitions and partitions.dot into "
           "(default: none; required)">,
  ];
  let statistics = [
    Statistic<"numDumpedPartitions", "dumped-partitions",
              "Number of partitions written">,
    Statistic<"numDrawnTransfers", "drawn-transfers",
              "Number of send/recv pairs drawn as cross-device edges">,
  ];
}

//===----------------------------------------------------------------------===//
// Replication
//===----------------------------------------------------------------------===//

def ReplicatePass : Pass<"dtf-replicate", "ModuleOp"> {
  let summary = "Split a placed training graph into worker and PS programs";
  let description = [{
    TensorFlow's between-graph replication. The module's one training
    function, placed (variables on PS tasks, `--dtf-place-variables`) and
    with its optimizer expanded (`--dtf-expand-optimizer`), is replaced by
    the programs of runtime/ABI.md:

    - `@worker`, which every worker task runs on its own shard of the data:
      each variable it reads is pulled once (`dtf.pull`), the forward and
      backward pass run as in the training function, and the gradients that
      fed the `dtf.apply_*` updates are pushed (`dtf.push_gradients`), one
      push per PS task whose function updates anything, tagged with the
      global step pulled at the start of the step (a constant 0 in async
      mode when there is no global step). It returns the function's
      results and carries no device.
    - `@ps_<task>` for every PS task holding variables, with the function
      attributes `dtf.device` and `dtf.gradients`: the task's variables, the
      averaging of the replicas' gradients (sync mode: their sum times
      1/replicas-to-aggregate), the task's updates in program order, with
      the ops computing what they write from PS state (Adam's beta-power
      products, the global-step increment). Its arguments are the
      replicas' gradients of the variables of `dtf.gradients`, replica by
      replica. State that an update of this task reads from another task
      and that gets no gradient (Adam's `beta1_power` and `beta2_power`) is
      copied into this task with its updates, so that each PS touches only
      its own variables.

    The module gets `dtf.replication = #dtf.replication<mode = ...,
    replicas_to_aggregate = N, total_replicas = M>`.

    The global step is the scalar integer variable incremented by
    `dtf.assign_add`. Mode `sync` needs one: it tags pushes so that PS tasks
    can drop stale gradients.

    Errors: no `dtf.cluster` or no PS task in it; not exactly one function,
    or one with several blocks or with arguments; no gradient update to
    replicate, or a `dtf.minimize`/`dtf.apply_gradients` left; a variable
    not on a PS task; ops placed on several worker tasks; an update writing
    variables of two tasks; two gradient updates of one variable; a value
    written to a PS variable that depends on a placeholder; an update that
    needs the state of another task that gets gradients; an op with side
    effects the pass cannot place, or one that is on neither program's
    path; replica counts out of range; sync mode without a global step.
  }];
  let options = [
    Option<"mode", "mode", "::dtf::ir::ReplicationMode",
           /*default=*/"::dtf::ir::ReplicationMode::Async",
           "How PS tasks apply pushed gradients (default: async)",
           [{::llvm::cl::values(
             clEnumValN(::dtf::ir::ReplicationMode::Async, "async",
                        "apply each push at once (Hogwild)"),
             clEnumValN(::dtf::ir::ReplicationMode::Sync, "sync",
                        "average replicas-to-aggregate pushes of a step, "
                        "apply them once (SyncReplicasOptimizer)"))}]>,
    Option<"replicasToAggregate", "replicas-to-aggregate", "int64_t",
           /*default=*/"0",
           "Replicas whose gradients make one update (default: 0, the "
           "number of worker tasks)">,
    Option<"totalReplicas", "total-replicas", "int64_t", /*default=*/"0",
           "Replicas that run; the gradients of the late ones are dropped "
           "(default: 0, replicas-to-aggregate)">,
  ];
  let statistics = [
    Statistic<"numPulls", "pulls", "Number of variables a worker pulls">,
    Statistic<"numPushedGradients", "pushed-gradients",
              "Number of gradients a worker pushes">,
    Statistic<"numCopiedVariables", "copied-variables",
              "Number of variables copied to another PS task">,
  ];
  let dependentDialects = ["::dtf::ir::DTFDialect",
                           "::mlir::func::FuncDialect"];
}

//===----------------------------------------------------------------------===//
// GPU lowering
//
// `--dtf-lower-to-gpu` (LowerToGPU.cpp) runs these passes around upstream
// ones; runtime/ABI.md ("GPU") is the contract of its output.
//===----------------------------------------------------------------------===//

def LiftPsTransfersPass : Pass<"dtf-lift-ps-transfers", "ModuleOp"> {
  let summary = "Turn a replica's pulls into feeds and its pushes into "
                "results";
  let description = [{
    The worker's program after `--dtf-replicate` talks to PS tasks itself
    (`dtf.pull`, `dtf.push_gradients`). A worker's runtime rather batches a
    step's transfers into one RPC per PS task around the step; this pass
    makes the replica function (`@worker`) an ordinary step of tensors for
    it:

    - `dtf.pull "v" from D` becomes `dtf.placeholder "^pull/v"` with
      `dtf.pulled_from = D` (the `^` keeps it apart from the model's
      placeholders);
    - each `dtf.push_gradients` is erased, and its step and gradients are
      appended to the function's results, push after push; the function
      gets `dtf.pushes`, one `{device, names}` dictionary per push in that
      order, and `dtf.model_results`, the number of results before them.

    A validation step fetches the first `dtf.model_results` results only,
    which skips the backward pass. Fails when the function is missing or
    has more than one block.
  }];
  let options = [
    Option<"functionName", "function", "std::string", /*default=*/"\"worker\"",
           "The replica function to rewrite (default: worker)">,
  ];
  let dependentDialects = ["::dtf::ir::DTFDialect"];
}

def LiftGraphInputsPass : Pass<"dtf-lift-graph-inputs", "ModuleOp"> {
  let summary = "Turn feeds, variable reads and gradients into function "
                "arguments and results";
  let description = [{
    The first step of lowering a worker's computation to a device: what a
    graph takes from the host becomes a function argument and what it sends
    back a function result, so that everything left is pure tensor math.
    This is where TensorFlow's partitioner puts `_Recv` and `_Send` ops
    between a GPU and the CPU.

    - `dtf.placeholder "x"` becomes an argument `{dtf.feed = "x"}`;
    - `dtf.read` of `dtf.variable "w"` becomes an argument
      `{dtf.variable = "w"}` (one per variable, however often it is read);
    - `dtf.apply_gradients` becomes results `{dtf.gradient = "w"}` appended
      after the function's own results, one per variable, in its order; its
      optimizer is recorded on the function as `dtf.optimizer`, for the
      parameter server that applies it.

    New arguments come after the existing ones, in program order, and are
    marked `bufferization.writable = false`: the device program never writes
    the buffers the runtime hands it. Variables that are only read are
    erased. A function that still updates a variable (`dtf.assign`,
    `dtf.apply_adam`, ...) or asks for a `dtf.minimize` cannot run on a
    device: the pass fails naming the op.
  }];
  let dependentDialects = ["::dtf::ir::DTFDialect"];
}

def ConvertDTFToCUDACallsPass : Pass<"dtf-convert-to-cuda-calls", "ModuleOp"> {
  let summary = "Lower matmul, convolution and pooling to cuBLAS/cuDNN calls";
  let description = [{
    Replaces the dtf ops that vendor libraries implement best with calls to
    the runtime's library functions (runtime/ABI.md, "GPU library calls"),
    declared in the module as `func.func private @dtf_cuda_*` with
    `llvm.emit_c_interface`:

    | dtf op | call |
    | --- | --- |
    | `matmul` | `@dtf_cuda_gemm_f32(a, b, c, transpose_a, transpose_b)` (cuBLAS) |
    | `conv2d` | `@dtf_cuda_conv2d_f32(x, w, y, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w)` |
    | `conv2d_backprop_input` | `@dtf_cuda_conv2d_backprop_input_f32(w, dy, dx, ...)` |
    | `conv2d_backprop_filter` | `@dtf_cuda_conv2d_backprop_filter_f32(x, dy, dw, ...)` |
    | `max_pool` | `@dtf_cuda_max_pool_f32(x, y, window_h, window_w, ...)` |
    | `max_pool_grad` | `@dtf_cuda_max_pool_grad_f32(x, y, dy, dx, ...)` |

    (cuDNN for all but matmul.) Operands are identity-layout memrefs of
    dynamic shape; the call writes its last memref operand, which the pass
    allocates. Tensors cross over with `bufferization.to_memref read_only`
    and `bufferization.to_tensor restrict writable`, which one-shot
    bufferization folds away.

    Filters are passed in cuDNN's OHWI (KRSC) layout: the pass transposes
    TensorFlow's HWIO with `linalg.transpose`. cuDNN pads symmetrically;
    where TensorFlow's SAME padding is not (the odd row or column goes to
    the bottom/right), the pass pads the input explicitly with `tensor.pad`
    (zeros for convolutions, -inf for pooling), calls the library with no
    padding and slices the input gradients back with `tensor.extract_slice`.

    Only static shapes and f32 are supported; anything else is an error
    naming the op.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ConvertDTFToLinalgPass : Pass<"dtf-convert-to-linalg", "func::FuncOp"> {
  let summary = "Lower dtf tensor math to linalg on tensors";
  let description = [{
    Lowers the remaining dtf ops of a function to `linalg.generic` (and
    `linalg.fill`, `tensor.empty`, `tensor.collapse_shape`/`expand_shape`)
    with `arith` and `math` bodies, in TensorFlow's semantics, as the CPU
    kernels of dtf_runtime compute them:

    - elementwise ops (`add`, `sub`, `mul`, `div`, `equal`, `neg`, `relu`,
      `log`, `clip_by_value`, `cast`, `bias_add`, the elementwise gradients
      and `broadcast_to`) become one all-parallel generic each; NumPy
      broadcasting is a projected or constant indexing map;
    - reductions (`reduce_sum`, `reduce_mean`, `bias_add_grad`, `argmax`)
      put the kept dimensions first as parallel iterators and the reduced
      ones last, so loops over the result are parallel and the reduction is
      sequential within each result element; f32 sums accumulate in f64, as
      the CPU kernels do. A reduction to a scalar keeps one unit parallel
      dimension and reshapes it away, so that it still maps to a GPU thread;
    - `softmax`, `softmax_grad` and the softmax cross-entropy and its
      gradient are row reductions (max, sum of exp) followed by an
      elementwise generic;
    - `reshape` is a collapse to one dimension and an expansion;
      `constant` is `arith.constant`.

    The pass expects `--dtf-lift-graph-inputs` and
    `--dtf-convert-to-cuda-calls` to have run; it fails on any dtf op left,
    on dynamic shapes and on element types the op does not support.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def GPUTileParallelLoopsPass
    : Pass<"dtf-gpu-tile-parallel-loops", "func::FuncOp"> {
  let summary = "Shape parallel loops as a 1-D grid of thread blocks";
  let description = [{
    Prepares the `scf.parallel` loops of `convert-linalg-to-parallel-loops`
    for `gpu-map-parallel-loops`: each outermost parallel loop has its
    dimensions collapsed into one and is tiled by `block-size`, with an
    in-bounds `scf.if` instead of min/max bounds. The mapper then sends the
    tile loop to blocks and the intra-tile loop to threads, so that
    consecutive threads touch consecutive (row-major) elements and no grid
    dimension exceeds its hardware limit, whatever the rank of the loop.
    Loops nested in the parallel loop (a reduction's `scf.for`) run
    sequentially within a thread.
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block (default: 256)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def GPUDeviceMemoryPass : Pass<"dtf-gpu-device-memory", "func::FuncOp"> {
  let summary = "Put the buffers of host code in GPU memory";
  let description = [{
    After kernel outlining the host function allocates, copies and passes
    around buffers that only kernels and library calls touch. This pass
    makes that explicit: `memref.alloc` becomes `gpu.alloc`,
    `memref.dealloc` `gpu.dealloc`, `memref.copy` `gpu.memcpy`, and a
    `memref.get_global` (a constant) is copied into a fresh `gpu.alloc`
    with `gpu.memcpy`.

    It then checks that the host function no longer reads or writes memory
    itself: an op other than a view (`memref.cast`, `collapse_shape`,
    `expand_shape`, `subview`, ...), a `gpu` op, a `func.call` or
    `func.return` that uses a memref is an error, since it would
    dereference a device pointer on the host.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // DTF_PASSES_PASSES_TD
