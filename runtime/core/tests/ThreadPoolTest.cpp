//===- ThreadPoolTest.cpp - Thread pool and cancellation ------------------===//

#include "runtime/core/Cancellation.h"
#include "runtime/core/Error.h"
#include "runtime/core/ThreadPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>

namespace dtf {
namespace {

TEST(ThreadPoolTest, RunsEveryTaskBeforeItIsDestroyed) {
  std::atomic<int> ran{0};
  {
    ThreadPool pool(3);
    EXPECT_EQ(pool.size(), 3u);
    for (int i = 0; i < 100; ++i)
      pool.schedule([&] { ++ran; });
  }
  EXPECT_EQ(ran.load(), 100);
}

TEST(ThreadPoolTest, RunsTasksOnDistinctWorkers) {
  ThreadPool pool(2);
  EXPECT_EQ(pool.currentWorkerIndex(), -1);
  // Two tasks that each wait for the other can only finish concurrently.
  std::mutex mutex;
  std::condition_variable changed;
  int arrived = 0;
  std::set<int> workers;
  for (int i = 0; i < 2; ++i)
    pool.schedule([&] {
      std::unique_lock<std::mutex> lock(mutex);
      workers.insert(pool.currentWorkerIndex());
      ++arrived;
      changed.notify_all();
      changed.wait_for(lock, std::chrono::seconds(10),
                       [&] { return arrived >= 2; });
      ++arrived;
      changed.notify_all();
    });
  std::unique_lock<std::mutex> lock(mutex);
  ASSERT_TRUE(changed.wait_for(lock, std::chrono::seconds(20),
                               [&] { return arrived == 4; }));
  EXPECT_EQ(workers, (std::set<int>{0, 1}));
}

TEST(CancellationTest, RunsCallbacksOnceWithTheReason) {
  CancellationManager manager;
  int calls = 0;
  std::string message;
  auto token = manager.add([&](const std::exception_ptr &reason) {
    ++calls;
    message = errorMessageOf(reason);
  });
  ASSERT_TRUE(token);
  auto removed = manager.add([&](const std::exception_ptr &) { calls += 10; });
  ASSERT_TRUE(removed);
  EXPECT_TRUE(manager.remove(*removed));

  EXPECT_TRUE(manager.cancel(makeError(ErrorCode::Aborted, "first")));
  EXPECT_FALSE(manager.cancel(makeError(ErrorCode::Aborted, "second")));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(message, "first");
  EXPECT_TRUE(manager.isCancelled());
  EXPECT_EQ(errorCodeOf(manager.reason()), ErrorCode::Aborted);
  EXPECT_FALSE(manager.remove(*token));
  // Too late to register.
  EXPECT_FALSE(manager.add([&](const std::exception_ptr &) { ++calls; }));
}

TEST(CancellationTest, LinkPropagatesFromParentToChild) {
  CancellationManager parent;
  CancellationManager child;
  {
    CancellationLink link(&parent, child);
    parent.cancel(makeError(ErrorCode::Cancelled, "stop"));
  }
  EXPECT_TRUE(child.isCancelled());
  EXPECT_EQ(errorMessageOf(child.reason()), "stop");

  // A parent cancelled before the link cancels the child at once.
  CancellationManager late;
  { CancellationLink link(&parent, late); }
  EXPECT_TRUE(late.isCancelled());
}

} // namespace
} // namespace dtf
