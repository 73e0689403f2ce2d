//===- ParameterServerService.cpp - A PS task served over gRPC ------------===//

#include "runtime/rpc/ParameterServerService.h"

#include "runtime/rpc/Auth.h"
#include "runtime/rpc/StatusConversion.h"
#include "runtime/rpc/TensorCodec.h"
#include "runtime/rpc/TensorWire.h"

#include <optional>
#include <stdexcept>

namespace dtf::rpc {

namespace {

/// The status of a failed call of the task: a dtf::Error's code, or
/// `otherwise` for any other exception.
grpc::Status failed(const std::exception &error,
                    grpc::StatusCode otherwise = grpc::StatusCode::INTERNAL) {
  if (auto *coded = dynamic_cast<const Error *>(&error))
    return grpc::Status(toStatusCode(coded->code()), error.what());
  return grpc::Status(otherwise, error.what());
}

PushResponse::Outcome toProto(ps::PushOutcome outcome) {
  switch (outcome) {
  case ps::PushOutcome::Applied:
    return PushResponse::APPLIED;
  case ps::PushOutcome::Accumulated:
    return PushResponse::ACCUMULATED;
  case ps::PushOutcome::Queued:
    return PushResponse::QUEUED;
  case ps::PushOutcome::Stale:
    return PushResponse::STALE;
  }
  return PushResponse::OUTCOME_UNSPECIFIED;
}

} // namespace

ParameterServerService::ParameterServerService(ps::ParameterServer &task,
                                               std::function<void()> onStop,
                                               size_t chunkBytes)
    : task_(task), onStop(std::move(onStop)), chunkBytes_(chunkBytes) {}

grpc::Status
ParameterServerService::authorize(grpc::ServerContextBase *context) const {
  return checkClusterToken(*context, clusterToken,
                           "PS task " + task_.taskName());
}

grpc::Status ParameterServerService::Initialize(grpc::ServerContext *context,
                                                const InitializeRequest *,
                                                InitializeResponse *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  try {
    response->set_initialized_now(task_.initialize());
  } catch (const std::exception &error) {
    return failed(error);
  }
  response->set_step(task_.currentStep());
  return grpc::Status::OK;
}

namespace {


/// Finishes a callback call with `status` at once.
grpc::ServerUnaryReactor *finishWith(grpc::CallbackServerContext *context,
                                     grpc::Status status) {
  grpc::ServerUnaryReactor *reactor = context->DefaultReactor();
  reactor->Finish(std::move(status));
  return reactor;
}

} // namespace

void ParameterServerService::addValues(const std::vector<std::string> &names,
                                       int field, int epochField,
                                       WireMessageBuilder &message) {
  // Copy the values while the task holds them still, so that they come from
  // one state between updates; the message points at the copies, which
  // live until gRPC has sent them. The copy is the one a pull makes.
  auto values = std::make_shared<std::vector<Tensor>>();
  int64_t valuesEpoch = 0;
  task_.read(names, [&](const std::vector<const Tensor *> &read,
                        int64_t epoch) {
    values->reserve(read.size());
    for (const Tensor *value : read)
      values->push_back(value->clone());
    valuesEpoch = epoch;
  });
  std::vector<TensorRef> refs;
  for (size_t i = 0; i < names.size(); ++i)
    refs.push_back({names[i], &(*values)[i]});
  message.addVarint(epochField, static_cast<uint64_t>(valuesEpoch));
  message.addTensors(field, refs, values);
}

grpc::Status ParameterServerService::pull(const grpc::ByteBuffer &request,
                                          grpc::ByteBuffer &response) {
  std::vector<std::string> names;
  std::vector<ps::RowRequest> rowRequests;
  try {
    WireReader reader(request);
    // Row ids are 1-D integers; anything else is refused before its data.
    auto checkIds = [](size_t, const std::string &name, DType dtype,
                       const Shape &shape) {
      if ((dtype != DType::I64 && dtype != DType::I32) || shape.size() != 1)
        throw std::invalid_argument(
            "the ids of the rows of '" + name + "' are " + dtypeName(dtype) +
            shapeToString(shape) + "; row ids are 1-D i32 or i64");
    };
    while (!reader.atEnd()) {
      int field;
      WireReader::WireType type;
      reader.readTag(field, type);
      if (field == PullRequest::kNamesFieldNumber &&
          type == WireReader::LengthDelimited) {
        names.push_back(reader.readString());
      } else if (field == PullRequest::kRowIdsFieldNumber &&
                 type == WireReader::LengthDelimited) {
        NamedTensor ids = readWholeTensor(reader, reader.readLength(),
                                          rowRequests.size(), checkIds);
        rowRequests.push_back({std::move(ids.name), std::move(ids.tensor)});
      } else {
        reader.skip(type);
      }
    }
  } catch (const std::invalid_argument &error) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        task_.messagePrefix() +
                            "malformed Pull request: " + error.what());
  }
  try {
    WireMessageBuilder message;
    // The epoch is the values' when there are values, else the rows'.
    if (!names.empty() || rowRequests.empty())
      addValues(names, PullResponse::kChunksFieldNumber,
                PullResponse::kEpochFieldNumber, message);
    if (!rowRequests.empty()) {
      int64_t epoch = 0;
      auto rows = std::make_shared<std::vector<Tensor>>(
          task_.readRows(rowRequests, &epoch));
      std::vector<TensorRef> refs;
      for (size_t i = 0; i < rowRequests.size(); ++i)
        refs.push_back({rowRequests[i].name, &(*rows)[i]});
      if (names.empty())
        message.addVarint(PullResponse::kEpochFieldNumber,
                          static_cast<uint64_t>(epoch));
      message.addTensors(PullResponse::kChunksFieldNumber, refs, rows);
    }
    response = message.finish();
  } catch (const std::exception &error) {
    return failed(error);
  }
  return grpc::Status::OK;
}

