//===- ParameterServerTest.cpp - The PS state machine, without sockets ----===//
//
// Drives a PS task through its rules in-process with an update program
// written in C++: no gRPC, no MLIR. The gRPC service over it is tested in
// runtime/rpc/tests/ParameterServerTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "runtime/ps/ParameterServer.h"
#include "runtime/core/tests/TestUtil.h"

#include "runtime/core/Error.h"

#include <gtest/gtest.h>

#include <thread>

namespace dtf::ps {
namespace {

/// Variables w: f32[2] (trainable) and global_step: i64. An update
/// subtracts the mean of its groups' gradients from w and adds one to the
/// step, as the PS function of a sync replica does.
class MeanSgdProgram final : public UpdateProgram {
public:
  explicit MeanSgdProgram(int64_t groups) {
    signature_.taskName = "/job:ps/task:0";
    signature_.variables = {{"w", {DType::F32, {2}}},
                            {"global_step", {DType::I64, {}}}};
    signature_.gradientNames = {"w"};
    signature_.argumentTypes.assign(groups, TensorType{DType::F32, {2}});
  }

  const ProgramSignature &signature() const override { return signature_; }

  void initialize(VariableStore &values) override {
    ++initializations;
    values.try_emplace("w", Tensor::fromVector<float>({2}, {1.0f, 1.0f}));
    values.try_emplace("global_step", Tensor::scalar<int64_t>(0));
  }

  void apply(VariableStore &values, std::vector<Tensor> arguments,
             const UpdateContext &context) override {
    computedAt.push_back(context.globalStep);
    float *w = values.at("w").data<float>();
    float rate = static_cast<float>(context.stalenessLearningRateScale);
    for (const Tensor &gradient : arguments)
      for (int i = 0; i < 2; ++i)
        w[i] -= rate * gradient.data<float>()[i] / arguments.size();
    ++*values.at("global_step").data<int64_t>();
  }

  int initializations = 0;
  /// The global step each update was applied for, in order.
  std::vector<int64_t> computedAt;

private:
  ProgramSignature signature_;
};

std::vector<Tensor> gradient(float value) {
  std::vector<Tensor> gradients;
  gradients.push_back(Tensor::fromVector<float>({2}, {value, value}));
  return gradients;
}

std::vector<float> valueOf(const ParameterServer &task,
                           const std::string &name) {
  std::vector<float> value;
  task.read({name}, [&](const std::vector<const Tensor *> &values, int64_t) {
    value = values[0]->toVector<float>();
  });
  return value;
}

using dtf::testing::expectError;

ParameterServer syncTask(Options options = {}) {
  return ParameterServer(std::make_unique<MeanSgdProgram>(2),
                         Replication::sync(2, 3), std::move(options));
}

TEST(PsStateMachine, ServesNothingBeforeTheChiefInitializes) {
  ParameterServer task = syncTask();
  EXPECT_EQ(expectError([&] { valueOf(task, "w"); }).code(),
            ErrorCode::FailedPrecondition);
  EXPECT_EQ(expectError([&] { task.push(0, 0, gradient(1)); }).code(),
            ErrorCode::FailedPrecondition);
  EXPECT_TRUE(task.initialize());
  EXPECT_FALSE(task.initialize()); // the second chief call is a no-op
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{1, 1}));
  EXPECT_EQ(expectError([&] { valueOf(task, "v"); }).code(),
            ErrorCode::NotFound);
}

TEST(PsStateMachine, SyncAppliesTheMeanOfAFullAggregateAndDropsStalePushes) {
  ParameterServer task = syncTask();
  task.initialize();
  EXPECT_EQ(task.push(0, 0, gradient(1)).outcome, PushOutcome::Accumulated);
  EXPECT_EQ(task.currentStep(), 0);
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{1, 1}));
  PushResult second = task.push(0, 0, gradient(3));
  EXPECT_EQ(second.outcome, PushOutcome::Applied);
  EXPECT_EQ(second.step, 1);
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{-1, -1})); // 1 - (1+3)/2
  // The third replica (a backup worker) is late: its step is applied.
  PushResult late = task.push(0, 0, gradient(100));
  EXPECT_EQ(late.outcome, PushOutcome::Stale);
  EXPECT_EQ(late.step, 1);
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{-1, -1}));
  UpdateStats stats = task.stats();
  EXPECT_EQ(stats.appliedUpdates, 1);
  EXPECT_EQ(stats.appliedPushes, 2);
  EXPECT_EQ(stats.stalePushes, 1);
}

