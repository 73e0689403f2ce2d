//===- Supervisor.cpp - A worker's checkpoints and recovery ---------------===//

#include "runtime/train/Supervisor.h"

#include "runtime/ps/ParameterServer.h"
#include "runtime/train/WarmStart.h"

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <iostream>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace dtf::train {

namespace {
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
} // namespace

void retryUntilRecovered(const Error &cause, std::chrono::milliseconds timeout,
                         const std::function<void()> &attempt) {
  Clock::time_point deadline = Clock::now() + timeout;
  auto backoff = std::chrono::milliseconds(100);
  Error last = cause;
  while (true) {
    try {
      attempt();
      return;
    } catch (const Error &failure) {
      if (!isRecoverable(failure.code()))
        throw;
      last = failure;
    }
    Clock::time_point now = Clock::now();
    if (now >= deadline)
      throw Error(last.code(), std::string(last.what()) +
                                   " (gave up recovering after " +
                                   std::to_string(timeout.count()) + " ms)");
    std::this_thread::sleep_for(
        std::min<Clock::duration>(backoff, deadline - now));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
}

// `saver` keeps a reference to the member `ps`, never to the argument.
Supervisor::Supervisor(std::vector<ps::PsConnection *> tasks,
                       coord::CoordinatorConnection &coordinator,
                       const ReliabilityOptions &options, int workerIndex,
                       bool syncMode)
    : ps(std::move(tasks)), coordinator(coordinator), options(options),
      index(workerIndex), isChief(workerIndex == 0),
      saver(ps, options, syncMode) {}

void Supervisor::start() {
  if (!isChief) {
    std::cout << "Worker " << index << ": waiting for the chief to initialize"
              << std::endl;
    withRecovery([&] { coordinator.waitInitialized(std::chrono::minutes(5)); });
    return;
  }
  saver.removeTemporaries();
  while (true) {
    try {
      establish(/*atStart=*/true);
      coordinator.markInitialized();
      saveCheckpoint();
      return;
    } catch (const Error &error) {
      if (!recover(error))
        throw;
      if (stopRequested_)
        return;
    }
  }
}

// A new epoch, above `maxEpoch` (the newest a PS task reports) and unlike
// any the cluster used before. maxEpoch + 1 is not enough: a restarted PS
// task reports epoch 0, so the count would start over and could hand out
// the very epoch that paused or slow workers still carry, whose pushes and
// waits would then pass the fence (a sync worker then waits for a step
// count from before the restore, and the cluster deadlocks). Microseconds
// of the wall clock do not come back, even when the chief restarts too.
static int64_t nextEpoch(int64_t maxEpoch) {
  int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  return std::max(maxEpoch + 1, now);
}

// The chief makes every PS task hold the same model in the same epoch:
//
// - if every task serves and all are in one epoch, nothing was lost;
// - else the tasks that do not serve yet started (or restarted) and hold
//   the newest valid checkpoint of --logdir, or nothing: the model goes
//   back to that checkpoint (the oldest such, if they differ), or to the
//   initial values if one of them found none, on EVERY task, in a new
//   epoch. A task that restored exactly that checkpoint keeps its values.
// - if every task serves but their epochs differ, a chief died in the
//   middle of this: it is redone with the checkpoint the newest epoch has.
void Supervisor::establish(bool atStart) {
  std::vector<ps::TaskStatus> states;
  for (ps::PsConnection *task : ps)
    states.push_back(task->status());
  bool allServe = true, oneEpoch = true;
  int64_t maxEpoch = 0;
  for (const ps::TaskStatus &state : states) {
    allServe &= state.initialized;
    oneEpoch &= state.epoch == states.front().epoch;
    maxEpoch = std::max(maxEpoch, state.epoch);
  }
  if (allServe && oneEpoch) {
    saver.startedAt(states.front().step);
    return;
  }

  int64_t target = INT64_MAX;
  for (const ps::TaskStatus &state : states) {
    if (!allServe && !state.initialized)
      target = std::min(target, state.hasValues ? state.restoredFrom : -1);
    if (allServe && state.epoch == maxEpoch)
      target = std::min(target, state.restoredFrom);
  }
  int64_t newEpoch = nextEpoch(maxEpoch);
  int64_t step = 0;
  for (size_t task = 0; task < ps.size(); ++task) {
    const ps::TaskStatus &state = states[task];
    ps::RestoreSource source =
        target < 0 ? ps::RestoreSource::InitialValues
        : !state.initialized && state.hasValues && state.restoredFrom == target
            ? ps::RestoreSource::KeepRestored
            : ps::RestoreSource::Checkpoint;
    int64_t taskStep = ps[task]->restore(source, target, newEpoch);
    if (state.holdsGlobalStep || task == 0)
      step = taskStep;
  }
  saver.startedAt(step);
  if (target < 0) {
    if (atStart && maxEpoch == 0)
      std::cout << "Worker 0: initialized the variables" << std::endl;
    else
      std::cout << "Worker 0: warning: a PS task restarted without a "
                   "checkpoint to restore (no --logdir, or none valid): "
                   "every PS task starts over from the initial values "
                   "(epoch "
                << newEpoch << ")" << std::endl;
  } else if (atStart && maxEpoch == 0 && warmStartApplies(options)) {
    // The tasks preloaded another job's checkpoint, not one of --logdir.
    std::cout << "Worker 0: started every PS task from --init_from_checkpoint="
              << options.initFromCheckpoint << " at global step " << target
              << " (epoch " << newEpoch << ")" << std::endl;
  } else {
    std::cout << "Worker 0: restored the model from the checkpoint of "
                 "global step "
              << target << " on every PS task (epoch " << newEpoch << ")"
              << std::endl;
  }
}

void Supervisor::checkServing() {
  std::optional<int64_t> epoch;
  for (ps::PsConnection *task : ps) {
    ps::TaskStatus state = task->status();
    if (!state.initialized || (epoch && *epoch != state.epoch))
      throw Error(ErrorCode::Unavailable,
                  task->peer() +
                      ": waiting for the chief to restore the model (the "
                      "task " +
                      (state.initialized ? "is in another epoch"
                                         : "does not serve yet") +
                      ")");
    epoch = state.epoch;
  }
}

void Supervisor::sawEpoch(int64_t epoch, const std::string &peer) {
  if (!stepEpoch) {
    stepEpoch = epoch;
    return;
  }
  if (*stepEpoch != epoch)
    throw Error(ErrorCode::Aborted,
                peer + ": its values are of epoch " + std::to_string(epoch) +
                    ", the step's others of " + std::to_string(*stepEpoch) +
                    " (the model is being restored)");
}

void Supervisor::saveCheckpoint() {
  if (isChief && saver.enabled())
    saver.save(/*unlessSaved=*/true);
}

void Supervisor::afterStep(const StepRecord &step) {
  if (isChief && saver.due(step.globalStep))
    saver.save();
}

void Supervisor::finish(bool replace) {
  if (!isChief || !saver.enabled())
    return;
  try {
    saver.save(/*unlessSaved=*/!replace);
  } catch (const Error &error) {
    std::cout << "Worker 0: warning: no final checkpoint: " << error.what()
              << std::endl;
  }
}

bool Supervisor::recover(const Error &error) {
  if (options.recoveryTimeoutMs <= 0 || !isRecoverable(error.code()))
    return false;
  std::cout << "Worker " << index << ": " << error.what()
            << "; recovering (for up to " << options.recoveryTimeoutMs << " ms)"
            << std::endl;
  Clock::time_point start = Clock::now();
  retryUntilRecovered(
      error, std::chrono::milliseconds(options.recoveryTimeoutMs), [&] {
        coord::Registration registration =
            coordinator.registerTask("worker", index);
        if (registration.stopRequested) {
          stopRequested_ = true;
          return;
        }
        if (isChief) {
          establish(/*atStart=*/false);
          coordinator.markInitialized();
        } else {
          checkServing();
        }
      });
  if (stopRequested_)
    std::cout << "Worker " << index << ": training was stopped while recovering"
              << std::endl;
  else
    std::cout << "Worker " << index << ": recovered after "
              << secondsSince(start) << " s" << std::endl;
  return true;
}

//===----------------------------------------------------------------------===//
// A PS task's crash or hold at a known step
//===----------------------------------------------------------------------===//

namespace {

/// Runs `action` once an update takes the task's step to `atStep`. Like
/// every onApplied observer it runs under the task's mutex, after the update
/// and before any reply: no client has seen the step yet.
void onReachingStep(ps::Options &task, int64_t atStep,
                    std::function<void(int64_t step)> action) {
  task.onApplied = [observer = std::move(task.onApplied), atStep,
                    action = std::move(action)](int64_t step,
                                                Clock::time_point begin,
                                                Clock::time_point end) {
    if (observer)
      observer(step, begin, end);
    if (step == atStep)
      action(step);
  };
}

} // namespace

void configureCrashAtStep(ps::Options &task, const ReliabilityOptions &options,
                          const std::string &taskLabel) {
  if (options.debugCrashAtStep <= 0)
    return;
  onReachingStep(task, options.debugCrashAtStep, [taskLabel](int64_t step) {
    std::cout << taskLabel << ": crashing at step " << step
              << " (--debug_crash_at_step)" << std::endl;
    ::raise(SIGKILL);
  });
}

void holdUntilReleased(const std::string &taskLabel, const std::string &where,
                       const std::string &releaseFile) {
  std::cout << taskLabel << ": holding " << where << " until " << releaseFile
            << " exists" << std::endl;
  while (::access(releaseFile.c_str(), F_OK) != 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::cout << taskLabel << ": released " << where << std::endl;
}

void configureHoldAtStep(ps::Options &task, const ReliabilityOptions &options,
                         const std::string &taskLabel) {
  if (options.debugHoldAtStep <= 0)
    return;
  std::string releaseFile = options.debugReleaseFile;
  onReachingStep(task, options.debugHoldAtStep,
                 [taskLabel, releaseFile](int64_t step) {
                   holdUntilReleased(taskLabel,
                                     "at step " + std::to_string(step) +
                                         " (--debug_hold_at_step)",
                                     releaseFile);
                 });
}

//===----------------------------------------------------------------------===//
// A PS task's registration
//===----------------------------------------------------------------------===//

struct PsRegistration::State {
  std::mutex mutex;
  std::condition_variable wake;
  bool quitting = false;
  std::thread thread;
};

PsRegistration::PsRegistration(
    std::unique_ptr<coord::CoordinatorConnection> coordinator, int psIndex,
    std::ostream &log)
    : state(std::make_unique<State>()) {
  State *shared = state.get();
  shared->thread = std::thread(
      [shared, psIndex, &log, coordinator = std::move(coordinator)] {
        for (int attempt = 0;; ++attempt) {
          try {
            coordinator->waitUntilReachable();
            coordinator->registerTask("ps", psIndex);
            log << "PS task " << psIndex << ": registered with the coordinator"
                << std::endl;
            return;
          } catch (const Error &error) {
            if (!isRecoverable(error.code())) {
              log << "PS task " << psIndex
                  << ": warning: cannot register with the coordinator: "
                  << error.what() << std::endl;
              return;
            }
          }
          std::unique_lock<std::mutex> lock(shared->mutex);
          if (shared->wake.wait_for(lock, std::chrono::milliseconds(500),
                                    [shared] { return shared->quitting; }))
            return;
        }
      });
}

PsRegistration::~PsRegistration() {
  if (!state->thread.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(state->mutex);
    state->quitting = true;
  }
  state->wake.notify_all();
  state->thread.join();
}

} // namespace dtf::train
