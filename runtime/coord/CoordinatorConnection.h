//===- CoordinatorConnection.h - A task's calls to the coordinator --------===//
//
// What a task asks of the coordination service (runtime/coord/Coordinator.h):
// register, send heartbeats, wait for the chief's initialization, report
// done, stop training; and the units of the data set its readers train on
// (runtime/coord/DataCoordinator.h). The training loop and the supervisor hold
// this interface, not a transport: rpc::CoordinationClient implements it over
// gRPC, coord::InProcessCoordinatorConnection calls a Coordinator of the
// same process (tests, the one-process mode). Failures are dtf::Error with
// the code the coordinator or the transport gave.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/coord/DataTypes.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dtf::coord {

struct Registration {
  /// The chief has already initialized the variables.
  bool initialized = false;
  /// Training is already over.
  bool stopRequested = false;
};

/// The workers by state, each list in index order.
struct WorkerStates {
  std::vector<int> done;
  std::vector<int> lost;
  std::vector<int> running;
};

/// A data report sent, its answer not yet read
/// (CoordinatorConnection::startReportData).
class PendingReport {
public:
  virtual ~PendingReport() = default;
  /// Waits for the coordinator's answer; throws what reportData() throws.
  virtual void finish() = 0;
  /// Whether the report rides the worker's next push to PS task 0, which
  /// applies it before the push (runtime/rpc/DataReportRider.h): the push
  /// need not wait for finish(), which waits for the push's answer.
  virtual bool ridesPush() const { return false; }
  /// Whether finish() would return without waiting.
  virtual bool answered() const { return false; }
  /// Once answered: the report's pushing records rode their push, which
  /// was applied, and were recorded trained at the step it made
  /// (DataReport::pushingRidesItsPush): they need no report of their own.
  virtual bool batchTrainedWithPush() const { return false; }
};

class CoordinatorConnection {
public:
  virtual ~CoordinatorConnection() = default;

  /// Names the coordinator in errors: "coordinator /job:ps/task:0 at
  /// localhost:2222".
  virtual const std::string &peer() const = 0;

  /// Waits until the coordinator answers, for at most the connection's
  /// connect timeout.
  virtual void waitUntilReachable() = 0;

  /// `job` is "worker" or "ps".
  virtual Registration registerTask(const std::string &job, int index) = 0;
  /// Returns whether the coordinator asks to stop training.
  virtual bool heartbeat(const std::string &job, int index) = 0;
  virtual void markInitialized() = 0;
  /// Blocks until the chief has initialized the variables, for at most
  /// `timeout` (then DeadlineExceeded); Aborted when training was stopped
  /// first.
  virtual void waitInitialized(std::chrono::milliseconds timeout) = 0;
  virtual int64_t globalStep() = 0;
  virtual void workerDone(int index) = 0;
  /// Blocks until every worker is done or lost, for at most `timeout`
  /// (then DeadlineExceeded); Aborted when training was stopped first.
  virtual WorkerStates waitWorkersDone(std::chrono::milliseconds timeout) = 0;
  /// Ends training: heartbeats answer stop from now on.
  virtual void stop(const std::string &reason) = 0;

  // The data set (runtime/coord/DataCoordinator.h). `worker` is the
  // calling worker's index.

  /// Every worker defines the data set at its start; the first definition
  /// wins, an identical one is accepted, another is InvalidArgument.
  virtual void defineData(int worker, const DataSetDefinition &definition) = 0;
  /// The next unit for the worker's readers; nullopt when the data is
  /// finished. Blocks while none is pending but some may come back, for at
  /// most `timeout` (then DeadlineExceeded: ask again); Aborted when
  /// training was stopped.
  virtual std::optional<WorkUnit>
  acquireUnit(int worker, std::chrono::milliseconds timeout) = 0;
  /// Units read to their end, records pushing and records trained (with
  /// the global step they are in the model from): one call per step.
  virtual void reportData(int worker, const DataReport &report) = 0;
  /// reportData() in two halves where the transport has them: the report
  /// is sent before this returns, its answer read by finish(). A worker's
  /// step thread sends its report so and reads the answer after the step's
  /// computation, with no thread woken to carry it; or the report waits
  /// to ride the worker's next push to PS task 0 (PendingReport::
  /// ridesPush). Null where the transport cannot send without waiting for
  /// the answer (gRPC, a coordinator in this process): call reportData()
  /// from a thread of your own.
  virtual std::unique_ptr<PendingReport>
  startReportData(int /*worker*/, const DataReport & /*report*/) {
    return nullptr;
  }
  /// The data state as of global step `globalStep`, as bytes to keep with
  /// the checkpoint of that step.
  virtual std::string dataState(int64_t globalStep) = 0;
  /// Replaces the data state by one dataState() returned: every unit not
  /// done is pending again (the model was restored to that checkpoint).
  virtual void restoreDataState(const std::string &state) = 0;
  virtual DataStats dataStats() = 0;
};

} // namespace dtf::coord
