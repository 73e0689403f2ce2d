//===- InGraphMaster.h - In-graph replication's master --------------------===//
//
// The chief's side of in-graph replication (InGraph.h): it registers each
// task's partitions with that task, then runs each step by step id on every
// partition at once, aborting the step everywhere when one partition fails;
// between steps it checkpoints every task's variables into one file, and
// with --recovery_timeout_ms it waits for a failed task to come back,
// registers everything again and resumes from the last checkpoint.
//
// It knows the tasks only as WorkerConnection (runtime/core), so that its
// unit tests drive it over in-process Workers; InGraph.cpp wires it to
// gRPC clients and the compiled program.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/train/Reliability.h"
#include "runtime/train/TrainingLoop.h"

#include "runtime/core/ThreadPool.h"
#include "runtime/core/WorkerConnection.h"
#include "runtime/data/InputSource.h"

#include <chrono>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dtf::train {

/// One function of the partitioned program and where it runs.
struct Partition {
  std::string function;
  /// The task of its device, e.g. "/job:worker/task:1".
  std::string task;
  /// The placeholders it reads, which the master feeds it.
  std::vector<std::string> placeholders;
  bool returnsResults = false;
};

/// Bytes each task received from each other task, by receiver.
using TrafficByTask = std::map<std::string, std::map<std::string, int64_t>>;

/// The master's view of the tasks and the steps it runs on them.
class InGraphMaster {
public:
  /// `tasks`: every task by name ("/job:ps/task:0"), `self` among them.
  /// `maxPartitions`: the most partitions one step runs at once; each but
  /// the caller's own waits for its step on a thread of the master's pool,
  /// made once rather than every step.
  InGraphMaster(std::map<std::string, WorkerConnection *> tasks,
                std::string self, size_t maxPartitions,
                std::chrono::milliseconds stepTimeout);

  void waitUntilReachable();

  /// Registers every partition with its task.
  void registerPartitions(const std::string &module,
                          const std::vector<Partition> &partitions);

  /// Runs step `stepId` on every partition of `partitions` at once, each
  /// fed the placeholders it reads from `feeds`; returns the results of
  /// the one that returns them. Adds what each task received from the
  /// others to `received` when given. When a partition fails, the step is
  /// aborted on every task and the first failure is thrown, naming its
  /// task, with its code.
  std::vector<Tensor> runStep(const std::vector<Partition> &partitions,
                              int64_t stepId, FeedMap feeds,
                              TrafficByTask *received);

  /// Every variable of every task, for a checkpoint.
  VariableStore gatherVariables();

  /// Gives every task the values of its variables among `values`; throws
  /// Error(InvalidArgument) when some value belongs to no task (a
  /// checkpoint of another model), naming `source`.
  void setVariables(const VariableStore &values, const std::string &source);

  /// Asks every task but this one to stop; a task that does not answer is
  /// reported, not waited for beyond its call's deadline.
  void stopOthers(const std::string &reason);

private:
  /// Aborts `stepId` on every task, without waiting: a task that is gone
  /// must not hold the others' abort back.
  void abortEverywhere(int64_t stepId, const std::string &reason,
                       std::vector<std::future<void>> &pending);

  std::map<std::string, WorkerConnection *> tasks;
  std::string self;
  std::chrono::milliseconds stepTimeout;
  ThreadPool callers;
};

struct InGraphTrainingOptions {
  int64_t trainSteps = 0;
  int logEvery = 0;
  /// --logdir checkpoints, --recovery_timeout_ms, test delays.
  ReliabilityOptions reliability;
};

/// What a training run did.
struct InGraphTrainingResult {
  int64_t globalStep = 0;
  int64_t localSteps = 0;
  /// Bytes received per task and peer over the training steps.
  TrafficByTask received;
};

/// Training on the master: the steps, the checkpoints of --logdir and the
/// recovery.
class InGraphTrainer {
public:
  /// `train`: the training function's partitions; `all`: every partition
  /// of `module` the tasks must hold (validation's too).
  InGraphTrainer(InGraphMaster &master, std::string module,
                 std::vector<Partition> train, std::vector<Partition> all,
                 InGraphTrainingOptions options);
  ~InGraphTrainer();

  /// Registers every partition everywhere and sets the variables: from
  /// the newest valid checkpoint of --logdir, else their initial values.
  /// Returns the global step.
  int64_t establish();

  /// Trains from `globalStep` on batches of `batch` examples of `input`
  /// until the global step reaches options.trainSteps, running `hooks`
  /// after each step (before the step log line); checkpoints when due, at the
  /// start and at the end; with --recovery_timeout_ms, a failed step waits for
  /// the cluster, establish()es again and resumes at the checkpoint's step.
  /// Throws the error that ends training.
  InGraphTrainingResult train(int64_t globalStep, data::InputSource &input,
                              int64_t batch,
                              const std::vector<TrainingHook *> &hooks);

  /// A step id no step used yet (validation's steps take theirs here).
  int64_t nextStepId() { return ++stepId; }

private:
  class Checkpoints;

  InGraphMaster &master;
  std::string module;
  std::vector<Partition> trainPartitions;
  std::vector<Partition> allPartitions;
  InGraphTrainingOptions options;
  std::unique_ptr<Checkpoints> checkpoints;
  int64_t stepId = 0;
};

} // namespace dtf::train
