//===- PsClient.cpp - Calls to one parameter-server task ------------------===//

#include "runtime/rpc/PsClient.h"

#include "runtime/rpc/Channel.h"
#include "runtime/rpc/Errors.h"

#include <optional>
#include <stdexcept>

namespace dtf::rpc {

PsClient::PsClient(std::string taskName, std::string address,
                   ClientOptions options)
    : peer_("PS " + taskName + " at " + address), options_(options),
      channel(createChannel(address, options)),
      stub(ParameterServer::NewStub(channel)) {
  checkChunkSize(options_.chunkBytes, options_.maxMessageBytes);
}

void PsClient::waitUntilReachable() {
  waitForConnection(*channel, peer_, options_.connectTimeout);
}

bool PsClient::initialize() {
  InitializeResponse response =
      unaryCall(peer_, "Initialize", options_, *stub,
                &ParameterServer::Stub::Initialize, InitializeRequest());
  return response.initialized_now();
}

std::vector<Tensor> PsClient::pull(const std::vector<std::string> &names,
                                   int64_t *epoch) {
  grpc::ClientContext context;
  prepareCall(context, options_, options_.callTimeout);
  PullRequest request;
  for (const std::string &name : names)
    request.add_names(name);

  // The server must answer with exactly the requested tensors, in order.
  TensorAssembler assembler([&](size_t index, const std::string &name, DType,
                                const Shape &) {
    if (index >= names.size() || name != names[index])
      throw std::invalid_argument(
          "tensor " + std::to_string(index) + " is '" + name +
          "' but the request asked for " +
          (index < names.size() ? "'" + names[index] + "'"
                                : std::to_string(names.size()) + " tensors"));
  });
  std::optional<std::string> malformed;
  std::unique_ptr<grpc::ClientReader<PullResponse>> reader =
      stub->Pull(&context, request);
  PullResponse message;
  uint64_t bytes = 0;
  int64_t valuesEpoch = 0;
  while (!malformed && reader->Read(&message)) {
    bytes += message.ByteSizeLong();
    valuesEpoch = message.epoch();
    try {
      for (const TensorChunk &chunk : message.chunks())
        assembler.add(chunk);
    } catch (const std::invalid_argument &error) {
      malformed = error.what();
      context.TryCancel();
    }
  }
  grpc::Status status = reader->Finish();
  std::vector<NamedTensor> tensors;
  if (!malformed && status.ok()) {
    try {
      tensors = assembler.finish();
      if (tensors.size() != names.size())
        throw std::invalid_argument("the response carries " +
                                    std::to_string(tensors.size()) + " of " +
                                    std::to_string(names.size()) + " tensors");
    } catch (const std::invalid_argument &error) {
      malformed = error.what();
    }
  }
  if (malformed)
    throw callError(peer_, "Pull",
                    grpc::Status(grpc::StatusCode::DATA_LOSS,
                                 "malformed response: " + *malformed));
  if (!status.ok())
    throw callError(peer_, "Pull", status);

  ++pulls_;
  pulledBytes_ += bytes;
  if (epoch)
    *epoch = valuesEpoch;
  std::vector<Tensor> values;
  values.reserve(tensors.size());
  for (NamedTensor &tensor : tensors)
    values.push_back(std::move(tensor.tensor));
  return values;
}

PushResult PsClient::push(int64_t step, const std::vector<TensorRef> &gradients,
                          int64_t epoch) {
  grpc::ClientContext context;
  prepareCall(context, options_, options_.callTimeout);
  PushResponse response;
  std::unique_ptr<grpc::ClientWriter<PushRequest>> writer =
      stub->Push(&context, &response);

  bool headerSent = false;
  uint64_t bytes = 0;
  auto send = [&](std::vector<TensorChunk> &chunks) {
    PushRequest message;
    if (!headerSent) {
      message.mutable_header()->set_step(step);
      message.mutable_header()->set_epoch(epoch);
      headerSent = true;
    }
    for (TensorChunk &chunk : chunks)
      *message.add_chunks() = std::move(chunk);
    bytes += message.ByteSizeLong();
    return writer->Write(message);
  };
  // A failed write means the server ended the call (e.g. rejected the
  // push); Finish() tells why.
  bool written = encodeTensors(gradients, options_.chunkBytes, send);
  if (written && !headerSent) {
    std::vector<TensorChunk> none;
    written = send(none);
  }
  if (written)
    writer->WritesDone();
  grpc::Status status = writer->Finish();
  if (!status.ok())
    throw callError(peer_, "Push", status);
  ++pushes_;
  pushedBytes_ += bytes;
  return {response.outcome(), response.step()};
}

int64_t PsClient::step() {
  GetStepResponse response =
      unaryCall(peer_, "GetStep", options_, *stub,
                &ParameterServer::Stub::GetStep, GetStepRequest());
  return response.step();
}

ps::TaskStatus PsClient::status() {
  GetStepResponse response =
      unaryCall(peer_, "GetStep", options_, *stub,
                &ParameterServer::Stub::GetStep, GetStepRequest());
  ps::TaskStatus result;
  result.step = response.step();
  result.initialized = response.initialized();
  result.epoch = response.epoch();
  result.hasValues = response.has_values();
  result.restoredFrom = response.restored_from();
  result.holdsGlobalStep = response.holds_global_step();
  return result;
}

PsSnapshot PsClient::snapshot() {
  grpc::ClientContext context;
  prepareCall(context, options_, options_.callTimeout);
  std::unique_ptr<grpc::ClientReader<SnapshotResponse>> reader =
      stub->Snapshot(&context, SnapshotRequest());
  PsSnapshot snapshot;
  bool first = true;
  snapshot.tensors = readTensorStream<SnapshotResponse>(
      *reader, context, peer_, "Snapshot",
      [&](const SnapshotResponse &message) {
        if (first != message.has_header())
          throw std::invalid_argument(first ? "the first message has no header"
                                            : "a later message has a header");
        if (first) {
          snapshot.step = message.header().step();
          snapshot.epoch = message.header().epoch();
          snapshot.holdsGlobalStep = message.header().holds_global_step();
        }
        first = false;
      });
  if (first)
    throw callError(peer_, "Snapshot",
                    grpc::Status(grpc::StatusCode::DATA_LOSS,
                                 "malformed response: the response is empty"));
  return snapshot;
}

int64_t PsClient::restore(RestoreRequest::Source source, int64_t checkpointStep,
                          int64_t epoch) {
  RestoreRequest request;
  request.set_source(source);
  request.set_checkpoint_step(checkpointStep);
  request.set_epoch(epoch);
  RestoreResponse response =
      unaryCall(peer_, "Restore", options_, *stub,
                &ParameterServer::Stub::Restore, request);
  return response.step();
}

int64_t PsClient::waitForStep(int64_t step, std::chrono::milliseconds timeout,
                              int64_t epoch) {
  WaitForStepResponse response;
  longPoll(peer_, "WaitForStep", options_, timeout,
           [&](grpc::ClientContext &context, std::chrono::milliseconds slice) {
             WaitForStepRequest request;
             request.set_step(step);
             request.set_timeout_ms(slice.count());
             request.set_epoch(epoch);
             return stub->WaitForStep(&context, request, &response);
           });
  return response.step();
}

void PsClient::stop(const std::string &reason) {
  StopServerRequest request;
  request.set_reason(reason);
  unaryCall(peer_, "Stop", options_, *stub, &ParameterServer::Stub::Stop,
            request);
}

TransferStats PsClient::transferStats() const {
  TransferStats stats;
  stats.pulls = pulls_.load();
  stats.pulledBytes = pulledBytes_.load();
  stats.pushes = pushes_.load();
  stats.pushedBytes = pushedBytes_.load();
  return stats;
}

} // namespace dtf::rpc
