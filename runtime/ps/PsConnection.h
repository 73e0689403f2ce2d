//===- PsConnection.h - A worker's calls to one PS task ---------*- C++ -*-===//
//
// What a worker, the chief's supervisor and the checkpoint saver ask of a
// parameter-server task, whatever carries the calls. The training loop
// holds this interface, as TensorFlow's worker holds WorkerInterface rather
// than GrpcRemoteWorker: rpc::PsClient implements it over gRPC,
// ps::InProcessPsConnection calls a ParameterServer of the same process
// (unit tests of the training loop, a one-process cluster).
//
// Every failure is a dtf::Error whose code says what recovery can do
// (dtf::isRecoverable) and whose message starts with peer().
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/ps/ParameterServer.h"

#include "runtime/core/Tensor.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <string>
#include <vector>

namespace dtf::ps {

/// What a connection has moved: the tensor bytes of the values it pulled
/// and the gradients it pushed (on the wire: data plus chunk headers, not
/// counting the transport's own framing).
struct TransferStats {
  /// Calls that brought values: pulls and push-pulls.
  uint64_t pulls = 0;
  uint64_t pulledBytes = 0;
  /// Calls that carried gradients: pushes and push-pulls.
  uint64_t pushes = 0;
  uint64_t pushedBytes = 0;
  /// Push-pulls, each counted as a pull and a push.
  uint64_t pushPulls = 0;

  /// The calls that moved tensors.
  uint64_t roundTrips() const { return pulls + pushes - pushPulls; }

  TransferStats &operator+=(const TransferStats &other);
};

/// A connection's running counts, updated by concurrent calls.
struct TransferCounters {
  std::atomic<uint64_t> pulls{0}, pulledBytes{0}, pushes{0}, pushedBytes{0},
      pushPulls{0};

  TransferStats load() const;
};

/// Values read from a PS task, with the task's epoch when it read them.
struct PulledValues {
  int64_t epoch = 0;
  std::vector<Tensor> values;
};

/// What a push-pull returns: the push's outcome and the values read after
/// it.
struct PushPullResult {
  PushResult push{};
  PulledValues pulled;
};

class PsConnection {
public:
  virtual ~PsConnection() = default;

  /// "PS /job:ps/task:1 at localhost:2223", the prefix of every error.
  virtual const std::string &peer() const = 0;

  /// Waits until the task answers, for at most the connection's connect
  /// timeout.
  virtual void waitUntilReachable() = 0;

  /// Initializes the task's variables unless they have values; returns
  /// whether this call did.
  virtual bool initialize() = 0;

  /// The current values of `names`, in that order; `epoch`, if given,
  /// receives the task's epoch when it read them.
  virtual std::vector<Tensor> pull(const std::vector<std::string> &names,
                                   int64_t *epoch = nullptr) = 0;
  /// pull() without waiting: the future throws what pull() would.
  virtual std::future<PulledValues>
  startPull(const std::vector<std::string> &names) = 0;

  /// The rows of each request's variable at its ids (1-D), in request
  /// order, from one state between updates (ParameterServer::readRows): a
  /// worker's lookup of an embedding table, which asks for the distinct ids
  /// of its batch only.
  virtual std::vector<Tensor> pullRows(const std::vector<RowRequest> &requests,
                                       int64_t *epoch = nullptr) = 0;

  /// Pushes one replica's gradients (in the task's gradient order) tagged
  /// with the global step read at the start of the worker's step and the
  /// epoch of the values they were computed from (0: unchecked; a push of
  /// another epoch fails with Aborted). Returns once the connection has let
  /// go of the gradients' memory.
  virtual PushResult push(int64_t step, const std::vector<TensorRef> &gradients,
                          int64_t epoch = 0) = 0;

  /// A push, then the values of `pullNames` as the task holds them after
  /// it: an async training step in one round trip.
  virtual PushPullResult
  pushPull(int64_t step, std::vector<NamedTensor> gradients, int64_t epoch,
           const std::vector<std::string> &pullNames) = 0;
  /// pushPull() without waiting: the future throws what it would.
  virtual std::future<PushPullResult>
  startPushPull(int64_t step, std::vector<NamedTensor> gradients, int64_t epoch,
                const std::vector<std::string> &pullNames) = 0;

  /// The task's current step.
  virtual int64_t step() = 0;
  /// Step, epoch and where the task's values come from.
  virtual TaskStatus status() = 0;

  /// Blocks until the task's step is greater than `step` (the sync token
  /// barrier), for at most `timeout`; returns the task's step then. With an
  /// epoch (not 0), fails with Aborted once the task's epoch is another.
  virtual int64_t waitForStep(int64_t step, std::chrono::milliseconds timeout,
                              int64_t epoch = 0) = 0;

  /// Every variable the task holds, from one state between updates.
  virtual Snapshot snapshot() = 0;

  /// Has the task write its variables as shard `shard` of `numShards` of
  /// the save `save` of a checkpoint (ParameterServer::saveCheckpointShard);
  /// returns the step, epoch and holdsGlobalStep of the values written,
  /// without tensors.
  virtual Snapshot saveCheckpointShard(int shard, int numShards,
                                       uint64_t save) = 0;

  /// Restores the task (ParameterServer::restore); returns its step then.
  virtual int64_t restore(RestoreSource source, int64_t checkpointStep,
                          int64_t epoch) = 0;

  /// Asks the task to stop serving.
  virtual void stop(const std::string &reason) = 0;

  /// The bytes pulled and pushed so far by successful calls.
  virtual TransferStats transferStats() const = 0;
};

} // namespace dtf::ps
