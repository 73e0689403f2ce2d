//===- WorkerClient.h - Calls to one task's worker service ------*- C++ -*-===//
//
// Like the PS client: a deadline on every call, and every failure an error
// naming the task, its address and the RPC ("worker /job:worker/task:2 at
// 127.0.0.1:40123: RecvTensor failed: ... (UNAVAILABLE)"), so that a dead
// peer is a clear error within the deadline, never a hang. Thread-safe.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/rpc/Options.h"
#include "runtime/rpc/TensorCodec.h"

#include "runtime/core/Rendezvous.h"
#include "runtime/core/WorkerConnection.h"

#include "worker_service.grpc.pb.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dtf::rpc {

/// A task's worker service over gRPC.
class WorkerClient final : public WorkerConnection {
public:
  /// A client of the worker service of task `taskName`
  /// ("/job:worker/task:1") at `address` ("host:port"). Connects lazily.
  WorkerClient(std::string taskName, std::string address,
               ClientOptions options = {});

  /// "worker /job:worker/task:1 at localhost:2223", the prefix of every
  /// error.
  const std::string &peer() const override { return peer_; }
  const ClientOptions &options() const { return options_; }

  /// Waits, retrying with backoff, until the task accepts connections; for
  /// at most options().connectTimeout. Throws Error(Unavailable).
  void waitUntilReachable() override;

  /// Registers the functions `functions` of `module` (MLIR text) as graphs
  /// of their names. Throws dtf::Error.
  void registerGraph(const std::string &module,
                     const std::vector<std::string> &functions) override;

  /// Runs step `stepId` of `graph` and returns its results; `timeout` is
  /// the step's deadline (options().callTimeout when not given). Adds the
  /// tensor bytes the task received from each other task during the step
  /// to `receivedBytes` when given. Throws dtf::Error with the code the step
  /// failed with.
  std::vector<Tensor>
  runStep(const std::string &graph, int64_t stepId,
          const std::map<std::string, Tensor> &feeds,
          const std::vector<Tensor> &arguments = {},
          std::optional<std::chrono::milliseconds> timeout = std::nullopt,
          std::map<std::string, int64_t> *receivedBytes = nullptr) override;

  /// Drops what is left of step `stepId` on the task. Throws dtf::Error.
  void cleanupStep(int64_t stepId) override;
  /// Aborts step `stepId` on the task: what waits for or later sends or
  /// receives its tensors there fails with ABORTED and `reason`. Throws
  /// dtf::Error.
  void abortStep(int64_t stepId, const std::string &reason) override;
  /// The variables the task holds, those of `names` only when given.
  /// Throws dtf::Error.
  VariableStore
  getVariables(const std::vector<std::string> &names = {}) override;
  /// Sets those of `values` that the task holds; returns their names.
  /// Throws dtf::Error (InvalidArgument, nothing set, for a value of another
  /// dtype or shape than its variable).
  std::vector<std::string> setVariables(const VariableStore &values) override;

  /// Asks the task to stop serving. Throws dtf::Error.
  void stopTask(const std::string &reason) override;

  /// Fetches the tensor the task sent under `key` in step `stepId`, without
  /// holding a thread while waiting: `done` is called once, on a gRPC
  /// thread, with the tensor or an Error whose message names the peer.
  /// `deadline` bounds the call (options().callTimeout from now when not
  /// given); cancelling `cancellation` cancels it.
  void recvTensorAsync(const std::string &key, int64_t stepId,
                       std::optional<Deadline> deadline,
                       CancellationManager *cancellation, RecvCallback done);

  /// recvTensorAsync, waiting for the outcome. Throws Error.
  Tensor recvTensor(const std::string &key, int64_t stepId,
                    std::optional<Deadline> deadline = std::nullopt);

private:
  std::string peer_;
  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<Worker::Stub> stub;
};

} // namespace dtf::rpc
