//===- Cancellation.cpp - Cooperative cancellation ------------------------===//

#include "runtime/core/Cancellation.h"

#include <stdexcept>
#include <vector>

namespace dtf {

CancellationManager::~CancellationManager() {
  // A cancel() running on another thread must not outlive the manager.
  std::unique_lock<std::mutex> lock(mutex_);
  callbacksDone_.wait(lock, [&] { return !runningCallbacks_; });
}

bool CancellationManager::cancel(std::exception_ptr reason) {
  if (!reason)
    throw std::invalid_argument("CancellationManager::cancel needs a reason");
  std::map<Token, Callback> callbacks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (cancelled_)
      return false;
    cancelled_ = true;
    reason_ = reason;
    runningCallbacks_ = true;
    cancellingThread_ = std::this_thread::get_id();
    callbacks.swap(callbacks_);
  }
  for (auto &entry : callbacks)
    entry.second(reason);
  // Notify under the lock: a destructor waiting for the callbacks may free
  // the condition variable as soon as it sees the flag.
  std::lock_guard<std::mutex> lock(mutex_);
  runningCallbacks_ = false;
  callbacksDone_.notify_all();
  return true;
}

bool CancellationManager::isCancelled() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cancelled_;
}

std::exception_ptr CancellationManager::reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return reason_;
}

std::optional<CancellationManager::Token>
CancellationManager::add(Callback callback) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cancelled_)
    return std::nullopt;
  Token token = nextToken_++;
  callbacks_.emplace(token, std::move(callback));
  return token;
}

bool CancellationManager::remove(Token token) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (callbacks_.erase(token))
    return true;
  if (runningCallbacks_ && cancellingThread_ != std::this_thread::get_id())
    callbacksDone_.wait(lock, [&] { return !runningCallbacks_; });
  return false;
}

CancellationLink::CancellationLink(CancellationManager *parent,
                                   CancellationManager &child)
    : parent_(parent) {
  if (!parent_)
    return;
  token_ = parent_->add(
      [&child](const std::exception_ptr &reason) { child.cancel(reason); });
  if (!token_)
    child.cancel(parent_->reason());
}

CancellationLink::~CancellationLink() {
  if (parent_ && token_)
    parent_->remove(*token_);
}

} // namespace dtf
