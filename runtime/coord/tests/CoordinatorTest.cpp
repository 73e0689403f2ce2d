//===- CoordinatorTest.cpp - The coordination state machine, no transport -===//
//
// The Coordinator, InProcessCoordinatorConnection and HeartbeatSender, all
// in one process: no gRPC, no sockets. runtime/rpc/tests/CoordinationTest.cpp
// tests the same calls over the wire.
//
//===----------------------------------------------------------------------===//

#include "runtime/coord/Coordinator.h"
#include "runtime/coord/HeartbeatSender.h"
#include "runtime/coord/InProcessCoordinator.h"
#include "runtime/core/tests/TestUtil.h"

#include "runtime/core/Error.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <stdexcept>
#include <thread>

namespace dtf::coord {
namespace {

using std::chrono::milliseconds;

CoordinatorOptions
cluster(int numPs, int numWorkers,
        milliseconds heartbeatTimeout = milliseconds(10'000)) {
  CoordinatorOptions options;
  options.numPsTasks = numPs;
  options.numWorkers = numWorkers;
  options.heartbeatTimeout = heartbeatTimeout;
  return options;
}

using dtf::testing::expectError;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST(CoordinatorTest, RegistersTasksOfTheCluster) {
  Coordinator coordinator(cluster(2, 2));
  Registration registration = coordinator.registerTask("worker", 1);
  EXPECT_FALSE(registration.initialized);
  EXPECT_FALSE(registration.stopRequested);
  coordinator.registerTask("ps", 1);
  coordinator.markInitialized();
  EXPECT_TRUE(coordinator.isInitialized());
  // A task registering later learns that it need not wait.
  EXPECT_TRUE(coordinator.registerTask("worker", 0).initialized);
}

TEST(CoordinatorTest, RefusesTasksOutsideTheCluster) {
  Coordinator coordinator(cluster(2, 2));
  Error error = expectError([&] { coordinator.registerTask("worker", 2); });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(error.what(), "no task /job:worker/task:2 in a "
                                     "cluster of 2 worker task(s)"))
      << error.what();
  EXPECT_EQ(expectError([&] { coordinator.registerTask("ps", 2); }).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(expectError([&] { coordinator.registerTask("worker", -1); }).code(),
            ErrorCode::InvalidArgument);
  Error job = expectError([&] { coordinator.registerTask("chief", 0); });
  EXPECT_EQ(job.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(job.what(), "unknown job 'chief'")) << job.what();
  EXPECT_EQ(expectError([&] { coordinator.heartbeat("worker", 2); }).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(expectError([&] { coordinator.workerDone(2); }).code(),
            ErrorCode::InvalidArgument);
  // Nothing of it counted.
  EXPECT_EQ(coordinator.workerStates().running, (std::vector<int>{0, 1}));
}

TEST(CoordinatorTest, ARestartedWorkerIsNoLongerDone) {
  Coordinator coordinator(cluster(1, 2));
  coordinator.workerDone(1);
  EXPECT_EQ(coordinator.workerStates().done, std::vector<int>{1});
  coordinator.registerTask("worker", 1);
  WorkerStates states = coordinator.workerStates();
  EXPECT_TRUE(states.done.empty());
  EXPECT_EQ(states.running, (std::vector<int>{0, 1}));
}

TEST(CoordinatorTest, HeartbeatsKeepAWorkerRunningAndSilenceLosesIt) {
  Coordinator coordinator(cluster(1, 2, milliseconds(1'000)));
  coordinator.registerTask("worker", 0);
  coordinator.registerTask("worker", 1);
  // Worker 0 keeps sending heartbeats past the timeout, worker 1 is silent.
  for (int i = 0; i < 6; ++i) {
    std::this_thread::sleep_for(milliseconds(250));
    EXPECT_FALSE(coordinator.heartbeat("worker", 0));
  }
  WorkerStates states = coordinator.workerStates();
  EXPECT_EQ(states.running, std::vector<int>{0});
  EXPECT_EQ(states.lost, std::vector<int>{1});
  // A lost worker that is heard of again runs again.
  coordinator.heartbeat("worker", 1);
  EXPECT_EQ(coordinator.workerStates().running, (std::vector<int>{0, 1}));
}

TEST(CoordinatorTest, AWorkerThatNeverRegisteredIsLostAfterTheTimeout) {
  Coordinator coordinator(cluster(1, 2, milliseconds(300)));
  EXPECT_EQ(coordinator.workerStates().running, (std::vector<int>{0, 1}));
  std::this_thread::sleep_for(milliseconds(400));
  coordinator.workerDone(0);
  WorkerStates states = coordinator.workerStates();
  EXPECT_EQ(states.done, std::vector<int>{0});
  EXPECT_EQ(states.lost, std::vector<int>{1});
  EXPECT_TRUE(states.running.empty());
}

TEST(CoordinatorTest, WaitInitializedReturnsOnceTheChiefMarksIt) {
  Coordinator coordinator(cluster(1, 2));
  std::future<void> waiting = std::async(std::launch::async, [&] {
    coordinator.waitInitialized(milliseconds(5'000));
  });
  EXPECT_EQ(waiting.wait_for(milliseconds(200)), std::future_status::timeout);
  coordinator.markInitialized();
  ASSERT_EQ(waiting.wait_for(milliseconds(3'000)), std::future_status::ready);
  waiting.get();
  // Once initialized, a wait returns at once.
  auto start = std::chrono::steady_clock::now();
  coordinator.waitInitialized(milliseconds(5'000));
  EXPECT_LT(secondsSince(start), 1.0);
}

TEST(CoordinatorTest, WaitInitializedTimesOut) {
  Coordinator coordinator(cluster(1, 2));
  auto start = std::chrono::steady_clock::now();
  Error error =
      expectError([&] { coordinator.waitInitialized(milliseconds(300)); });
  EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded);
  EXPECT_TRUE(contains(error.what(), "not initialized")) << error.what();
  EXPECT_GE(secondsSince(start), 0.3);
  EXPECT_LT(secondsSince(start), 2.0);
}

TEST(CoordinatorTest, AWaitLastsAtMostMaxWait) {
  CoordinatorOptions options = cluster(1, 2);
  options.maxWait = milliseconds(200);
  Coordinator coordinator(options);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(expectError([&] {
              coordinator.waitInitialized(milliseconds(10'000));
            }).code(),
            ErrorCode::DeadlineExceeded);
  EXPECT_LT(secondsSince(start), 2.0);
}

TEST(CoordinatorTest, StopReleasesWaitersWithTheFirstReason) {
  Coordinator coordinator(cluster(1, 2));
  std::future<void> waiting = std::async(std::launch::async, [&] {
    coordinator.waitInitialized(milliseconds(5'000));
  });
  std::this_thread::sleep_for(milliseconds(100));
  coordinator.stop("the chief failed to initialize");
  coordinator.stop("a later reason");
  ASSERT_EQ(waiting.wait_for(milliseconds(3'000)), std::future_status::ready);
  Error error = expectError([&] { waiting.get(); });
  EXPECT_EQ(error.code(), ErrorCode::Aborted);
  EXPECT_TRUE(contains(error.what(), "the chief failed to initialize"))
      << error.what();

  Error done =
      expectError([&] { coordinator.waitWorkersDone(milliseconds(5'000)); });
  EXPECT_EQ(done.code(), ErrorCode::Aborted);
  EXPECT_TRUE(contains(done.what(), "training was stopped: the chief failed"))
      << done.what();
  EXPECT_TRUE(coordinator.stopRequested());
  EXPECT_TRUE(coordinator.heartbeat("worker", 1));
  EXPECT_TRUE(coordinator.registerTask("worker", 1).stopRequested);
}

TEST(CoordinatorTest, AWaitEndsWhenItsCallerLeaves) {
  Coordinator coordinator(cluster(1, 2));
  std::atomic<bool> left{false};
  std::future<void> waiting = std::async(std::launch::async, [&] {
    coordinator.waitWorkersDone(milliseconds(5'000),
                                [&] { return left.load(); });
  });
  EXPECT_EQ(waiting.wait_for(milliseconds(200)), std::future_status::timeout);
  left = true;
  ASSERT_EQ(waiting.wait_for(milliseconds(2'000)), std::future_status::ready);
  EXPECT_EQ(expectError([&] { waiting.get(); }).code(), ErrorCode::Cancelled);
}

TEST(CoordinatorTest, ShutdownReleasesEveryWait) {
  Coordinator coordinator(cluster(1, 2));
  std::future<void> initialized = std::async(std::launch::async, [&] {
    coordinator.waitInitialized(milliseconds(5'000));
  });
  std::future<void> done = std::async(std::launch::async, [&] {
    coordinator.waitWorkersDone(milliseconds(5'000));
  });
  std::this_thread::sleep_for(milliseconds(100));
  coordinator.beginShutdown();
  for (std::future<void> *waiting : {&initialized, &done}) {
    ASSERT_EQ(waiting->wait_for(milliseconds(2'000)),
              std::future_status::ready);
    Error error = expectError([&] { waiting->get(); });
    EXPECT_EQ(error.code(), ErrorCode::Unavailable);
    EXPECT_TRUE(contains(error.what(), "shutting down")) << error.what();
  }
  // Even a wait that would return at once.
  coordinator.markInitialized();
  EXPECT_EQ(expectError([&] {
              coordinator.waitInitialized(milliseconds(5'000));
            }).code(),
            ErrorCode::Unavailable);
}

TEST(CoordinatorTest, WaitWorkersDoneReturnsTheDoneAndTheLost) {
  // Worker 0 is the chief, worker 1 trains a while longer and keeps sending
  // heartbeats, worker 2 registered and then died.
  Coordinator coordinator(cluster(1, 3, milliseconds(400)));
  for (int index = 0; index < 3; ++index)
    coordinator.registerTask("worker", index);
  auto start = std::chrono::steady_clock::now();
  std::future<void> slowWorker = std::async(std::launch::async, [&] {
    for (int i = 0; i < 9; ++i) {
      std::this_thread::sleep_for(milliseconds(100));
      coordinator.heartbeat("worker", 1);
    }
    coordinator.workerDone(1);
  });
  coordinator.workerDone(0);
  WorkerStates states = coordinator.waitWorkersDone(milliseconds(5'000));
  double waited = secondsSince(start);
  slowWorker.get();

  EXPECT_EQ(states.done, (std::vector<int>{0, 1}));
  EXPECT_EQ(states.lost, std::vector<int>{2});
  EXPECT_TRUE(states.running.empty());
  // Worker 1's heartbeats kept it running past the heartbeat timeout.
  EXPECT_GE(waited, 0.8);
  EXPECT_LT(waited, 3.0);
}

TEST(CoordinatorTest, WaitWorkersDoneTimesOutWhileWorkersRun) {
  Coordinator coordinator(cluster(1, 2));
  coordinator.workerDone(0);
  Error error =
      expectError([&] { coordinator.waitWorkersDone(milliseconds(300)); });
  EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded);
  EXPECT_TRUE(
      contains(error.what(), "worker(s) 1 are still running (done: 0; lost: )"))
      << error.what();
}

TEST(CoordinatorTest, GlobalStepComesFromItsSource) {
  CoordinatorOptions options = cluster(1, 1);
  options.globalStep = [] { return int64_t(41); };
  EXPECT_EQ(Coordinator(options).globalStep(), 41);

  EXPECT_EQ(expectError([] { Coordinator(cluster(1, 1)).globalStep(); }).code(),
            ErrorCode::Unimplemented);

  options.globalStep = []() -> int64_t {
    throw std::runtime_error("the PS task is restoring");
  };
  Error error = expectError([&] { Coordinator(options).globalStep(); });
  EXPECT_EQ(error.code(), ErrorCode::Unavailable);
  EXPECT_TRUE(contains(error.what(), "the PS task is restoring"))
      << error.what();
}

TEST(InProcessCoordinatorTest, CallsTheCoordinator) {
  CoordinatorOptions options = cluster(1, 2);
  options.globalStep = [] { return int64_t(7); };
  Coordinator coordinator(options);
  InProcessCoordinatorConnection connection(coordinator);
  CoordinatorConnection &coordinatorConnection = connection;
  coordinatorConnection.waitUntilReachable();
  EXPECT_FALSE(coordinatorConnection.peer().empty());

  EXPECT_FALSE(coordinatorConnection.registerTask("worker", 0).initialized);
  coordinatorConnection.markInitialized();
  EXPECT_TRUE(coordinator.isInitialized());
  coordinatorConnection.waitInitialized(milliseconds(1'000));
  EXPECT_EQ(coordinatorConnection.globalStep(), 7);
  EXPECT_FALSE(coordinatorConnection.heartbeat("worker", 1));
  coordinatorConnection.workerDone(0);
  coordinatorConnection.workerDone(1);
  EXPECT_EQ(coordinatorConnection.waitWorkersDone(milliseconds(1'000)).done,
            (std::vector<int>{0, 1}));
  coordinatorConnection.stop("done");
  EXPECT_TRUE(coordinator.stopRequested());
  EXPECT_EQ(expectError([&] {
              coordinatorConnection.registerTask("worker", 2);
            }).code(),
            ErrorCode::InvalidArgument);
}

TEST(InProcessCoordinatorTest, AWaitLastsItsWholeTimeoutBeyondMaxWait) {
  CoordinatorOptions options = cluster(1, 2);
  options.maxWait = milliseconds(100);
  Coordinator coordinator(options);
  InProcessCoordinatorConnection connection(coordinator);
  std::future<void> waiting = std::async(std::launch::async, [&] {
    connection.waitInitialized(milliseconds(5'000));
  });
  EXPECT_EQ(waiting.wait_for(milliseconds(400)), std::future_status::timeout);
  coordinator.markInitialized();
  ASSERT_EQ(waiting.wait_for(milliseconds(2'000)), std::future_status::ready);
  waiting.get();

  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(expectError([&] {
              connection.waitWorkersDone(milliseconds(350));
            }).code(),
            ErrorCode::DeadlineExceeded);
  EXPECT_GE(secondsSince(start), 0.35);
  EXPECT_LT(secondsSince(start), 2.0);
}

TEST(HeartbeatSenderTest, KeepsAWorkerRunningAndSeesTheStop) {
  Coordinator coordinator(cluster(1, 1, milliseconds(300)));
  InProcessCoordinatorConnection connection(coordinator);
  HeartbeatSender sender(connection, "worker", 0, milliseconds(20));
  std::this_thread::sleep_for(milliseconds(600));
  EXPECT_EQ(coordinator.workerStates().running, std::vector<int>{0});
  EXPECT_FALSE(sender.stopRequested());

  coordinator.stop("done");
  for (int i = 0; i < 100 && !sender.stopRequested(); ++i)
    std::this_thread::sleep_for(milliseconds(10));
  EXPECT_TRUE(sender.stopRequested());
  EXPECT_FALSE(sender.lastError());
}

TEST(HeartbeatSenderTest, RemembersAFailedHeartbeat) {
  Coordinator coordinator(cluster(1, 1));
  InProcessCoordinatorConnection connection(coordinator);
  HeartbeatSender sender(connection, "worker", 7, milliseconds(20));
  for (int i = 0; i < 100 && !sender.lastError(); ++i)
    std::this_thread::sleep_for(milliseconds(10));
  std::optional<std::string> error = sender.lastError();
  ASSERT_TRUE(error);
  EXPECT_TRUE(contains(*error, "no task /job:worker/task:7")) << *error;
  EXPECT_FALSE(sender.stopRequested());
}

} // namespace
} // namespace dtf::coord
