//===- WorkerConnection.h - A task's graphs as a master sees them -*- C++
//-*-===//
//
// What the in-graph master asks of each task (runtime/train/InGraphMaster.h):
// register partitions, run a step of one, abort or clean up a step
// everywhere, read and set the task's variables, stop the task. A task
// implements dtf::Worker (Worker.h); this is the master's side of it, with
// the calls a master adds (abort, stop) and a step id shared by the
// partitions of one step. rpc::WorkerClient implements it over gRPC;
// InProcessWorkerConnection calls a Worker of the same process, the tasks
// sharing one LocalRendezvous, so that the master's unit tests run without
// sockets. Failures are dtf::Error whose message starts with peer().
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Rendezvous.h"
#include "runtime/core/Tensor.h"
#include "runtime/core/Worker.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dtf {

class WorkerConnection {
public:
  virtual ~WorkerConnection() = default;

  /// "worker /job:worker/task:1 at localhost:2223", the prefix of every
  /// error.
  virtual const std::string &peer() const = 0;

  /// Waits until the task answers, for at most the connection's connect
  /// timeout.
  virtual void waitUntilReachable() = 0;

  /// Registers the functions `functions` of `module` (MLIR text) as graphs
  /// of their names.
  virtual void registerGraph(const std::string &module,
                             const std::vector<std::string> &functions) = 0;

  /// Runs step `stepId` of `graph` and returns its results; `timeout` is
  /// the step's deadline (the connection's call timeout when not given).
  /// Adds the tensor bytes the task received from each other task during
  /// the step to `receivedBytes` when given. Throws dtf::Error with the
  /// code the step failed with.
  virtual std::vector<Tensor>
  runStep(const std::string &graph, int64_t stepId,
          const std::map<std::string, Tensor> &feeds,
          const std::vector<Tensor> &arguments = {},
          std::optional<std::chrono::milliseconds> timeout = std::nullopt,
          std::map<std::string, int64_t> *receivedBytes = nullptr) = 0;

  /// Drops what is left of step `stepId` on the task.
  virtual void cleanupStep(int64_t stepId) = 0;
  /// Aborts step `stepId` on the task: what waits for or later sends or
  /// receives its tensors there fails with Aborted and `reason`.
  virtual void abortStep(int64_t stepId, const std::string &reason) = 0;

  /// The variables the task holds, those of `names` only when given.
  virtual VariableStore
  getVariables(const std::vector<std::string> &names = {}) = 0;
  /// Sets those of `values` that the task holds; returns their names.
  /// Fails with InvalidArgument, setting nothing, for a value of another
  /// dtype or shape than its variable.
  virtual std::vector<std::string>
  setVariables(const VariableStore &values) = 0;

  /// Asks the task to stop serving.
  virtual void stopTask(const std::string &reason) = 0;
};

/// A Worker of the same process. The tasks of one in-process cluster share
/// `rendezvous`, where their partitions' sends and recvs meet.
class InProcessWorkerConnection final : public WorkerConnection {
public:
  /// `onStop` is called with the reason of stopTask().
  InProcessWorkerConnection(
      Worker &worker, LocalRendezvous &rendezvous, std::string taskName,
      std::chrono::milliseconds callTimeout,
      std::function<void(const std::string &)> onStop = {});

  const std::string &peer() const override { return peer_; }
  void waitUntilReachable() override {}
  void registerGraph(const std::string &module,
                     const std::vector<std::string> &functions) override;
  std::vector<Tensor>
  runStep(const std::string &graph, int64_t stepId,
          const std::map<std::string, Tensor> &feeds,
          const std::vector<Tensor> &arguments = {},
          std::optional<std::chrono::milliseconds> timeout = std::nullopt,
          std::map<std::string, int64_t> *receivedBytes = nullptr) override;
  void cleanupStep(int64_t stepId) override;
  void abortStep(int64_t stepId, const std::string &reason) override;
  VariableStore
  getVariables(const std::vector<std::string> &names = {}) override;
  std::vector<std::string> setVariables(const VariableStore &values) override;
  void stopTask(const std::string &reason) override;

private:
  Worker &worker;
  LocalRendezvous &rendezvous;
  std::string peer_;
  std::chrono::milliseconds callTimeout;
  std::function<void(const std::string &)> onStop;
};

} // namespace dtf