// Push and PushPull requests begin alike, and are read by one function.
static_assert(int(PushRequest::kHeaderFieldNumber) ==
                      int(PushPullRequest::kHeaderFieldNumber) &&
                  int(PushRequest::kChunksFieldNumber) ==
                      int(PushPullRequest::kChunksFieldNumber) &&
                  int(PushRequest::kDataReportFieldNumber) ==
                      int(PushPullRequest::kDataReportFieldNumber),
              "Push and PushPull requests share their first fields");
static_assert(int(PushResponse::kDataReportCodeFieldNumber) ==
                      int(PushPullResponse::kDataReportCodeFieldNumber) &&
                  int(PushResponse::kDataReportErrorFieldNumber) ==
                      int(PushPullResponse::kDataReportErrorFieldNumber) &&
                  int(PushResponse::kDataReportTrainedFieldNumber) ==
                      int(PushPullResponse::kDataReportTrainedFieldNumber),
              "Push and PushPull responses say alike how a report failed");

grpc::Status ParameterServerService::pushPull(const grpc::ByteBuffer &request,
                                              grpc::ByteBuffer &response,
                                              bool alsoPull) {
  auto rejected = [&](const std::string &why) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        task_.messagePrefix() +
                            "push rejected, nothing applied: " + why);
  };
  // Decode and check the whole push before touching any state.
  bool haveHeader = false;
  int64_t pushStep = 0, pushEpoch = 0;
  std::vector<Tensor> gradients;
  std::vector<std::string> pullNames;
  std::optional<std::string> dataReport;
  try {
    WireReader reader(request);
    auto checkGradient = [this](size_t index, const std::string &name,
                                DType dtype, const Shape &shape) {
      task_.checkGradient(index, name, dtype, shape);
    };
    while (!reader.atEnd()) {
      int field;
      WireReader::WireType type;
      reader.readTag(field, type);
      if (field == PushRequest::kHeaderFieldNumber && type == WireReader::LengthDelimited) {
        reader.readSubmessage(reader.readLength(), [&] {
          while (!reader.atEnd()) {
            int headerField;
            WireReader::WireType headerType;
            reader.readTag(headerField, headerType);
            if (headerField == PushHeader::kStepFieldNumber && headerType == WireReader::Varint)
              pushStep = static_cast<int64_t>(reader.readVarint());
            else if (headerField == PushHeader::kEpochFieldNumber &&
                     headerType == WireReader::Varint)
              pushEpoch = static_cast<int64_t>(reader.readVarint());
            else
              reader.skip(headerType);
          }
        });
        haveHeader = true;
        // A task that does not serve, or a push of another epoch, is
        // refused as such rather than for its gradients.
        task_.checkPushAccepted(pushEpoch);
      } else if (field == PushRequest::kChunksFieldNumber && type == WireReader::LengthDelimited) {
        gradients.push_back(readWholeTensor(reader, reader.readLength(),
                                            gradients.size(), checkGradient)
                                .tensor);
      } else if (alsoPull && field == PushPullRequest::kPullNamesFieldNumber &&
                 type == WireReader::LengthDelimited) {
        pullNames.push_back(reader.readString());
      } else if (field == PushRequest::kDataReportFieldNumber &&
                 type == WireReader::LengthDelimited) {
        dataReport = reader.readString();
      } else {
        reader.skip(type);
      }
    }
    if (!haveHeader)
      throw std::invalid_argument("the request has no header");
  } catch (const Error &error) {
    return failed(error);
  } catch (const std::invalid_argument &error) {
    return rejected(error.what());
  }
  // A data report that rode the push goes first: the coordinator knows the
  // batch is in flight before its gradients are in the model, or, where the
  // report leaves its batch to the push, has it checked, and records it
  // trained or in flight as soon as the push was applied or not (in this
  // call: only what runs meanwhile, a checkpoint's save or the worker's
  // release, sees the batch neither).
  grpc::Status reported = grpc::Status::OK;
  SettleRidingBatch settle;
  if (dataReport)
    reported = dataReports
                   ? dataReports(*dataReport, settle)
                   : grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                  task_.messagePrefix() +
                                      "a push carried a data report, but "
                                      "this task hosts no data coordinator");
  bool batchTrained = false;
  auto settleBatch = [&](std::optional<int64_t> appliedAt) {
    if (!settle)
      return;
    grpc::Status settled = settle(appliedAt);
    if (settled.ok()) {
      batchTrained = appliedAt.has_value();
    } else if (reported.ok()) {
      // The push is applied (or failed): the worker must not take this for
      // a failure that stopped the push, which it would send again.
      reported = grpc::Status(
          isRecoverable(fromStatusCode(settled.error_code()))
              ? grpc::StatusCode::INTERNAL
              : settled.error_code(),
          "settling the batch after its push: " + settled.error_message());
    }
  };
  auto addReportOutcome = [&](WireMessageBuilder &message) {
    if (batchTrained)
      message.addVarint(PushResponse::kDataReportTrainedFieldNumber, 1);
    if (reported.ok())
      return;
    message.addVarint(PushResponse::kDataReportCodeFieldNumber,
                      static_cast<uint64_t>(reported.error_code()));
    message.addString(PushResponse::kDataReportErrorFieldNumber,
                      reported.error_message());
  };
  if (!reported.ok() && isRecoverable(fromStatusCode(reported.error_code()))) {
    // Applied without its report, the push could reach the model before
    // the coordinator knows of its examples: neither is applied.
    WireMessageBuilder message;
    addReportOutcome(message);
    response = message.finish();
    return grpc::Status::OK;
  }
  try {
    ps::PushResult result = [&] {
      try {
        return task_.push(pushStep, pushEpoch, std::move(gradients));
      } catch (...) {
        settleBatch(std::nullopt);
        throw;
      }
    }();
    settleBatch(result.outcome == ps::PushOutcome::Applied
                    ? std::optional<int64_t>(result.step)
                    : std::nullopt);
    WireMessageBuilder message;
    addReportOutcome(message);
    if (alsoPull) {
      message.addVarint(PushPullResponse::kOutcomeFieldNumber, toProto(result.outcome));
      message.addVarint(PushPullResponse::kStepFieldNumber,
                        static_cast<uint64_t>(result.step));
      addValues(pullNames, PushPullResponse::kChunksFieldNumber, PushPullResponse::kEpochFieldNumber,
                message);
    } else {
      message.addVarint(PushResponse::kOutcomeFieldNumber, toProto(result.outcome));
      message.addVarint(PushResponse::kStepFieldNumber, static_cast<uint64_t>(result.step));
    }
    response = message.finish();
  } catch (const std::exception &error) {
    return failed(error);
  }
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor *
ParameterServerService::Pull(grpc::CallbackServerContext *context,
                             const grpc::ByteBuffer *request,
                             grpc::ByteBuffer *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return finishWith(context, denied);
  return finishWith(context, pull(*request, *response));
}

