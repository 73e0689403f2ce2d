//===- InGraphMaster.cpp - In-graph replication's master ------------------===//

#include "runtime/train/InGraphMaster.h"

#include "runtime/train/Supervisor.h"

#include "runtime/checkpoint/Checkpoint.h"

#include <algorithm>
#include <condition_variable>
#include <iostream>
#include <mutex>
#include <set>

namespace dtf::train {

using Clock = std::chrono::steady_clock;

InGraphMaster::InGraphMaster(std::map<std::string, WorkerConnection *> tasks,
                             std::string self, size_t maxPartitions,
                             std::chrono::milliseconds stepTimeout)
    : tasks(std::move(tasks)), self(std::move(self)), stepTimeout(stepTimeout),
      callers(std::max<size_t>(maxPartitions, 2) - 1) {}

void InGraphMaster::waitUntilReachable() {
  for (auto &[name, task] : tasks)
    task->waitUntilReachable();
}

void InGraphMaster::registerPartitions(
    const std::string &module, const std::vector<Partition> &partitions) {
  std::map<std::string, std::vector<std::string>> functions;
  for (const Partition &partition : partitions)
    functions[partition.task].push_back(partition.function);
  for (auto &[task, names] : functions)
    tasks.at(task)->registerGraph(module, names);
}

std::vector<Tensor>
InGraphMaster::runStep(const std::vector<Partition> &partitions, int64_t stepId,
                       FeedMap feeds, TrafficByTask *received) {
  struct Outcome {
    std::vector<Tensor> results;
    std::map<std::string, int64_t> received;
    std::exception_ptr error;
    /// Among the step's failures: 0 for the first.
    int failureOrder = -1;
  };
  std::vector<Outcome> outcomes(partitions.size());
  std::mutex mutex;
  int failures = 0;
  bool aborted = false;
  std::vector<std::future<void>> aborts;
  // Each placeholder is read by one partition; the feed moves there.
  std::vector<FeedMap> partitionFeeds(partitions.size());
  for (size_t i = 0; i < partitions.size(); ++i)
    for (const std::string &name : partitions[i].placeholders) {
      auto feed = feeds.find(name);
      if (feed != feeds.end())
        partitionFeeds[i].emplace(name, std::move(feed->second));
    }
  auto runPartition = [&](size_t i) {
    const Partition &partition = partitions[i];
    try {
      outcomes[i].results =
          tasks.at(partition.task)
              ->runStep(partition.function, stepId, partitionFeeds[i], {},
                        stepTimeout, &outcomes[i].received);
    } catch (const std::exception &error) {
      std::lock_guard<std::mutex> lock(mutex);
      outcomes[i].error =
          makeError(errorCodeOf(error),
                    "step " + std::to_string(stepId) + " failed on task " +
                        partition.task + " (partition @" + partition.function +
                        "): " + error.what());
      outcomes[i].failureOrder = failures++;
      if (!aborted) {
        aborted = true;
        abortEverywhere(stepId,
                        "step " + std::to_string(stepId) + " failed on task " +
                            partition.task,
                        aborts);
      }
    }
  };
  size_t running = partitions.size() - 1;
  std::condition_variable done;
  for (size_t i = 1; i < partitions.size(); ++i)
    callers.schedule([&, i] {
      runPartition(i);
      std::lock_guard<std::mutex> lock(mutex);
      if (--running == 0)
        done.notify_one();
    });
  runPartition(0);
  {
    std::unique_lock<std::mutex> lock(mutex);
    done.wait(lock, [&] { return running == 0; });
  }
  for (std::future<void> &abort : aborts)
    abort.wait();

  // The first failure is the cause; the others follow from the abort.
  for (const Outcome &outcome : outcomes)
    if (outcome.failureOrder == 0)
      std::rethrow_exception(outcome.error);
  std::vector<Tensor> results;
  for (size_t i = 0; i < partitions.size(); ++i) {
    if (partitions[i].returnsResults)
      results = std::move(outcomes[i].results);
    if (received)
      for (auto &[peer, bytes] : outcomes[i].received)
        (*received)[partitions[i].task][peer] += bytes;
  }
  return results;
}

VariableStore InGraphMaster::gatherVariables() {
  VariableStore all;
  for (auto &[name, task] : tasks)
    for (auto &[variable, value] : task->getVariables())
      all.emplace(variable, std::move(value));
  return all;
}

void InGraphMaster::setVariables(const VariableStore &values,
                                 const std::string &source) {
  std::set<std::string> set;
  for (auto &[name, task] : tasks)
    for (std::string &variable : task->setVariables(values))
      set.insert(std::move(variable));
  for (auto &[name, value] : values)
    if (!set.count(name))
      throw Error(ErrorCode::InvalidArgument,
                  source + ": variable '" + name +
                      "' is not a variable of the model");
}

void InGraphMaster::stopOthers(const std::string &reason) {
  std::vector<std::future<void>> stops;
  for (auto &[name, task] : tasks) {
    if (name == self)
      continue;
    WorkerConnection *target = task;
    stops.push_back(std::async(std::launch::async, [target, reason] {
      try {
        target->stopTask(reason);
      } catch (const std::exception &error) {
        std::cerr << "dtf-run: could not stop " << error.what() << "\n";
      }
    }));
  }
}

void InGraphMaster::abortEverywhere(int64_t stepId, const std::string &reason,
                                    std::vector<std::future<void>> &pending) {
  for (auto &[name, task] : tasks) {
    WorkerConnection *target = task;
    pending.push_back(std::async(std::launch::async, [target, stepId, reason] {
      try {
        target->abortStep(stepId, reason);
      } catch (const std::exception &) {
        // The task is gone or the step over there: nothing waits.
      }
    }));
  }
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

/// The master's checkpoints in --logdir: the variables of every task in
/// one file per global step, the format of between-graph training's.
class InGraphTrainer::Checkpoints final : public TrainingHook {
public:
  Checkpoints(const ReliabilityOptions &options, InGraphMaster &master)
      : options(options), master(master), lastSaveTime(Clock::now()) {}

  bool enabled() const { return !options.logdir.empty(); }

  /// Loads the newest valid checkpoint into the tasks; returns its global
  /// step, or nullopt when there is none (the tasks keep their initial
  /// values).
  std::optional<int64_t> restoreNewest() {
    if (!enabled())
      return std::nullopt;
    checkpoint::CheckpointDirectory directory(options.logdir);
    directory.removeTemporaries();
    auto loaded = directory.loadNewest([](const std::string &warning) {
      std::cout << "Worker 0: warning: " << warning << std::endl;
    });
    if (!loaded)
      return std::nullopt;
    master.setVariables(loaded->checkpoint.tensors, loaded->path);
    std::cout << "Worker 0: restored every task's variables from "
              << loaded->path << " (global step " << loaded->checkpoint.step
              << ")" << std::endl;
    lastSavedStep = loaded->checkpoint.step;
    if (options.debugHoldAfterRestore) // [reliability] test only
      holdUntilReleased("Worker 0",
                        "after the restore of global step " +
                            std::to_string(loaded->checkpoint.step) +
                            " (--debug_hold_after_restore)",
                        options.debugReleaseFile);
    return loaded->checkpoint.step;
  }

  /// Saves at `step` when --save_checkpoint_steps or --save_checkpoint_secs
  /// say so, or always with `force` (the start and the end of training).
  void maybeSave(int64_t step, bool force = false) {
    if (!enabled() || step == lastSavedStep)
      return;
    bool due =
        force ||
        (options.saveCheckpointSteps > 0 &&
         step - lastSavedStep >= options.saveCheckpointSteps) ||
        (options.saveCheckpointSecs > 0 &&
         std::chrono::duration<double>(Clock::now() - lastSaveTime).count() >=
             options.saveCheckpointSecs);
    if (!due)
      return;
    // Between steps nothing runs: every task's variables are at `step`.
    checkpoint::Checkpoint state;
    state.step = step;
    state.tensors = master.gatherVariables();
    std::string path = checkpoint::CheckpointDirectory(options.logdir)
                           .save(state, options.keepCheckpoints);
    std::cout << "Worker 0: saved checkpoint " << path << " (global step "
              << step << ")" << std::endl;
    lastSavedStep = step;
    lastSaveTime = Clock::now();
  }

  void afterStep(const StepRecord &step) override {
    maybeSave(step.globalStep);
  }

private:
  const ReliabilityOptions &options;
  InGraphMaster &master;
  int64_t lastSavedStep = -1;
  Clock::time_point lastSaveTime;
};

InGraphTrainer::InGraphTrainer(InGraphMaster &master, std::string module,
                               std::vector<Partition> train,
                               std::vector<Partition> all,
                               InGraphTrainingOptions options)
    : master(master), module(std::move(module)),
      trainPartitions(std::move(train)), allPartitions(std::move(all)),
      options(std::move(options)), checkpoints(std::make_unique<Checkpoints>(
                                       this->options.reliability, master)) {}

InGraphTrainer::~InGraphTrainer() = default;

int64_t InGraphTrainer::establish() {
  master.waitUntilReachable();
  master.registerPartitions(module, allPartitions);
  return checkpoints->restoreNewest().value_or(0);
}

InGraphTrainingResult
InGraphTrainer::train(int64_t globalStep, data::InputSource &input,
                      int64_t batch, const std::vector<TrainingHook *> &hooks) {
  const ReliabilityOptions &reliability = options.reliability;
  checkpoints->maybeSave(globalStep, /*force=*/true);
  InGraphTrainingResult result;
  StepLogHook logHook(/*workerIndex=*/0, options.logEvery);
  StepDelayHook delayHook(reliability.debugStepDelayMs); // test only
  std::vector<Tensor> results;
  TrainingLoop loop;
  loop.step = [&](int64_t localStep) -> std::optional<StepRecord> {
    if (globalStep >= options.trainSteps)
      return std::nullopt;
    FeedMap feeds;
    // The input's last pass is over (--num_epochs): training ends here.
    if (!data::nextBatchUnlessEnded(input, batch, feeds))
      return std::nullopt;
    results = master.runStep(trainPartitions, ++stepId, std::move(feeds),
                             &result.received);
    StepRecord record;
    record.localStep = localStep + 1;
    record.globalStep = ++globalStep;
    record.fetched = &results;
    record.numResults = results.size();
    return record;
  };
  // [reliability] Wait for the task to come back, register its partitions
  // again and resume from the last checkpoint.
  loop.recover = [&](const Error &error) {
    if (reliability.recoveryTimeoutMs <= 0 || !isRecoverable(error.code()))
      return false;
    std::cout << "Worker 0: " << error.what() << "; waiting up to "
              << reliability.recoveryTimeoutMs
              << " ms for the cluster to recover" << std::endl;
    retryUntilRecovered(
        error, std::chrono::milliseconds(reliability.recoveryTimeoutMs),
        [&] { globalStep = establish(); });
    std::cout << "Worker 0: the cluster recovered; resuming at global step "
              << globalStep << std::endl;
    return true;
  };
  loop.hooks = hooks;
  loop.hooks.push_back(&logHook);
  loop.hooks.push_back(&delayHook);
  loop.hooks.push_back(checkpoints.get());
  result.localSteps = loop.run();
  checkpoints->maybeSave(globalStep, /*force=*/true);
  result.globalStep = globalStep;
  return result;
}

} // namespace dtf::train
