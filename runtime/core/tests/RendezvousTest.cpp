//===- RendezvousTest.cpp - Local rendezvous ------------------------------===//

#include "runtime/core/Error.h"
#include "runtime/core/Rendezvous.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace dtf {
namespace {

using namespace std::chrono_literals;

const std::string kKey =
    RendezvousKey{"/job:worker/task:0", "/job:worker/task:1", "h"}.str();

TEST(RendezvousKeyTest, RoundTrips) {
  RendezvousKey key = RendezvousKey::parse(kKey);
  EXPECT_EQ(key.sourceDevice, "/job:worker/task:0");
  EXPECT_EQ(key.destinationDevice, "/job:worker/task:1");
  EXPECT_EQ(key.tensorName, "h");
  EXPECT_EQ(key.str(), kKey);
  EXPECT_THROW(RendezvousKey::parse("no-separators"), Error);
  EXPECT_THROW(RendezvousKey::parse(";dst;name"), Error);
}

TEST(LocalRendezvousTest, SendBeforeRecvIsBuffered) {
  LocalRendezvous rendezvous;
  rendezvous.send(kKey, 7, Tensor::fromVector<float>({2}, {1, 2}));
  EXPECT_EQ(rendezvous.numBuffered(), 1u);
  // Another step does not see it.
  EXPECT_THROW(rendezvous.recv(kKey, 8, Clock::now() + 10ms), Error);
  Tensor received = rendezvous.recv(kKey, 7, Clock::now() + 5s);
  EXPECT_EQ(received.toVector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(rendezvous.numBuffered(), 0u);
  EXPECT_EQ(rendezvous.numWaiting(), 0u);
}

TEST(LocalRendezvousTest, RecvBeforeSendWaitsForTheTensor) {
  LocalRendezvous rendezvous;
  std::thread sender([&] {
    // Send only once the recv is waiting.
    while (rendezvous.numWaiting() == 0)
      std::this_thread::sleep_for(1ms);
    rendezvous.send(kKey, 1, Tensor::scalar<int64_t>(42));
  });
  Tensor received = rendezvous.recv(kKey, 1, Clock::now() + 20s);
  sender.join();
  EXPECT_EQ(received.toVector<int64_t>(), std::vector<int64_t>{42});
  EXPECT_EQ(rendezvous.numWaiting(), 0u);
}

TEST(LocalRendezvousTest, RecvFailsAtItsDeadline) {
  LocalRendezvous rendezvous;
  auto start = Clock::now();
  try {
    rendezvous.recv(kKey, 3, start + 50ms);
    FAIL() << "expected a deadline error";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded);
    EXPECT_NE(std::string(error.what()).find(kKey), std::string::npos)
        << error.what();
  }
  EXPECT_GE(Clock::now() - start, 50ms);
  EXPECT_EQ(rendezvous.numWaiting(), 0u);
  // A tensor sent after the timeout is buffered for a later recv, not lost
  // to the expired one.
  rendezvous.send(kKey, 3, Tensor::scalar<float>(1));
  EXPECT_EQ(rendezvous.numBuffered(), 1u);
}

TEST(LocalRendezvousTest, CancellationEndsTheWait) {
  LocalRendezvous rendezvous;
  CancellationManager cancellation;
  std::exception_ptr error;
  bool called = false;
  rendezvous.recvAsync(kKey, 1, RecvArgs{&cancellation, std::nullopt},
                       [&](std::exception_ptr e, Tensor) {
                         error = e;
                         called = true;
                       });
  EXPECT_FALSE(called);
  cancellation.cancel(makeError(ErrorCode::Aborted, "another op failed"));
  ASSERT_TRUE(called);
  EXPECT_EQ(errorCodeOf(error), ErrorCode::Aborted);
  EXPECT_EQ(rendezvous.numWaiting(), 0u);

  // Already cancelled: fails at once.
  called = false;
  rendezvous.recvAsync(kKey, 1, RecvArgs{&cancellation, std::nullopt},
                       [&](std::exception_ptr e, Tensor) {
                         error = e;
                         called = true;
                       });
  EXPECT_TRUE(called);
  EXPECT_EQ(errorMessageOf(error), "another op failed");
}

TEST(LocalRendezvousTest, AbortStepFailsWaitersAndDropsTensors) {
  LocalRendezvous rendezvous;
  std::exception_ptr error;
  rendezvous.recvAsync(kKey, 5, {}, [&](std::exception_ptr e, Tensor) {
    error = e;
  });
  rendezvous.send("a;b;other", 5, Tensor::scalar<float>(1));
  rendezvous.send("a;b;other", 6, Tensor::scalar<float>(2));
  rendezvous.abortStep(5, makeError(ErrorCode::Aborted, "step 5 aborted"));
  EXPECT_EQ(errorCodeOf(error), ErrorCode::Aborted);
  EXPECT_EQ(rendezvous.numWaiting(), 0u);
  EXPECT_EQ(rendezvous.numBuffered(), 1u); // step 6's

  // Later sends and recvs of the aborted step fail at once.
  error = nullptr;
  rendezvous.recvAsync("a;b;late", 5, {},
                       [&](std::exception_ptr e, Tensor) { error = e; });
  EXPECT_EQ(errorMessageOf(error), "step 5 aborted");
  EXPECT_THROW(rendezvous.send("a;b;late", 5, Tensor::scalar<float>(1)),
               Error);
  EXPECT_EQ(rendezvous.numBuffered(), 1u);

  // Cleaning the step up forgets the abort.
  rendezvous.cleanupStep(5);
  rendezvous.send("a;b;late", 5, Tensor::scalar<float>(1));
  EXPECT_EQ(rendezvous.recv("a;b;late", 5).toVector<float>(),
            std::vector<float>{1});
  rendezvous.cleanupStep(6);
  EXPECT_EQ(rendezvous.numBuffered(), 0u);
}

TEST(LocalRendezvousTest, DuplicateSendAndRecvAreErrors) {
  LocalRendezvous rendezvous;
  rendezvous.send(kKey, 1, Tensor::scalar<float>(1));
  try {
    rendezvous.send(kKey, 1, Tensor::scalar<float>(2));
    FAIL() << "expected a duplicate-send error";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::AlreadyExists);
  }

  rendezvous.recvAsync(kKey, 2, {}, [](std::exception_ptr, Tensor) {});
  std::exception_ptr error;
  rendezvous.recvAsync(kKey, 2, {},
                       [&](std::exception_ptr e, Tensor) { error = e; });
  EXPECT_EQ(errorCodeOf(error), ErrorCode::AlreadyExists);
}

} // namespace
} // namespace dtf
