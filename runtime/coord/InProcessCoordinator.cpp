//===- InProcessCoordinator.cpp - A local coordinator ---------------------===//

#include "runtime/coord/InProcessCoordinator.h"

#include "runtime/core/Error.h"

namespace dtf::coord {

namespace {

/// Repeats `wait` (a wait of the coordinator, which blocks for at most its
/// maxWait) until it returns or `timeout` has passed, as a remote client
/// repeats its long polls.
template <typename Wait>
auto waitFor(std::chrono::milliseconds timeout, const Wait &wait) {
  using Clock = std::chrono::steady_clock;
  auto end = Clock::now() + timeout;
  while (true) {
    auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - Clock::now());
    try {
      return wait(remaining);
    } catch (const Error &error) {
      if (error.code() != ErrorCode::DeadlineExceeded || Clock::now() >= end)
        throw;
    }
  }
}

} // namespace

InProcessCoordinatorConnection::InProcessCoordinatorConnection(
    Coordinator &coordinator)
    : coordinator(coordinator) {}

Registration
InProcessCoordinatorConnection::registerTask(const std::string &job,
                                             int index) {
  return coordinator.registerTask(job, index);
}

bool InProcessCoordinatorConnection::heartbeat(const std::string &job,
                                               int index) {
  return coordinator.heartbeat(job, index);
}

void InProcessCoordinatorConnection::markInitialized() {
  coordinator.markInitialized();
}

void InProcessCoordinatorConnection::waitInitialized(
    std::chrono::milliseconds timeout) {
  waitFor(timeout, [&](std::chrono::milliseconds slice) {
    coordinator.waitInitialized(slice);
  });
}

int64_t InProcessCoordinatorConnection::globalStep() {
  return coordinator.globalStep();
}

void InProcessCoordinatorConnection::workerDone(int index) {
  coordinator.workerDone(index);
}

WorkerStates InProcessCoordinatorConnection::waitWorkersDone(
    std::chrono::milliseconds timeout) {
  return waitFor(timeout, [&](std::chrono::milliseconds slice) {
    return coordinator.waitWorkersDone(slice);
  });
}

void InProcessCoordinatorConnection::stop(const std::string &reason) {
  coordinator.stop(reason);
}

void InProcessCoordinatorConnection::defineData(
    int worker, const DataSetDefinition &definition) {
  coordinator.defineData(worker, definition);
}

std::optional<WorkUnit>
InProcessCoordinatorConnection::acquireUnit(int worker,
                                            std::chrono::milliseconds timeout) {
  return waitFor(timeout, [&](std::chrono::milliseconds slice) {
    return coordinator.acquireUnit(worker, slice);
  });
}

void InProcessCoordinatorConnection::reportData(int worker,
                                                const DataReport &report) {
  coordinator.reportData(worker, report);
}

std::string InProcessCoordinatorConnection::dataState(int64_t globalStep) {
  return coordinator.saveDataState(globalStep);
}

void InProcessCoordinatorConnection::restoreDataState(
    const std::string &state) {
  coordinator.restoreDataState(state);
}

DataStats InProcessCoordinatorConnection::dataStats() {
  return coordinator.dataStats();
}

} // namespace dtf::coord
