//===- Supervisor.h - A worker's checkpoints and recovery -----------------===//
//
// What tf.train.Supervisor / MonitoredTrainingSession do for a worker:
//
// - start(): the chief establishes one consistent model on every PS task
//   (initial values, or the checkpoint the PS tasks restored at start-up)
//   and saves a first checkpoint; the other workers wait for it.
// - each step: the values a step pulls must all come from one epoch
//   (sawEpoch), and its pushes and waits carry that epoch, so that nothing
//   computed before a restore is applied after it; afterStep() saves a
//   checkpoint when one is due (chief).
// - recover(): with --recovery_timeout_ms, a failed RPC is retried with
//   backoff until the cluster answers again: the chief re-establishes the
//   model (a PS task that restarted restored the newest checkpoint; every
//   other PS task is rolled back to that checkpoint too, as TensorFlow's
//   session recreation does), the other workers wait until every PS task
//   serves one epoch, and each re-registers with the coordinator.
// - finish(): the chief's last checkpoint.
//
// It talks to the PS tasks and the coordinator through their connection
// interfaces and decides on error codes, so that it runs the same over
// gRPC and in one process (its unit tests).
//
// runtime/rpc/README.md, "Recovery", describes the protocol.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/train/Reliability.h"
#include "runtime/train/TrainingLoop.h"

#include "runtime/coord/CoordinatorConnection.h"
#include "runtime/core/Error.h"
#include "runtime/ps/PsConnection.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dtf::train {

/// The chief's checkpoints: snapshots of every PS task, merged into one DTF
/// file, or saved as TensorFlow's sharded Saver does (one data file per PS
/// task, their indexes merged), as --checkpoint_format asks.
class CheckpointSaver {
public:
  CheckpointSaver(const std::vector<ps::PsConnection *> &ps,
                  const ReliabilityOptions &options, bool syncMode);

  bool enabled() const { return !options.logdir.empty(); }
  /// Removes the temporary files of a chief killed mid-save. Only the
  /// chief, the one writer, may: another task would delete the file the
  /// chief is writing.
  void removeTemporaries();
  /// The model is at `globalStep` (established or restored): the intervals
  /// count from there.
  void startedAt(int64_t globalStep);
  /// A checkpoint is due at `globalStep`.
  bool due(int64_t globalStep) const;
  /// Saves one now (with `unlessSaved`: unless there is a checkpoint of
  /// that step in --checkpoint_format already, e.g. the one the model was
  /// restored from); returns its step, or nullopt if it had to skip (sync
  /// tasks never at one step). Throws dtf::Error when a PS task fails and
  /// checkpoint::CheckpointError when the file cannot be written.
  std::optional<int64_t> save(bool unlessSaved = false);
  /// Streamed input: each checkpoint also holds `coordinator`'s state of
  /// the epoch (kInputStateTensor), which units and records were trained
  /// on by its step, so that a resumed job trains on each example once.
  void saveDataStateOf(coord::CoordinatorConnection &coordinator) {
    dataCoordinator = &coordinator;
  }

private:
  /// Whether --logdir holds a checkpoint of `step` in --checkpoint_format.
  bool savedAt(int64_t step) const;
  /// Writes the DTF file of `step`; returns its path.
  std::string saveFile(int64_t step, std::vector<ps::Snapshot> snapshots,
                       std::optional<Tensor> inputState);
  /// Has every PS task write its shard of the pending bundle of the save
  /// `save` (of `numShards`, the chief's data coordinator state the last
  /// when it has one); returns what each wrote (step, epoch, no tensors).
  std::vector<ps::Snapshot> writeShards(int numShards, uint64_t save);
  /// Makes the pending shards of `save` (with the coordinator's state in
  /// the last) the bundle of `step`; returns its prefix.
  std::string commitBundle(int64_t step, uint64_t save, int numShards,
                           std::optional<Tensor> inputState);

  using Clock = std::chrono::steady_clock;
  const std::vector<ps::PsConnection *> &ps;
  const ReliabilityOptions &options;
  bool syncMode;
  int64_t lastSavedStep = -1;
  Clock::time_point lastSaveTime;
  coord::CoordinatorConnection *dataCoordinator = nullptr;
  /// The number of the next save's pending shards (each attempt its own).
  uint64_t nextSave = 0;
};

/// Also the training loop's hook for checkpoints and the test delay.
class Supervisor final : public TrainingHook {
public:
  Supervisor(std::vector<ps::PsConnection *> ps,
             coord::CoordinatorConnection &coordinator,
             const ReliabilityOptions &options, int workerIndex, bool syncMode);
  Supervisor(const Supervisor &) = delete;
  Supervisor &operator=(const Supervisor &) = delete;

  /// Chief: establishes the model, marks it initialized, saves a first
  /// checkpoint. Others: wait until the chief has.
  void start();

  /// A step begins: forget the epoch of the previous one.
  void beginStep() { stepEpoch.reset(); }
  /// A pull of the step came from `epoch`; throws Error(Aborted) if an
  /// earlier pull of the step came from another (a restore is under way).
  void sawEpoch(int64_t epoch, const std::string &peer);
  /// The epoch of the step's values (0 if none was seen).
  int64_t epoch() const { return stepEpoch.value_or(0); }

  /// After a completed step: a checkpoint if due (chief).
  void afterStep(const StepRecord &step) override;

  const ReliabilityOptions &reliability() const { return options; }

  /// Decides what a failed call means: false if it ends the worker (no
  /// recovery, an error recovery cannot fix, or the cluster did not
  /// recover within --recovery_timeout_ms; then it throws the last error
  /// instead, naming the peer); true once the cluster serves again and the
  /// step may start over, or training was stopped meanwhile
  /// (stopRequested()).
  bool recover(const Error &error);
  bool stopRequested() const { return stopRequested_; }

  /// Runs `call` until it succeeds, recovering from what recover() can;
  /// rethrows otherwise.
  template <typename Call> void withRecovery(const Call &call) {
    while (true) {
      try {
        call();
        return;
      } catch (const Error &error) {
        if (!recover(error) || stopRequested_)
          throw;
      }
    }
  }

  /// Chief: the last checkpoint, at the end of training; with
  /// `replace`, also when there is one of the same step already (streamed
  /// input: the other workers have since reported what they trained on).
  void finish(bool replace = false);
  /// Streamed input: checkpoints hold the epoch's state
  /// (CheckpointSaver::saveDataStateOf) of the coordinator.
  void saveDataState() { saver.saveDataStateOf(coordinator); }

private:
  /// Chief: brings every PS task to one state and epoch; see Supervisor.cpp.
  void establish(bool atStart);
  /// Non-chief: throws Error(Unavailable) unless every PS task serves
  /// one epoch.
  void checkServing();
  void saveCheckpoint();

  std::vector<ps::PsConnection *> ps;
  coord::CoordinatorConnection &coordinator;
  const ReliabilityOptions &options;
  int index;
  bool isChief;
  CheckpointSaver saver;
  std::optional<int64_t> stepEpoch;
  bool stopRequested_ = false;
};

/// Retries `attempt` with backoff (100 ms, doubling up to 1 s) until it
/// succeeds, after the failure `cause`: what both the supervisor and the
/// in-graph master do while a task comes back. Gives up, throwing the last
/// failure with "gave up recovering after N ms" added, once `timeout` has
/// passed (the last attempt comes at the deadline); rethrows at once a
/// failure that isRecoverable() says no retry fixes.
void retryUntilRecovered(const Error &cause, std::chrono::milliseconds timeout,
                         const std::function<void()> &attempt);

} // namespace dtf::train
