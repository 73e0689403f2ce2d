//===- WorkerService.cpp - A task running partitions of a graph -----------===//

#include "runtime/rpc/WorkerService.h"

#include "runtime/rpc/Auth.h"
#include "runtime/rpc/StatusConversion.h"
#include "runtime/rpc/TensorCodec.h"

#include "runtime/core/Error.h"
#include "runtime/core/Strings.h"

#include <algorithm>
#include <set>

namespace dtf::rpc {

WorkerService::WorkerService(dtf::Worker &worker, WorkerServiceOptions options)
    : worker(worker), options(std::move(options)),
      rendezvous(this->options.taskName, local,
                 [this](const std::string &task) { return clientFor(task); }),
      lastCallTicks(Clock::now().time_since_epoch().count()) {
  checkChunkSize(this->options.chunkBytes, this->options.client.maxMessageBytes);
}

WorkerService::~WorkerService() = default;

void WorkerService::setPeerAddress(const std::string &task,
                                   const std::string &address) {
  std::lock_guard<std::mutex> lock(peersMutex);
  options.peers[task] = address;
  clients.erase(task);
}

std::shared_ptr<WorkerClient>
WorkerService::clientFor(const std::string &task) {
  std::lock_guard<std::mutex> lock(peersMutex);
  auto client = clients.find(task);
  if (client != clients.end())
    return client->second;
  auto address = options.peers.find(task);
  if (address == options.peers.end()) {
    std::set<std::string> known;
    for (auto &peer : options.peers)
      known.insert(peer.first);
    throw Error(ErrorCode::NotFound,
                "task " + options.taskName + " has no address for task " +
                    task + " (it knows " + joinNames(known, "none") + ")");
  }
  auto created = std::make_shared<WorkerClient>(task, address->second,
                                                options.client);
  clients.emplace(task, created);
  return created;
}

void WorkerService::beginShutdown() {
  shutdown.cancel(makeError(ErrorCode::Cancelled,
                            "worker " + options.taskName + " is shutting down"));
}

grpc::Status WorkerService::authorize(const grpc::ServerContext &context) const {
  return checkClusterToken(context, clusterToken, "worker " + options.taskName);
}

Deadline WorkerService::deadlineOf(const grpc::ServerContext &call) const {
  auto remaining = std::chrono::duration_cast<Clock::duration>(
      call.deadline() - std::chrono::system_clock::now());
  if (remaining >= options.maxWait)
    return Clock::now() + options.maxWait;
  // End a little before the caller gives up, so that it gets our error,
  // which says what was still waiting, rather than a bare DEADLINE_EXCEEDED.
  auto margin = std::min<Clock::duration>(remaining / 10,
                                          std::chrono::milliseconds(200));
  return Clock::now() + remaining - margin;
}

grpc::Status WorkerService::RegisterGraph(grpc::ServerContext *call,
                                          const RegisterGraphRequest *request,
                                          RegisterGraphResponse *) {
  if (grpc::Status denied = authorize(*call); !denied.ok())
    return denied;
  heardFromMaster();
  try {
    worker.registerGraphs(request->module(),
                          std::vector<std::string>(request->functions().begin(),
                                                   request->functions().end()));
  } catch (...) {
    return toStatus(std::current_exception());
  }
  registered = true;
  return grpc::Status::OK;
}

grpc::Status WorkerService::RunStep(
    grpc::ServerContext *call,
    grpc::ServerReaderWriter<RunStepResponse, RunStepRequest> *stream) {
  if (grpc::Status denied = authorize(*call); !denied.ok())
    return denied;
  heardFromMaster();
  // The end of a long step counts too.
  struct HeardAtTheEnd {
    WorkerService &service;
    ~HeardAtTheEnd() { service.heardFromMaster(); }
  } heardAtTheEnd{*this};
  int64_t stepId = 0;
  bool started = false;
  try {
    // The request: the header, then the arguments and the feeds.
    RunStepRequest message;
    RunStepHeader header;
    bool first = true;
    TensorAssembler assembler;
    while (stream->Read(&message)) {
      if (first != message.has_header())
        throw Error(ErrorCode::InvalidArgument,
                    "the header must come in the first RunStep message, "
                    "and only there");
      if (first)
        header = message.header();
      first = false;
      for (const TensorChunk &chunk : message.chunks())
        assembler.add(chunk);
    }
    if (first)
      throw Error(ErrorCode::InvalidArgument, "RunStep without a request");
    std::vector<NamedTensor> tensors = assembler.finish();
    if (header.num_arguments() < 0 ||
        static_cast<size_t>(header.num_arguments()) > tensors.size())
      throw Error(ErrorCode::InvalidArgument,
                  "RunStep announces " +
                      std::to_string(header.num_arguments()) +
                      " arguments but carries " +
                      std::to_string(tensors.size()) + " tensors");
    std::vector<Tensor> arguments;
    std::map<std::string, Tensor> feeds;
    for (size_t i = 0; i < tensors.size(); ++i) {
      if (i < static_cast<size_t>(header.num_arguments())) {
        arguments.push_back(std::move(tensors[i].tensor));
      } else if (!feeds.emplace(tensors[i].name, std::move(tensors[i].tensor))
                      .second) {
        throw Error(ErrorCode::InvalidArgument,
                    "'" + tensors[i].name + "' is fed twice");
      }
    }

    stepId = header.step_id();
    started = true;
    dtf::Worker::StepOptions step;
    step.stepId = stepId;
    step.rendezvous = &rendezvous;
    step.deadline = deadlineOf(*call);
    step.cancellation = &shutdown;
    std::vector<Tensor> results = worker.runStep(
        header.graph(), std::move(feeds), std::move(arguments), step);
    std::map<std::string, int64_t> received =
        rendezvous.takeReceivedBytes(stepId);
    {
      std::lock_guard<std::mutex> lock(trafficMutex);
      GraphTraffic &graph = trafficByGraph[header.graph()];
      ++graph.steps;
      for (auto &[task, bytes] : received)
        graph.receivedBytes[task] += bytes;
    }
    if (options.onStepDone)
      options.onStepDone(header.graph());

    std::vector<TensorRef> refs;
    for (size_t i = 0; i < results.size(); ++i)
      refs.push_back({"result" + std::to_string(i), &results[i]});
    std::vector<TensorChunk> last;
    bool written =
        encodeTensors(refs, options.chunkBytes,
                      [&](std::vector<TensorChunk> &chunks) {
                        // Held back so that the traffic goes with the last
                        // chunks.
                        if (!last.empty()) {
                          RunStepResponse response;
                          for (TensorChunk &chunk : last)
                            *response.add_chunks() = std::move(chunk);
                          if (!stream->Write(response))
                            return false;
                        }
                        last = std::move(chunks);
                        return true;
                      });
    if (written) {
      RunStepResponse response;
      for (TensorChunk &chunk : last)
        *response.add_chunks() = std::move(chunk);
      response.mutable_received_bytes()->insert(received.begin(),
                                                received.end());
      written = stream->Write(response);
    }
    if (!written)
      return grpc::Status(grpc::StatusCode::CANCELLED,
                          "the client went away before the results");
  } catch (...) {
    std::exception_ptr error = std::current_exception();
    // The peers waiting for this step's tensors here fail at once.
    if (started) {
      local.abortStep(stepId, error);
      rendezvous.takeReceivedBytes(stepId);
    }
    return toStatus(error);
  }
  return grpc::Status::OK;
}

std::map<std::string, GraphTraffic> WorkerService::traffic() {
  std::lock_guard<std::mutex> lock(trafficMutex);
  return trafficByGraph;
}

grpc::Status
WorkerService::RecvTensor(grpc::ServerContext *call,
                          const RecvTensorRequest *request,
                          grpc::ServerWriter<RecvTensorResponse> *writer) {
  if (grpc::Status denied = authorize(*call); !denied.ok())
    return denied;
  try {
    const std::string &key = request->key();
    std::string source = taskOfDevice(RendezvousKey::parse(key).sourceDevice);
    if (source != options.taskName)
      throw Error(ErrorCode::InvalidArgument,
                  "task " + options.taskName + " does not send '" + key +
                      "': its source is task " + source);
    Tensor tensor =
        local.recv(key, request->step_id(), deadlineOf(*call), &shutdown);
    bool written = writeTensorMessages<RecvTensorResponse>(
        *writer, {{key, &tensor}}, options.chunkBytes);
    if (!written)
      return grpc::Status(grpc::StatusCode::CANCELLED,
                          "the client went away during the transfer");
  } catch (...) {
    return toStatus(std::current_exception());
  }
  return grpc::Status::OK;
}

grpc::Status WorkerService::CleanupStep(grpc::ServerContext *call,
                                        const CleanupStepRequest *request,
                                        CleanupStepResponse *) {
  if (grpc::Status denied = authorize(*call); !denied.ok())
    return denied;
  heardFromMaster();
  if (request->abort_reason().empty())
    local.cleanupStep(request->step_id());
  else
    local.abortStep(request->step_id(),
                    makeError(ErrorCode::Aborted, request->abort_reason()));
  return grpc::Status::OK;
}

grpc::Status
WorkerService::GetVariables(grpc::ServerContext *call,
                            const GetVariablesRequest *request,
                            grpc::ServerWriter<GetVariablesResponse> *writer) {
  if (grpc::Status denied = authorize(*call); !denied.ok())
    return denied;
  VariableStore variables = worker.snapshotVariables();
  std::set<std::string> wanted(request->names().begin(),
                               request->names().end());
  std::vector<TensorRef> refs;
  for (const auto &[name, value] : variables)
    if (wanted.empty() || wanted.count(name))
      refs.push_back({name, &value});
  bool written = writeTensorMessages<GetVariablesResponse>(*writer, refs,
                                                          options.chunkBytes);
  if (!written)
    return grpc::Status(grpc::StatusCode::CANCELLED,
                        "the client went away during GetVariables");
  return grpc::Status::OK;
}

grpc::Status
WorkerService::SetVariables(grpc::ServerContext *call,
                            grpc::ServerReader<SetVariablesRequest> *reader,
                            SetVariablesResponse *response) {
  if (grpc::Status denied = authorize(*call); !denied.ok())
    return denied;
  heardFromMaster();
  try {
    TensorAssembler assembler;
    SetVariablesRequest message;
    while (reader->Read(&message))
      for (const TensorChunk &chunk : message.chunks())
        assembler.add(chunk);
    VariableStore values;
    for (NamedTensor &tensor : assembler.finish())
      if (!values.emplace(tensor.name, std::move(tensor.tensor)).second)
        throw Error(ErrorCode::InvalidArgument,
                    "variable '" + tensor.name + "' is sent twice");
    for (const std::string &name : worker.assignVariables(std::move(values)))
      response->add_set(name);
  } catch (...) {
    return toStatus(std::current_exception());
  }
  return grpc::Status::OK;
}

grpc::Status WorkerService::StopTask(grpc::ServerContext *call,
                                     const StopTaskRequest *request,
                                     StopTaskResponse *) {
  if (grpc::Status denied = authorize(*call); !denied.ok())
    return denied;
  if (options.onStopTask)
    options.onStopTask(request->reason());
  return grpc::Status::OK;
}

} // namespace dtf::rpc
