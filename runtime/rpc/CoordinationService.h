//===- CoordinationService.h - The coordinator over gRPC --------*- C++ -*-===//
//
// Serves a coord::Coordinator (runtime/coord/Coordinator.h: the state
// machine of start-up and end of training), which PS task 0 owns, over
// gRPC. Each RPC checks the cluster token, decodes its request, calls the
// coordinator and encodes the answer; the coordinator's dtf::Error becomes
// the call's status (StatusConversion.h). A wait ends when its client
// cancels the call.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/coord/Coordinator.h"
#include "runtime/rpc/LocalTransport.h"

#include "coordination.grpc.pb.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace dtf::rpc {

class CoordinationService final : public Coordination::Service {
public:
  /// `coordinator` must outlive the service.
  explicit CoordinationService(coord::Coordinator &coordinator);

  coord::Coordinator &coordinator() { return coordinator_; }

  /// Releases every blocked call with UNAVAILABLE: the server is going
  /// down.
  void beginShutdown() { coordinator_.beginShutdown(); }

  /// Every call must carry `token` (empty: none needed); set before the
  /// server starts (Server::addService does).
  void requireClusterToken(std::string token) {
    clusterToken = std::move(token);
  }

  /// The local socket that also takes ReportData and AcquireUnit polls
  /// (LocalTransport.h), named
  /// to clients by LocalEndpoint; set by Server::start before it serves.
  void offerLocalEndpoint(std::string name) { localEndpoint = std::move(name); }

  /// ReportData, or AcquireUnit that waits for nothing, from a local
  /// connection, whose hello carried the cluster token: the same calls as
  /// the RPCs.
  grpc::Status serveLocal(LocalMethod method, const grpc::ByteBuffer &request,
                          grpc::ByteBuffer &response);
  /// What a report riding a push leaves to the push's outcome: its batch
  /// recorded trained at the step the push made where the push was applied
  /// (`appliedAt`), else pushing (in flight). Called once.
  using SettleRidingBatch =
      std::function<grpc::Status(std::optional<int64_t> appliedAt)>;
  /// A serialized ReportDataRequest riding one of PS task 0's pushes
  /// (PushRequest.data_report), applied as ReportData applies it, before
  /// the push; but where it leaves its pushing records to its push
  /// (pushing_rides_its_push), all but those, and `settle` is set to
  /// record them once the push's outcome is known.
  grpc::Status applyRidingReport(std::string_view request,
                                 SettleRidingBatch &settle);

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
  grpc::Status DefineData(grpc::ServerContext *context,
                          const DefineDataRequest *request,
                          DefineDataResponse *response) override;
  grpc::Status AcquireUnit(grpc::ServerContext *context,
                           const AcquireUnitRequest *request,
                           AcquireUnitResponse *response) override;
  grpc::Status ReportData(grpc::ServerContext *context,
                          const ReportDataRequest *request,
                          ReportDataResponse *response) override;
  grpc::Status LocalEndpoint(grpc::ServerContext *context,
                             const CoordinatorEndpointRequest *request,
                             CoordinatorEndpointResponse *response) override;
  grpc::Status GetDataState(grpc::ServerContext *context,
                            const GetDataStateRequest *request,
                            GetDataStateResponse *response) override;
  grpc::Status RestoreDataState(grpc::ServerContext *context,
                                const RestoreDataStateRequest *request,
                                RestoreDataStateResponse *response) override;
  grpc::Status GetDataStats(grpc::ServerContext *context,
                            const GetDataStatsRequest *request,
                            GetDataStatsResponse *response) override;

private:
  /// A local AcquireUnit (timeout_ms 0).
  grpc::Status pollLocal(const grpc::ByteBuffer &request,
                         grpc::ByteBuffer &response);
  /// A parsed ReportDataRequest of a call of its own, applied.
  grpc::Status applyReport(const ReportDataRequest &request);
  /// The one path of every RPC: refuses a call without the cluster token
  /// before `handle` reads the request, then runs `handle` and answers
  /// with the status of what it threw. The coordinator itself checks the
  /// tasks a request names.
  grpc::Status serve(const grpc::ServerContext &context,
                     const std::function<void()> &handle) const;
  /// Runs `handle`; the status of what it threw (a local call's hello
  /// checked the token already).
  static grpc::Status answer(const std::function<void()> &handle);

  coord::Coordinator &coordinator_;
  std::string clusterToken;
  std::string localEndpoint;
};

} // namespace dtf::rpc
