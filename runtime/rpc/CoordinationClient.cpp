//===- CoordinationClient.cpp - Calls to the coordination service ---------===//

#include "runtime/rpc/CoordinationClient.h"

#include "runtime/rpc/Channel.h"
#include "runtime/rpc/CoordinationWire.h"
#include "runtime/rpc/Errors.h"
#include "runtime/rpc/LocalTransport.h"

#include "runtime/core/Error.h"

namespace dtf::rpc {

namespace {
TaskId taskId(const std::string &job, int index) {
  TaskId task;
  task.set_job(job);
  task.set_index(index);
  return task;
}
} // namespace

CoordinationClient::CoordinationClient(std::string address,
                                       ClientOptions options)
    : peer_("coordinator /job:ps/task:0 at " + address), options(options),
      channel(createChannel(address, options)),
      stub(Coordination::NewStub(channel)),
      local(options.clusterToken,
            static_cast<uint64_t>(options.maxMessageBytes)) {}

void CoordinationClient::waitUntilReachable() {
  waitForConnection(*channel, peer_, options.connectTimeout);
}

coord::Registration CoordinationClient::registerTask(const std::string &job,
                                                     int index) {
  RegisterTaskRequest request;
  *request.mutable_task() = taskId(job, index);
  RegisterTaskResponse response =
      unaryCall(peer_, "RegisterTask", options, *stub,
                &Coordination::Stub::RegisterTask, request);
  return {response.initialized(), response.stop_requested()};
}

bool CoordinationClient::heartbeat(const std::string &job, int index) {
  HeartbeatRequest request;
  *request.mutable_task() = taskId(job, index);
  HeartbeatResponse response =
      unaryCall(peer_, "Heartbeat", options, *stub,
                &Coordination::Stub::Heartbeat, request);
  return response.stop_requested();
}

void CoordinationClient::markInitialized() {
  unaryCall(peer_, "MarkInitialized", options, *stub,
            &Coordination::Stub::MarkInitialized, MarkInitializedRequest());
}

void CoordinationClient::waitInitialized(std::chrono::milliseconds timeout) {
  longPoll(peer_, "WaitInitialized", options, timeout,
           [&](grpc::ClientContext &context, std::chrono::milliseconds slice) {
             WaitInitializedRequest request;
             request.set_timeout_ms(slice.count());
             WaitInitializedResponse response;
             return stub->WaitInitialized(&context, request, &response);
           });
}

int64_t CoordinationClient::globalStep() {
  GetGlobalStepResponse response =
      unaryCall(peer_, "GetGlobalStep", options, *stub,
                &Coordination::Stub::GetGlobalStep, GetGlobalStepRequest());
  return response.step();
}

void CoordinationClient::workerDone(int index) {
  WorkerDoneRequest request;
  request.set_index(index);
  unaryCall(peer_, "WorkerDone", options, *stub,
            &Coordination::Stub::WorkerDone, request);
}

coord::WorkerStates
CoordinationClient::waitWorkersDone(std::chrono::milliseconds timeout) {
  WaitWorkersDoneResponse response;
  longPoll(peer_, "WaitWorkersDone", options, timeout,
           [&](grpc::ClientContext &context, std::chrono::milliseconds slice) {
             WaitWorkersDoneRequest request;
             request.set_timeout_ms(slice.count());
             return stub->WaitWorkersDone(&context, request, &response);
           });
  coord::WorkerStates states;
  states.done.assign(response.done().begin(), response.done().end());
  states.lost.assign(response.lost().begin(), response.lost().end());
  return states;
}

void CoordinationClient::stop(const std::string &reason) {
  StopTrainingRequest request;
  request.set_reason(reason);
  unaryCall(peer_, "Stop", options, *stub, &Coordination::Stub::Stop, request);
}

void CoordinationClient::defineData(
    int worker, const coord::DataSetDefinition &definition) {
  DefineDataRequest request;
  request.set_worker(worker);
  encodeDataSet(definition, request.mutable_data_set());
  unaryCall(peer_, "DefineData", options, *stub,
            &Coordination::Stub::DefineData, request);
}

namespace {

/// A call on the coordinator's local socket, its answer unread. Where the
/// socket is gone (UNAVAILABLE) the channel is forgotten: the coordinator
/// may have restarted behind another socket, and the next call asks again.
/// This one fails as a gRPC call would (a report is not sent twice: the
/// coordinator may have applied it).
class LocalCoordinatorCall {
public:
  LocalCoordinatorCall(LocalEndpoint &local,
                       std::shared_ptr<LocalChannel> channel,
                       LocalMethod method, const char *name,
                       const grpc::ByteBuffer &request, const std::string &peer,
                       std::chrono::milliseconds timeout)
      : local(local), channel(std::move(channel)), name(name), peer(peer),
        deadline(std::chrono::steady_clock::now() + timeout),
        call(this->channel->start(method, request, deadline)) {}

  /// Reads the answer; throws the call's error.
  void finish(grpc::ByteBuffer &answer) {
    grpc::Status status = call.finish(answer, deadline);
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE)
      local.forget(channel);
    if (!status.ok())
      throw callError(peer, name, status);
  }

private:
  LocalEndpoint &local;
  std::shared_ptr<LocalChannel> channel;
  const char *name;
  const std::string &peer;
  std::chrono::steady_clock::time_point deadline;
  LocalChannel::PendingCall call;
};

/// ReportData sent on a local connection, its answer unread. The client
/// outlives it (a pending report is finished before its source ends).
class LocalPendingReport final : public coord::PendingReport {
public:
  /// Sends `request`, a serialized ReportDataRequest.
  LocalPendingReport(LocalEndpoint &local,
                     std::shared_ptr<LocalChannel> channel,
                     const std::string &request, const std::string &peer,
                     std::chrono::milliseconds timeout)
      : call(local, std::move(channel), LocalMethod::ReportData, "ReportData",
             bytesOf(request), peer, timeout) {}