TEST(PsStateMachine, SyncQueuesPushesForLaterStepsUntilTheirStepComes) {
  ParameterServer task = syncTask();
  task.initialize();
  EXPECT_EQ(task.push(1, 0, gradient(2)).outcome, PushOutcome::Queued);
  EXPECT_EQ(task.push(1, 0, gradient(2)).outcome, PushOutcome::Queued);
  EXPECT_EQ(task.push(0, 0, gradient(0)).outcome, PushOutcome::Accumulated);
  // Completing step 0 lets the queued pair complete step 1 too.
  PushResult result = task.push(0, 0, gradient(0));
  EXPECT_EQ(result.outcome, PushOutcome::Applied);
  EXPECT_EQ(result.step, 2);
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{-1, -1}));
}

TEST(PsStateMachine, AsyncDropsPushesStalerThanTheBound) {
  Options options;
  options.maxStaleness = 1;
  ParameterServer task(std::make_unique<MeanSgdProgram>(1),
                       Replication::async(3), std::move(options));
  task.initialize();
  // Three pushes computed at step 0: staleness 0, 1, then 2 > the bound.
  EXPECT_EQ(task.push(0, 0, gradient(1)).outcome, PushOutcome::Applied);
  EXPECT_EQ(task.push(0, 0, gradient(1)).outcome, PushOutcome::Applied);
  PushResult dropped = task.push(0, 0, gradient(1));
  EXPECT_EQ(dropped.outcome, PushOutcome::Stale);
  EXPECT_EQ(dropped.step, 2);
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{-1, -1}));
  UpdateStats stats = task.stats();
  EXPECT_EQ(stats.appliedPushes, 2);
  EXPECT_EQ(stats.stalePushes, 1);
  // A fresh one is applied again.
  EXPECT_EQ(task.push(2, 0, gradient(1)).outcome, PushOutcome::Applied);
}

// Learning-rate schedules are evaluated at the step the gradients were
// computed at, which the push carries: every PS task then uses the same
// rate, whether or not it holds the global step.
TEST(PsStateMachine, UpdatesRunAtTheStepTheirGradientsWereComputedAt) {
  auto asyncProgram = std::make_unique<MeanSgdProgram>(1);
  MeanSgdProgram *async = asyncProgram.get();
  ParameterServer asyncTask(std::move(asyncProgram), Replication::async(2));
  asyncTask.initialize();
  asyncTask.push(0, 0, gradient(1));
  asyncTask.push(0, 0, gradient(1)); // stale by one, still computed at 0
  asyncTask.push(2, 0, gradient(1));
  EXPECT_EQ(async->computedAt, (std::vector<int64_t>{0, 0, 2}));

  auto syncProgram = std::make_unique<MeanSgdProgram>(2);
  MeanSgdProgram *sync = syncProgram.get();
  ParameterServer syncTask(std::move(syncProgram), Replication::sync(2, 2));
  syncTask.initialize();
  for (int64_t step : {0, 0, 1, 1})
    syncTask.push(step, 0, gradient(1));
  EXPECT_EQ(sync->computedAt, (std::vector<int64_t>{0, 1}));
}

/// A task holding an embedding table updated by rows: its pushes carry the
/// table's ids and rows, any number of them.
class TableProgram final : public UpdateProgram {
public:
  TableProgram() {
    signature_.taskName = "/job:ps/task:0";
    signature_.variables = {{"table", {DType::F32, {10, 2}}}};
    signature_.sparseGradientNames = {"table"};
    signature_.argumentTypes = {TensorType{DType::I64, {-1}},
                                TensorType{DType::F32, {-1, 2}}};
  }
  const ProgramSignature &signature() const override { return signature_; }
  void initialize(VariableStore &values) override {
    values.try_emplace("table", Tensor(DType::F32, {10, 2}));
  }
  void apply(VariableStore &values, std::vector<Tensor> arguments,
             const UpdateContext & /*context*/) override {
    const int64_t *ids = arguments[0].data<int64_t>();
    const float *rows = arguments[1].data<float>();
    float *table = values.at("table").data<float>();
    for (int64_t i = 0; i < arguments[0].numElements(); ++i)
      for (int k = 0; k < 2; ++k)
        table[ids[i] * 2 + k] -= rows[i * 2 + k];
  }

private:
  ProgramSignature signature_;
};

