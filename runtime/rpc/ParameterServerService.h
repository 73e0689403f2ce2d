//===- ParameterServerService.h - A PS task served over gRPC ----*- C++ -*-===//
//
// The gRPC face of a parameter-server task (parameter_server.proto): each
// method checks the cluster token, decodes its request, calls the task's
// state machine (runtime/ps/ParameterServer.h, which decides everything a
// PS task does) and encodes the answer; a dtf::Error becomes the gRPC
// status of its code. As TensorFlow splits worker.h from
// rpc/grpc_worker_service.cc, nothing here knows what an update is.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_RUNTIME_RPC_PARAMETERSERVERSERVICE_H
#define DTF_RUNTIME_RPC_PARAMETERSERVERSERVICE_H

#include "runtime/ps/ParameterServer.h"
#include "runtime/rpc/Options.h"

#include "parameter_server.grpc.pb.h"

#include <functional>
#include <string>

namespace dtf::rpc {

class ParameterServerService final : public ParameterServer::Service {
public:
  /// Serves `task`, which must outlive the service. `onStop` is called
  /// (from the handler's thread, after the reply is ready) when a Stop RPC
  /// arrives; it must not block on the server's shutdown. Pulls and
  /// snapshots carry at most `chunkBytes` of tensor data per message.
  ParameterServerService(ps::ParameterServer &task,
                         std::function<void()> onStop,
                         size_t chunkBytes = kDefaultChunkBytes);

  ps::ParameterServer &task() { return task_; }
  size_t chunkBytes() const { return chunkBytes_; }

  /// Every call must carry `token` (empty: none needed); set before the
  /// server starts (Server::addService does).
  void requireClusterToken(std::string token) {
    clusterToken = std::move(token);
  }

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
  /// OK unless the token check fails.
  grpc::Status authorize(grpc::ServerContext *context) const;

  ps::ParameterServer &task_;
  std::function<void()> onStop;
  size_t chunkBytes_;
  std::string clusterToken;
};

} // namespace dtf::rpc

#endif // DTF_RUNTIME_RPC_PARAMETERSERVERSERVICE_H
