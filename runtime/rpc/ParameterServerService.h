//===- ParameterServerService.h - A PS task's variables over gRPC -*- C++ -*-===//
//
// Serves the variables of one PS task and applies the gradients workers
// push, running the task's PS function `@ps_<N>` of the replicated module
// with the reference interpreter (runtime/ABI.md, "Update semantics on a
// PS"):
//
// - async: every push runs the function at once, one push at a time;
// - sync: pushes tagged with the task's current step are accumulated until
//   `replicasToAggregate` have arrived, then the function runs once with all
//   of them (argument r*K+k is the r-th push's gradient of variable k) and
//   the step advances; older pushes are stale and dropped; pushes for later
//   steps wait in a queue until their step comes.
//
// A push is checked completely (names in dtf.gradients order, dtypes,
// shapes) before any of it is applied.
//
// All state is guarded by one mutex, held while the function runs, so that
// updates are serialized and a Pull never sees half an update.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_RUNTIME_RPC_PARAMETERSERVERSERVICE_H
#define DTF_RUNTIME_RPC_PARAMETERSERVERSERVICE_H

#include "runtime/exec/Interpreter.h"
#include "runtime/rpc/Options.h"
#include "runtime/rpc/PsStatus.h"

#include "parameter_server.grpc.pb.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace dtf::rpc {

/// How a PS task applies gradients: the module's dtf.replication.
struct Replication {
  enum class Mode { Async, Sync };
  Mode mode = Mode::Async;
  /// Pushes per aggregate (sync); 1 in async mode.
  int64_t replicasToAggregate = 1;
  /// Number of workers pushing.
  int64_t totalReplicas = 1;

  static Replication async(int64_t totalReplicas = 1) {
    return {Mode::Async, 1, totalReplicas};
  }
  static Replication sync(int64_t replicasToAggregate, int64_t totalReplicas) {
    return {Mode::Sync, replicasToAggregate, totalReplicas};
  }
};

/// Variable values to restore, by name (may hold other tasks' variables
/// too), and the global step they belong to.
struct ModelState {
  int64_t step = 0;
  exec::VariableStore values;
};

struct ParameterServerOptions {
  /// Tensor bytes per Pull response message.
  size_t chunkBytes = kDefaultChunkBytes;
  /// The variable whose value is the task's step when the task holds it.
  std::string globalStepName = "global_step";
  /// Sync mode: most pushes for future steps held at once; more are refused
  /// with RESOURCE_EXHAUSTED (a runaway worker must not exhaust memory).
  size_t maxQueuedPushes = 256;
  /// Longest a WaitForStep call blocks, whatever its request says.
  std::chrono::milliseconds maxWait{60'000};
  /// Observability hooks (optional; dtf-run's --trace): called for every op
  /// of each run of the PS function, and after each successful run with
  /// its start and end and the step reached. Both are called with the
  /// service's mutex held and must not call back into the service.
  exec::OpObserver opObserver;
  std::function<void(int64_t step, std::chrono::steady_clock::time_point begin,
                     std::chrono::steady_clock::time_point end)>
      onApplied;
  /// Reads the checkpoint of a global step for a Restore RPC (e.g. from
  /// the task's --logdir); throws std::exception saying why it cannot.
  /// Without it, restoring from a checkpoint fails with FAILED_PRECONDITION.
  std::function<ModelState(int64_t checkpointStep)> loadCheckpoint;
  /// Bytes the task may still allocate (dtf/runtime/HostMemory.h); when
  /// set, a task whose variables need more is refused at construction,
  /// before any of them is allocated. nullopt: not checked.
  std::optional<uint64_t> availableMemory;
};


/// What a PS task did with the pushes it received.
struct UpdateStats {
  /// Runs of the PS function: one per push in async mode, one per
  /// aggregate in sync mode.
  int64_t appliedUpdates = 0;
  /// Pushes whose gradients were applied (alone or in an aggregate).
  int64_t appliedPushes = 0;
  /// Sync: pushes dropped because their step was already applied.
  int64_t stalePushes = 0;
};

class ParameterServerService final : public ParameterServer::Service {
public:
  /// Serves the variables of `function`, a PS function `@ps_<N>` of a
  /// replicated module, which must outlive the service. `onStop` is called
  /// (from the handler's thread, after the reply is ready) when a Stop RPC
  /// arrives; it must not block on the server's shutdown.
  /// Throws std::invalid_argument if the function's arguments do not fit
  /// its dtf.gradients and `replication`, or its variables do not fit in
  /// options.availableMemory (naming the largest and its bytes).
  ParameterServerService(mlir::func::FuncOp function, Replication replication,
                         std::function<void()> onStop,
                         ParameterServerOptions options = {});

  /// The task's device name, from the function's dtf.device
  /// ("/job:ps/task:0"), else the function's name.
  const std::string &taskName() const { return taskName_; }
  const ParameterServerOptions &options() const { return options_; }
  /// The variables whose gradients a push carries, in order.
  const std::vector<std::string> &gradientNames() const {
    return gradientNames_;
  }

  /// What the RPCs do, callable in-process.
  /// Initializes the variables unless they have values; returns whether it
  /// did.
  bool initialize();
  bool isInitialized() const;
  int64_t currentStep() const;
  UpdateStats stats() const;
  PsTaskStatus status() const;

  /// Takes the task's variables out of `state` (a checkpoint of global step
  /// `checkpointStep`, restored at start-up) without serving them yet: the
  /// chief's Initialize or Restore(KEEP_RESTORED) starts serving them.
  /// Throws std::invalid_argument naming a variable the state lacks or
  /// holds with another dtype or shape.
  void preload(ModelState state, int64_t checkpointStep);

