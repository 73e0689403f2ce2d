//===- DenormalsTest.cpp - Flush-to-zero in the threads that compute ------===//
//
// Every thread that runs kernels flushes denormals (Denormals.h): the thread
// pool's workers from their start, borrowed threads for a scope. The cost
// test is the reason: without the flag, a multiply on a denormal takes a
// microcode assist on many x86 cores, and Adam's decaying slots hit it.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Denormals.h"
#include "runtime/core/Kernels.h"
#include "runtime/core/ThreadPool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <map>
#include <mutex>
#include <thread>

namespace dtf {
namespace {

/// Multiplies through memory the compiler cannot see into, so that the
/// product is computed at run time, under the thread's mode.
float multiply(float a, float b) {
  volatile float x = a, y = b;
  return x * y;
}

TEST(DenormalsTest, EveryWorkerOfAPoolFlushes) {
  if (!canFlushDenormals())
    GTEST_SKIP() << "this architecture has no flush-to-zero mode";
  for (size_t size : {1u, 2u, 5u}) {
    ThreadPool pool(size);
    // One task per worker, each held until all have started, so that every
    // worker runs one.
    std::mutex mutex;
    std::condition_variable allStarted;
    size_t started = 0;
    std::map<std::thread::id, bool> flushes;
    for (size_t i = 0; i < size; ++i)
      pool.schedule([&] {
        std::unique_lock<std::mutex> lock(mutex);
        flushes[std::this_thread::get_id()] = denormalsFlushedInThisThread();
        if (++started == size)
          allStarted.notify_all();
        allStarted.wait(lock, [&] { return started == size; });
      });
    std::unique_lock<std::mutex> lock(mutex);
    allStarted.wait(lock, [&] { return started == size; });
    EXPECT_EQ(flushes.size(), size);
    for (auto &[thread, flushed] : flushes)
      EXPECT_TRUE(flushed) << "a worker of a pool of " << size;
  }
}

TEST(DenormalsTest, AScopeFlushesAndThenRestoresTheThreadsMode) {
  if (!canFlushDenormals())
    GTEST_SKIP() << "this architecture has no flush-to-zero mode";
  // A thread of its own, whose mode starts as the C runtime's default.
  std::thread([] {
    const float smallestNormal = std::numeric_limits<float>::min();
    ASSERT_FALSE(denormalsFlushedInThisThread());
    float denormal = multiply(smallestNormal, 0.5f);
    EXPECT_GT(denormal, 0.0f) << "denormals are flushed outside the scope";
    {
      ScopedFlushDenormals flush;
      EXPECT_TRUE(denormalsFlushedInThisThread());
      // A result below the normal range is zero (FTZ) ...
      EXPECT_EQ(multiply(smallestNormal, 0.5f), 0.0f);
      // ... and a denormal operand reads as zero (DAZ).
      EXPECT_EQ(multiply(denormal, 4.0f), 0.0f);
    }
    EXPECT_FALSE(denormalsFlushedInThisThread());
    EXPECT_EQ(multiply(denormal, 4.0f), 2.0f * smallestNormal);
  }).join();
}

/// Seconds of one Adam update of a weight whose gradient is zero while its
/// slots hold `slot` (decaying, as a border pixel's do).
double adamSeconds(float slot) {
  const int64_t size = 1 << 16;
  Tensor var =
      Tensor::fromVector<float>({size}, std::vector<float>(size, 0.5f));
  Tensor grad =
      Tensor::fromVector<float>({size}, std::vector<float>(size, 0.0f));
  // Fresh slots each time: the update moves them out of the range.
  Tensor m = Tensor::fromVector<float>({size}, std::vector<float>(size, slot));
  Tensor v = Tensor::fromVector<float>({size}, std::vector<float>(size, slot));
  auto begin = std::chrono::steady_clock::now();
  kernels::apply_adam(var, m, v, 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8, grad);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
      .count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

TEST(DenormalsTest, AdamOnDenormalSlotsCostsWhatItDoesOnNormalOnes) {
  if (!canFlushDenormals())
    GTEST_SKIP() << "this architecture has no flush-to-zero mode";
  // As in a compute thread. Without the flag the denormal update took 2.1
  // times the normal one on an AMD Zen 4 core (1.1 with it), and an Intel
  // core's microcode assists cost far more.
  ScopedFlushDenormals flush;
  const float denormal = std::numeric_limits<float>::min() / 64;
  // Alternated, so that a busy moment of the machine costs both alike;
  // medians, so that a preemption costs neither.
  std::vector<double> normal, subnormal;
  for (int i = 0; i < 41; ++i) {
    normal.push_back(adamSeconds(1e-3f));
    subnormal.push_back(adamSeconds(denormal));
  }
  double ratio = median(subnormal) / median(normal);
  RecordProperty("denormal_over_normal", std::to_string(ratio));
  EXPECT_LT(ratio, 1.6) << "Adam on denormal slots took "
                        << median(subnormal) * 1e6 << " us, on normal ones "
                        << median(normal) * 1e6 << " us";
}

} // namespace
} // namespace dtf
