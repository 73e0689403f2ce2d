//===- TrainingLoop.h - One loop of steps, with hooks ---------------------===//
//
// The loop both kinds of training run, as MonitoredTrainingSession runs
// SessionRunHooks: a between-graph worker (its replica step, ReplicaStep.h)
// and the in-graph master (a step on every partition, InGraphMaster.h)
// differ in what a step is and how they recover, not in the loop around
// it. Hooks do what happens between steps: the step log line, telemetry,
// checkpoints and test delays. A step that fails with a dtf::Error goes to
// the loop's recovery, which says whether to start the step over.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/Tensor.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace dtf::train {

class WorkerTelemetry;

/// What one completed step did.
struct StepRecord {
  /// Steps this loop has completed, this one included.
  int64_t localStep = 0;
  /// The global step after it.
  int64_t globalStep = 0;
  /// What the step fetched: the model's results first.
  const std::vector<Tensor> *fetched = nullptr;
  size_t numResults = 0;
};

class TrainingHook {
public:
  virtual ~TrainingHook() = default;
  /// Before step `localStep` (0-based) starts, also when it starts over
  /// after a recovery.
  virtual void beforeStep(int64_t localStep) { (void)localStep; }
  /// After a step completed.
  virtual void afterStep(const StepRecord &step) { (void)step; }
  /// Training is over (the target was reached or a stop was asked).
  virtual void end(int64_t localSteps) { (void)localSteps; }
};

struct TrainingLoop {
  /// Runs step `localStep`; returns what it did, or nullopt when the global
  /// step had reached the target already (the step is not counted).
  std::function<std::optional<StepRecord>(int64_t localStep)> step;
  /// A step failed with `error`: true to start it over (after the cluster
  /// recovered), false to let the error end training.
  std::function<bool(const Error &error)> recover;
  /// Asked before each step; true ends training (e.g. the coordinator said
  /// so). Optional.
  std::function<bool()> stopRequested;
  /// Called in order after each step; end() in order at the end.
  std::vector<TrainingHook *> hooks;

  /// Runs steps until step() says the target is reached or stopRequested();
  /// returns the number of completed steps. Rethrows a failure recover()
  /// does not take.
  int64_t run();
};

/// The line scripts read every `every` local steps: "<wall seconds>:
/// Worker N: training step L done (global step: G)", as TensorFlow's
/// examples print it.
class StepLogHook final : public TrainingHook {
public:
  StepLogHook(int workerIndex, int every) : index(workerIndex), every(every) {}
  void afterStep(const StepRecord &step) override;

private:
  int index;
  int every;
};

/// The worker's TensorBoard summaries and trace (Telemetry.h): a step's
/// begin and end, the end of training.
class TelemetryHook final : public TrainingHook {
public:
  explicit TelemetryHook(WorkerTelemetry &telemetry) : telemetry(telemetry) {}
  void beforeStep(int64_t localStep) override;
  void afterStep(const StepRecord &step) override;
  void end(int64_t localSteps) override;

private:
  WorkerTelemetry &telemetry;
};

/// Test only (--debug_step_delay_ms): a pause after each step, to make a
/// slow worker.
class StepDelayHook final : public TrainingHook {
public:
  explicit StepDelayHook(int64_t delayMs) : delayMs(delayMs) {}
  void afterStep(const StepRecord &step) override;

private:
  int64_t delayMs;
};

} // namespace dtf::train
