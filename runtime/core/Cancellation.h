//===- Cancellation.h - Cooperative cancellation ----------------*- C++ -*-===//
//
// A CancellationManager is fired once, with the reason (an exception), and
// then runs the callbacks registered with it. A step owns one: the first
// failing op cancels it, which wakes every op still waiting (a recv, an RPC)
// so that the step ends promptly instead of hanging.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <condition_variable>
#include <thread>

namespace dtf {

class CancellationManager {
public:
  using Callback = std::function<void(const std::exception_ptr &reason)>;
  using Token = uint64_t;

  CancellationManager() = default;
  CancellationManager(const CancellationManager &) = delete;
  CancellationManager &operator=(const CancellationManager &) = delete;
  /// Does not run the callbacks still registered.
  ~CancellationManager();

  /// The first call records `reason` (non-null) and runs every registered
  /// callback once, on the calling thread and without holding a lock; later
  /// calls do nothing. Returns whether this call cancelled.
  bool cancel(std::exception_ptr reason);

  bool isCancelled() const;
  /// Why it was cancelled; null until then.
  std::exception_ptr reason() const;

  /// Registers `callback` to run on cancellation and returns its token, or
  /// returns nothing (and drops the callback) when already cancelled: the
  /// caller then acts on reason() itself.
  std::optional<Token> add(Callback callback);

  /// Unregisters a callback that has not run yet and returns true. Returns
  /// false when cancellation has taken it: after waiting for it to finish if
  /// it runs on another thread, so that its captures may be destroyed
  /// safely; immediately when called from a callback of this manager.
  bool remove(Token token);

private:
  mutable std::mutex mutex_;
  std::condition_variable callbacksDone_;
  bool cancelled_ = false;
  bool runningCallbacks_ = false;
  std::thread::id cancellingThread_;
  std::exception_ptr reason_;
  std::map<Token, Callback> callbacks_;
  Token nextToken_ = 0;
};

/// For its lifetime, cancelling `parent` (if any) cancels `child` with the
/// same reason; a parent already cancelled cancels the child at once.
class CancellationLink {
public:
  CancellationLink(CancellationManager *parent, CancellationManager &child);
  ~CancellationLink();
  CancellationLink(const CancellationLink &) = delete;
  CancellationLink &operator=(const CancellationLink &) = delete;

private:
  CancellationManager *parent_;
  std::optional<CancellationManager::Token> token_;
};

} // namespace dtf