TEST(PsStateMachine, SparseGradientsTakeAnyNumberOfIds) {
  ParameterServer task(std::make_unique<TableProgram>(), Replication::async());
  task.initialize();
  EXPECT_EQ(task.pushNames(), (std::vector<std::string>{"table", "table"}));
  for (int64_t count : {1, 3}) {
    std::vector<Tensor> push;
    push.push_back(
        Tensor::fromVector<int64_t>({count}, std::vector<int64_t>(count, 4)));
    push.push_back(Tensor::filled(DType::F32, {count, 2}, 1.0f));
    EXPECT_EQ(task.push(0, 0, std::move(push)).outcome, PushOutcome::Applied);
  }
  std::vector<RowRequest> requests(1);
  requests[0].name = "table";
  requests[0].ids = Tensor::fromVector<int64_t>({2}, {4, 5});
  EXPECT_EQ(task.readRows(requests)[0].toVector<float>(),
            (std::vector<float>{-4, -4, 0, 0}));
  // Rows of another width are refused, naming both types.
  try {
    task.checkGradient(1, "table", DType::F32, {3, 3});
    ADD_FAILURE() << "rows of width 3 accepted";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what())
                  .find("f32[3,3] but variable 'table' "
                        "is f32[-1,2]"),
              std::string::npos)
        << error.what();
  }
}

TEST(PsStateMachine, AsyncDividesAStaleGradientByItsStaleness) {
  Options options;
  options.divideByStaleness = true;
  ParameterServer task(std::make_unique<MeanSgdProgram>(1),
                       Replication::async(3), std::move(options));
  task.initialize();
  // w starts at 1. Staleness 0: a whole step; 1: half; 3: a quarter.
  task.push(0, 0, gradient(1));
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{0, 0}));
  task.push(0, 0, gradient(1));
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{-0.5, -0.5}));
  task.push(2, 0, gradient(1)); // computed at step 2: staleness 0
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{-1.5, -1.5}));
  task.push(0, 0, gradient(1)); // at step 3
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{-1.75, -1.75}));
  EXPECT_EQ(task.stats().dividedPushes, 2);
}

TEST(PsStateMachine, AsyncCountsEachPushsStalenessInTheHistogram) {
  std::vector<int64_t> hooked;
  Options options;
  options.onPushApplied = [&](int64_t staleness) {
    hooked.push_back(staleness);
  };
  ParameterServer task(std::make_unique<MeanSgdProgram>(1),
                       Replication::async(3), std::move(options));
  task.initialize();
  EXPECT_EQ(task.stats().staleness.str(), "none");
  // (the step computed at, the staleness when applied at the task's step)
  // The sixth, at step 5, was computed "ahead" (as at another task's
  // step): it counts as 0.
  std::vector<std::pair<int64_t, int64_t>> pushes = {{0, 0}, {0, 1}, {0, 2},
                                                     {3, 0}, {2, 2}, {6, 0}};
  for (int64_t at = 6; at < 20; ++at)
    pushes.push_back({at, 0});
  pushes.push_back({0, 20}); // at step 20
  pushes.push_back({5, 16}); // at step 21: both in the >=16 bucket
  std::vector<int64_t> expected;
  for (const auto &[computedAt, staleness] : pushes) {
    int64_t before = task.currentStep();
    EXPECT_EQ(task.push(computedAt, 0, gradient(0)).step, before + 1);
    expected.push_back(staleness);
  }
  EXPECT_EQ(hooked, expected);
  UpdateStats stats = task.stats();
  const StalenessHistogram &histogram = stats.staleness;
  EXPECT_EQ(histogram.pushes, stats.appliedPushes);
  EXPECT_EQ(histogram.pushes, 22);
  EXPECT_EQ(histogram.counts[0], 17);
  EXPECT_EQ(histogram.counts[1], 1);
  EXPECT_EQ(histogram.counts[2], 2);
  EXPECT_EQ(histogram.counts[StalenessHistogram::kExactBuckets], 2);
  EXPECT_EQ(histogram.sum, 41);
  EXPECT_EQ(histogram.max, 20);
  EXPECT_EQ(histogram.str(), "0:17 1:1 2:2 >=16:2 (mean 1.86, max 20)");
}

TEST(PsStateMachine, SyncAppliesPushesAtTheirOwnStepSoTheirStalenessIsZero) {
  int hooked = 0;
  Options options;
  options.onPushApplied = [&](int64_t staleness) {
    EXPECT_EQ(staleness, 0);
    ++hooked;
  };
  ParameterServer task = syncTask(std::move(options));
  task.initialize();
  task.push(0, 0, gradient(1));
  task.push(0, 0, gradient(1)); // applies step 0
  task.push(0, 0, gradient(1)); // late: dropped, not counted
  task.push(2, 0, gradient(1)); // queued for step 2
  task.push(2, 0, gradient(1)); // queued for step 2
  task.push(1, 0, gradient(1));
  EXPECT_EQ(task.push(1, 0, gradient(1)).step, 3); // steps 1 and 2
  UpdateStats stats = task.stats();
  EXPECT_EQ(stats.appliedUpdates, 3);
  EXPECT_EQ(stats.stalePushes, 1);
  EXPECT_EQ(stats.staleness.pushes, stats.appliedPushes);
  EXPECT_EQ(stats.staleness.counts[0], 6);
  EXPECT_EQ(hooked, 6);
  EXPECT_EQ(stats.staleness.str(), "0:6 (mean 0.00, max 0)");
}

