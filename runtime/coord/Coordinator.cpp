//===- Coordinator.cpp - Start-up and end of training ---------------------===//

#include "runtime/coord/Coordinator.h"

#include "runtime/core/Error.h"

#include <algorithm>

namespace dtf::coord {

namespace {

/// How often waits re-evaluate: a worker gets lost by time passing, and
/// a caller may leave, without any call signalling it.
constexpr std::chrono::milliseconds kPollInterval{50};

std::string join(const std::vector<int> &indices) {
  std::string text;
  for (int index : indices)
    text += (text.empty() ? "" : ", ") + std::to_string(index);
  return text;
}

} // namespace

Coordinator::Coordinator(CoordinatorOptions options)
    : options(std::move(options)),
      data_(
          DataCoordinatorOptions{this->options.numWorkers,
                                 this->options.maxWait,
                                 [this] {
                                   std::lock_guard<std::mutex> lock(mutex);
                                   return lostWorkersLocked(Clock::now());
                                 },
                                 {}}) {
  // A worker that never shows up is lost one heartbeat timeout after the
  // start.
  workers.resize(std::max(this->options.numWorkers, 0),
                 Worker{false, Clock::now()});
}

Registration Coordinator::registerTask(const std::string &job, int index) {
  Registration registration;
  {
    std::lock_guard<std::mutex> lock(mutex);
    sawTaskLocked(job, index);
    // Whatever a restarted worker reported before its restart no longer
    // holds.
    if (job == "worker")
      workers[index].done = false;
    changed.notify_all();
    registration = {initialized, stopRequested_};
  }
  // The units it was reading stay its own: a worker also registers again
  // when it recovers from a failed call, its readers intact. A restarted
  // one gives them back when it defines the data set again (defineData).
  return registration;
}

bool Coordinator::heartbeat(const std::string &job, int index) {
  std::lock_guard<std::mutex> lock(mutex);
  sawTaskLocked(job, index);
  changed.notify_all();
  return stopRequested_;
}

void Coordinator::markInitialized() {
  std::lock_guard<std::mutex> lock(mutex);
  initialized = true;
  changed.notify_all();
}

void Coordinator::waitInitialized(std::chrono::milliseconds timeout,
                                  const ClientLeft &clientLeft) {
  std::unique_lock<std::mutex> lock(mutex);
  waitLocked(
      lock, timeout, clientLeft,
      [&] {
        if (initialized)
          return true;
        if (stopRequested_)
          throw Error(ErrorCode::Aborted,
                      "coordinator: training was stopped before the "
                      "variables were initialized: " +
                          stopReason);
        return false;
      },
      [] {
        return std::string("the chief has not initialized the variables "
                           "yet");
      });
}

int64_t Coordinator::globalStep() const {
  if (!options.globalStep)
    throw Error(ErrorCode::Unimplemented,
                "coordinator: no source of the global step (read it from "
                "the PS task holding global_step)");
  try {
    return options.globalStep();
  } catch (const std::exception &error) {
    throw Error(ErrorCode::Unavailable,
                std::string("coordinator: reading the global step failed: ") +
                    error.what());
  }
}

void Coordinator::workerDone(int index) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    sawTaskLocked("worker", index);
    workers[index].done = true;
    changed.notify_all();
  }
  data_.releaseWorker(index, ReleaseReason::Done);
}

WorkerStates Coordinator::waitWorkersDone(std::chrono::milliseconds timeout,
                                          const ClientLeft &clientLeft) {
  std::unique_lock<std::mutex> lock(mutex);
  WorkerStates states;
  waitLocked(
      lock, timeout, clientLeft,
      [&] {
        if (stopRequested_)
          throw Error(ErrorCode::Aborted,
                      "coordinator: training was stopped: " + stopReason);
        states = workerStatesLocked(Clock::now());
        return states.running.empty();
      },
      [&] {
        return "worker(s) " + join(states.running) +
               " are still running (done: " + join(states.done) +
               "; lost: " + join(states.lost) + ")";
      });
  return states;
}

void Coordinator::stop(const std::string &reason) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!stopRequested_) {
      stopRequested_ = true;
      stopReason = reason.empty() ? "no reason given" : reason;
    }
    changed.notify_all();
  }
  data_.stop(reason);
}

