//===- Rendezvous.cpp - Where send meets recv -----------------------------===//

#include "runtime/core/Rendezvous.h"

#include "runtime/core/Error.h"

#include <atomic>
#include <condition_variable>
#include <vector>

namespace dtf {

//===----------------------------------------------------------------------===//
// RendezvousKey
//===----------------------------------------------------------------------===//

std::string RendezvousKey::str() const {
  return sourceDevice + ";" + destinationDevice + ";" + tensorName;
}

RendezvousKey RendezvousKey::parse(std::string_view key) {
  size_t first = key.find(';');
  size_t second =
      first == std::string_view::npos ? first : key.find(';', first + 1);
  if (second == std::string_view::npos || first == 0 || second == first + 1)
    throw Error(ErrorCode::InvalidArgument,
                "malformed rendezvous key '" + std::string(key) +
                    "': expected '<source device>;<destination device>;"
                    "<tensor name>'");
  RendezvousKey parsed;
  parsed.sourceDevice = std::string(key.substr(0, first));
  parsed.destinationDevice =
      std::string(key.substr(first + 1, second - first - 1));
  parsed.tensorName = std::string(key.substr(second + 1));
  return parsed;
}

//===----------------------------------------------------------------------===//
// Rendezvous
//===----------------------------------------------------------------------===//

Rendezvous::~Rendezvous() = default;

Tensor Rendezvous::recv(const std::string &key, int64_t stepId,
                        std::optional<Deadline> deadline,
                        CancellationManager *cancellation) {
  struct Outcome {
    std::mutex mutex;
    std::condition_variable arrived;
    bool done = false;
    std::exception_ptr error;
    Tensor value;
  };
  auto outcome = std::make_shared<Outcome>();
  // A cancellation of our own ends the wait at the deadline; it follows the
  // caller's.
  CancellationManager wait;
  CancellationLink link(cancellation, wait);
  recvAsync(key, stepId, RecvArgs{&wait, deadline},
            [outcome](std::exception_ptr error, Tensor value) {
              std::lock_guard<std::mutex> lock(outcome->mutex);
              outcome->error = std::move(error);
              outcome->value = std::move(value);
              outcome->done = true;
              outcome->arrived.notify_all();
            });

  std::unique_lock<std::mutex> lock(outcome->mutex);
  auto done = [&] { return outcome->done; };
  if (deadline && !outcome->arrived.wait_until(lock, *deadline, done)) {
    lock.unlock();
    wait.cancel(makeError(ErrorCode::DeadlineExceeded,
                          "deadline exceeded waiting for tensor '" + key +
                              "' of step " + std::to_string(stepId)));
    lock.lock();
  }
  // A cancelled recv reports at once, so this wait is short.
  outcome->arrived.wait(lock, done);
  if (outcome->error)
    std::rethrow_exception(outcome->error);
  return std::move(outcome->value);
}

//===----------------------------------------------------------------------===//
// LocalRendezvous
//===----------------------------------------------------------------------===//

/// A recv waiting for its tensor. Whoever claims it first (the send, the
/// cancellation, an abort) calls `done`.
struct LocalRendezvous::Waiter {
  Waiter(RecvCallback done, CancellationManager *cancellation)
      : done(std::move(done)), cancellation(cancellation) {}

  bool claim() { return !claimed.exchange(true); }

  /// Unregisters from the cancellation, then calls `done`.
  void finish(std::exception_ptr error, Tensor value) {
    if (cancellation && token)
      cancellation->remove(*token);
    done(std::move(error), std::move(value));
  }

  RecvCallback done;
  CancellationManager *cancellation;
  std::optional<CancellationManager::Token> token;
  std::atomic<bool> claimed{false};
};

LocalRendezvous::~LocalRendezvous() {
  std::vector<std::shared_ptr<Waiter>> waiters;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto &entry : slots_)
      if (entry.second.waiter)
        waiters.push_back(std::move(entry.second.waiter));
    slots_.clear();
  }
  for (auto &waiter : waiters)
    fail(waiter, makeError(ErrorCode::Cancelled,
                           "the rendezvous was destroyed"));
}

void LocalRendezvous::fail(const std::shared_ptr<Waiter> &waiter,
                           std::exception_ptr error) {
  if (waiter->claim())
    waiter->finish(std::move(error), Tensor());
}