  void finish() override {
    grpc::ByteBuffer response;
    call.finish(response);
  }

private:
  static grpc::ByteBuffer bytesOf(const std::string &request) {
    grpc::Slice slice(request.data(), request.size());
    return grpc::ByteBuffer(&slice, 1);
  }

  LocalCoordinatorCall call;
};

} // namespace

std::optional<WorkUnit>
CoordinationClient::acquireUnit(int worker, std::chrono::milliseconds timeout) {
  AcquireUnitResponse response;
  std::shared_ptr<LocalChannel> channel;
  if (timeout.count() <= 0 && (channel = localChannel())) {
    // A poll (a reader whose unit ended) on the local socket: over gRPC one
    // in a few hundred took 50 ms, and the input could run dry meanwhile.
    AcquireUnitRequest request;
    request.set_worker(worker);
    request.set_timeout_ms(0);
    grpc::ByteBuffer bytes, answer;
    bool own = false;
    grpc::Status status =
        grpc::SerializationTraits<AcquireUnitRequest>::Serialize(request,
                                                                 &bytes, &own);
    if (status.ok()) {
      LocalCoordinatorCall(local, std::move(channel), LocalMethod::AcquireUnit,
                           "AcquireUnit", bytes, peer_, options.callTimeout)
          .finish(answer);
      status = parseLocalFrame(answer, response);
    }
    if (!status.ok())
      throw callError(peer_, "AcquireUnit", status);
  } else {
    longPoll(
        peer_, "AcquireUnit", options, timeout,
        [&](grpc::ClientContext &context, std::chrono::milliseconds slice) {
          AcquireUnitRequest request;
          request.set_worker(worker);
          request.set_timeout_ms(slice.count());
          return stub->AcquireUnit(&context, request, &response);
        });
  }
  if (response.finished())
    return std::nullopt;
  try {
    return decodeUnit(response.unit());
  } catch (const Error &error) {
    throw callFailed(peer_, "AcquireUnit", ErrorCode::DataLoss,
                     std::string("malformed response: ") + error.what());
  }
}

std::shared_ptr<LocalChannel> CoordinationClient::localChannel() {
  return localChannelOf(local, options, *stub,
                        &Coordination::Stub::LocalEndpoint);
}

namespace {

ReportDataRequest reportRequest(int worker, const coord::DataReport &report) {
  ReportDataRequest request;
  request.set_worker(worker);
  encodeReport(report, &request);
  return request;
}

} // namespace

void CoordinationClient::reportData(int worker,
                                    const coord::DataReport &report) {
  if (rider) {
    // Alone, after a report held for a push: one waiting for a push's
    // answer could wait for a step that waits for it.
    rider->send(encodeReport(worker, report));
    return;
  }
  if (std::unique_ptr<coord::PendingReport> pending =
          startReportData(worker, report)) {
    pending->finish();
    return;
  }
  ReportDataRequest request = reportRequest(worker, report);
  unaryCall(peer_, "ReportData", options, *stub,
            &Coordination::Stub::ReportData, request);
}

std::unique_ptr<coord::PendingReport>
CoordinationClient::startReportData(int worker,
                                    const coord::DataReport &report) {
  std::shared_ptr<LocalChannel> channel;
  if (!rider && !(channel = localChannel()))
    return nullptr;
  std::string request = encodeReport(worker, report);
  if (rider)
    return rider->hold(std::move(request));
  return std::make_unique<LocalPendingReport>(
      local, std::move(channel), request, peer_, options.callTimeout);
}

void CoordinationClient::sendReport(const std::string &request) {
  if (std::shared_ptr<LocalChannel> channel = localChannel()) {
    LocalPendingReport(local, std::move(channel), request, peer_,
                       options.callTimeout)
        .finish();
    return;
  }
  ReportDataRequest message;
  if (!message.ParseFromString(request))
    throw callFailed(peer_, "ReportData", ErrorCode::Internal,
                     "a data report that does not parse");
  unaryCall(peer_, "ReportData", options, *stub,
            &Coordination::Stub::ReportData, message);
}

std::shared_ptr<DataReportRider> CoordinationClient::rideReportsOnPushes() {
  if (!rider)
    rider = std::make_shared<DataReportRider>(
        [this](const std::string &request) { sendReport(request); });
  return rider;
}

std::string CoordinationClient::dataState(int64_t globalStep) {
  GetDataStateRequest request;
  request.set_global_step(globalStep);
  GetDataStateResponse response =
      unaryCall(peer_, "GetDataState", options, *stub,
                &Coordination::Stub::GetDataState, request);
  return std::move(*response.mutable_state());
}

void CoordinationClient::restoreDataState(const std::string &state) {
  RestoreDataStateRequest request;
  request.set_state(state);
  unaryCall(peer_, "RestoreDataState", options, *stub,
            &Coordination::Stub::RestoreDataState, request);
}

coord::DataStats CoordinationClient::dataStats() {
  GetDataStatsResponse response =
      unaryCall(peer_, "GetDataStats", options, *stub,
                &Coordination::Stub::GetDataStats, GetDataStatsRequest());
  return decodeStats(response);
}

} // namespace dtf::rpc
