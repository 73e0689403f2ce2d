//===- WorkerService.h - A worker task's graphs served over gRPC -*- C++ -*-===//
//
// The gRPC face of a worker task (worker_service.proto): RegisterGraph and
// RunStep decode their requests and call the task's Worker
// (runtime/core/Worker.h; runtime/exec/ExecutorWorker.h runs the graphs), and
// RecvTensor serves the tensors the task's steps send. The task's
// partitions exchange tensors with the other tasks' through a
// WorkerRendezvous: a dtf.send buffers the tensor here, a dtf.recv of a
// tensor another task sends fetches it from that task's RecvTensor, which
// streams it in chunks once it is sent.
//
// Every wait is bounded: a step by its RunStep deadline, a RecvTensor by its
// caller's deadline (and options.maxWait), a fetch from a peer by the step's
// deadline. A step that fails here aborts its tensors on this task, so that
// the peers waiting for them fail at once with its error.
//
//   ExecutorWorker graphs({.taskName = "/job:worker/task:1"});
//   WorkerService worker(graphs, {.taskName = "/job:worker/task:1",
//                                 .peers = {{"/job:worker/task:0", "h0:2222"}}});
//   Server server({"0.0.0.0:2223"});
//   server.addService(worker);
//   server.start();
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/rpc/Options.h"
#include "runtime/rpc/WorkerClient.h"
#include "runtime/rpc/WorkerRendezvous.h"

#include "runtime/core/Worker.h"

#include "worker_service.grpc.pb.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace dtf::rpc {

struct WorkerServiceOptions {
  /// This task, e.g. "/job:worker/task:0".
  std::string taskName;
  /// The worker services of the other tasks ("host:port"), by task name;
  /// more can be added with setPeerAddress().
  std::map<std::string, std::string> peers;
  /// For the RecvTensor calls to peers.
  ClientOptions client;
  /// Tensor bytes per RunStep and RecvTensor response message.
  size_t chunkBytes = kDefaultChunkBytes;
  /// Longest a step or a RecvTensor waits, whatever its caller's deadline.
  std::chrono::milliseconds maxWait{300'000};
  /// Called (from the handler's thread, after the reply is ready) when a
  /// StopTask RPC arrives, with its reason; e.g. to stop the server.
  std::function<void(const std::string &reason)> onStopTask;
  /// Called after each step of a graph that ran to the end, with the
  /// graph's name (e.g. to trace the first steps only).
  std::function<void(const std::string &graph)> onStepDone;
};

/// What the steps of one graph moved into a task.
struct GraphTraffic {
  /// Steps of the graph that ran to the end.
  int64_t steps = 0;
  /// Tensor bytes received from each other task, by task name, over those
  /// steps.
  std::map<std::string, int64_t> receivedBytes;
};

class WorkerService final : public dtf::rpc::Worker::Service {
public:
  /// Serves `worker`, which must outlive the service.
  WorkerService(dtf::Worker &worker, WorkerServiceOptions options);
  ~WorkerService() override;

  /// Every call must carry `token` (empty: none needed); set before the
  /// server starts (Server::addService does).
  void requireClusterToken(std::string token) {
    clusterToken = std::move(token);
  }

  /// Sets (or replaces) the address of a peer task's worker service.
  void setPeerAddress(const std::string &task, const std::string &address);

  /// Fails the running steps and waiting RecvTensor calls (CANCELLED), and
  /// every later one: for the Server's shutdown hook.
  void beginShutdown();

  /// The task's local rendezvous (for tests and diagnostics).
  const LocalRendezvous &localRendezvous() const { return local; }

  /// What the completed steps of each graph received, by graph name.
  std::map<std::string, GraphTraffic> traffic();

  /// When the last RegisterGraph, RunStep or CleanupStep call came or
  /// ended (the service's creation before any): how long ago the task's
  /// master was last heard of.
  Clock::time_point lastCall() const {
    return Clock::time_point(Clock::duration(lastCallTicks.load()));
  }
  /// Whether any RegisterGraph succeeded.
  bool hasGraphs() const { return registered.load(); }

  grpc::Status RegisterGraph(grpc::ServerContext *context,
                             const RegisterGraphRequest *request,
                             RegisterGraphResponse *response) override;
  grpc::Status
  RunStep(grpc::ServerContext *context,
          grpc::ServerReaderWriter<RunStepResponse, RunStepRequest> *stream)
      override;
  grpc::Status RecvTensor(grpc::ServerContext *context,
                          const RecvTensorRequest *request,
                          grpc::ServerWriter<RecvTensorResponse> *writer)
      override;
  grpc::Status CleanupStep(grpc::ServerContext *context,
                           const CleanupStepRequest *request,
                           CleanupStepResponse *response) override;
  grpc::Status
  GetVariables(grpc::ServerContext *context,
               const GetVariablesRequest *request,
               grpc::ServerWriter<GetVariablesResponse> *writer) override;
  grpc::Status SetVariables(grpc::ServerContext *context,
                            grpc::ServerReader<SetVariablesRequest> *reader,
                            SetVariablesResponse *response) override;
  grpc::Status StopTask(grpc::ServerContext *context,
                        const StopTaskRequest *request,
                        StopTaskResponse *response) override;

private:
  /// OK unless the token check fails.
  grpc::Status authorize(const grpc::ServerContext &context) const;
  /// The deadline of a call: its client's, bounded by options.maxWait.
  Deadline deadlineOf(const grpc::ServerContext &context) const;
  std::shared_ptr<WorkerClient> clientFor(const std::string &task);

  dtf::Worker &worker;
  WorkerServiceOptions options;
  std::string clusterToken;

  LocalRendezvous local;
  WorkerRendezvous rendezvous;
  std::mutex peersMutex;
  std::map<std::string, std::shared_ptr<WorkerClient>> clients;

  /// Cancelled by beginShutdown().
  CancellationManager shutdown;

  std::mutex trafficMutex;
  std::map<std::string, GraphTraffic> trafficByGraph;

  void heardFromMaster() {
    lastCallTicks = Clock::now().time_since_epoch().count();
  }
  std::atomic<Clock::rep> lastCallTicks;
  std::atomic<bool> registered{false};
};

} // namespace dtf::rpc
