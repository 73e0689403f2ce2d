//===- CoordinatorConnection.h - A task's calls to the coordinator --------===//
//
// What a task asks of the coordination service (runtime/coord/Coordinator.h):
// register, send heartbeats, wait for the chief's initialization, report
// done, stop training. The training loop and the supervisor hold this
// interface, not a transport: rpc::CoordinationClient implements it over
// gRPC, coord::InProcessCoordinatorConnection calls a Coordinator of the
// same process (tests, the one-process mode). Failures are dtf::Error with
// the code the coordinator or the transport gave.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <chrono>
#include <cstdint>
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
};

} // namespace dtf::coord
