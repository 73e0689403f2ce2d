//===- PsClient.h - Calls to one parameter-server task ----------*- C++ -*-===//
//
// Every call has a deadline and every failure throws dtf::Error naming the
// task, its address and the RPC: a dead PS is an error within the deadline,
// never a hang. Calls are not retried (a Push is not idempotent); only
// waitUntilReachable() waits for a PS that is not up yet. Thread-safe.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/ps/PsConnection.h"
#include "runtime/rpc/DataReportRider.h"
#include "runtime/rpc/LocalTransport.h"
#include "runtime/rpc/Options.h"
#include "runtime/rpc/TensorCodec.h"

#include "parameter_server.grpc.pb.h"

#include <grpcpp/generic/generic_stub.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dtf::rpc {

/// A PS task over gRPC; Pull, Push and PushPull over its local socket
/// instead when it is on this host (LocalTransport.h).
class PsClient final : public ps::PsConnection {
public:
  /// A client of the PS task `taskName` ("/job:ps/task:1") listening at
  /// `address` ("host:port"). Connects lazily. Throws
  /// std::invalid_argument if the options' chunks do not fit in their
  /// messages.
  PsClient(std::string taskName, std::string address,
           ClientOptions options = {});

  /// "PS /job:ps/task:1 at localhost:2223", the prefix of every error.
  const std::string &peer() const override { return peer_; }
  const ClientOptions &options() const { return options_; }

  /// Waits, retrying with backoff, until the task accepts connections; for
  /// at most options().connectTimeout.
  void waitUntilReachable() override;

  /// Initializes the task's variables unless they have values; returns
  /// whether this call did.
  bool initialize() override;

  /// The current values of `names`, in that order; `epoch`, if given,
  /// receives the task's epoch when it read them.
  std::vector<Tensor> pull(const std::vector<std::string> &names,
                           int64_t *epoch = nullptr) override;
  /// pull() without waiting: the future throws what pull() would.
  std::future<ps::PulledValues>
  startPull(const std::vector<std::string> &names) override;
  std::vector<Tensor> pullRows(const std::vector<ps::RowRequest> &requests,
                               int64_t *epoch = nullptr) override;

  /// Pushes one replica's gradients (in the task's dtf.gradients order)
  /// tagged with the global step read at the start of the worker's step
  /// and the epoch of the values they were computed from (0: unchecked; a
  /// push of another epoch fails with ABORTED). gRPC sends the gradients
  /// from their own memory; push() returns once it has let go of it.
  ps::PushResult push(int64_t step, const std::vector<TensorRef> &gradients,
                      int64_t epoch = 0) override;

  /// A push, then the values of `pullNames` as the task holds them after
  /// it: a training step in one round trip. The gradients are kept until
  /// gRPC has sent them.
  ps::PushPullResult
  pushPull(int64_t step, std::vector<NamedTensor> gradients, int64_t epoch,
           const std::vector<std::string> &pullNames) override;
  /// pushPull() without waiting: the future throws what it would.
  std::future<ps::PushPullResult>
  startPushPull(int64_t step, std::vector<NamedTensor> gradients, int64_t epoch,
                const std::vector<std::string> &pullNames) override;

  /// The task's current step.
  int64_t step() override;

  /// Step, epoch and where the task's values come from.
  ps::TaskStatus status() override;

  /// Blocks until the task's step is greater than `step` (the sync token
  /// barrier), for at most `timeout`; returns the task's step then. With an
  /// epoch, fails with ABORTED once the task's epoch is another.
  int64_t waitForStep(int64_t step, std::chrono::milliseconds timeout,
                      int64_t epoch = 0) override;

  /// Every variable the task holds, from one state between updates.
  ps::Snapshot snapshot() override;
  ps::Snapshot saveCheckpointShard(int shard, int numShards,
                                   uint64_t save) override;

  /// Restores the task (see the Restore RPC); returns its step then.
  int64_t restore(ps::RestoreSource source, int64_t checkpointStep,
                  int64_t epoch) override;

  /// Asks the task's server to shut down.
  void stop(const std::string &reason) override;

  /// The bytes pulled and pushed so far by successful calls.
  ps::TransferStats transferStats() const override;

  /// Whether Pull, Push and PushPull go over the task's local socket (asks
  /// the task the first time).
  bool usesLocalTransport();

  /// From now on, each push carries the data report `rider` holds, if any
  /// (DataReportRider.h): for the client of PS task 0, where a worker's
  /// step pushes to it alone. Called before the first push.
  void carryDataReports(std::shared_ptr<DataReportRider> rider) {
    this->rider = std::move(rider);
  }

private:
  /// A call of the step's method `method` ("Pull") with `request` (a raw
  /// message), run to completion on the calling thread; `decode` turns the
  /// response into the result, throwing std::invalid_argument if it is
  /// malformed.
  template <typename Result>
  Result rawCall(const char *method, const grpc::ByteBuffer &request,
                 const std::function<Result(const grpc::ByteBuffer &)> &decode);
  /// rawCall() without waiting: the response is decoded on gRPC's thread.
  template <typename Result>
  std::future<Result>
  startRawCall(const char *method, grpc::ByteBuffer request,
               std::function<Result(const grpc::ByteBuffer &)> decode);
  /// The call over the task's local socket `channel`: sent before this
  /// returns, its response read and decoded when the future is waited for.
  template <typename Result>
  std::future<Result>
  startLocalCall(std::shared_ptr<LocalChannel> channel, const char *method,
                 const grpc::ByteBuffer &request,
                 std::function<Result(const grpc::ByteBuffer &)> decode);
  /// The result of a finished call, or the dtf::Error it ends with; counts
  /// what it moved.
  template <typename Result>
  Result
  finishRawCall(const char *method, const grpc::Status &status,
                uint64_t sentBytes, const grpc::ByteBuffer &response,
                const std::function<Result(const grpc::ByteBuffer &)> &decode);

  /// The task's local socket when the client can use it (asked once, and
  /// again after it failed), else null.
  std::shared_ptr<LocalChannel> localChannel();
  /// Push or PushPull (`method`) of `request`, which ends with its data
  /// report field when `ride` is not null; `decode` decodes the push's
  /// response once the report's part of it is read. Lands the ride.
  template <typename Result>
  std::future<Result>
  startPush(const char *method, grpc::ByteBuffer request,
            std::shared_ptr<DataReportRide> ride,
            std::function<Result(const grpc::ByteBuffer &)> decode);

  std::string peer_;
  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<ParameterServer::Stub> stub;
  /// Pull, Push and PushPull, on raw messages (runtime/rpc/TensorWire.h).
  std::unique_ptr<grpc::GenericStub> rawStub;
  ps::TransferCounters counters;
  LocalEndpoint local;
  std::shared_ptr<DataReportRider> rider;
};

} // namespace dtf::rpc
