//===- ParameterServerService.h - A PS task served over gRPC ----*- C++ -*-===//
//
// The gRPC face of a parameter-server task (parameter_server.proto): each
// method checks the cluster token, decodes its request, calls the task's
// state machine (runtime/ps/ParameterServer.h, which decides everything a
// PS task does) and encodes the answer; a dtf::Error becomes the gRPC
// status of its code. As TensorFlow splits worker.h from
// rpc/grpc_worker_service.cc, nothing here knows what an update is.
//
// The methods of a training step (Pull, Push, PushPull) use gRPC's callback
// API on raw byte buffers: they run on gRPC's own threads, without a thread
// handed each call, and read and write their messages with TensorWire.h,
// without protobuf copies of the tensors. The others, rare and some
// blocking (WaitForStep), stay on the synchronous server's threads. For
// clients on the task's host the same three are served on a local socket
// as well (LocalTransport.h, set up by Server), by the same code.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/ps/ParameterServer.h"
#include "runtime/rpc/LocalTransport.h"
#include "runtime/rpc/Options.h"
#include "runtime/rpc/TensorWire.h"

#include "parameter_server.grpc.pb.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace dtf::rpc {

/// The step's methods on the callback API, with raw messages.
using ParameterServerStepMethods = ParameterServer::WithRawCallbackMethod_Pull<
    ParameterServer::WithRawCallbackMethod_Push<
        ParameterServer::WithRawCallbackMethod_PushPull<
            ParameterServer::Service>>>;

class ParameterServerService final : public ParameterServerStepMethods {
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

  /// The local socket that LocalEndpoint names; set before the server
  /// starts (Server::start does).
  void offerLocalEndpoint(std::string socketName) {
    localEndpoint = std::move(socketName);
  }
  /// Pull, Push or PushPull received on the local socket, whose hello
  /// carried the token.
  grpc::Status serveLocal(LocalMethod method, const grpc::ByteBuffer &request,
                          grpc::ByteBuffer &response);

  /// Settles, once the push's outcome is known, the batch of a data report
  /// that rode its push: trained at `appliedAt` where the push was applied,
  /// else in flight.
  using SettleRidingBatch =
      std::function<grpc::Status(std::optional<int64_t> appliedAt)>;
  /// Applies the data report that rode a push (PushRequest.data_report, a
  /// serialized ReportDataRequest) to the data coordinator of this task,
  /// before the push; sets the settle call where the report leaves its
  /// batch to the push (CoordinationService::applyRidingReport).
  using DataReportHandler = std::function<grpc::Status(
      std::string_view request, SettleRidingBatch &settle)>;
  /// Set on the task that hosts the coordinator before it serves
  /// (Server::start); without one, a push's data report fails with
  /// UNIMPLEMENTED (the push is applied: the report is refused).
  void acceptDataReports(DataReportHandler handler) {
    dataReports = std::move(handler);
  }

  grpc::Status Initialize(grpc::ServerContext *context,
                          const InitializeRequest *request,
                          InitializeResponse *response) override;
  grpc::ServerUnaryReactor *Pull(grpc::CallbackServerContext *context,
                                 const grpc::ByteBuffer *request,
                                 grpc::ByteBuffer *response) override;
  grpc::ServerUnaryReactor *Push(grpc::CallbackServerContext *context,
                                 const grpc::ByteBuffer *request,
                                 grpc::ByteBuffer *response) override;
  grpc::ServerUnaryReactor *PushPull(grpc::CallbackServerContext *context,
                                     const grpc::ByteBuffer *request,
                                     grpc::ByteBuffer *response) override;
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
  grpc::Status
  SaveCheckpointShard(grpc::ServerContext *context,
                      const SaveCheckpointShardRequest *request,
                      SaveCheckpointShardResponse *response) override;
  grpc::Status Restore(grpc::ServerContext *context,
                       const RestoreRequest *request,
                       RestoreResponse *response) override;
  grpc::Status LocalEndpoint(grpc::ServerContext *context,
                             const LocalEndpointRequest *request,
                             LocalEndpointResponse *response) override;

private:
  /// OK unless the token check fails.
  grpc::Status authorize(grpc::ServerContextBase *context) const;

  /// The bodies of Pull, Push and PushPull.
  grpc::Status pull(const grpc::ByteBuffer &request,
                    grpc::ByteBuffer &response);
  grpc::Status pushPull(const grpc::ByteBuffer &request,
                        grpc::ByteBuffer &response, bool alsoPull);
  /// Encodes the values of `names` (read from one state between updates)
  /// as repeated field `field` of `message`, with the epoch as field
  /// `epochField`.
  void addValues(const std::vector<std::string> &names, int field,
                 int epochField, WireMessageBuilder &message);

  ps::ParameterServer &task_;
  std::function<void()> onStop;
  size_t chunkBytes_;
  std::string clusterToken;
  std::string localEndpoint;
  DataReportHandler dataReports;
};

} // namespace dtf::rpc
