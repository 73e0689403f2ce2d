//===- ThreadPool.h - Fixed-size pool of worker threads ---------*- C++ -*-===//
//
// std::thread workers serving one FIFO queue of tasks. The executor puts the
// ops that became ready there, so independent ops run concurrently. The
// workers flush denormals to zero (Denormals.h), as compute threads do.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace dtf {

class ThreadPool {
public:
  /// Starts `numThreads` workers; 0 means one per hardware thread.
  explicit ThreadPool(size_t numThreads = 0);
  /// Runs the tasks still queued, then joins the workers.
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// Queues `task`. A task must not throw: an escaping exception terminates
  /// the process, as it would on any std::thread.
  void schedule(std::function<void()> task);

  size_t size() const { return workers_.size(); }

  /// The index of the calling thread among this pool's workers, or -1 when
  /// the caller is not one of them.
  int currentWorkerIndex() const;

private:
  void workerLoop(size_t index);

  std::mutex mutex_;
  std::condition_variable wakeUp_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

} // namespace dtf
