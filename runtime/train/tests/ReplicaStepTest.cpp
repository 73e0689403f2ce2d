//===- ReplicaStepTest.cpp - The worker's training loop, in one process ---===//
//
// trainReplica() drives between-graph workers (async and sync, with and
// without overlapped pulls) over in-process PS tasks and coordinator
// (InProcessCluster.h): each trains to the global step asked for, the
// model reaches the examples' optimum, the hooks see every step, and a
// step whose call fails starts over after recovery. No gRPC server, no
// MLIR.
//
//===----------------------------------------------------------------------===//

#include "runtime/train/ReplicaStep.h"

#include "runtime/train/tests/InProcessCluster.h"

#include <future>
#include <map>
#include <thread>

namespace dtf::train {
namespace {

using namespace dtf::train::testing;

/// Counts the steps the loop reports and remembers the last global step.
class CountingHook final : public TrainingHook {
public:
  void afterStep(const StepRecord &step) override {
    ++steps;
    EXPECT_EQ(step.localStep, steps);
    EXPECT_EQ(step.numResults, 2u);
    lastGlobalStep = step.globalStep;
  }
  void end(int64_t localSteps) override { endedAfter = localSteps; }

  int64_t steps = 0;
  int64_t lastGlobalStep = 0;
  int64_t endedAfter = -1;
};

/// One worker of `cluster`: its supervisor, telemetry and replica step,
/// over `connections` to the PS tasks (some failing on purpose) or, when
/// empty, the cluster's own.
struct TestWorker {
  TestWorker(InProcessCluster &cluster, int index, ReplicaOptions options,
             ReliabilityOptions reliability = {},
             std::vector<ps::PsConnection *> connections = {})
      : coordinator(cluster.coordinatorConnection()),
        supervisor(connections.empty() ? cluster.ps() : connections,
                   *coordinator, this->reliability = reliability, index,
                   options.sync),
        telemetry(TelemetryOptions{}, cluster.clusterSpec(),
                  cluster::TaskId{cluster::Job::Worker, index}, 4),
        compute(cluster.numPs),
        replica(sgdLayout(cluster.numPs),
                connections.empty() ? cluster.ps() : connections, compute,
                supervisor, telemetry, options),
        input(constantExamples(3.0f)) {}

  int64_t train(std::vector<TrainingHook *> hooks = {}) {
    supervisor.start();
    return trainReplica(replica, supervisor, *input, /*batch=*/4,
                        std::move(hooks));
  }

