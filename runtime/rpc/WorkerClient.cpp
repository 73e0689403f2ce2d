//===- WorkerClient.cpp - Calls to one task's worker service --------------===//

#include "runtime/rpc/WorkerClient.h"

#include "runtime/rpc/Auth.h"
#include "runtime/rpc/Channel.h"
#include "runtime/rpc/Errors.h"
#include "runtime/rpc/StatusConversion.h"

#include "runtime/core/Error.h"

#include <condition_variable>
#include <mutex>
#include <stdexcept>

namespace dtf::rpc {

namespace {

std::chrono::system_clock::time_point toSystemClock(Deadline deadline) {
  return std::chrono::system_clock::now() +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(
             deadline - Clock::now());
}

/// The error for `rpc` to `peer` failing with `status`, as a dtf::Error of
/// the matching code (what an executor's op reports).
std::exception_ptr runtimeError(const std::string &peer, const std::string &rpc,
                                const grpc::Status &status) {
  return makeError(fromStatusCode(status.error_code()),
                   callError(peer, rpc, status).what());
}

/// One asynchronous RecvTensor call. Deletes itself when done.
class RecvTensorCall final
    : public grpc::ClientReadReactor<RecvTensorResponse> {
public:
  RecvTensorCall(std::string peer, std::string key, RecvCallback done)
      : peer(std::move(peer)), key(std::move(key)), done(std::move(done)),
        assembler([this](size_t index, const std::string &name, DType,
                         const Shape &) {
          if (index != 0 || name != this->key)
            throw std::invalid_argument("tensor " + std::to_string(index) +
                                        " is '" + name + "', expected '" +
                                        this->key + "' alone");
        }),
        canceller(std::make_shared<Canceller>()) {}

  void start(Worker::Stub &stub, const ClientOptions &options,
             int64_t stepId, Deadline deadline,
             CancellationManager *cancellation) {
    request.set_key(key);
    request.set_step_id(stepId);
    context.set_deadline(toSystemClock(deadline));
    addClusterToken(context, options);
    canceller->context = &context;
    if (cancellation) {
      this->cancellation = cancellation;
      // The callback holds the canceller, not the call, which may be gone
      // by the time a late cancellation runs.
      token = cancellation->add(
          [canceller = canceller](const std::exception_ptr &) {
            canceller->cancel();
          });
      if (!token) {
        RecvCallback callback = std::move(done);
        std::exception_ptr reason = cancellation->reason();
        delete this;
        callback(reason, Tensor());
        return;
      }
    }
    stub.async()->RecvTensor(&context, &request, this);
    StartRead(&response);
    StartCall();
  }

  void OnReadDone(bool ok) override {
    if (!ok)
      return; // OnDone follows.
    try {
      for (const TensorChunk &chunk : response.chunks())
        assembler.add(chunk);
    } catch (const std::invalid_argument &error) {
      malformed = error.what();
      context.TryCancel();
      return;
    }
    StartRead(&response);
  }

  void OnDone(const grpc::Status &status) override {
    canceller->finish();
    if (cancellation && token)
      cancellation->remove(*token);
    std::exception_ptr error;
    Tensor tensor;
    if (!malformed.empty()) {
      error = runtimeError(peer, "RecvTensor",
                           grpc::Status(grpc::StatusCode::DATA_LOSS,
                                        "malformed response: " + malformed));
    } else if (!status.ok()) {
      // A cancellation of ours reports its reason, not gRPC's CANCELLED.
      error = status.error_code() == grpc::StatusCode::CANCELLED &&
                      cancellation && cancellation->isCancelled()
                  ? cancellation->reason()
                  : runtimeError(peer, "RecvTensor", status);
    } else {
      try {
        std::vector<NamedTensor> tensors = assembler.finish();
        if (tensors.size() != 1)
          throw std::invalid_argument("the response carries " +
                                      std::to_string(tensors.size()) +
                                      " tensors, expected 1");
        tensor = std::move(tensors.front().tensor);
      } catch (const std::invalid_argument &failure) {
        error = runtimeError(peer, "RecvTensor",
                             grpc::Status(grpc::StatusCode::DATA_LOSS,
                                          std::string("malformed response: ") +
                                              failure.what()));
      }
    }
    RecvCallback callback = std::move(done);
    delete this;
    callback(std::move(error), std::move(tensor));
  }

private:
  /// Cancels the call unless it is over; shared with the cancellation
  /// callback.
  struct Canceller {
    std::mutex mutex;
    grpc::ClientContext *context = nullptr;
    void cancel() {
      std::lock_guard<std::mutex> lock(mutex);
      if (context)
        context->TryCancel();
    }
    void finish() {
      std::lock_guard<std::mutex> lock(mutex);
      context = nullptr;
    }
  };

  std::string peer;
  std::string key;
  RecvCallback done;
  grpc::ClientContext context;
  RecvTensorRequest request;
  RecvTensorResponse response;
  TensorAssembler assembler;
  std::string malformed;
  std::shared_ptr<Canceller> canceller;
  CancellationManager *cancellation = nullptr;
  std::optional<CancellationManager::Token> token;
};

} // namespace

WorkerClient::WorkerClient(std::string taskName, std::string address,
                           ClientOptions options)
    : peer_("worker " + taskName + " at " + address), options_(options),
      channel(createChannel(address, options)),
      stub(Worker::NewStub(channel)) {
  checkChunkSize(options_.chunkBytes, options_.maxMessageBytes);
}

void WorkerClient::waitUntilReachable() {
  waitForConnection(*channel, peer_, options_.connectTimeout);
}

void WorkerClient::registerGraph(const std::string &module,
                                 const std::vector<std::string> &functions) {
  RegisterGraphRequest request;
  request.set_module(module);
  for (const std::string &function : functions)
    request.add_functions(function);
  unaryCall(peer_, "RegisterGraph", options_, *stub,
            &Worker::Stub::RegisterGraph, request);
}

std::vector<Tensor>
WorkerClient::runStep(const std::string &graph, int64_t stepId,
                      const std::map<std::string, Tensor> &feeds,
                      const std::vector<Tensor> &arguments,
                      std::optional<std::chrono::milliseconds> timeout,
                      std::map<std::string, int64_t> *receivedBytes) {
  grpc::ClientContext context;
  prepareCall(context, options_, timeout.value_or(options_.callTimeout));
  std::unique_ptr<grpc::ClientReaderWriter<RunStepRequest, RunStepResponse>>
      stream = stub->RunStep(&context);

  // Arguments first, in order, then the feeds by name.
  std::vector<TensorRef> tensors;
  for (size_t i = 0; i < arguments.size(); ++i)
    tensors.push_back({"arg" + std::to_string(i), &arguments[i]});
  for (const auto &[name, tensor] : feeds)
    tensors.push_back({name, &tensor});
  bool headerSent = false;
  auto send = [&](std::vector<TensorChunk> &chunks) {
    RunStepRequest message;
    if (!headerSent) {
      RunStepHeader *header = message.mutable_header();
      header->set_graph(graph);
      header->set_step_id(stepId);
      header->set_num_arguments(static_cast<int32_t>(arguments.size()));
      headerSent = true;
    }
    for (TensorChunk &chunk : chunks)
      *message.add_chunks() = std::move(chunk);
    return stream->Write(message);
  };
  // A failed write means the server ended the call; Finish() tells why.
  bool written = encodeTensors(tensors, options_.chunkBytes, send);
  if (written && !headerSent) {
    std::vector<TensorChunk> none;
    written = send(none);
  }
  if (written)
    stream->WritesDone();

  std::vector<NamedTensor> results = readTensorStream<RunStepResponse>(
      *stream, context, peer_, "RunStep",
      [receivedBytes](const RunStepResponse &message) {
        if (receivedBytes)
          for (const auto &[task, bytes] : message.received_bytes())
            (*receivedBytes)[task] += bytes;
      });
  std::vector<Tensor> values;
  for (NamedTensor &result : results)
    values.push_back(std::move(result.tensor));
  return values;
}

void WorkerClient::cleanupStep(int64_t stepId) {
  CleanupStepRequest request;
  request.set_step_id(stepId);
  unaryCall(peer_, "CleanupStep", options_, *stub, &Worker::Stub::CleanupStep,
            request);
}

void WorkerClient::abortStep(int64_t stepId, const std::string &reason) {
  CleanupStepRequest request;
  request.set_step_id(stepId);
  request.set_abort_reason(reason.empty() ? "step aborted" : reason);
  unaryCall(peer_, "CleanupStep", options_, *stub, &Worker::Stub::CleanupStep,
            request);
}

VariableStore WorkerClient::getVariables(const std::vector<std::string> &names) {
  grpc::ClientContext context;
  prepareCall(context, options_, options_.callTimeout);
  GetVariablesRequest request;
  for (const std::string &name : names)
    request.add_names(name);
  std::unique_ptr<grpc::ClientReader<GetVariablesResponse>> reader =
      stub->GetVariables(&context, request);
  VariableStore variables;
  for (NamedTensor &tensor : readTensorStream<GetVariablesResponse>(
           *reader, context, peer_, "GetVariables"))
    variables.emplace(tensor.name, std::move(tensor.tensor));
  return variables;
}

std::vector<std::string>
WorkerClient::setVariables(const VariableStore &values) {
  grpc::ClientContext context;
  prepareCall(context, options_, options_.callTimeout);
  SetVariablesResponse response;
  std::unique_ptr<grpc::ClientWriter<SetVariablesRequest>> writer =
      stub->SetVariables(&context, &response);
  std::vector<TensorRef> refs;
  for (const auto &[name, value] : values)
    refs.push_back({name, &value});
  bool written = writeTensorMessages<SetVariablesRequest>(*writer, refs,
                                                         options_.chunkBytes);
  if (written)
    writer->WritesDone();
  grpc::Status status = writer->Finish();
  if (!status.ok())
    throw callError(peer_, "SetVariables", status);
  return std::vector<std::string>(response.set().begin(), response.set().end());
}

void WorkerClient::stopTask(const std::string &reason) {
  StopTaskRequest request;
  request.set_reason(reason);
  unaryCall(peer_, "StopTask", options_, *stub, &Worker::Stub::StopTask,
            request);
}

void WorkerClient::recvTensorAsync(const std::string &key, int64_t stepId,
                                   std::optional<Deadline> deadline,
                                   CancellationManager *cancellation,
                                   RecvCallback done) {
  auto *call = new RecvTensorCall(peer_, key, std::move(done));
  call->start(*stub, options_, stepId,
              deadline.value_or(Clock::now() + options_.callTimeout),
              cancellation);
}

Tensor WorkerClient::recvTensor(const std::string &key, int64_t stepId,
                                std::optional<Deadline> deadline) {
  std::mutex mutex;
  std::condition_variable arrived;
  bool finished = false;
  std::exception_ptr error;
  Tensor value;
  recvTensorAsync(key, stepId, deadline, nullptr,
                  [&](std::exception_ptr failure, Tensor tensor) {
                    std::lock_guard<std::mutex> lock(mutex);
                    error = std::move(failure);
                    value = std::move(tensor);
                    finished = true;
                    arrived.notify_all();
                  });
  // The call has a deadline, so this wait ends.
  std::unique_lock<std::mutex> lock(mutex);
  arrived.wait(lock, [&] { return finished; });
  if (error)
    std::rethrow_exception(error);
  return value;
}

} // namespace dtf::rpc
