//===- ParameterServerService.cpp - A PS task served over gRPC ------------===//

#include "runtime/rpc/ParameterServerService.h"

#include "runtime/rpc/Auth.h"
#include "runtime/rpc/StatusConversion.h"
#include "runtime/rpc/TensorCodec.h"

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
ParameterServerService::authorize(grpc::ServerContext *context) const {
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

grpc::Status
ParameterServerService::Pull(grpc::ServerContext *context,
                             const PullRequest *request,
                             grpc::ServerWriter<PullResponse> *writer) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  // Encode the values while the task holds them still, so that they come
  // from one state between updates, and stream the messages after. Encoding
  // is the one copy a pull makes of the values.
  std::vector<PullResponse> messages;
  std::vector<std::string> names(request->names().begin(),
                                 request->names().end());
  try {
    task_.read(names, [&](const std::vector<const Tensor *> &values,
                          int64_t epoch) {
      std::vector<TensorRef> refs;
      for (size_t i = 0; i < names.size(); ++i)
        refs.push_back({names[i], values[i]});
      encodeTensors(refs, chunkBytes_, [&](std::vector<TensorChunk> &chunks) {
        PullResponse &message = messages.emplace_back();
        message.set_epoch(epoch);
        for (TensorChunk &chunk : chunks)
          *message.add_chunks() = std::move(chunk);
        return true;
      });
      if (messages.empty()) // no tensors, still the epoch
        messages.emplace_back().set_epoch(epoch);
    });
  } catch (const std::exception &error) {
    return failed(error);
  }
  for (const PullResponse &message : messages)
    if (!writer->Write(message))
      return grpc::Status(grpc::StatusCode::CANCELLED,
                          task_.messagePrefix() +
                              "the client went away during Pull");
  return grpc::Status::OK;
}

grpc::Status
ParameterServerService::Push(grpc::ServerContext *context,
                             grpc::ServerReader<PushRequest> *reader,
                             PushResponse *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  auto rejected = [&](const std::string &why) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        task_.messagePrefix() +
                            "push rejected, nothing applied: " + why);
  };

  // Read and check the whole push before touching any state.
  PushRequest message;
  if (!reader->Read(&message))
    return rejected("the stream carries no message");
  if (!message.has_header())
    return rejected("the first message has no header");
  int64_t pushStep = message.header().step();
  int64_t pushEpoch = message.header().epoch();
  try {
    // Refuse early rather than after receiving megabytes.
    task_.checkPushAccepted(pushEpoch);
  } catch (const std::exception &error) {
    return failed(error);
  }
  std::vector<NamedTensor> gradients;
  try {
    TensorAssembler assembler([this](size_t index, const std::string &name,
                                     DType dtype, const Shape &shape) {
      task_.checkGradient(index, name, dtype, shape);
    });
    bool first = true;
    do {
      if (!first && message.has_header())
        throw std::invalid_argument("a message after the first has a header");
      first = false;
      for (const TensorChunk &chunk : message.chunks())
        assembler.add(chunk);
    } while (reader->Read(&message));
    gradients = assembler.finish();
  } catch (const std::invalid_argument &error) {
    return rejected(error.what());
  }
  // Read() also ends when the client cancels; a push cut short must not be
  // applied, even if it happens to end between two gradients.
  if (context->IsCancelled())
    return grpc::Status(grpc::StatusCode::CANCELLED,
                        task_.messagePrefix() +
                            "the push was cancelled, nothing applied");
  std::vector<Tensor> tensors;
  for (NamedTensor &gradient : gradients)
    tensors.push_back(std::move(gradient.tensor));
  try {
    ps::PushResult result = task_.push(pushStep, pushEpoch, std::move(tensors));
    response->set_outcome(toProto(result.outcome));
    response->set_step(result.step);
  } catch (const std::exception &error) {
    return failed(error);
  }
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
  for (const auto &[name, value] : snapshot.values)
    refs.push_back({name, &value});
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
