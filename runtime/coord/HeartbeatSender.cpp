//===- HeartbeatSender.cpp - Heartbeats in the background -----------------===//

#include "runtime/coord/HeartbeatSender.h"

#include <exception>

namespace dtf::coord {

HeartbeatSender::HeartbeatSender(CoordinatorConnection &connection,
                                 std::string job, int index,
                                 std::chrono::milliseconds interval)
    : connection(connection), job(std::move(job)), index(index),
      interval(interval), thread([this] { run(); }) {}

HeartbeatSender::~HeartbeatSender() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    quitting = true;
  }
  wake.notify_all();
  thread.join();
}

std::optional<std::string> HeartbeatSender::lastError() const {
  std::lock_guard<std::mutex> lock(mutex);
  return lastError_;
}

void HeartbeatSender::run() {
  std::unique_lock<std::mutex> lock(mutex);
  while (!quitting) {
    // Not under the mutex: a heartbeat may take a whole call timeout, and
    // lastError() must not wait for it.
    lock.unlock();
    std::optional<std::string> error;
    try {
      if (connection.heartbeat(job, index))
        stopRequested_ = true;
    } catch (const std::exception &failure) {
      error = failure.what();
    }
    lock.lock();
    lastError_ = std::move(error);
    wake.wait_for(lock, interval, [this] { return quitting; });
  }
}

} // namespace dtf::coord