grpc::ServerUnaryReactor *
ParameterServerService::Push(grpc::CallbackServerContext *context,
                             const grpc::ByteBuffer *request,
                             grpc::ByteBuffer *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return finishWith(context, denied);
  return finishWith(context, pushPull(*request, *response, false));
}

grpc::ServerUnaryReactor *
ParameterServerService::PushPull(grpc::CallbackServerContext *context,
                                 const grpc::ByteBuffer *request,
                                 grpc::ByteBuffer *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return finishWith(context, denied);
  return finishWith(context, pushPull(*request, *response, true));
}

grpc::Status ParameterServerService::serveLocal(LocalMethod method,
                                                const grpc::ByteBuffer &request,
                                                grpc::ByteBuffer &response) {
  switch (method) {
  case LocalMethod::Pull:
    return pull(request, response);
  case LocalMethod::Push:
    return pushPull(request, response, false);
  case LocalMethod::PushPull:
    return pushPull(request, response, true);
  case LocalMethod::Hello:
  case LocalMethod::ReportData:
  case LocalMethod::AcquireUnit:
    break;
  }
  return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                      task_.messagePrefix() + "no such local method");
}

grpc::Status
ParameterServerService::LocalEndpoint(grpc::ServerContext *context,
                                      const LocalEndpointRequest *,
                                      LocalEndpointResponse *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  response->set_socket_name(localEndpoint);
  return grpc::Status::OK;
}

