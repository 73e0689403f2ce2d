//===- PsClient.cpp - Calls to one parameter-server task ------------------===//

#include "runtime/rpc/PsClient.h"

#include "runtime/rpc/Channel.h"
#include "runtime/rpc/Errors.h"
#include "runtime/rpc/LocalTransport.h"
#include "runtime/rpc/StatusConversion.h"
#include "runtime/rpc/TensorWire.h"

#include <stdexcept>
#include <string_view>

namespace dtf::rpc {

PsClient::PsClient(std::string taskName, std::string address,
                   ClientOptions options)
    : peer_("PS " + taskName + " at " + address), options_(options),
      channel(createChannel(address, options)),
      stub(ParameterServer::NewStub(channel)),
      rawStub(std::make_unique<grpc::GenericStub>(channel)),
      local(options.clusterToken,
            static_cast<uint64_t>(options.maxMessageBytes)) {
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

namespace {

LocalMethod localMethod(std::string_view method) {
  if (method == "Pull")
    return LocalMethod::Pull;
  if (method == "Push")
    return LocalMethod::Push;
  return LocalMethod::PushPull;
}

std::string methodPath(const char *method) {
  return std::string("/") + ParameterServer::service_full_name() + "/" + method;
}

static_assert(int(PushRequest::kHeaderFieldNumber) ==
                      int(PushPullRequest::kHeaderFieldNumber) &&
                  int(PushRequest::kChunksFieldNumber) ==
                      int(PushPullRequest::kChunksFieldNumber),
              "Push and PushPull requests share their first fields");

/// The push part of a Push or PushPull request: its header, then the
/// gradients.
void addPush(WireMessageBuilder &message, int64_t step, int64_t epoch,
             const std::vector<TensorRef> &gradients,
             const std::shared_ptr<const void> &owner) {
  PushHeader header;
  header.set_step(step);
  header.set_epoch(epoch);
  message.addMessage(PushRequest::kHeaderFieldNumber, header);
  message.addTensors(PushRequest::kChunksFieldNumber, gradients, owner);
}

ps::PushOutcome fromProtoOutcome(PushResponse::Outcome outcome) {
  switch (outcome) {
  case PushResponse::ACCUMULATED:
    return ps::PushOutcome::Accumulated;
  case PushResponse::QUEUED:
    return ps::PushOutcome::Queued;
  case PushResponse::STALE:
    return ps::PushOutcome::Stale;
  default: // APPLIED; decodeResponse refuses unknown outcomes
    return ps::PushOutcome::Applied;
  }
}

RestoreRequest::Source toProtoSource(ps::RestoreSource source) {
  switch (source) {
  case ps::RestoreSource::InitialValues:
    return RestoreRequest::INITIAL_VALUES;
  case ps::RestoreSource::Checkpoint:
    return RestoreRequest::CHECKPOINT;
  case ps::RestoreSource::KeepRestored:
    return RestoreRequest::KEEP_RESTORED;
  }
  return RestoreRequest::SOURCE_UNSPECIFIED;
}

/// Reads a response made of an outcome, a step, an epoch and the values of
/// `names` (fields as given; 0: absent from the message).
struct ResponseFields {
  int outcome = 0, step = 0, epoch = 0, chunks = 0;
};

ps::PushPullResult decodeResponse(const grpc::ByteBuffer &buffer,
                                  const ResponseFields &fields,
                                  const std::vector<std::string> &names) {
  ps::PushPullResult result{};
  auto expectName = [&](size_t index, const std::string &name, DType,
                        const Shape &) {
    if (index >= names.size() || name != names[index])
      throw std::invalid_argument(
          "tensor " + std::to_string(index) + " is '" + name +
          "' but the request asked for " +
          (index < names.size() ? "'" + names[index] + "'"
                                : std::to_string(names.size()) + " tensors"));
  };
  int outcome = 0;
  WireReader reader(buffer);
  while (!reader.atEnd()) {
    int field;
    WireReader::WireType type;
    reader.readTag(field, type);
    if (field == fields.chunks && type == WireReader::LengthDelimited)
      result.pulled.values.push_back(
          readWholeTensor(reader, reader.readLength(),
                          result.pulled.values.size(), expectName)
              .tensor);
    else if (field == fields.outcome && type == WireReader::Varint)
      outcome = static_cast<int>(reader.readVarint());
    else if (field == fields.step && type == WireReader::Varint)
      result.push.step = static_cast<int64_t>(reader.readVarint());
    else if (field == fields.epoch && type == WireReader::Varint)
      result.pulled.epoch = static_cast<int64_t>(reader.readVarint());
    else
      reader.skip(type);
  }
  if (result.pulled.values.size() != names.size())
    throw std::invalid_argument(
        "the response carries " + std::to_string(result.pulled.values.size()) +
        " of " + std::to_string(names.size()) + " tensors");
  if (fields.outcome) {
    if (!PushResponse::Outcome_IsValid(outcome) ||
        outcome == PushResponse::OUTCOME_UNSPECIFIED)
      throw std::invalid_argument("the push outcome " +
                                  std::to_string(outcome) + " is unknown");
    result.push.outcome =
        fromProtoOutcome(static_cast<PushResponse::Outcome>(outcome));
  }
  return result;
}

} // namespace

template <typename Result>
Result PsClient::finishRawCall(
    const char *method, const grpc::Status &status, uint64_t sentBytes,
    const grpc::ByteBuffer &response,
    const std::function<Result(const grpc::ByteBuffer &)> &decode) {
  if (!status.ok())
    throw callError(peer_, method, status);
  Result result;
  try {
    result = decode(response);
  } catch (const std::invalid_argument &error) {
    throw callError(
        peer_, method,
        grpc::Status(grpc::StatusCode::DATA_LOSS,
                     std::string("malformed response: ") + error.what()));
  }
  std::string_view name(method);
  if (name != "Pull") {
    ++counters.pushes;
    counters.pushedBytes += sentBytes;
  }
  if (name != "Push") {
    ++counters.pulls;
    counters.pulledBytes += response.Length();
  }
  if (name == "PushPull")
    ++counters.pushPulls;
  return result;
}

std::shared_ptr<LocalChannel> PsClient::localChannel() {
  return localChannelOf(local, options_, *stub,
                        &ParameterServer::Stub::LocalEndpoint);
}

bool PsClient::usesLocalTransport() { return localChannel() != nullptr; }

template <typename Result>
std::future<Result> PsClient::startLocalCall(
    std::shared_ptr<LocalChannel> channel, const char *method,
    const grpc::ByteBuffer &request,
    std::function<Result(const grpc::ByteBuffer &)> decode) {
  // Sent now; the response is read on the thread that waits for it,
  // without a thread of its own.
  auto deadline = std::chrono::steady_clock::now() + options_.callTimeout;
  auto pending = std::make_shared<LocalChannel::PendingCall>(
      channel->start(localMethod(method), request, deadline));
  return std::async(std::launch::deferred, [this, channel, pending, method,
                                            deadline, sent = request.Length(),
                                            decode = std::move(decode)] {
    grpc::ByteBuffer response;
    grpc::Status status = pending->finish(response, deadline);
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE)
      local.forget(channel);
    return finishRawCall(method, status, sent, response, decode);
  });
}

template <typename Result>
Result PsClient::rawCall(
    const char *method, const grpc::ByteBuffer &request,
    const std::function<Result(const grpc::ByteBuffer &)> &decode) {
  if (std::shared_ptr<LocalChannel> channel = localChannel())
    return startLocalCall<Result>(std::move(channel), method, request, decode)
        .get();
  // The calling thread waits on a queue of its own and so polls the
  // connection itself: the response is read and decoded on this thread,
  // without waking another (gRPC's blocking calls work alike).
  grpc::ClientContext context;
  prepareCall(context, options_, options_.callTimeout);
  grpc::CompletionQueue queue;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
      rawStub->PrepareUnaryCall(&context, methodPath(method), request, &queue);
  call->StartCall();
  grpc::ByteBuffer response;
  grpc::Status status;
  call->Finish(&response, &status, nullptr);
  void *tag;
  bool ok;
  queue.Next(&tag, &ok);
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }
  return finishRawCall(method, status, request.Length(), response, decode);
}