  /// What the Restore RPC does: replaces the variables (from
  /// options().loadCheckpoint, the initializers, or the preloaded values),
  /// sets the step to the restored global step and the epoch to `epoch`,
  /// drops pending sync pushes, ends waits with ABORTED and serves. Returns
  /// the new step. Throws RpcError-free std::exceptions:
  /// std::invalid_argument for a bad request, std::runtime_error when the
  /// values cannot be had.
  int64_t restore(RestoreRequest::Source source, int64_t checkpointStep,
                  int64_t epoch);

  /// Every call must carry `token` (empty: none needed); set before the
  /// server starts (Server::addService does).
  void requireClusterToken(std::string token) {
    clusterToken = std::move(token);
  }

  /// Releases every blocked WaitForStep with UNAVAILABLE and refuses new
  /// calls: the server is going down.
  void beginShutdown();

  // The gRPC methods.
  grpc::Status Initialize(grpc::ServerContext *context,
                          const InitializeRequest *request,
                          InitializeResponse *response) override;
  grpc::Status Pull(grpc::ServerContext *context, const PullRequest *request,
                    grpc::ServerWriter<PullResponse> *writer) override;
  grpc::Status Push(grpc::ServerContext *context,
                    grpc::ServerReader<PushRequest> *reader,
                    PushResponse *response) override;
  grpc::Status GetStep(grpc::ServerContext *context,
                       const GetStepRequest *request,
                       GetStepResponse *response) override;
  grpc::Status WaitForStep(grpc::ServerContext *context,
                           const WaitForStepRequest *request,
                           WaitForStepResponse *response) override;
  grpc::Status Stop(grpc::ServerContext *context,
                    const StopServerRequest *request,
                    StopServerResponse *response) override;
  grpc::Status Snapshot(grpc::ServerContext *context,
                        const SnapshotRequest *request,
                        grpc::ServerWriter<SnapshotResponse> *writer) override;
  grpc::Status Restore(grpc::ServerContext *context,
                       const RestoreRequest *request,
                       RestoreResponse *response) override;

private:
  /// The expected type of one gradient.
  struct GradientType {
    DType dtype;
    Shape shape;
  };

  /// One worker's gradients, in dtf.gradients order.
  using GradientGroup = std::vector<Tensor>;

  /// Throws std::invalid_argument unless the variables fit in
  /// options_.availableMemory.
  void checkVariablesFitInMemory() const;

  /// Checks the header of the index-th gradient of a push; throws
  /// std::invalid_argument naming the variable and both types.
  void checkGradient(size_t index, const std::string &name, DType dtype,
                     const Shape &shape) const;

  /// Status for a call that cannot proceed (not initialized, failed,
  /// shutting down); OK if it can. Requires the mutex.
  grpc::Status checkServingLocked(bool needInitialized) const;

  PushResponse::Outcome applyAsyncLocked(GradientGroup gradients);
  PushResponse::Outcome applySyncLocked(int64_t step, GradientGroup gradients);
  /// Adds a group to the current step's aggregate and applies the aggregate
  /// when it is complete; returns whether it was applied.
  bool accumulateLocked(GradientGroup gradients);
  /// Runs the PS function with `arguments` and advances the step. On an
  /// error the task is marked failed (see `failure`).
  void runFunctionLocked(std::vector<Tensor> arguments);
  int64_t readGlobalStepLocked() const;

  /// The task's own variables out of `state`, checked against their
  /// types; throws std::invalid_argument naming `source`.
  exec::VariableStore ownVariables(ModelState &state,
                                   const std::string &source) const;
  /// Installs restored values and serves them. Requires the mutex.
  void installLocked(exec::VariableStore values, int64_t stateStep,
                     int64_t restoredFrom, int64_t newEpoch);
  /// OK unless the token check fails.
  grpc::Status authorize(grpc::ServerContext *context) const;

  std::string describeHeldVariables() const;
  std::string errorPrefix() const { return "PS task " + taskName_ + ": "; }

  mlir::func::FuncOp function;
  Replication replication;
  std::function<void()> onStop;
  ParameterServerOptions options_;

  std::string taskName_;
  std::vector<std::string> gradientNames_;
  std::vector<GradientType> gradientTypes;
  /// Every variable of the task, with its type (for diagnostics).
  std::map<std::string, GradientType> variableTypes;
  bool holdsGlobalStep = false;

  mutable std::mutex mutex;
  /// Signalled whenever the step advances, the task fails or shuts down.
  std::condition_variable stepChanged;
  exec::VariableStore variables;
  bool initialized = false;
  bool shuttingDown = false;
  /// Set by Restore; pushes and waits of another epoch are refused.
  int64_t epoch = 0;
  /// See PsTaskStatus::restoredFrom.
  int64_t restoredFrom = -1;
  std::string clusterToken;
  /// Set when the PS function failed: the variables may be half updated,
  /// so the task serves no more.
  std::optional<std::string> failure;
  int64_t step = 0;
  UpdateStats stats_;
  /// Sync: the groups accumulated for `step`.
  std::vector<GradientGroup> aggregate;
  /// Sync: groups pushed for steps after `step`.
  std::multimap<int64_t, GradientGroup> queued;
};

} // namespace dtf::rpc

#endif // DTF_RUNTIME_RPC_PARAMETERSERVERSERVICE_H
