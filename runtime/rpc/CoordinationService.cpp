//===- CoordinationService.cpp - The coordinator over gRPC ----------------===//

#include "runtime/rpc/CoordinationService.h"

#include "runtime/rpc/Auth.h"
#include "runtime/rpc/CoordinationWire.h"
#include "runtime/rpc/StatusConversion.h"

#include <grpcpp/impl/codegen/proto_utils.h>

#include <chrono>
#include <exception>
#include <optional>

namespace dtf::rpc {

namespace {

/// Whether the client of a wait has gone: its wait can end.
coord::Coordinator::ClientLeft clientLeft(grpc::ServerContext *context) {
  return [context] { return context->IsCancelled(); };
}

} // namespace

CoordinationService::CoordinationService(coord::Coordinator &coordinator)
    : coordinator_(coordinator) {}

grpc::Status
CoordinationService::serve(const grpc::ServerContext &context,
                           const std::function<void()> &handle) const {
  if (grpc::Status denied =
          checkClusterToken(context, clusterToken, "coordinator");
      !denied.ok())
    return denied;
  return answer(handle);
}

grpc::Status CoordinationService::answer(const std::function<void()> &handle) {
  try {
    handle();
  } catch (...) {
    return toStatus(std::current_exception());
  }
  return grpc::Status::OK;
}

grpc::Status
CoordinationService::RegisterTask(grpc::ServerContext *context,
                                  const RegisterTaskRequest *request,
                                  RegisterTaskResponse *response) {
  return serve(*context, [&] {
    coord::Registration registration = coordinator_.registerTask(
        request->task().job(), request->task().index());
    response->set_initialized(registration.initialized);
    response->set_stop_requested(registration.stopRequested);
  });
}

grpc::Status CoordinationService::Heartbeat(grpc::ServerContext *context,
                                            const HeartbeatRequest *request,
                                            HeartbeatResponse *response) {
  return serve(*context, [&] {
    response->set_stop_requested(
        coordinator_.heartbeat(request->task().job(), request->task().index()));
  });
}

grpc::Status
CoordinationService::MarkInitialized(grpc::ServerContext *context,
                                     const MarkInitializedRequest *,
                                     MarkInitializedResponse *) {
  return serve(*context, [&] { coordinator_.markInitialized(); });
}

grpc::Status
CoordinationService::WaitInitialized(grpc::ServerContext *context,
                                     const WaitInitializedRequest *request,
                                     WaitInitializedResponse *) {
  return serve(*context, [&] {
    coordinator_.waitInitialized(
        std::chrono::milliseconds(request->timeout_ms()), clientLeft(context));
  });
}

grpc::Status
CoordinationService::GetGlobalStep(grpc::ServerContext *context,
                                   const GetGlobalStepRequest *,
                                   GetGlobalStepResponse *response) {
  return serve(*context,
               [&] { response->set_step(coordinator_.globalStep()); });
}

grpc::Status CoordinationService::WorkerDone(grpc::ServerContext *context,
                                             const WorkerDoneRequest *request,
                                             WorkerDoneResponse *) {
  return serve(*context, [&] { coordinator_.workerDone(request->index()); });
}

grpc::Status
CoordinationService::WaitWorkersDone(grpc::ServerContext *context,
                                     const WaitWorkersDoneRequest *request,
                                     WaitWorkersDoneResponse *response) {
  return serve(*context, [&] {
    coord::WorkerStates states = coordinator_.waitWorkersDone(
        std::chrono::milliseconds(request->timeout_ms()), clientLeft(context));
    response->mutable_done()->Add(states.done.begin(), states.done.end());
    response->mutable_lost()->Add(states.lost.begin(), states.lost.end());
  });
}

grpc::Status CoordinationService::Stop(grpc::ServerContext *context,
                                       const StopTrainingRequest *request,
                                       StopTrainingResponse *) {
  return serve(*context, [&] { coordinator_.stop(request->reason()); });
}

grpc::Status CoordinationService::DefineData(grpc::ServerContext *context,
                                             const DefineDataRequest *request,
                                             DefineDataResponse *) {
  return serve(*context, [&] {
    coordinator_.defineData(request->worker(),
                            decodeDataSet(request->data_set()));
  });
}

grpc::Status CoordinationService::AcquireUnit(grpc::ServerContext *context,
                                              const AcquireUnitRequest *request,
                                              AcquireUnitResponse *response) {
  return serve(*context, [&] {
    std::optional<WorkUnit> unit = coordinator_.acquireUnit(
        request->worker(), std::chrono::milliseconds(request->timeout_ms()),
        clientLeft(context));
    if (unit)
      encodeUnit(*unit, response->mutable_unit());
    else
      response->set_finished(true);
  });
}

grpc::Status CoordinationService::ReportData(grpc::ServerContext *context,
                                             const ReportDataRequest *request,
                                             ReportDataResponse *) {
  return serve(*context, [&] {
    coordinator_.reportData(request->worker(), decodeReport(*request));
  });
}

grpc::Status
CoordinationService::LocalEndpoint(grpc::ServerContext *context,
                                   const CoordinatorEndpointRequest *,
                                   CoordinatorEndpointResponse *response) {
  return serve(*context, [&] { response->set_socket_name(localEndpoint); });
}

grpc::Status CoordinationService::serveLocal(LocalMethod method,
                                             const grpc::ByteBuffer &request,
                                             grpc::ByteBuffer &response) {
  if (method == LocalMethod::AcquireUnit)
    return pollLocal(request, response);
  if (method != LocalMethod::ReportData)
    return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                        "the coordinator takes no local method " +
                            std::to_string(static_cast<uint32_t>(method)));
  ReportDataRequest message;
  if (grpc::Status parsed = parseLocalFrame(request, message); !parsed.ok())
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "coordinator: a local ReportData that does not "
                        "parse: " +
                            parsed.error_message());
  if (grpc::Status reported = applyReport(message); !reported.ok())
    return reported;
  bool own = false;
  return grpc::SerializationTraits<ReportDataResponse>::Serialize(
      ReportDataResponse(), &response, &own);
}

