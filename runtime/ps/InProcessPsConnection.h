//===- InProcessPsConnection.h - A PS task of the same process --*- C++ -*-===//
//
// A PsConnection that calls a ParameterServer directly: no sockets, no
// serialization, the same errors (dtf::Error with the code the transport
// would carry, the message prefixed with the peer and the call). The
// training loop's unit tests run a worker, its supervisor and a PS task in
// one process with it; tensors are copied as a transport would copy them,
// so that a worker never aliases the task's variables.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/ps/PsConnection.h"

#include <functional>

namespace dtf::ps {

class InProcessPsConnection final : public PsConnection {
public:
  /// `onStop` is called with the reason of stop() (a server would shut
  /// down).
  InProcessPsConnection(ParameterServer &task, std::string taskName,
                        std::function<void(const std::string &)> onStop = {});

  const std::string &peer() const override { return peer_; }
  void waitUntilReachable() override {}
  bool initialize() override;
  std::vector<Tensor> pullRows(const std::vector<RowRequest> &requests,
                               int64_t *epoch = nullptr) override;
  std::vector<Tensor> pull(const std::vector<std::string> &names,
                           int64_t *epoch = nullptr) override;
  std::future<PulledValues>
  startPull(const std::vector<std::string> &names) override;
  PushResult push(int64_t step, const std::vector<TensorRef> &gradients,
                  int64_t epoch = 0) override;
  PushPullResult pushPull(int64_t step, std::vector<NamedTensor> gradients,
                          int64_t epoch,
                          const std::vector<std::string> &pullNames) override;
  std::future<PushPullResult>
  startPushPull(int64_t step, std::vector<NamedTensor> gradients, int64_t epoch,
                const std::vector<std::string> &pullNames) override;
  int64_t step() override;
  TaskStatus status() override;
  int64_t waitForStep(int64_t step, std::chrono::milliseconds timeout,
                      int64_t epoch = 0) override;
  Snapshot snapshot() override;
  Snapshot saveCheckpointShard(int shard, int numShards,
                               uint64_t save) override;
  int64_t restore(RestoreSource source, int64_t checkpointStep,
                  int64_t epoch) override;
  void stop(const std::string &reason) override;
  TransferStats transferStats() const override;

private:
  ParameterServer &task;
  std::string peer_;
  std::function<void(const std::string &)> onStop;
  TransferCounters counters;
};

} // namespace dtf::ps