template <typename Result>
std::future<Result>
PsClient::startRawCall(const char *method, grpc::ByteBuffer request,
                       std::function<Result(const grpc::ByteBuffer &)> decode) {
  if (std::shared_ptr<LocalChannel> channel = localChannel())
    return startLocalCall<Result>(std::move(channel), method, request,
                                  std::move(decode));
  // Everything the call uses, alive until its completion has run.
  struct Call {
    grpc::ClientContext context;
    grpc::ByteBuffer request, response;
    std::promise<Result> result;
  };
  auto call = std::make_shared<Call>();
  call->request = std::move(request);
  prepareCall(call->context, options_, options_.callTimeout);
  std::future<Result> future = call->result.get_future();
  rawStub->UnaryCall(
      &call->context, methodPath(method), grpc::StubOptions(), &call->request,
      &call->response,
      [this, call, method, decode = std::move(decode)](grpc::Status status) {
        try {
          call->result.set_value(finishRawCall(
              method, status, call->request.Length(), call->response, decode));
        } catch (...) {
          call->result.set_exception(std::current_exception());
        }
      });
  return future;
}

namespace {

grpc::ByteBuffer pullRequest(const std::vector<std::string> &names) {
  WireMessageBuilder message;
  for (const std::string &name : names)
    message.addString(PullRequest::kNamesFieldNumber, name);
  return message.finish();
}

std::function<ps::PulledValues(const grpc::ByteBuffer &)>
pullDecoder(std::vector<std::string> names) {
  return [names = std::move(names)](const grpc::ByteBuffer &response) {
    ResponseFields fields;
    fields.epoch = PullResponse::kEpochFieldNumber;
    fields.chunks = PullResponse::kChunksFieldNumber;
    return decodeResponse(response, fields, names).pulled;
  };
}

/// A PushPull request over `gradients`, which it keeps until gRPC is done,
/// carrying `ride`'s data report if there is one.
grpc::ByteBuffer pushPullRequest(int64_t step,
                                 std::vector<NamedTensor> gradients,
                                 int64_t epoch,
                                 const std::vector<std::string> &pullNames,
                                 const DataReportRide *ride) {
  auto owned = std::make_shared<std::vector<NamedTensor>>(std::move(gradients));
  std::vector<TensorRef> refs;
  for (const NamedTensor &gradient : *owned)
    refs.push_back({gradient.name, &gradient.tensor});
  WireMessageBuilder message;
  addPush(message, step, epoch, refs, owned);
  for (const std::string &name : pullNames)
    message.addString(PushPullRequest::kPullNamesFieldNumber, name);
  if (ride)
    message.addString(PushPullRequest::kDataReportFieldNumber, ride->request());
  return message.finish();
}

/// What became of the data report a push carried: how it failed (code 0:
/// it did not), and whether its batch was recorded trained with the push.
struct ReportOutcome {
  int code = 0;
  std::string message;
  bool batchTrained = false;
};

ReportOutcome readReportOutcome(const grpc::ByteBuffer &response) {
  ReportOutcome outcome;
  WireReader reader(response);
  while (!reader.atEnd()) {
    int field;
    WireReader::WireType type;
    reader.readTag(field, type);
    if (field == PushResponse::kDataReportCodeFieldNumber &&
        type == WireReader::Varint)
      outcome.code = static_cast<int>(reader.readVarint());
    else if (field == PushResponse::kDataReportErrorFieldNumber &&
             type == WireReader::LengthDelimited)
      outcome.message = reader.readString();
    else if (field == PushResponse::kDataReportTrainedFieldNumber &&
             type == WireReader::Varint)
      outcome.batchTrained = reader.readVarint() != 0;
    else
      reader.skip(type);
  }
  return outcome;
}

/// Lands a ride whose push was dropped with its answer unread.
struct DroppedRide {
  explicit DroppedRide(std::shared_ptr<DataReportRide> ride)
      : ride(std::move(ride)) {}
  DroppedRide(const DroppedRide &) = delete;
  DroppedRide &operator=(const DroppedRide &) = delete;
  std::shared_ptr<DataReportRide> ride;
  ~DroppedRide() {
    ride->land(std::make_exception_ptr(
        Error(ErrorCode::Cancelled, "the push that carried the data report "
                                    "was dropped, its answer unread")));
  }
};

std::function<ps::PushPullResult(const grpc::ByteBuffer &)>
pushPullDecoder(std::vector<std::string> pullNames) {
  return [pullNames = std::move(pullNames)](const grpc::ByteBuffer &response) {
    ResponseFields fields;
    fields.outcome = PushPullResponse::kOutcomeFieldNumber;
    fields.step = PushPullResponse::kStepFieldNumber;
    fields.epoch = PushPullResponse::kEpochFieldNumber;
    fields.chunks = PushPullResponse::kChunksFieldNumber;
    return decodeResponse(response, fields, pullNames);
  };
}

} // namespace

