//===- Rendezvous.h - Where send meets recv ---------------------*- C++ -*-===//
//
// A partitioned graph passes a tensor from one device to another with a
// dtf.send on the producer's device and a dtf.recv on the consumer's. Both
// name the tensor by a rendezvous key (source device, destination device,
// tensor name); the rendezvous pairs them up within one step, as in
// TensorFlow: a send never blocks (the tensor is buffered until it is
// received), a recv waits until its tensor is sent, the step is cancelled or
// its deadline passes.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Cancellation.h"
#include "runtime/core/Tensor.h"

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dtf {

using Clock = std::chrono::steady_clock;
/// A point in time by which an operation must be done.
using Deadline = Clock::time_point;

/// The parts of a rendezvous key.
struct RendezvousKey {
  std::string sourceDevice;
  std::string destinationDevice;
  std::string tensorName;

  /// "<source>;<destination>;<tensor name>", the string a rendezvous is
  /// keyed by (device names contain no ';').
  std::string str() const;
  /// The inverse of str(); throws Error(InvalidArgument) on a malformed key.
  static RendezvousKey parse(std::string_view key);
};

/// Called once with the received tensor, or with the error that ended the
/// wait (the tensor is then empty).
using RecvCallback = std::function<void(std::exception_ptr error, Tensor)>;

struct RecvArgs {
  /// Cancelling it fails the recv with the cancellation's reason.
  CancellationManager *cancellation = nullptr;
  /// When set, a recv that fetches from another process does so with this
  /// deadline. A local wait ends at the deadline only through `cancellation`
  /// (the Executor cancels its step then) or through Rendezvous::recv.
  std::optional<Deadline> deadline;
};

class Rendezvous {
public:
  virtual ~Rendezvous();

  /// Makes `tensor` the value of `key` in step `stepId`; never blocks.
  virtual void send(const std::string &key, int64_t stepId, Tensor tensor) = 0;

  /// Calls `done` once the value of `key` in step `stepId` is available
  /// (possibly at once, on this thread), or with an error once the wait is
  /// cancelled. Each sent value is received once.
  virtual void recvAsync(const std::string &key, int64_t stepId,
                         const RecvArgs &args, RecvCallback done) = 0;

  /// Blocks until the value arrives and returns it. Throws Error
  /// (DeadlineExceeded) at `deadline`, or the reason `cancellation` was
  /// cancelled with.
  Tensor recv(const std::string &key, int64_t stepId,
              std::optional<Deadline> deadline = std::nullopt,
              CancellationManager *cancellation = nullptr);
};

/// The rendezvous of the devices of one process.
class LocalRendezvous : public Rendezvous {
public:
  LocalRendezvous() = default;
  /// Fails the recvs still waiting (Cancelled).
  ~LocalRendezvous() override;

  /// Throws Error(AlreadyExists) when the same key was sent in the same step
  /// and not received yet.
  void send(const std::string &key, int64_t stepId, Tensor tensor) override;
  void recvAsync(const std::string &key, int64_t stepId, const RecvArgs &args,
                 RecvCallback done) override;

  /// Ends step `stepId`: its waiting recvs fail with `reason`, the tensors
  /// sent but never received are dropped, and later sends and recvs of the
  /// step fail with `reason` too. The most recent kMaxAbortedSteps aborted
  /// steps are remembered (the lowest ids are forgotten first).
  void abortStep(int64_t stepId, std::exception_ptr reason);

  /// Drops what is left of step `stepId`: buffered tensors and its abort
  /// record. Recvs still waiting fail (Cancelled).
  void cleanupStep(int64_t stepId);

  static constexpr size_t kMaxAbortedSteps = 1024;

  /// Tensors sent but not received yet, over all steps.
  size_t numBuffered() const;
  /// Recvs waiting for their tensor, over all steps.
  size_t numWaiting() const;

private:
  struct Waiter;
  struct Slot {
    std::optional<Tensor> value;
    std::shared_ptr<Waiter> waiter;
  };
  using SlotKey = std::pair<int64_t, std::string>;

  /// Fails `waiter` with `error` unless it was already served.
  static void fail(const std::shared_ptr<Waiter> &waiter,
                   std::exception_ptr error);
  /// Forgets `waiter` if it still waits under `key`.
  void dropWaiter(const SlotKey &key, const std::shared_ptr<Waiter> &waiter);

  /// Removes the slots of `stepId` under the lock; returns their waiters.
  std::vector<std::shared_ptr<Waiter>> takeStep(int64_t stepId);

  mutable std::mutex mutex_;
  std::map<SlotKey, Slot> slots_;
  std::map<int64_t, std::exception_ptr> aborted_;
};

} // namespace dtf