void LocalRendezvous::dropWaiter(const SlotKey &key,
                                 const std::shared_ptr<Waiter> &waiter) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = slots_.find(key);
  if (it != slots_.end() && it->second.waiter == waiter)
    slots_.erase(it);
}

void LocalRendezvous::send(const std::string &key, int64_t stepId,
                           Tensor tensor) {
  std::shared_ptr<Waiter> waiter;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto aborted = aborted_.find(stepId);
    if (aborted != aborted_.end())
      std::rethrow_exception(aborted->second);
    SlotKey slotKey(stepId, key);
    Slot &slot = slots_[slotKey];
    if (slot.value)
      throw Error(ErrorCode::AlreadyExists,
                  "tensor '" + key + "' was sent twice in step " +
                      std::to_string(stepId));
    if (!slot.waiter) {
      slot.value.emplace(std::move(tensor));
      return;
    }
    waiter = std::move(slot.waiter);
    slots_.erase(slotKey);
  }
  // A recv cancelled in the meantime ended its step; the tensor is dropped.
  if (waiter->claim())
    waiter->finish(nullptr, std::move(tensor));
}

void LocalRendezvous::recvAsync(const std::string &key, int64_t stepId,
                                const RecvArgs &args, RecvCallback done) {
  CancellationManager *cancellation = args.cancellation;
  std::exception_ptr error;
  Tensor value;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    SlotKey slotKey(stepId, key);
    auto it = slots_.find(slotKey);
    auto aborted = aborted_.find(stepId);
    if (aborted != aborted_.end()) {
      error = aborted->second;
    } else if (it != slots_.end() && it->second.value) {
      value = std::move(*it->second.value);
      slots_.erase(it);
    } else if (it != slots_.end() && it->second.waiter) {
      error = makeError(ErrorCode::AlreadyExists,
                        "tensor '" + key + "' of step " +
                            std::to_string(stepId) +
                            " is already being received");
    } else {
      auto waiter = std::make_shared<Waiter>(std::move(done), cancellation);
      if (cancellation) {
        // Registering under our lock is safe: cancel() runs callbacks
        // without holding its own, and a callback that fires now waits for
        // ours before it looks for the waiter.
        std::weak_ptr<Waiter> weak = waiter;
        waiter->token = cancellation->add(
            [this, slotKey, weak](const std::exception_ptr &reason) {
              if (std::shared_ptr<Waiter> waiting = weak.lock()) {
                dropWaiter(slotKey, waiting);
                fail(waiting, reason);
              }
            });
        if (!waiter->token) {
          waiter->claimed = true;
          error = cancellation->reason();
          done = std::move(waiter->done);
        }
      }
      if (!waiter->claimed) {
        slots_[slotKey].waiter = std::move(waiter);
        return;
      }
    }
  }
  done(std::move(error), std::move(value));
}

std::vector<std::shared_ptr<LocalRendezvous::Waiter>>
LocalRendezvous::takeStep(int64_t stepId) {
  std::vector<std::shared_ptr<Waiter>> waiters;
  auto it = slots_.lower_bound(SlotKey(stepId, std::string()));
  while (it != slots_.end() && it->first.first == stepId) {
    if (it->second.waiter)
      waiters.push_back(std::move(it->second.waiter));
    it = slots_.erase(it);
  }
  return waiters;
}

void LocalRendezvous::abortStep(int64_t stepId, std::exception_ptr reason) {
  std::vector<std::shared_ptr<Waiter>> waiters;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiters = takeStep(stepId);
    aborted_.emplace(stepId, reason);
    if (aborted_.size() > kMaxAbortedSteps)
      aborted_.erase(aborted_.begin());
  }
  for (auto &waiter : waiters)
    fail(waiter, reason);
}

void LocalRendezvous::cleanupStep(int64_t stepId) {
  std::vector<std::shared_ptr<Waiter>> waiters;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiters = takeStep(stepId);
    aborted_.erase(stepId);
  }
  for (auto &waiter : waiters)
    fail(waiter, makeError(ErrorCode::Cancelled,
                           "step " + std::to_string(stepId) +
                               " was cleaned up while a recv waited"));
}

size_t LocalRendezvous::numBuffered() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t count = 0;
  for (auto &entry : slots_)
    count += entry.second.value.has_value();
  return count;
}

size_t LocalRendezvous::numWaiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t count = 0;
  for (auto &entry : slots_)
    count += entry.second.waiter != nullptr;
  return count;
}

} // namespace dtf