TEST(PsStateMachine, RejectsAPushThatDoesNotFitBeforeApplyingAny) {
  ParameterServer task = syncTask();
  task.initialize();
  std::vector<Tensor> wrongShape;
  wrongShape.push_back(Tensor::filled(DType::F32, {3}, 1.0));
  try {
    task.push(0, 0, std::move(wrongShape));
    FAIL() << "no error";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
    EXPECT_STREQ(error.what(),
                 "PS task /job:ps/task:0: push rejected, nothing applied: the "
                 "gradient of 'w' is f32[3] but variable 'w' is f32[2]");
  }
  EXPECT_EQ(expectError([&] { task.push(0, 0, {}); }).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(task.stats().appliedPushes, 0);
}

TEST(PsStateMachine, RestoreFromACheckpointStartsANewEpoch) {
  Options options;
  options.loadCheckpoint = [](int64_t step) {
    ModelState state;
    state.step = step;
    state.values.emplace("w", Tensor::fromVector<float>({2}, {5.0f, 6.0f}));
    state.values.emplace("global_step", Tensor::scalar<int64_t>(step));
    // Another task's variable in the same checkpoint is left alone.
    state.values.emplace("v", Tensor::filled(DType::F32, {4}, 0.0));
    return state;
  };
  ParameterServer task = syncTask(std::move(options));
  task.initialize();
  task.push(0, 0, gradient(1));
  task.push(0, 0, gradient(1));
  task.push(1, 0, gradient(1)); // pending in step 1's aggregate
  EXPECT_EQ(task.restore(RestoreSource::Checkpoint, 40, /*epoch=*/1), 40);
  TaskStatus status = task.status();
  EXPECT_EQ(status.step, 40);
  EXPECT_EQ(status.epoch, 1);
  EXPECT_EQ(status.restoredFrom, 40);
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{5, 6}));
  // Gradients computed from another epoch's values are refused.
  EXPECT_EQ(expectError([&] { task.push(40, 2, gradient(1)); }).code(),
            ErrorCode::Aborted);
  // The pending push of step 1 was dropped: one push completes nothing.
  EXPECT_EQ(task.push(40, 1, gradient(2)).outcome, PushOutcome::Accumulated);
  EXPECT_EQ(task.push(40, 1, gradient(2)).step, 41);
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{3, 4}));
  // An older epoch cannot come back.
  EXPECT_EQ(expectError([&] {
              task.restore(RestoreSource::InitialValues, -1, 0);
            }).code(),
            ErrorCode::InvalidArgument);
}

TEST(PsStateMachine, APreloadedCheckpointIsServedOnceTheChiefKeepsIt) {
  ParameterServer task = syncTask();
  ModelState state;
  state.step = 8;
  state.values.emplace("w", Tensor::fromVector<float>({2}, {7.0f, 7.0f}));
  state.values.emplace("global_step", Tensor::scalar<int64_t>(8));
  task.preload(std::move(state), 8);
  TaskStatus status = task.status();
  EXPECT_FALSE(status.initialized);
  EXPECT_TRUE(status.hasValues);
  EXPECT_EQ(status.restoredFrom, 8);
  EXPECT_EQ(expectError([&] { valueOf(task, "w"); }).code(),
            ErrorCode::FailedPrecondition);
  // Keeping another checkpoint's values is refused.
  EXPECT_EQ(expectError([&] {
              task.restore(RestoreSource::KeepRestored, 9, 1);
            }).code(),
            ErrorCode::FailedPrecondition);
  EXPECT_EQ(task.restore(RestoreSource::KeepRestored, 8, 1), 8);
  EXPECT_EQ(valueOf(task, "w"), (std::vector<float>{7, 7}));
}

TEST(PsStateMachine, ACheckpointOfAnotherModelIsRefusedByName) {
  ParameterServer task = syncTask();
  ModelState state;
  state.values.emplace("w", Tensor::filled(DType::F32, {3}, 0.0));
  state.values.emplace("global_step", Tensor::scalar<int64_t>(0));
  try {
    task.preload(std::move(state), 3);
    FAIL() << "no error";
  } catch (const std::invalid_argument &error) {
    EXPECT_STREQ(error.what(),
                 "PS task /job:ps/task:0: the checkpoint of step 3 holds "
                 "variable 'w' as f32[3] but the model declares it f32[2]");
  }
}