template <typename Result>
std::future<Result>
PsClient::startPush(const char *method, grpc::ByteBuffer request,
                    std::shared_ptr<DataReportRide> ride,
                    std::function<Result(const grpc::ByteBuffer &)> decode) {
  if (!ride)
    return startRawCall<Result>(method, std::move(request), std::move(decode));
  auto reportThenDecode = [this, method, ride, decode = std::move(decode)](
                              const grpc::ByteBuffer &response) {
    ReportOutcome outcome = readReportOutcome(response);
    if (outcome.code == 0) {
      ride->land(nullptr, outcome.batchTrained);
      return decode(response);
    }
    grpc::Status status(static_cast<grpc::StatusCode>(outcome.code),
                        outcome.message);
    ride->land(std::make_exception_ptr(callError(peer_, "ReportData", status)));
    if (isRecoverable(fromStatusCode(status.error_code())))
      // The task applied neither.
      throw callError(peer_, method,
                      grpc::Status(status.error_code(),
                                   "not applied: the data report it carried "
                                   "failed: " +
                                       outcome.message));
    return decode(response);
  };
  std::future<Result> call =
      startRawCall<Result>(method, std::move(request), reportThenDecode);
  return std::async(std::launch::deferred,
                    [call = std::move(call),
                     dropped = std::make_shared<DroppedRide>(ride)]() mutable {
                      try {
                        return call.get();
                      } catch (...) {
                        // Whether the task applied the report is not known.
                        dropped->ride->land(std::current_exception());
                        throw;
                      }
                    });
}