  ReliabilityOptions reliability;
  std::unique_ptr<coord::CoordinatorConnection> coordinator;
  Supervisor supervisor;
  WorkerTelemetry telemetry;
  SgdStep compute;
  ReplicaStep replica;
  std::unique_ptr<data::InputSource> input;
};

/// Where an async step's values come from.
enum class Values {
  /// Pulled at the step's start (ReplicaOptions' default).
  Pulled,
  /// Brought back by the previous step's push (pushPull).
  PushPulled,
  /// Those of the push-pull before the one in flight (overlapPull).
  Overlapped,
};

ReplicaOptions replicaOptions(bool sync, Values values, int64_t steps) {
  ReplicaOptions options;
  options.sync = sync;
  options.pushPull = values == Values::PushPulled;
  options.overlapPull = values == Values::Overlapped;
  options.trainSteps = steps;
  return options;
}

class AsyncWorker : public ::testing::TestWithParam<Values> {};

TEST_P(AsyncWorker, TrainsToTheTargetStepAndTheOptimum) {
  Values values = GetParam();
  bool overlap = values == Values::Overlapped;
  InProcessCluster cluster(/*numPs=*/2, /*numWorkers=*/1,
                           ps::Replication::async(1));
  TestWorker worker(cluster, 0, replicaOptions(false, values, 30));
  CountingHook counter;
  int64_t localSteps = worker.train({&counter});
  EXPECT_EQ(cluster.tasks[0]->currentStep(), 30);
  // Every push is a completed step, counted once.
  EXPECT_EQ(localSteps, 30);
  EXPECT_EQ(counter.steps, localSteps);
  EXPECT_EQ(counter.endedAfter, localSteps);
  // With overlap a step computes on the values of the push-pull before the
  // one in flight: its step tag lags one behind.
  EXPECT_EQ(counter.lastGlobalStep, overlap ? 29 : 30);
  ps::TransferStats traffic = worker.replica.transferStats();
  EXPECT_EQ(traffic.pushes, 60u);
  if (values == Values::Pulled) {
    // Two round trips per PS task and step, and the pulls of the step that
    // finds the target reached.
    EXPECT_EQ(traffic.pushPulls, 0u);
    EXPECT_EQ(traffic.roundTrips(), traffic.pushes + 62);
  } else {
    // One round trip per PS task and step: the push brings the values
    // back. Only the first step pulls on its own, and with overlap the
    // second, whose values are still in flight with the first push-pull.
    EXPECT_EQ(traffic.pushPulls, traffic.pushes);
    EXPECT_EQ(traffic.roundTrips(), traffic.pushes + (overlap ? 4 : 2));
  }
  for (int task = 0; task < 2; ++task)
    for (float w : cluster.value("w" + std::to_string(task), task))
      EXPECT_NEAR(w, 3.0f, 1e-3f);
}

INSTANTIATE_TEST_SUITE_P(ValuesPulledPushPulledOverlapped, AsyncWorker,
                         ::testing::Values(Values::Pulled, Values::PushPulled,
                                           Values::Overlapped),
                         [](const ::testing::TestParamInfo<Values> &info) {
                           switch (info.param) {
                           case Values::Pulled:
                             return "Pulled";
                           case Values::PushPulled:
                             return "PushPulled";
                           case Values::Overlapped:
                             return "Overlapped";
                           }
                           return "";
                         });

TEST(SyncWorkers, TwoReplicasApplyOneAverageAStep) {
  InProcessCluster cluster(/*numPs=*/1, /*numWorkers=*/2,
                           ps::Replication::sync(2, 2));
  TestWorker chief(cluster, 0, replicaOptions(true, Values::Pulled, 20));
  TestWorker other(cluster, 1, replicaOptions(true, Values::Pulled, 20));
  std::future<int64_t> otherSteps =
      std::async(std::launch::async, [&] { return other.train(); });
  int64_t chiefSteps = chief.train();
  EXPECT_EQ(otherSteps.get(), 20);
  EXPECT_EQ(chiefSteps, 20);
  ps::UpdateStats stats = cluster.tasks[0]->stats();
  EXPECT_EQ(stats.appliedUpdates, 20);
  EXPECT_EQ(stats.appliedPushes, 40);
  EXPECT_EQ(stats.stalePushes, 0);
  // Each update was one step of the mean gradient: 0.5 of the way each
  // time, as one worker would go.
  for (float w : cluster.value("w0"))
    EXPECT_NEAR(w, 3.0f * (1 - std::pow(0.5f, 20)), 1e-4f);
}

/// A connection to a PS task whose fifth push-pull fails, as a call to a
/// task that just died does.
class FailingOnce final : public ps::PsConnection {
public:
  explicit FailingOnce(ps::PsConnection &task) : task(task) {}
  const std::string &peer() const override { return task.peer(); }
  void waitUntilReachable() override {}
  bool initialize() override { return task.initialize(); }
  std::vector<Tensor> pullRows(const std::vector<ps::RowRequest> &requests,
                               int64_t *epoch) override {
    return task.pullRows(requests, epoch);
  }
  std::vector<Tensor> pull(const std::vector<std::string> &names,
                           int64_t *epoch) override {
    return task.pull(names, epoch);
  }
  std::future<ps::PulledValues>
  startPull(const std::vector<std::string> &names) override {
    return task.startPull(names);
  }
  ps::PushResult push(int64_t step, const std::vector<TensorRef> &gradients,
                      int64_t epoch) override {
    return task.push(step, gradients, epoch);
  }
  ps::PushPullResult
  pushPull(int64_t step, std::vector<NamedTensor> gradients, int64_t epoch,
           const std::vector<std::string> &pullNames) override {
    if (++pushPulls == 5)
      throw Error(ErrorCode::Unavailable, peer() + ": connection reset");
    return task.pushPull(step, std::move(gradients), epoch, pullNames);
  }
  std::future<ps::PushPullResult>
  startPushPull(int64_t step, std::vector<NamedTensor> gradients, int64_t epoch,
                const std::vector<std::string> &pullNames) override {
    return task.startPushPull(step, std::move(gradients), epoch, pullNames);
  }
  int64_t step() override { return task.step(); }
  ps::TaskStatus status() override { return task.status(); }
  int64_t waitForStep(int64_t step, std::chrono::milliseconds timeout,
                      int64_t epoch) override {
    return task.waitForStep(step, timeout, epoch);
  }
  ps::Snapshot snapshot() override { return task.snapshot(); }
  ps::Snapshot saveCheckpointShard(int shard, int numShards,
                                   uint64_t save) override {
    return task.saveCheckpointShard(shard, numShards, save);
  }
  int64_t restore(ps::RestoreSource source, int64_t checkpointStep,
                  int64_t epoch) override {
    return task.restore(source, checkpointStep, epoch);
  }
  void stop(const std::string &reason) override { task.stop(reason); }
  ps::TransferStats transferStats() const override {
    return task.transferStats();
  }
  int pushPulls = 0;

private:
  ps::PsConnection &task;
};

TEST(RecoveringWorker, StartsTheStepOverAfterAFailedCall) {
  InProcessCluster cluster(/*numPs=*/2, /*numWorkers=*/1,
                           ps::Replication::async(1));
  ReliabilityOptions reliability;
  reliability.recoveryTimeoutMs = 5'000;
  // The worker's connection to PS task 1 fails once, at its fifth push.
  FailingOnce flaky(*cluster.connections[1]);
  TestWorker worker(cluster, 0, replicaOptions(false, Values::PushPulled, 12),
                    reliability, {cluster.connections[0].get(), &flaky});
  worker.supervisor.start();
  int64_t epochBefore = cluster.tasks[0]->status().epoch;
  int64_t localSteps =
      trainReplica(worker.replica, worker.supervisor, *worker.input, 4, {});
  // The failed step's push to PS task 0 went through before PS task 1's
  // failed; the chief's recovery found every task serving one epoch and
  // kept the model, and the step started over from a fresh pull.
  EXPECT_EQ(cluster.tasks[0]->status().epoch, epochBefore);
  EXPECT_EQ(cluster.tasks[0]->currentStep(), 12);
  EXPECT_EQ(localSteps, 11);
  // 12 pushed steps (one failed half-way) and the one that found the
  // target reached.
  EXPECT_EQ(worker.compute.steps, 13);
  EXPECT_EQ(flaky.pushPulls, 12);
}

TEST(RecoveringWorker, WithoutRecoveryAFailedCallEndsTraining) {
  InProcessCluster cluster(/*numPs=*/1, /*numWorkers=*/1,
                           ps::Replication::async(1));
  TestWorker worker(cluster, 0, replicaOptions(false, Values::Pulled, 10));
  worker.supervisor.start();
  cluster.tasks[0]->beginShutdown();
  EXPECT_EQ(expectError([&] {
              trainReplica(worker.replica, worker.supervisor, *worker.input, 4,
                           {});
            }).code(),
            ErrorCode::Unavailable);
}

/// An input that numbers its batches and records what the trainer says
/// became of each (what a streamed input reports to the data coordinator).
class AccountingInput final : public data::InputSource {
public:
  AccountingInput() : examples(constantExamples(3.0f)) {}
  const std::vector<std::string> &placeholders() const override {
    return examples->placeholders();
  }
  int64_t size() const override { return examples->size(); }
  void nextBatch(int64_t batch, FeedMap &feeds) override {
    examples->nextBatch(batch, feeds);
    ++last;
  }
  uint64_t lastBatchId() const override { return last; }
  void batchPushing(uint64_t id) override { pushing.push_back(id); }
  void batchTrained(uint64_t id, int64_t globalStep) override {
    EXPECT_TRUE(settled.emplace(id, "trained").second) << id;
    trainedAt.push_back(globalStep);
  }
  void batchLost(uint64_t id, bool inDoubt) override {
    EXPECT_TRUE(settled.emplace(id, inDoubt ? "in doubt" : "lost").second)
        << id;
  }

