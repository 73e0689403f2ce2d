//===- ReplicaStep.h - A between-graph worker's step ----------------------===//
//
// One step of a replica: pull the parameters of every PS task, read a
// batch, compute the forward and backward pass, push the gradients to each
// PS task (and in sync mode wait for the aggregate). In async mode a push
// also brings the task's values back (push-pull): one round trip per
// step; with overlap the push-pull of a step flies while the next step
// computes on the values the one before brought, as TensorFlow's
// staleness-tolerant async training allows.
//
// It knows the PS tasks only as ps::PsConnection and the computation only
// as WorkerStep, so that its unit tests run it on in-process PS tasks and
// a step written in C++.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/train/ReplicaLayout.h"
#include "runtime/train/Supervisor.h"
#include "runtime/train/TrainingLoop.h"
#include "runtime/train/WorkerStep.h"

#include "runtime/data/InputSource.h"
#include "runtime/ps/PsConnection.h"

#include <cstdint>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <vector>

namespace dtf::train {

class WorkerTelemetry;

struct ReplicaOptions {
  /// Sync replicas push gradients alone and wait for the aggregate; async
  /// ones push-pull.
  bool sync = false;
  /// Async: a push brings back the PS task's values for the next step (one
  /// round trip a step; --push_pull) instead of the next step pulling them
  /// at its start, as TensorFlow reads its variables. The values are then
  /// as old as the push: every other worker's push during this worker's
  /// compute makes its next gradient staler.
  bool pushPull = false;
  /// Async, with pushPull: compute a step on the values of the previous
  /// step's push-pull while this step's flies (--overlap_pull).
  bool overlapPull = false;
  /// Training ends once the global step reaches this.
  int64_t trainSteps = 0;
  /// Sync: how long a replica waits for the aggregate of its step.
  std::chrono::milliseconds syncWait{std::chrono::minutes(5)};
};

class ReplicaStep {
public:
  /// `ps[i]` is PS task i. `telemetry` gets a span per call and per compute.
  ReplicaStep(ReplicaLayout layout, std::vector<ps::PsConnection *> ps,
              WorkerStep &compute, Supervisor &supervisor,
              WorkerTelemetry &telemetry, ReplicaOptions options);

  /// Step `localStep` on a batch of `batch` examples of `input`; nullopt
  /// when the global step had reached the target (nothing was pushed) or
  /// the input's last pass is over (OutOfRange).
  /// Throws the dtf::Error of a failed call; the step may then start over
  /// after dropPending().
  std::optional<StepRecord> run(int64_t localStep, data::InputSource &input,
                                int64_t batch);

  /// Pulls every variable into `feeds` (or takes the values the last
  /// push-pulls brought), all of one epoch.
  void pullAll(FeedMap &feeds);

  /// Forgets the push-pulls in flight and the values they brought: after
  /// a failure the step starts over from a fresh pull, and after training
  /// validation pulls the final values afresh. Each batch is settled with
  /// its input: trained if a push of it was applied, else lost (read
  /// again).
  void dropPending();

  /// What the connections moved, summed over the PS tasks.
  ps::TransferStats transferStats() const;

private:
  /// What became of the pushes of one batch: an input that accounts for
  /// its examples (streaming input under a data coordinator) learns it once
  /// every push's outcome is known.
  struct PushedBatch {
    uint64_t id = 0;
    /// Pushes of the batch whose outcome is not known yet.
    size_t outstanding = 0;
    /// A push of it was sent: if its outcome never comes, its gradients
    /// may be in the model or not.
    bool sent = false;
    bool applied = false;
    /// The global step from which the batch's gradients are in the model.
    int64_t modelStep = 0;
  };

  /// Records the outcome of one push of `batch`, settling it with `input`
  /// when it was the last.
  void pushed(PushedBatch &batch, const ps::PushResult &result,
              int64_t stepTag);
  /// Settles `batch` with the input: trained if any push was applied
  /// (part of the model from modelStep), else lost (in doubt when a push
  /// was sent and never answered).
  void settle(PushedBatch &batch);

  ReplicaLayout layout;
  std::vector<ps::PsConnection *> ps;
  WorkerStep &compute;
  Supervisor &supervisor;
  WorkerTelemetry &telemetry;
  ReplicaOptions options;
  /// The pull group a push group's push-pull refreshes (-1: plain push).
  std::vector<int> pullGroupOf;
  /// Values of a pull group for the next step, when a push-pull brought
  /// them.
  std::vector<std::optional<ps::PulledValues>> nextValues;
  /// Push-pulls in flight (overlap), by push group.
  std::vector<std::future<ps::PushPullResult>> inFlight;
  /// The fetches of the last step, which its StepRecord points at.
  std::vector<Tensor> lastFetched;
  /// The input of the steps, for settling batches.
  data::InputSource *input = nullptr;
  /// The batch of the step being run, and (overlap) of the step before,
  /// whose push-pulls fly.
  PushedBatch current, overlapped;
};

/// A between-graph worker's training: steps of `replica` on batches of
/// `batch` examples of `input` until the global step reaches the target or
/// `stopRequested` (optional) says so; `hooks` after each step, then the
/// supervisor's checkpoint and the test delay (--debug_step_delay_ms); a failed step drops what flies and
/// goes to the supervisor's recovery, then starts over. Returns the local
/// steps; throws what recovery does not take. Leaves nothing in flight.
int64_t trainReplica(ReplicaStep &replica, Supervisor &supervisor,
                     data::InputSource &input, int64_t batch,
                     std::vector<TrainingHook *> hooks,
                     std::function<bool()> stopRequested = {});

} // namespace dtf::train
