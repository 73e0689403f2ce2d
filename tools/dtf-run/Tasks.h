//===- Tasks.h - What a PS task and a worker task do ----------------------===//

#pragma once

#include "tools/dtf-run/Compile.h"
#include "tools/dtf-run/Telemetry.h"
#include "tools/dtf-run/Reliability.h"
#include "tools/dtf-run/WorkerStep.h"

#include "runtime/cluster/ClusterSpec.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>

namespace dtf::run {

struct TaskOptions {
  const cluster::ClusterSpec *cluster = nullptr;
  cluster::TaskId task;
  ReplicationOptions replication;
  int64_t trainSteps = 0;
  /// 0: the model's batch size.
  int batchSize = 0;
  std::string dataDir;
  /// Where a worker computes its steps (--device); PS tasks use the CPU.
  ComputeDevice device;
  int logEvery = 0;
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

/// Serves the task's variables (the program's @ps_<index>) until the chief
/// stops the cluster, like tf.train.Server.join(). Returns the exit status.
int runPsTask(mlir::ModuleOp program, const TaskOptions &options);

/// Trains on this worker's shard of the data until the global step reaches
/// the target, then reports validation loss and accuracy. Returns the exit
/// status.
int runWorkerTask(mlir::ModuleOp program, const TaskOptions &options);

} // namespace dtf::run
