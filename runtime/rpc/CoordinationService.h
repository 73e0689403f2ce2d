//===- CoordinationService.h - Start-up and end of training -----*- C++ -*-===//
//
// Hosted by PS task 0. Tasks register when they start; the chief marks the
// variables initialized and the other workers wait for that; workers send
// heartbeats while they train and report when they are done; the chief,
// after its own training, waits until every worker is done or lost (silent
// for longer than the heartbeat timeout: a killed worker must not keep the
// cluster up), then stops training. runtime/rpc/README.md describes the
// whole protocol.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_RUNTIME_RPC_COORDINATIONSERVICE_H
#define DTF_RUNTIME_RPC_COORDINATIONSERVICE_H

#include "coordination.grpc.pb.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace dtf::rpc {

struct CoordinationOptions {
  int numPsTasks = 1;
  int numWorkers = 1;
  /// A worker that is not done and has not been heard of for this long is
  /// lost. Counted from the service's start for a worker that never
  /// registered.
  std::chrono::milliseconds heartbeatTimeout{30'000};
  /// Longest a waiting call blocks, whatever its request says.
  std::chrono::milliseconds maxWait{60'000};
  /// Reads the global step for GetGlobalStep (e.g. from the local PS task
  /// holding global_step); may throw. Without it, GetGlobalStep answers
  /// UNIMPLEMENTED.
  std::function<int64_t()> globalStep;
};

/// The workers by state, each list in index order.
struct WorkerStates {
  std::vector<int> done;
  std::vector<int> lost;
  std::vector<int> running;
};

class CoordinationService final : public Coordination::Service {
public:
  explicit CoordinationService(CoordinationOptions options);

  bool isInitialized() const;
  bool stopRequested() const;
  WorkerStates workerStates() const;

  /// Releases every blocked call with UNAVAILABLE: the server is going
  /// down.
  void beginShutdown();

  /// Every call must carry `token` (empty: none needed); set before the
  /// server starts (Server::addService does).
  void requireClusterToken(std::string token) {
    clusterToken = std::move(token);
  }

  grpc::Status RegisterTask(grpc::ServerContext *context,
                            const RegisterTaskRequest *request,
                            RegisterTaskResponse *response) override;
  grpc::Status Heartbeat(grpc::ServerContext *context,
                         const HeartbeatRequest *request,
                         HeartbeatResponse *response) override;
  grpc::Status MarkInitialized(grpc::ServerContext *context,
                               const MarkInitializedRequest *request,
                               MarkInitializedResponse *response) override;
  grpc::Status WaitInitialized(grpc::ServerContext *context,
                               const WaitInitializedRequest *request,
                               WaitInitializedResponse *response) override;
  grpc::Status GetGlobalStep(grpc::ServerContext *context,
                             const GetGlobalStepRequest *request,
                             GetGlobalStepResponse *response) override;
  grpc::Status WorkerDone(grpc::ServerContext *context,
                          const WorkerDoneRequest *request,
                          WorkerDoneResponse *response) override;
  grpc::Status WaitWorkersDone(grpc::ServerContext *context,
                               const WaitWorkersDoneRequest *request,
                               WaitWorkersDoneResponse *response) override;
  grpc::Status Stop(grpc::ServerContext *context,
                    const StopTrainingRequest *request,
                    StopTrainingResponse *response) override;

private:
  using Clock = std::chrono::steady_clock;

  struct WorkerState {
    bool registered = false;
    bool done = false;
    Clock::time_point lastSeen;
  };

  /// INVALID_ARGUMENT unless `task` names a task of the cluster.
  grpc::Status checkTask(const TaskId &task) const;
  /// Records that `task` is alive. Requires the mutex.
  void sawTaskLocked(const TaskId &task);
  WorkerStates workerStatesLocked(Clock::time_point now) const;
  /// Calls `poll` at every change of state, and often enough to notice
  /// a worker getting lost, until it returns a status. Ends earlier with
  /// DEADLINE_EXCEEDED and `timeoutMessage()` after `timeoutMs` (at most
  /// options.maxWait), with CANCELLED when the client left and with
  /// UNAVAILABLE when the server shuts down. Requires the mutex, held by
  /// `lock`.
  grpc::Status
  waitLocked(std::unique_lock<std::mutex> &lock, grpc::ServerContext *context,
             int64_t timeoutMs,
             const std::function<std::optional<grpc::Status>()> &poll,
             const std::function<std::string()> &timeoutMessage);

  CoordinationOptions options;
  std::string clusterToken;

  mutable std::mutex mutex;
  std::condition_variable changed;
  std::vector<WorkerState> workers;
  std::vector<bool> psRegistered;
  bool initialized = false;
  bool stopRequested_ = false;
  std::string stopReason;
  bool shuttingDown = false;
};

} // namespace dtf::rpc

#endif // DTF_RUNTIME_RPC_COORDINATIONSERVICE_H