std::vector<Tensor> PsClient::pull(const std::vector<std::string> &names,
                                   int64_t *epoch) {
  ps::PulledValues pulled =
      rawCall<ps::PulledValues>("Pull", pullRequest(names), pullDecoder(names));
  if (epoch)
    *epoch = pulled.epoch;
  return std::move(pulled.values);
}

std::vector<Tensor>
PsClient::pullRows(const std::vector<ps::RowRequest> &requests,
                   int64_t *epoch) {
  // gRPC may hold the request after the answer came: the message owns
  // copies of the ids (a batch's distinct ids, small beside the rows).
  auto owned = std::make_shared<std::vector<Tensor>>();
  std::vector<std::string> names;
  for (const ps::RowRequest &request : requests) {
    owned->push_back(request.ids.clone());
    names.push_back(request.name);
  }
  std::vector<TensorRef> ids;
  for (size_t i = 0; i < requests.size(); ++i)
    ids.push_back({names[i], &(*owned)[i]});
  WireMessageBuilder message;
  message.addTensors(PullRequest::kRowIdsFieldNumber, ids, owned);
  ps::PulledValues pulled = rawCall<ps::PulledValues>(
      "Pull", message.finish(), pullDecoder(std::move(names)));
  if (epoch)
    *epoch = pulled.epoch;
  return std::move(pulled.values);
}

std::future<ps::PulledValues>
PsClient::startPull(const std::vector<std::string> &names) {
  return startRawCall<ps::PulledValues>("Pull", pullRequest(names),
                                        pullDecoder(names));
}

