//===- TrainingLoop.cpp - One loop of steps, with hooks -------------------===//

#include "runtime/train/TrainingLoop.h"

#include "runtime/train/Telemetry.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

namespace dtf::train {

int64_t TrainingLoop::run() {
  int64_t localStep = 0;
  while (!(stopRequested && stopRequested())) {
    try {
      for (TrainingHook *hook : hooks)
        hook->beforeStep(localStep);
      std::optional<StepRecord> record = step(localStep);
      if (!record)
        break;
      localStep = record->localStep = localStep + 1;
      for (TrainingHook *hook : hooks)
        hook->afterStep(*record);
    } catch (const Error &error) {
      if (!recover || !recover(error))
        throw;
    }
  }
  for (TrainingHook *hook : hooks)
    hook->end(localStep);
  return localStep;
}

void StepLogHook::afterStep(const StepRecord &step) {
  if (every <= 0 || step.localStep % every != 0)
    return;
  double now = std::chrono::duration<double>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  char line[160];
  std::snprintf(line, sizeof(line),
                "%.6f: Worker %d: training step %lld done (global step: %lld)",
                now, index, static_cast<long long>(step.localStep),
                static_cast<long long>(step.globalStep));
  std::cout << line << std::endl;
}

void TelemetryHook::beforeStep(int64_t localStep) {
  telemetry.beginStep(localStep);
}

void TelemetryHook::afterStep(const StepRecord &step) {
  telemetry.endStep(step.localStep, step.globalStep, *step.fetched,
                    step.numResults);
}

void TelemetryHook::end(int64_t) { telemetry.endTraining(); }

void StepDelayHook::afterStep(const StepRecord &) {
  if (delayMs > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
}

} // namespace dtf::train
