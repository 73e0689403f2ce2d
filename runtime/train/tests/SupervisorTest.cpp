//===- SupervisorTest.cpp - The chief's start-up, fencing and recovery ----===//
//
// The Supervisor of a chief and a worker over in-process PS tasks and an
// in-process coordinator (InProcessCluster.h): no gRPC server, no MLIR.
// After a PS task restarts, the epoch the chief establishes fences off
// what workers computed or waited for before the restart; recovery waits
// for a task that is down and gives up at its deadline.
//
//===----------------------------------------------------------------------===//

#include "runtime/train/Supervisor.h"

#include "runtime/train/tests/InProcessCluster.h"

#include "runtime/checkpoint/Checkpoint.h"

#include <filesystem>
#include <future>
#include <unistd.h>

namespace dtf::train {
namespace {

using namespace dtf::train::testing;
using std::chrono::milliseconds;

class SupervisorTest : public ::testing::Test {
protected:
  SupervisorTest()
      : cluster(/*numPs=*/2, /*numWorkers=*/2, ps::Replication::sync(2, 2)),
        chiefCoordinator(cluster.coordinatorConnection()),
        workerCoordinator(cluster.coordinatorConnection()) {
    options.recoveryTimeoutMs = 5'000;
  }

  InProcessCluster cluster;
  std::unique_ptr<coord::CoordinatorConnection> chiefCoordinator;
  std::unique_ptr<coord::CoordinatorConnection> workerCoordinator;
  ReliabilityOptions options;
};

TEST_F(SupervisorTest, TheChiefInitializesEveryTaskInOneEpochAndOthersWait) {
  Supervisor worker(cluster.ps(), *workerCoordinator, options, 1, true);
  std::future<void> waiting =
      std::async(std::launch::async, [&] { worker.start(); });
  EXPECT_EQ(waiting.wait_for(milliseconds(50)), std::future_status::timeout);
  Supervisor chief(cluster.ps(), *chiefCoordinator, options, 0, true);
  chief.start();
  waiting.get();
  ps::TaskStatus first = cluster.ps()[0]->status();
  ps::TaskStatus second = cluster.ps()[1]->status();
  EXPECT_TRUE(first.initialized && second.initialized);
  EXPECT_GT(first.epoch, 0);
  EXPECT_EQ(first.epoch, second.epoch);
}

TEST_F(SupervisorTest, ARestartedPsTaskNeverRepeatsAnEpoch) {
  Supervisor chief(cluster.ps(), *chiefCoordinator, options, 0, true);
  chief.start();
  // A worker pulled in the first epoch, then paused (as by SIGSTOP) across
  // the PS task's restart.
  int64_t pausedEpoch = 0;
  cluster.ps()[0]->pull({"w0"}, &pausedEpoch);
  ASSERT_GT(pausedEpoch, 0);

  cluster.restartPs(0);
  Supervisor restarted(cluster.ps(), *chiefCoordinator, options, 0, true);
  ASSERT_TRUE(
      restarted.recover(Error(ErrorCode::Unavailable, "PS task 0 restarted")));
  int64_t newEpoch = cluster.ps()[0]->status().epoch;
  EXPECT_GT(newEpoch, pausedEpoch);
  // Without a checkpoint every task starts over, the one that kept running
  // too, in the new epoch.
  EXPECT_EQ(cluster.ps()[1]->status().epoch, newEpoch);

  // What the paused worker sends when it resumes is fenced off: its wait
  // for the step it had reached ends at once instead of outliving the
  // restore, and its gradients are not applied.
  EXPECT_EQ(expectError([&] {
              cluster.ps()[0]->waitForStep(5, milliseconds(2'000), pausedEpoch);
            }).code(),
            ErrorCode::Aborted);
  Tensor gradient = Tensor::filled(DType::F32, {2}, 1.0f);
  EXPECT_EQ(expectError([&] {
              cluster.ps()[0]->push(0, {{"w0", &gradient}}, pausedEpoch);
            }).code(),
            ErrorCode::Aborted);
  EXPECT_EQ(cluster.value("w0"), (std::vector<float>{0.0f, 0.0f}));
}

TEST_F(SupervisorTest, AStepMixingTwoEpochsIsAborted) {
  Supervisor chief(cluster.ps(), *chiefCoordinator, options, 0, true);
  chief.start();
  chief.beginStep();
  chief.sawEpoch(7, "PS a");
  EXPECT_EQ(expectError([&] { chief.sawEpoch(8, "PS b"); }).code(),
            ErrorCode::Aborted);
  chief.beginStep();
  chief.sawEpoch(8, "PS b");
  EXPECT_EQ(chief.epoch(), 8);
}

TEST_F(SupervisorTest, AWorkerWaitsUntilEveryTaskServesOneEpoch) {
  Supervisor chief(cluster.ps(), *chiefCoordinator, options, 0, true);
  chief.start();
  cluster.restartPs(1);
  // The worker's recovery keeps finding PS task 1 not serving until the
  // chief re-establishes the model.
  Supervisor worker(cluster.ps(), *workerCoordinator, options, 1, true);
  std::future<bool> recovering = std::async(std::launch::async, [&] {
    return worker.recover(Error(ErrorCode::Unavailable, "PS task 1 is gone"));
  });
  EXPECT_EQ(recovering.wait_for(milliseconds(150)),
            std::future_status::timeout);
  Supervisor restartedChief(cluster.ps(), *chiefCoordinator, options, 0, true);
  ASSERT_TRUE(restartedChief.recover(
      Error(ErrorCode::Unavailable, "PS task 1 is gone")));
  EXPECT_TRUE(recovering.get());
}

TEST_F(SupervisorTest, RecoveryGivesUpAtItsDeadlineWithTheLastError) {
  Supervisor chief(cluster.ps(), *chiefCoordinator, options, 0, true);
  chief.start();
  cluster.restartPs(1);
  options.recoveryTimeoutMs = 300;
  Supervisor worker(cluster.ps(), *workerCoordinator, options, 1, true);
  try {
    worker.recover(Error(ErrorCode::Unavailable, "PS task 1 is gone"));
    FAIL() << "recovered without a chief";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::Unavailable);
    EXPECT_NE(std::string(error.what()).find("does not serve yet"),
              std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("gave up recovering after 300 ms"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(SupervisorTest, TheChiefCheckpointsEveryTaskAtStartWhenDueAndAtTheEnd) {
  std::filesystem::path logdir =
      std::filesystem::temp_directory_path() /
      ("dtf_supervisor_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(logdir);
  options.logdir = logdir.string();
  options.saveCheckpointSteps = 2;
  InProcessCluster cluster(2, 1, ps::Replication::async(1));
  auto coordinator = cluster.coordinatorConnection();
  Supervisor chief(cluster.ps(), *coordinator, options, 0, false);
  chief.start();
  checkpoint::CheckpointDirectory directory(options.logdir);
  ASSERT_EQ(directory.list().size(), 1u);
  // Two async steps of one replica: a checkpoint is due at global step 2.
  Tensor gradient = Tensor::filled(DType::F32, {2}, 1.0f);
  for (int64_t step = 0; step < 2; ++step) {
    cluster.ps()[1]->push(step, {{"w1", &gradient}});
    cluster.ps()[0]->push(step, {{"w0", &gradient}});
    StepRecord record;
    record.globalStep = step + 1;
    chief.afterStep(record);
  }
  auto newest = directory.loadNewest([](const std::string &) {});
  ASSERT_TRUE(newest);
  EXPECT_EQ(newest->checkpoint.step, 2);
  // Both tasks' variables, in one file.
  EXPECT_EQ(newest->checkpoint.tensors.at("w0").toVector<float>(),
            (std::vector<float>{-1.0f, -1.0f}));
  EXPECT_EQ(newest->checkpoint.tensors.at("w1").toVector<float>(),
            (std::vector<float>{-1.0f, -1.0f}));
  EXPECT_EQ(newest->checkpoint.tensors.at("global_step").scalarAsDouble(), 2);
  chief.finish(); // nothing new since: no second file of step 2
  EXPECT_EQ(directory.list().size(), 2u);
  std::filesystem::remove_all(logdir);
}

TEST_F(SupervisorTest, AnErrorRecoveryCannotFixEndsTheWorker) {
  Supervisor chief(cluster.ps(), *chiefCoordinator, options, 0, true);
  EXPECT_FALSE(chief.recover(Error(ErrorCode::Unauthenticated, "bad token")));
  EXPECT_FALSE(chief.recover(Error(ErrorCode::InvalidArgument, "bad push")));
  options.recoveryTimeoutMs = 0;
  EXPECT_FALSE(chief.recover(Error(ErrorCode::Unavailable, "no recovery")));
}

} // namespace
} // namespace dtf::train