ps::PushResult PsClient::push(int64_t step,
                              const std::vector<TensorRef> &gradients,
                              int64_t epoch) {
  // The message points at the caller's gradients: wait until gRPC has let
  // go of them as well as for the answer.
  std::promise<void> released;
  std::future<void> allReleased = released.get_future();
  std::exception_ptr failure;
  ps::PushResult result{};
  {
    std::shared_ptr<const void> owner(
        nullptr, [&released](const void *) { released.set_value(); });
    std::shared_ptr<DataReportRide> ride = rider ? rider->board() : nullptr;
    WireMessageBuilder message;
    addPush(message, step, epoch, gradients, owner);
    if (ride)
      message.addString(PushRequest::kDataReportFieldNumber, ride->request());
    owner.reset();
    std::function<ps::PushPullResult(const grpc::ByteBuffer &)> decode =
        [](const grpc::ByteBuffer &response) {
          ResponseFields fields;
          fields.outcome = PushResponse::kOutcomeFieldNumber;
          fields.step = PushResponse::kStepFieldNumber;
          return decodeResponse(response, fields, {});
        };
    try {
      result =
          (ride ? startPush<ps::PushPullResult>("Push", message.finish(), ride,
                                                decode)
                      .get()
                : rawCall<ps::PushPullResult>("Push", message.finish(), decode))
              .push;
    } catch (...) {
      // A failed call releases the gradients too.
      failure = std::current_exception();
    }
  }
  allReleased.wait();
  if (failure)
    std::rethrow_exception(failure);
  return result;
}

ps::PushPullResult
PsClient::pushPull(int64_t step, std::vector<NamedTensor> gradients,
                   int64_t epoch, const std::vector<std::string> &pullNames) {
  std::shared_ptr<DataReportRide> ride = rider ? rider->board() : nullptr;
  grpc::ByteBuffer request =
      pushPullRequest(step, std::move(gradients), epoch, pullNames, ride.get());
  if (ride)
    return startPush<ps::PushPullResult>("PushPull", std::move(request), ride,
                                         pushPullDecoder(pullNames))
        .get();
  return rawCall<ps::PushPullResult>("PushPull", request,
                                     pushPullDecoder(pullNames));
}

std::future<ps::PushPullResult>
PsClient::startPushPull(int64_t step, std::vector<NamedTensor> gradients,
                        int64_t epoch,
                        const std::vector<std::string> &pullNames) {
  std::shared_ptr<DataReportRide> ride = rider ? rider->board() : nullptr;
  grpc::ByteBuffer request =
      pushPullRequest(step, std::move(gradients), epoch, pullNames, ride.get());
  return startPush<ps::PushPullResult>("PushPull", std::move(request),
                                       std::move(ride),
                                       pushPullDecoder(pullNames));
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

ps::Snapshot PsClient::snapshot() {
  grpc::ClientContext context;
  prepareCall(context, options_, options_.checkpointTimeout);
  std::unique_ptr<grpc::ClientReader<SnapshotResponse>> reader =
      stub->Snapshot(&context, SnapshotRequest());
  ps::Snapshot snapshot;
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

ps::Snapshot PsClient::saveCheckpointShard(int shard, int numShards,
                                           uint64_t save) {
  SaveCheckpointShardRequest request;
  request.set_shard(shard);
  request.set_num_shards(numShards);
  request.set_save(save);
  SaveCheckpointShardResponse response =
      unaryCall(peer_, "SaveCheckpointShard", options_, *stub,
                &ParameterServer::Stub::SaveCheckpointShard, request,
                options_.checkpointTimeout);
  if (!response.has_header())
    throw callError(peer_, "SaveCheckpointShard",
                    grpc::Status(grpc::StatusCode::DATA_LOSS,
                                 "malformed response: no header"));
  ps::Snapshot written;
  written.step = response.header().step();
  written.epoch = response.header().epoch();
  written.holdsGlobalStep = response.header().holds_global_step();
  return written;
}

int64_t PsClient::restore(ps::RestoreSource source, int64_t checkpointStep,
                          int64_t epoch) {
  RestoreRequest request;
  request.set_source(toProtoSource(source));
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

ps::TransferStats PsClient::transferStats() const { return counters.load(); }

} // namespace dtf::rpc
