//===- HeartbeatSender.h - Heartbeats in the background ---------*- C++ -*-===//
//
// Sends a task's heartbeats from a background thread, every `interval`,
// until destroyed, over any CoordinatorConnection. A failed heartbeat is
// remembered, not thrown: the training loop checks lastError() and
// stopRequested() between steps, and a coordinator that is briefly
// unreachable must not end a step.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/coord/CoordinatorConnection.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace dtf::coord {

class HeartbeatSender {
public:
  /// Starts sending at once; `connection` must outlive the sender.
  HeartbeatSender(CoordinatorConnection &connection, std::string job, int index,
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

  CoordinatorConnection &connection;
  std::string job;
  int index;
  std::chrono::milliseconds interval;

  std::atomic<bool> stopRequested_{false};
  mutable std::mutex mutex;
  std::condition_variable wake;
  bool quitting = false;
  std::optional<std::string> lastError_;
  // Last: it starts in the constructor and uses every member above.
  std::thread thread;
};

} // namespace dtf::coord
