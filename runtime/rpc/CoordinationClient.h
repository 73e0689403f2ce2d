//===- CoordinationClient.h - Calls to the coordination service -*- C++ -*-===//
//
// Like PsClient: a deadline on every call, errors naming the coordinator's
// address and the RPC, long waits done in slices so that a dead
// coordinator is noticed quickly. Thread-safe.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_RUNTIME_RPC_COORDINATIONCLIENT_H
#define DTF_RUNTIME_RPC_COORDINATIONCLIENT_H

#include "runtime/rpc/CoordinationService.h"
#include "runtime/rpc/Options.h"

#include "coordination.grpc.pb.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace dtf::rpc {

struct Registration {
  /// The chief has already initialized the variables.
  bool initialized;
  /// Training is already over.
  bool stopRequested;
};

class CoordinationClient {
public:
  /// A client of the coordination service at `address`, which PS task 0
  /// hosts. Connects lazily.
  explicit CoordinationClient(std::string address, ClientOptions options = {});

  /// "coordinator /job:ps/task:0 at localhost:2222".
  const std::string &peer() const { return peer_; }

  /// Waits, retrying with backoff, until the coordinator accepts
  /// connections; for at most the options' connectTimeout.
  void waitUntilReachable();

  Registration registerTask(const std::string &job, int index);
  /// Returns whether the coordinator asks to stop training.
  bool heartbeat(const std::string &job, int index);
  void markInitialized();
  /// Blocks until the chief has initialized the variables, for at most
  /// `timeout`.
  void waitInitialized(std::chrono::milliseconds timeout);
  int64_t globalStep();
  void workerDone(int index);
  /// Blocks until every worker is done or lost, for at most `timeout`.
  WorkerStates waitWorkersDone(std::chrono::milliseconds timeout);
  /// Ends training: heartbeats answer stop from now on.
  void stop(const std::string &reason);

private:
  std::string peer_;
  ClientOptions options;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<Coordination::Stub> stub;
};

/// Sends a task's heartbeats from a background thread, every `interval`,
/// until destroyed. A failed heartbeat is remembered, not thrown: the
/// training loop checks lastError() and stopRequested() between steps.
class HeartbeatSender {
public:
  HeartbeatSender(CoordinationClient &client, std::string job, int index,
                  std::chrono::milliseconds interval);
  ~HeartbeatSender();
  HeartbeatSender(const HeartbeatSender &) = delete;
  HeartbeatSender &operator=(const HeartbeatSender &) = delete;

  /// The coordinator has asked to stop training.
  bool stopRequested() const { return stopRequested_; }
  /// The error of the latest heartbeat, if it failed.
  std::optional<std::string> lastError() const;

private:
  void run();

  CoordinationClient &client;
  std::string job;
  int index;
  std::chrono::milliseconds interval;

  std::atomic<bool> stopRequested_{false};
  mutable std::mutex mutex;
  std::condition_variable wake;
  bool quitting = false;
  std::optional<std::string> lastError_;
  std::thread thread;
};

} // namespace dtf::rpc

#endif // DTF_RUNTIME_RPC_COORDINATIONCLIENT_H
