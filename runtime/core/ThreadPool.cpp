//===- ThreadPool.cpp - Fixed-size pool of worker threads -----------------===//

#include "runtime/core/ThreadPool.h"

#include "runtime/core/Denormals.h"

#include <algorithm>

namespace dtf {

namespace {
/// The pool and index of the worker running on this thread, if any.
thread_local const ThreadPool *currentPool = nullptr;
thread_local int currentIndex = -1;
} // namespace

ThreadPool::ThreadPool(size_t numThreads) {
  if (numThreads == 0)
    numThreads = std::max(1u, std::thread::hardware_concurrency());
  workers_.reserve(numThreads);
  for (size_t i = 0; i < numThreads; ++i)
    workers_.emplace_back([this, i] { workerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wakeUp_.notify_all();
  for (std::thread &worker : workers_)
    worker.join();
}

void ThreadPool::schedule(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(task));
  }
  wakeUp_.notify_one();
}

int ThreadPool::currentWorkerIndex() const {
  return currentPool == this ? currentIndex : -1;
}

void ThreadPool::workerLoop(size_t index) {
  currentPool = this;
  currentIndex = static_cast<int>(index);
  // The pool's workers run kernels and nothing else (Denormals.h).
  flushDenormalsInThisThread();
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wakeUp_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty())
        return; // Stopping, and nothing left to run.
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

} // namespace dtf