grpc::Status CoordinationService::pollLocal(const grpc::ByteBuffer &request,
                                            grpc::ByteBuffer &response) {
  AcquireUnitRequest message;
  if (grpc::Status parsed = parseLocalFrame(request, message); !parsed.ok())
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "coordinator: a local AcquireUnit that does not "
                        "parse: " +
                            parsed.error_message());
  if (message.timeout_ms() != 0)
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "coordinator: a local AcquireUnit waits for nothing "
                        "(timeout_ms 0): one that waited could not tell that "
                        "its caller left");
  AcquireUnitResponse answer;
  if (grpc::Status acquired = CoordinationService::answer([&] {
        std::optional<WorkUnit> unit = coordinator_.acquireUnit(
            message.worker(), std::chrono::milliseconds(0));
        if (unit)
          encodeUnit(*unit, answer.mutable_unit());
        else
          answer.set_finished(true);
      });
      !acquired.ok())
    return acquired;
  bool own = false;
  return grpc::SerializationTraits<AcquireUnitResponse>::Serialize(
      answer, &response, &own);
}

grpc::Status CoordinationService::applyRidingReport(std::string_view request,
                                                    SettleRidingBatch &settle) {
  return answer([&] {
    int worker;
    coord::DataReport report = decodeReport(request, worker);
    std::vector<coord::UnitRecords> batch;
    if (report.pushingRidesItsPush)
      batch = std::exchange(report.pushing, {});
    // Most steps' reports hold their batch alone: the settling checks it.
    if (batch.empty() || !report.unitsRead.empty() || !report.trained.empty() ||
        !report.withdrawn.empty() || !report.inDoubt.empty())
      coordinator_.reportData(worker, report);
    if (batch.empty())
      return;
    settle = [this, worker, batch = std::move(batch)](
                 std::optional<int64_t> appliedAt) mutable {
      return answer([&] {
        coord::DataReport settled;
        (appliedAt ? settled.trained : settled.pushing) = std::move(batch);
        settled.globalStep = appliedAt.value_or(0);
        coordinator_.reportData(worker, settled);
      });
    };
  });
}

grpc::Status
CoordinationService::applyReport(const ReportDataRequest &request) {
  return answer([&] {
    coordinator_.reportData(request.worker(), decodeReport(request));
  });
}

grpc::Status
CoordinationService::GetDataState(grpc::ServerContext *context,
                                  const GetDataStateRequest *request,
                                  GetDataStateResponse *response) {
  return serve(*context, [&] {
    response->set_state(coordinator_.saveDataState(request->global_step()));
  });
}

grpc::Status
CoordinationService::RestoreDataState(grpc::ServerContext *context,
                                      const RestoreDataStateRequest *request,
                                      RestoreDataStateResponse *) {
  return serve(*context,
               [&] { coordinator_.restoreDataState(request->state()); });
}

grpc::Status CoordinationService::GetDataStats(grpc::ServerContext *context,
                                               const GetDataStatsRequest *,
                                               GetDataStatsResponse *response) {
  return serve(*context,
               [&] { encodeStats(coordinator_.dataStats(), response); });
}

} // namespace dtf::rpc