grpc::Status ParameterServerService::GetStep(grpc::ServerContext *context,
                                             const GetStepRequest *,
                                             GetStepResponse *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  try {
    task_.checkServing();
  } catch (const std::exception &error) {
    return failed(error);
  }
  ps::TaskStatus status = task_.status();
  response->set_step(status.step);
  response->set_initialized(status.initialized);
  response->set_epoch(status.epoch);
  response->set_has_values(status.hasValues);
  response->set_restored_from(status.restoredFrom);
  response->set_holds_global_step(status.holdsGlobalStep);
  return grpc::Status::OK;
}

grpc::Status
ParameterServerService::WaitForStep(grpc::ServerContext *context,
                                    const WaitForStepRequest *request,
                                    WaitForStepResponse *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  try {
    response->set_step(
        task_.waitForStep(request->step(), request->epoch(),
                          std::chrono::milliseconds(request->timeout_ms()),
                          [context] { return context->IsCancelled(); }));
  } catch (const std::exception &error) {
    return failed(error);
  }
  return grpc::Status::OK;
}

grpc::Status ParameterServerService::Stop(grpc::ServerContext *context,
                                          const StopServerRequest *,
                                          StopServerResponse *) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  if (onStop)
    onStop();
  return grpc::Status::OK;
}

grpc::Status
ParameterServerService::Snapshot(grpc::ServerContext *context,
                                 const SnapshotRequest *,
                                 grpc::ServerWriter<SnapshotResponse> *writer) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  ps::Snapshot snapshot;
  try {
    snapshot = task_.snapshot();
  } catch (const std::exception &error) {
    return failed(error);
  }
  SnapshotHeader header;
  header.set_step(snapshot.step);
  header.set_epoch(snapshot.epoch);
  header.set_holds_global_step(snapshot.holdsGlobalStep);
  std::vector<TensorRef> refs;
  for (const NamedTensor &tensor : snapshot.tensors)
    refs.push_back({tensor.name, &tensor.tensor});
  bool headerSent = false;
  auto send = [&](std::vector<TensorChunk> &chunks) {
    SnapshotResponse message;
    if (!headerSent) {
      *message.mutable_header() = header;
      headerSent = true;
    }
    for (TensorChunk &chunk : chunks)
      *message.add_chunks() = std::move(chunk);
    return writer->Write(message);
  };
  bool sent = encodeTensors(refs, chunkBytes_, send);
  if (sent && !headerSent) {
    std::vector<TensorChunk> none;
    sent = send(none);
  }
  if (!sent)
    return grpc::Status(grpc::StatusCode::CANCELLED,
                        task_.messagePrefix() +
                            "the client went away during Snapshot");
  return grpc::Status::OK;
}

grpc::Status ParameterServerService::SaveCheckpointShard(
    grpc::ServerContext *context, const SaveCheckpointShardRequest *request,
    SaveCheckpointShardResponse *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  try {
    ps::Snapshot written = task_.saveCheckpointShard(
        request->shard(), request->num_shards(), request->save());
    SnapshotHeader *header = response->mutable_header();
    header->set_step(written.step);
    header->set_epoch(written.epoch);
    header->set_holds_global_step(written.holdsGlobalStep);
  } catch (const std::exception &error) {
    return failed(error);
  }
  return grpc::Status::OK;
}

grpc::Status ParameterServerService::Restore(grpc::ServerContext *context,
                                             const RestoreRequest *request,
                                             RestoreResponse *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  ps::RestoreSource source;
  switch (request->source()) {
  case RestoreRequest::INITIAL_VALUES:
    source = ps::RestoreSource::InitialValues;
    break;
  case RestoreRequest::CHECKPOINT:
    source = ps::RestoreSource::Checkpoint;
    break;
  case RestoreRequest::KEEP_RESTORED:
    source = ps::RestoreSource::KeepRestored;
    break;
  default:
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        task_.messagePrefix() + "unknown restore source " +
                            std::to_string(request->source()));
  }
  try {
    response->set_step(
        task_.restore(source, request->checkpoint_step(), request->epoch()));
  } catch (const std::exception &error) {
    // Values that cannot be had (an unreadable checkpoint, a failing
    // initializer) leave the task as it was: a precondition failed.
    return failed(error, grpc::StatusCode::FAILED_PRECONDITION);
  }
  return grpc::Status::OK;
}

} // namespace dtf::rpc
