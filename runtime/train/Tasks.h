//===- Tasks.h - What a PS task and a worker task do ----------------------===//
//
// The two tasks of between-graph training, as a tool wires them: a PS task
// serves its variables, a worker trains its replica on the batches of an
// InputSource. Nothing here names a data set or a placeholder: the inputs
// say which placeholders they feed, and the model decides the batch.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/train/Compile.h"
#include "runtime/train/DataWork.h"
#include "runtime/train/Reliability.h"
#include "runtime/train/Telemetry.h"
#include "runtime/train/WorkerStep.h"

#include "runtime/cluster/ClusterSpec.h"
#include "runtime/data/InputSource.h"
#include "runtime/ps/ParameterServer.h"
#include "runtime/rpc/Options.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dtf::train {

struct TaskOptions {
  const cluster::ClusterSpec *cluster = nullptr;
  cluster::TaskId task;
  ReplicationOptions replication;
  int64_t trainSteps = 0;
  /// 0: the model's batch size.
  int batchSize = 0;
  /// Where a worker computes its steps (--device); PS tasks use the CPU.
  ComputeDevice device;
  /// The model's dtf.result_names (CompiledModel::resultNames), which
  /// validation reports its results by; empty: the model has none.
  std::vector<std::string> resultNames;
  /// Threads of the executor that runs a worker's steps, as TensorFlow's
  /// inter_op_parallelism_threads: 0 one per hardware thread, 1 or a
  /// negative number the calling thread alone (executorOptionsFor).
  int interOpThreads = 0;
  int logEvery = 0;
  /// Async workers: a push brings back the values of the next step
  /// (--push_pull; ReplicaOptions::pushPull).
  bool pushPull = false;
  /// Async workers: compute a step on the values of the previous step's
  /// push-pull while this step's is in flight (--overlap_pull).
  bool overlapPull = false;
  int rpcDeadlineMs = 10000;
  /// How long a task waits at start for each peer to come up.
  int connectTimeoutMs = 60000;
  /// PS task 0 declares a worker lost after this long without a heartbeat.
  int workerTimeoutMs = 30000;
  /// --logdir, --trace and their options.
  TelemetryOptions telemetry;
  /// Checkpoints, recovery, security (Reliability.h).
  ReliabilityOptions reliability;
};

/// Sets malloc up for a task's process, before it allocates. Every step
/// allocates and frees the same tensors (pulled parameters, batches,
/// activations, gradients, RPC buffers) of up to a few hundred KB. glibc
/// serves such sizes from fresh mmaps until its adaptive threshold has seen
/// them freed, and trims the heap back to the OS between steps; both cost
/// page faults and zeroing each step. A fixed threshold above any tensor of
/// a step, and trimming only beyond it, lets each step reuse the memory the
/// previous one freed (about 8% of the MLP's step time).
void keepStepMemoryOnTheHeap();

/// The process's CPU time so far (user and system), in seconds.
double processCpuSeconds();

/// A PS task's CPU per update in the running task, start-up left out: the
/// process's CPU time from its first update to now, over the updates
/// since (what it spends serving, receiving, applying and answering).
class ServingCpu {
public:
  /// Counts the task's updates (wraps options.onApplied); the task must
  /// stop before this goes.
  void attach(ps::Options &options);
  /// Seconds per update; nullopt before the second update. Call once the
  /// task has stopped updating.
  std::optional<double> secondsPerUpdate() const;

private:
  int64_t updates = 0;
  double cpuAtFirstUpdate = 0;
};

/// The options of the task's RPC clients: --rpc_deadline_ms,
/// --connect_timeout_ms, TLS and the cluster token.
rpc::ClientOptions clientOptionsFor(const TaskOptions &options);

/// The executor of `interOpThreads`. One thread is the step's own: a pool
/// of one would only add a hand-off per step.
exec::ExecutorOptions executorOptionsFor(int interOpThreads);

/// Serves the task's variables (the program's @ps_<index>) until the chief
/// stops the cluster, like tf.train.Server.join(). Returns the exit status.
int runPsTask(mlir::ModuleOp program, const TaskOptions &options);

/// What a worker reads.
struct WorkerInputs {
  /// This worker's shard of the training examples, pass after pass.
  std::unique_ptr<data::InputSource> train;
  /// Set when `train` is streamed (Inputs.h): the units of the data set,
  /// and the source of units that the task binds before training.
  std::optional<StreamedData> streamed;
  /// Read once through after training, for the validation loss and
  /// accuracy; it feeds the same placeholders as `train`. Null: no
  /// validation.
  std::unique_ptr<data::InputSource> validation;
};

/// The batch that `inputs` fill: dimension 0 of the placeholders (within
/// `scope`) that they feed, which must agree with each other and with
/// `requestedBatch` (--batch_size, 0 when not given). Throws
/// std::invalid_argument when a placeholder is missing or the inputs do not
/// fit the model.
int64_t checkInputs(mlir::Operation *scope, const WorkerInputs &inputs,
                    int requestedBatch);

/// Runs `evaluate` on each whole batch of `validation` (`feeds`, the
/// values every batch shares, with the batch's columns filled in by the
/// input) and reports the means of its scalar results at `globalStep`, in
/// a line that scripts read and as the validation summaries of
/// `telemetry`: with `resultNames` (the model's dtf.result_names), "After N
/// training step(s), validation <name> = V, ..." for each scalar result;
/// without, the first two results as a hand-written model's loss and
/// accuracy, "..., validation cross entropy = L, validation accuracy = A".
///
/// With `auc` (the results holding predictions and labels, dtf.auc), it
/// reports the loss and their streaming AUC and log loss over the whole
/// input instead, as tf.metrics.auc: "validation loss = L, validation AUC =
/// U, validation log loss = G".
void validate(data::InputSource &validation, int64_t batch, int64_t globalStep,
              WorkerTelemetry &telemetry, FeedMap feeds,
              const std::function<std::vector<Tensor>(FeedMap &)> &evaluate,
              const std::vector<std::string> &resultNames,
              std::optional<std::pair<size_t, size_t>> auc = std::nullopt);

/// Trains on `inputs.train` until the global step reaches the target, then
/// reports the validation loss and accuracy. Throws std::invalid_argument
/// when the model has no placeholder of that name or a batch the inputs
/// cannot fill. Returns the exit status.
int runWorkerTask(mlir::ModuleOp program, const TaskOptions &options,
                  WorkerInputs inputs);

} // namespace dtf::train