TEST(PsStateMachine, WritesItsShardOfACheckpointFromOneStateBetweenUpdates) {
  Options options;
  /// What each write was given: the shard, the save, the step and the
  /// names with w's value.
  struct Written {
    int shard, numShards;
    uint64_t save;
    int64_t step;
    std::vector<std::string> names;
    std::vector<float> w;
  };
  std::vector<Written> written;
  options.writeCheckpointShard = [&](Snapshot values, int shard, int numShards,
                                     uint64_t save) {
    Written write{shard, numShards, save, values.step, {}, {}};
    for (const NamedTensor &tensor : values.tensors) {
      write.names.push_back(tensor.name);
      if (tensor.name == "w")
        write.w = tensor.tensor.toVector<float>();
    }
    written.push_back(write);
  };
  ParameterServer task = syncTask(std::move(options));
  EXPECT_EQ(expectError([&] { task.saveCheckpointShard(0, 2, 9); }).code(),
            ErrorCode::FailedPrecondition);
  task.initialize();
  task.push(0, 0, gradient(1));
  task.push(0, 0, gradient(1));
  Snapshot header = task.saveCheckpointShard(1, 2, 9);
  EXPECT_EQ(header.step, 1);
  EXPECT_TRUE(header.holdsGlobalStep);
  EXPECT_TRUE(header.tensors.empty());
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0].shard, 1);
  EXPECT_EQ(written[0].numShards, 2);
  EXPECT_EQ(written[0].save, 9u);
  EXPECT_EQ(written[0].step, 1);
  EXPECT_EQ(written[0].names, (std::vector<std::string>{"global_step", "w"}));
  EXPECT_EQ(written[0].w, (std::vector<float>{0, 0}));
  EXPECT_EQ(expectError([&] { task.saveCheckpointShard(2, 2, 9); }).code(),
            ErrorCode::InvalidArgument);
}

TEST(PsStateMachine, AShardThatCannotBeWrittenIsDataLoss) {
  ParameterServer without = syncTask();
  without.initialize();
  Error error = expectError([&] { without.saveCheckpointShard(0, 1, 9); });
  EXPECT_EQ(error.code(), ErrorCode::DataLoss);
  EXPECT_STREQ(error.what(),
               "PS task /job:ps/task:0: cannot write its shard of a "
               "checkpoint: it has no checkpoint directory (--logdir)");

  Options options;
  options.writeCheckpointShard = [](Snapshot, int, int, uint64_t) {
    throw std::runtime_error("disk full");
  };
  ParameterServer failing = syncTask(std::move(options));
  failing.initialize();
  error = expectError([&] { failing.saveCheckpointShard(0, 1, 9); });
  EXPECT_EQ(error.code(), ErrorCode::DataLoss);
  EXPECT_STREQ(error.what(), "PS task /job:ps/task:0: cannot write its shard "
                             "of a checkpoint: disk full");
}

TEST(PsStateMachine, WaitForStepReturnsWhenTheStepPasses) {
  ParameterServer task = syncTask();
  task.initialize();
  std::thread pusher([&] {
    task.push(0, 0, gradient(1));
    task.push(0, 0, gradient(1));
  });
  EXPECT_EQ(task.waitForStep(0, 0, std::chrono::seconds(30), {}), 1);
  pusher.join();
  EXPECT_EQ(expectError([&] {
              task.waitForStep(1, 0, std::chrono::milliseconds(1), {});
            }).code(),
            ErrorCode::DeadlineExceeded);
  EXPECT_EQ(expectError([&] {
              task.waitForStep(1, 0, std::chrono::seconds(30),
                               [] { return true; });
            }).code(),
            ErrorCode::Cancelled);
  task.beginShutdown();
  EXPECT_EQ(expectError([&] {
              task.waitForStep(1, 0, std::chrono::seconds(30), {});
            }).code(),
            ErrorCode::Unavailable);
}

TEST(PsStateMachine, RefusesAProgramWhoseArgumentsDoNotFitTheMode) {
  // Two groups of gradients per update cannot serve async pushes.
  EXPECT_THROW(ParameterServer(std::make_unique<MeanSgdProgram>(2),
                               Replication::async()),
               std::invalid_argument);
  EXPECT_NO_THROW(ParameterServer(std::make_unique<MeanSgdProgram>(1),
                                  Replication::async()));
}

} // namespace
} // namespace dtf::ps