void Coordinator::sawWorker(int worker) {
  std::lock_guard<std::mutex> lock(mutex);
  sawTaskLocked("worker", worker);
  changed.notify_all();
}

void Coordinator::defineData(int worker, const DataSetDefinition &definition) {
  sawWorker(worker);
  // A worker defines the data set once per process, when its readers
  // start: whatever units it held before were a previous process's.
  data_.releaseWorker(worker, ReleaseReason::Restarted);
  data_.define(worker, definition);
}

std::optional<WorkUnit>
Coordinator::acquireUnit(int worker, std::chrono::milliseconds timeout,
                         const ClientLeft &clientLeft) {
  sawWorker(worker);
  std::optional<WorkUnit> unit = data_.acquire(worker, timeout, clientLeft);
  // It was alive while it waited.
  sawWorker(worker);
  return unit;
}

void Coordinator::reportData(int worker, const DataReport &report) {
  sawWorker(worker);
  data_.report(worker, report);
}

DataStats Coordinator::dataStats() { return data_.stats(); }

std::string Coordinator::saveDataState(int64_t globalStep) {
  return data_.saveState(globalStep);
}

void Coordinator::restoreDataState(const std::string &state) {
  data_.restoreState(state);
}

bool Coordinator::isInitialized() const {
  std::lock_guard<std::mutex> lock(mutex);
  return initialized;
}

bool Coordinator::stopRequested() const {
  std::lock_guard<std::mutex> lock(mutex);
  return stopRequested_;
}

WorkerStates Coordinator::workerStates() const {
  std::lock_guard<std::mutex> lock(mutex);
  return workerStatesLocked(Clock::now());
}

void Coordinator::beginShutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    shuttingDown = true;
    changed.notify_all();
  }
  data_.beginShutdown();
}

void Coordinator::sawTaskLocked(const std::string &job, int index) {
  int count;
  if (job == "worker")
    count = static_cast<int>(workers.size());
  else if (job == "ps")
    count = std::max(options.numPsTasks, 0);
  else
    throw Error(ErrorCode::InvalidArgument,
                "coordinator: unknown job '" + job +
                    "' (the jobs are ps and worker)");
  if (index < 0 || index >= count)
    throw Error(ErrorCode::InvalidArgument,
                "coordinator: no task /job:" + job +
                    "/task:" + std::to_string(index) + " in a cluster of " +
                    std::to_string(count) + " " + job + " task(s)");
  // Only workers can be lost: a PS task's liveness shows in its own calls.
  if (job == "worker")
    workers[index].lastSeen = Clock::now();
}

WorkerStates Coordinator::workerStatesLocked(Clock::time_point now) const {
  WorkerStates states;
  for (int index = 0; index < static_cast<int>(workers.size()); ++index) {
    const Worker &worker = workers[index];
    if (worker.done)
      states.done.push_back(index);
    else if (isLost(worker, now))
      states.lost.push_back(index);
    else
      states.running.push_back(index);
  }
  return states;
}

std::vector<int> Coordinator::lostWorkersLocked(Clock::time_point now) const {
  std::vector<int> lost;
  for (int index = 0; index < static_cast<int>(workers.size()); ++index)
    if (isLost(workers[index], now))
      lost.push_back(index);
  return lost;
}

void Coordinator::waitLocked(
    std::unique_lock<std::mutex> &lock, std::chrono::milliseconds timeout,
    const ClientLeft &clientLeft, const std::function<bool()> &done,
    const std::function<std::string()> &timeoutMessage) {
  auto deadline =
      Clock::now() + std::min(std::max(timeout, std::chrono::milliseconds(0)),
                              options.maxWait);
  while (true) {
    if (shuttingDown)
      throw Error(ErrorCode::Unavailable, "coordinator: shutting down");
    if (done())
      return;
    if (clientLeft && clientLeft())
      throw Error(ErrorCode::Cancelled,
                  "coordinator: the caller of the wait left");
    auto now = Clock::now();
    if (now >= deadline)
      throw Error(ErrorCode::DeadlineExceeded,
                  "coordinator: " + timeoutMessage());
    changed.wait_until(lock, std::min(deadline, now + kPollInterval));
  }
}

} // namespace dtf::coord