  std::unique_ptr<data::InputSource> examples;
  uint64_t last = 0;
  std::vector<uint64_t> pushing;
  std::map<uint64_t, std::string> settled;
  std::vector<int64_t> trainedAt;
};

TEST(AccountingWorker, SettlesEveryBatchOnce) {
  InProcessCluster cluster(/*numPs=*/1, /*numWorkers=*/1,
                           ps::Replication::async(1));
  ReliabilityOptions reliability;
  reliability.recoveryTimeoutMs = 5'000;
  FailingOnce flaky(*cluster.connections[0]);
  TestWorker worker(cluster, 0, replicaOptions(false, Values::PushPulled, 8),
                    reliability, {&flaky});
  auto accounting = std::make_unique<AccountingInput>();
  AccountingInput &input = *accounting;
  worker.input = std::move(accounting);
  worker.train();
  // 8 batches trained, one whose push failed with no answer (the fifth),
  // one taken when the target was reached already: 10 handed out, each
  // said pushing before its push and settled once.
  ASSERT_EQ(input.last, 10u);
  EXPECT_EQ(input.pushing.size(), 10u);
  ASSERT_EQ(input.settled.size(), 10u);
  EXPECT_EQ(input.settled[5], "in doubt");
  EXPECT_EQ(input.settled[10], "lost");
  // Each trained batch is in the model from the step its push made.
  EXPECT_EQ(input.trainedAt, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

} // namespace
} // namespace dtf::train
