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
//   checkpoint when one is due (chief) and sleeps --debug_step_delay_ms.
// - recover(): with --recovery_timeout_ms, a failed RPC is retried with
//   backoff until the cluster answers again: the chief re-establishes the
//   model (a PS task that restarted restored the newest checkpoint; every
//   other PS task is rolled back to that checkpoint too, as TensorFlow's
//   session recreation does), the other workers wait until every PS task
//   serves one epoch, and each re-registers with the coordinator.
// - finish(): the chief's last checkpoint.
//
// runtime/rpc/README.md, "Recovery", describes the protocol.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/train/Reliability.h"

#include "runtime/rpc/CoordinationClient.h"
#include "runtime/rpc/Errors.h"
#include "runtime/rpc/PsClient.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dtf::train {

/// The chief's checkpoints: snapshots of every PS task merged into one file.
class CheckpointSaver {
public:
  CheckpointSaver(std::vector<std::unique_ptr<rpc::PsClient>> &ps,
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
  /// that step already, e.g. the one the model was restored from); returns
  /// its step, or nullopt if it had to skip (sync tasks never at one
  /// step). Throws RpcError when a PS task fails and
  /// checkpoint::CheckpointError when the file cannot be written.
  std::optional<int64_t> save(bool unlessSaved = false);

private:
  using Clock = std::chrono::steady_clock;
  std::vector<std::unique_ptr<rpc::PsClient>> &ps;
  const ReliabilityOptions &options;
  bool syncMode;
  int64_t lastSavedStep = -1;
  Clock::time_point lastSaveTime;
};

class Supervisor {
public:
  Supervisor(std::vector<std::unique_ptr<rpc::PsClient>> &ps,
             rpc::CoordinationClient &coordinator,
             const ReliabilityOptions &options, int workerIndex, bool syncMode);

  /// Chief: establishes the model, marks it initialized, saves a first
  /// checkpoint. Others: wait until the chief has.
  void start();

  /// A step begins: forget the epoch of the previous one.
  void beginStep() { stepEpoch.reset(); }
  /// A pull of the step came from `epoch`; throws RpcError(ABORTED) if an
  /// earlier pull of the step came from another (a restore is under way).
  void sawEpoch(int64_t epoch, const std::string &peer);
  /// The epoch of the step's values (0 if none was seen).
  int64_t epoch() const { return stepEpoch.value_or(0); }

  /// After a completed step at `globalStep`: a checkpoint if due (chief),
  /// the debug delay.
  void afterStep(int64_t globalStep);

  /// Decides what a failed RPC means: false if it ends the worker (no
  /// recovery, an error recovery cannot fix, or the cluster did not
  /// recover within --recovery_timeout_ms; then it throws the last error
  /// instead, naming the peer); true once the cluster serves again and the
  /// step may start over, or training was stopped meanwhile
  /// (stopRequested()).
  bool recover(const rpc::RpcError &error);
  bool stopRequested() const { return stopRequested_; }

  /// Runs `call` until it succeeds, recovering from what recover() can;
  /// rethrows otherwise.
  template <typename Call> void withRecovery(const Call &call) {
    while (true) {
      try {
        call();
        return;
      } catch (const rpc::RpcError &error) {
        if (!recover(error) || stopRequested_)
          throw;
      }
    }
  }

  /// Chief: the last checkpoint, at the end of training.
  void finish();

private:
  /// Chief: brings every PS task to one state and epoch; see Supervisor.cpp.
  void establish(bool atStart);
  /// Non-chief: throws RpcError(UNAVAILABLE) unless every PS task serves
  /// one epoch.
  void checkServing();
  void saveCheckpoint();

  std::vector<std::unique_ptr<rpc::PsClient>> &ps;
  rpc::CoordinationClient &coordinator;
  const ReliabilityOptions &options;
  int index;
  bool isChief;
  CheckpointSaver saver;
  std::optional<int64_t> stepEpoch;
  bool stopRequested_ = false;
};

/// Whether a failed call may succeed when retried once the cluster has
/// recovered (UNAVAILABLE, DEADLINE_EXCEEDED, ABORTED, ...), as opposed to
/// a refusal that stays (UNAUTHENTICATED, INVALID_ARGUMENT, ...).
bool isRecoverable(grpc::StatusCode code);

} // namespace dtf::train
