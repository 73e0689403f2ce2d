//===- PsClient.h - Calls to one parameter-server task ----------*- C++ -*-===//
//
// Every call has a deadline and every failure throws RpcError naming the
// task, its address and the RPC: a dead PS is an error within the deadline,
// never a hang. Calls are not retried (a Push is not idempotent); only
// waitUntilReachable() waits for a PS that is not up yet. Thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_RUNTIME_RPC_PSCLIENT_H
#define DTF_RUNTIME_RPC_PSCLIENT_H

#include "runtime/rpc/Options.h"
#include "runtime/ps/ParameterServer.h"
#include "runtime/rpc/TensorCodec.h"

#include "parameter_server.grpc.pb.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dtf::rpc {

/// What a client has moved: the serialized sizes of the Pull responses it
/// read and the Push requests it wrote (tensor data plus chunk headers, not
/// counting gRPC's and HTTP/2's framing).
struct TransferStats {
  uint64_t pulls = 0;
  uint64_t pulledBytes = 0;
  uint64_t pushes = 0;
  uint64_t pushedBytes = 0;
};

struct PushResult {
  PushResponse::Outcome outcome;
  /// The task's current step after the push.
  int64_t step;
};

/// A PS task's variables with its step and epoch (the Snapshot RPC).
struct PsSnapshot {
  int64_t step = 0;
  int64_t epoch = 0;
  bool holdsGlobalStep = false;
  std::vector<NamedTensor> tensors;
};

class PsClient {
public:
  /// A client of the PS task `taskName` ("/job:ps/task:1") listening at
  /// `address` ("host:port"). Connects lazily. Throws
  /// std::invalid_argument if the options' chunks do not fit in their
  /// messages.
  PsClient(std::string taskName, std::string address,
           ClientOptions options = {});

  /// "PS /job:ps/task:1 at localhost:2223", the prefix of every error.
  const std::string &peer() const { return peer_; }
  const ClientOptions &options() const { return options_; }

  /// Waits, retrying with backoff, until the task accepts connections; for
  /// at most options().connectTimeout.
  void waitUntilReachable();

  /// Initializes the task's variables unless they have values; returns
  /// whether this call did.
  bool initialize();

  /// The current values of `names`, in that order; `epoch`, if given,
  /// receives the task's epoch when it read them.
  std::vector<Tensor> pull(const std::vector<std::string> &names,
                           int64_t *epoch = nullptr);

  /// Pushes one replica's gradients (in the task's dtf.gradients order)
  /// tagged with the global step read at the start of the worker's step
  /// and the epoch of the values they were computed from (0: unchecked; a
  /// push of another epoch fails with ABORTED).
  PushResult push(int64_t step, const std::vector<TensorRef> &gradients,
                  int64_t epoch = 0);

  /// The task's current step.
  int64_t step();

  /// Step, epoch and where the task's values come from.
  ps::TaskStatus status();

  /// Blocks until the task's step is greater than `step` (the sync token
  /// barrier), for at most `timeout`; returns the task's step then. With an
  /// epoch, fails with ABORTED once the task's epoch is another.
  int64_t waitForStep(int64_t step, std::chrono::milliseconds timeout,
                      int64_t epoch = 0);

  /// Every variable the task holds, from one state between updates.
  PsSnapshot snapshot();

  /// Restores the task (see the Restore RPC); returns its step then.
  int64_t restore(RestoreRequest::Source source, int64_t checkpointStep,
                  int64_t epoch);

  /// Asks the task's server to shut down.
  void stop(const std::string &reason);

  /// The bytes pulled and pushed so far by successful calls.
  TransferStats transferStats() const;

private:
  std::string peer_;
  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<ParameterServer::Stub> stub;
  std::atomic<uint64_t> pulls_{0}, pulledBytes_{0}, pushes_{0},
      pushedBytes_{0};
};

} // namespace dtf::rpc

#endif // DTF_RUNTIME_RPC_PSCLIENT_H
