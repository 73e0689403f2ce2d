//===- Coordinator.h - Start-up and end of training -------------*- C++ -*-===//
//
// The coordination state machine, hosted by PS task 0. Tasks register when
// they start; the chief marks the variables initialized and the other
// workers wait for that; workers send heartbeats while they train and
// report when they are done; the chief, after its own training, waits until
// every worker is done or lost (silent for longer than the heartbeat
// timeout: a killed worker must not keep the cluster up), then stops
// training. runtime/rpc/README.md describes the whole protocol.
//
// It also owns the cluster's DataCoordinator (DataCoordinator.h), which
// hands out the units of the data set: a worker defining the data set
// again (a new process: its readers start) or done gives back the units it
// held, and a lost worker's units go back at the
// latest at the next call of any worker.
//
// No transport: rpc::CoordinationService serves a Coordinator over gRPC,
// InProcessCoordinatorConnection calls one in the same process. Failures
// are dtf::Error:
//
//   InvalidArgument   a task outside the cluster
//   DeadlineExceeded  a wait that timed out
//   Aborted           a wait that training was stopped during
//   Cancelled         a wait whose caller left
//   Unavailable       a wait cut short by beginShutdown(), or a global step
//                     that could not be read
//   Unimplemented     no source of the global step
//
// Thread-safe.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/coord/CoordinatorConnection.h"
#include "runtime/coord/DataCoordinator.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace dtf::coord {

struct CoordinatorOptions {
  int numPsTasks = 1;
  int numWorkers = 1;
  /// A worker that is not done and has not been heard of for this long is
  /// lost. Counted from the coordinator's construction for a worker that
  /// never registered.
  std::chrono::milliseconds heartbeatTimeout{30'000};
  /// Longest a wait blocks, whatever its caller asks: a wait holds a
  /// server thread, and a client waiting longer asks again.
  std::chrono::milliseconds maxWait{60'000};
  /// Reads the global step for globalStep() (e.g. from the local PS task
  /// holding global_step); may throw.
  std::function<int64_t()> globalStep;
};

class Coordinator {
public:
  /// Polled by a wait: whether its caller has gone (a cancelled RPC), so
  /// that the wait ends rather than holding a thread for nobody.
  using ClientLeft = std::function<bool()>;

  explicit Coordinator(CoordinatorOptions options);
  Coordinator(const Coordinator &) = delete;
  Coordinator &operator=(const Coordinator &) = delete;

  /// `job` is "worker" or "ps". A worker registering again has restarted
  /// or recovered: it is no longer done. (Its units of data go back when
  /// it defines the data set again, which only a new process does.)
  Registration registerTask(const std::string &job, int index);
  /// Records that the task is alive; returns whether training is to stop.
  bool heartbeat(const std::string &job, int index);
  void markInitialized();
  /// Returns once markInitialized() was called. Blocks for at most
  /// min(`timeout`, maxWait).
  void waitInitialized(std::chrono::milliseconds timeout,
                       const ClientLeft &clientLeft = {});
  int64_t globalStep() const;
  /// The worker finished: it is done, and the units of data it held (not
  /// done) go back.
  void workerDone(int index);
  /// Returns once every worker is done or lost (`running` is then empty).
  /// Blocks for at most min(`timeout`, maxWait).
  WorkerStates waitWorkersDone(std::chrono::milliseconds timeout,
                               const ClientLeft &clientLeft = {});
  /// Ends training: heartbeats and registrations answer stop from now on,
  /// and waits end with Aborted. The first reason is kept.
  void stop(const std::string &reason);

  // The data set (DataCoordinator.h). A call naming a worker counts as
  // hearing from it, and throws InvalidArgument for a worker outside the
  // cluster.

  void defineData(int worker, const DataSetDefinition &definition);
  /// Blocks for at most min(`timeout`, maxWait) (DeadlineExceeded);
  /// nullopt when the data is finished.
  std::optional<WorkUnit> acquireUnit(int worker,
                                      std::chrono::milliseconds timeout,
                                      const ClientLeft &clientLeft = {});
  void reportData(int worker, const DataReport &report);
  DataStats dataStats();
  /// The data state as of global step `globalStep`, to keep with the
  /// checkpoint of that step.
  std::string saveDataState(int64_t globalStep);
  void restoreDataState(const std::string &state);
  DataCoordinator &data() { return data_; }

  bool isInitialized() const;
  bool stopRequested() const;
  WorkerStates workerStates() const;

  /// Releases every wait, now and later, with Unavailable: the server
  /// hosting the coordinator is going down.
  void beginShutdown();

private:
  using Clock = std::chrono::steady_clock;

  struct Worker {
    bool done = false;
    Clock::time_point lastSeen;
  };

  /// Not done, and not heard of for longer than the heartbeat timeout.
  bool isLost(const Worker &worker, Clock::time_point now) const {
    return !worker.done && now - worker.lastSeen > options.heartbeatTimeout;
  }

  /// Records that the task is alive; throws InvalidArgument unless it is a
  /// task of the cluster. Requires the mutex.
  void sawTaskLocked(const std::string &job, int index);
  /// sawTaskLocked("worker", worker), taking the mutex.
  void sawWorker(int worker);
  WorkerStates workerStatesLocked(Clock::time_point now) const;
  /// workerStatesLocked(now).lost, which the data coordinator asks of each
  /// of its calls (a report rides every push): none lost allocates nothing.
  std::vector<int> lostWorkersLocked(Clock::time_point now) const;
  /// Blocks until `done` returns true, re-evaluating it at every change of
  /// state and often enough to notice a worker getting lost or the caller
  /// leaving. `done` may throw to end the wait. Throws DeadlineExceeded
  /// with `timeoutMessage()` after min(`timeout`, maxWait). Requires the
  /// mutex, held by `lock`.
  void waitLocked(std::unique_lock<std::mutex> &lock,
                  std::chrono::milliseconds timeout,
                  const ClientLeft &clientLeft,
                  const std::function<bool()> &done,
                  const std::function<std::string()> &timeoutMessage);

  const CoordinatorOptions options;

  mutable std::mutex mutex;
  std::condition_variable changed;
  std::vector<Worker> workers;
  bool initialized = false;
  bool stopRequested_ = false;
  std::string stopReason;
  bool shuttingDown = false;
  /// Asks for lost workers with its own lock held: never called with
  /// `mutex` held.
  DataCoordinator data_;
};

} // namespace dtf::coord
