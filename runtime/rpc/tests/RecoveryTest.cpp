//===- RecoveryTest.cpp - Snapshot, Restore and epochs of a PS task -------===//
//
// What checkpoints and recovery need of the PS service: a Snapshot of every
// variable, the task's own shard of a bundle (SaveCheckpointShard), Restore
// from a checkpoint / the initial values / the values preloaded at start-up,
// step bookkeeping after a restore (also on a sync task without global_step),
// and epochs that fence off pushes and waits of values from before a restore.
//
//===----------------------------------------------------------------------===//

#include "runtime/rpc/tests/RpcTestSupport.h"

#include <future>
#include <thread>

namespace dtf::rpc {
namespace {

using namespace dtf::rpc::testing;
using std::chrono::milliseconds;

// @ps_0: w by gradient descent and global_step. @ps_1_sync: Adam on v
// without global_step, two replicas per aggregate (a sync task that counts
// aggregates).
constexpr const char *kModule = R"mlir(
module {
  func.func @ps_0(%g_w: tensor<2xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:0">,
                  dtf.gradients = ["w"]} {
    %w = dtf.variable "w" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2xf32>>
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
    dtf.apply_gradient_descent %w, %g_w learning_rate 1.0 : !dtf.resource<tensor<2xf32>>
    %one = dtf.constant dense<1> : tensor<i64>
    dtf.assign_add %step, %one : !dtf.resource<tensor<i64>>
    return
  }

  func.func @ps_1_sync(%g_v0: tensor<2xf32>, %g_v1: tensor<2xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:1">,
                  dtf.gradients = ["v"]} {
    %v = dtf.variable "v" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2xf32>>
    %m = dtf.variable "v/Momentum" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<2xf32>>
    %half = dtf.constant dense<0.5> : tensor<f32>
    %s = dtf.add %g_v0, %g_v1 : tensor<2xf32>, tensor<2xf32>
    %g = dtf.mul %s, %half : tensor<2xf32>, tensor<f32>
    dtf.apply_momentum %v, %m, %g learning_rate 1.0 momentum 0.5 : !dtf.resource<tensor<2xf32>>
    return
  }
}
)mlir";

/// A checkpoint of both tasks at global step `step`.
ModelState checkpointAt(int64_t step, float w, float v) {
  ModelState state;
  state.step = step;
  state.values.emplace("w", Tensor::filled(DType::F32, {2}, w));
  state.values.emplace("global_step", Tensor::scalar<int64_t>(step));
  state.values.emplace("v", Tensor::filled(DType::F32, {2}, v));
  state.values.emplace("v/Momentum", Tensor::filled(DType::F32, {2}, 0.0));
  return state;
}

class RecoveryTest : public ::testing::Test {
protected:
  RecoveryTest() : module(kModule) {}

  void startPs(const char *function, Replication replication) {
    ps::Options options;
    options.loadCheckpoint = [this](int64_t step) {
      ++loads;
      if (step == 404)
        throw std::runtime_error("cannot open checkpoint model.ckpt-404.dtf");
      if (step == 13) { // a checkpoint of another model
        ModelState state = checkpointAt(step, 0, 0);
        state.values.erase("v/Momentum");
        return state;
      }
      return checkpointAt(step, 10.0f + step, 20.0f + step);
    };
    options.writeCheckpointShard = [this](ps::Snapshot values, int shard,
                                          int numShards, uint64_t save) {
      if (numShards == 3)
        throw std::runtime_error("cannot write /logdir/part-00001-of-00003");
      if (numShards == 4) // a shard slower than an ordinary call
        std::this_thread::sleep_for(milliseconds(300));
      shardsWritten.push_back({shard, numShards, values.tensors.size(), save});
    };
    ps = std::make_unique<RunningPs>(module.function(function), replication,
                                     ServerOptions{"127.0.0.1:0"}, options);
    client = std::make_unique<PsClient>(ps->task.taskName(),
                                        ps->server.address(),
                                        fastClientOptions());
  }

  ps::PushResult push(const char *name, int64_t step, float value,
                      int64_t epoch = 0) {
    Tensor gradient = Tensor::filled(DType::F32, {2}, value);
    return client->push(step, {{name, &gradient}}, epoch);
  }

  float first(const char *name) {
    return client->pull({name})[0].toVector<float>()[0];
  }

  TestModule module;
  // Written by the task's handlers, so declared before the task: its
  // server's shutdown waits for a handler still running (a call whose
  // client gave up) before these go.
  int loads = 0;
  /// Each shard written: its number, the number of shards, its tensors,
  /// the save.
  struct ShardWritten {
    int shard, numShards;
    size_t tensors;
    uint64_t save;
    bool operator==(const ShardWritten &other) const {
      return shard == other.shard && numShards == other.numShards &&
             tensors == other.tensors && save == other.save;
    }
  };
  std::vector<ShardWritten> shardsWritten;
  std::unique_ptr<RunningPs> ps;
  std::unique_ptr<PsClient> client;
};

TEST_F(RecoveryTest, SnapshotHoldsEveryVariableWithTheStep) {
  startPs("ps_1_sync", Replication::sync(2, 2));
  EXPECT_EQ(expectError([&] { client->snapshot(); }).code(),
            ErrorCode::FailedPrecondition);
  client->restore(ps::RestoreSource::InitialValues, -1, /*epoch=*/3);
  push("v", 0, 1.0f);
  push("v", 0, 3.0f);
  ps::Snapshot snapshot = client->snapshot();
  EXPECT_EQ(snapshot.step, 1);
  EXPECT_EQ(snapshot.epoch, 3);
  EXPECT_FALSE(snapshot.holdsGlobalStep);
  ASSERT_EQ(snapshot.tensors.size(), 2u); // the slot too
  std::map<std::string, std::vector<float>> values;
  for (const NamedTensor &tensor : snapshot.tensors)
    values[tensor.name] = tensor.tensor.toVector<float>();
  EXPECT_EQ(values["v"], std::vector<float>(2, -1.0f));         // 1 - 2
  EXPECT_EQ(values["v/Momentum"], std::vector<float>(2, 2.0f)); // mean
}

TEST_F(RecoveryTest, ATaskWritesItsCheckpointShardAndAnswersItsStep) {
  startPs("ps_1_sync", Replication::sync(2, 2));
  EXPECT_EQ(expectError([&] { client->saveCheckpointShard(1, 2, 7); }).code(),
            ErrorCode::FailedPrecondition);
  client->restore(ps::RestoreSource::InitialValues, -1, /*epoch=*/3);
  push("v", 0, 1.0f);
  push("v", 0, 3.0f);
  ps::Snapshot written = client->saveCheckpointShard(1, 2, 1ull << 40);
  EXPECT_EQ(written.step, 1);
  EXPECT_EQ(written.epoch, 3);
  EXPECT_FALSE(written.holdsGlobalStep);
  EXPECT_TRUE(written.tensors.empty()); // the values stayed on the task
  EXPECT_EQ(shardsWritten, (std::vector<ShardWritten>{{1, 2, 2, 1ull << 40}}));
  EXPECT_EQ(expectError([&] { client->saveCheckpointShard(2, 2, 7); }).code(),
            ErrorCode::InvalidArgument);
  // Writing all of a task's variables may take longer than an ordinary
  // call's deadline: its deadline is the checkpoints'.
  ClientOptions impatient = fastClientOptions();
  impatient.callTimeout = milliseconds(100);
  EXPECT_EQ(PsClient(ps->task.taskName(), ps->server.address(), impatient)
                .saveCheckpointShard(3, 4, 8)
                .step,
            1);
  impatient.checkpointTimeout = milliseconds(100);
  EXPECT_EQ(expectError([&] {
              PsClient(ps->task.taskName(), ps->server.address(), impatient)
                  .saveCheckpointShard(3, 4, 8);
            }).code(),
            ErrorCode::DeadlineExceeded);
  Error failed = expectError([&] { client->saveCheckpointShard(1, 3, 7); });
  EXPECT_EQ(failed.code(), ErrorCode::DataLoss);
  EXPECT_NE(std::string(failed.what())
                .find("cannot write its shard of a checkpoint: cannot write "
                      "/logdir/part-00001-of-00003"),
            std::string::npos)
      << failed.what();
}

TEST_F(RecoveryTest, PreloadedValuesServeOnlyOnceTheChiefConfirms) {
  startPs("ps_0", Replication::async());
  ps->task.preload(checkpointAt(40, 5.0f, 0.0f), 40);
  ps::TaskStatus status = client->status();
  EXPECT_FALSE(status.initialized);
  EXPECT_TRUE(status.hasValues);
  EXPECT_EQ(status.restoredFrom, 40);
  EXPECT_EQ(status.step, 40);
  EXPECT_TRUE(status.holdsGlobalStep);
  Error error = expectError([&] { client->pull({"w"}); });
  EXPECT_EQ(error.code(), ErrorCode::FailedPrecondition);
  EXPECT_TRUE(contains(error.what(), "restored the checkpoint of step 40"))
      << error.what();

  EXPECT_EQ(client->restore(ps::RestoreSource::KeepRestored, 40, 1), 40);
  EXPECT_EQ(loads, 0); // kept, not read again
  EXPECT_EQ(first("w"), 5.0f);
  EXPECT_EQ(push("w", 40, 1.0f, 1).step, 41);
  // Keeping the start-up values is only for a task that does not serve.
  EXPECT_EQ(expectError([&] {
              client->restore(ps::RestoreSource::KeepRestored, 40, 2);
            }).code(),
            ErrorCode::FailedPrecondition);
}

TEST_F(RecoveryTest, InitializeServesPreloadedValuesToo) {
  startPs("ps_0", Replication::async());
  ps->task.preload(checkpointAt(8, 5.0f, 0.0f), 8);
  EXPECT_FALSE(client->initialize()); // had values
  EXPECT_EQ(first("w"), 5.0f);
  EXPECT_EQ(client->step(), 8);
}

TEST_F(RecoveryTest, PreloadRejectsACheckpointOfAnotherModel) {
  startPs("ps_1_sync", Replication::sync(2, 2));
  ModelState state = checkpointAt(3, 0, 0);
  state.values.erase("v/Momentum");
  try {
    ps->task.preload(std::move(state), 3);
    FAIL() << "no error";
  } catch (const std::invalid_argument &error) {
    EXPECT_TRUE(contains(error.what(), "no value of variable 'v/Momentum'"))
        << error.what();
  }
  ModelState wrong = checkpointAt(3, 0, 0);
  wrong.values["v"] = Tensor::filled(DType::F32, {3}, 0.0);
  EXPECT_THROW(ps->task.preload(std::move(wrong), 3), std::invalid_argument);
  EXPECT_FALSE(client->status().hasValues);
}

TEST_F(RecoveryTest, ASyncTaskWithoutGlobalStepCountsOnFromTheRestoredStep) {
  startPs("ps_1_sync", Replication::sync(2, 2));
  client->restore(ps::RestoreSource::InitialValues, -1, 1);
  push("v", 0, 1.0f, 1);
  push("v", 0, 1.0f, 1);
  ASSERT_EQ(client->step(), 1);
  // Rolled back to the checkpoint of global step 7: the workers' step tags
  // say 7 now, and so must the task, or it would queue their pushes as
  // future ones forever.
  EXPECT_EQ(client->restore(ps::RestoreSource::Checkpoint, 7, 2), 7);
  EXPECT_EQ(first("v"), 27.0f);
  EXPECT_EQ(push("v", 6, 1.0f, 2).outcome, ps::PushOutcome::Stale);
  EXPECT_EQ(push("v", 7, 1.0f, 2).outcome, ps::PushOutcome::Accumulated);
  ps::PushResult applied = push("v", 7, 3.0f, 2);
  EXPECT_EQ(applied.outcome, ps::PushOutcome::Applied);
  EXPECT_EQ(applied.step, 8);
  EXPECT_EQ(first("v"), 25.0f);
  ps::TaskStatus status = client->status();
  EXPECT_EQ(status.restoredFrom, 7);
  EXPECT_EQ(status.epoch, 2);
}

TEST_F(RecoveryTest, RestoreDropsPendingPushes) {
  startPs("ps_1_sync", Replication::sync(2, 2));
  client->restore(ps::RestoreSource::InitialValues, -1, 1);
  EXPECT_EQ(push("v", 0, 100.0f).outcome, ps::PushOutcome::Accumulated);
  EXPECT_EQ(push("v", 1, 100.0f).outcome, ps::PushOutcome::Queued);
  client->restore(ps::RestoreSource::Checkpoint, 0, 2);
  // Neither the accumulated nor the queued gradient survives: two fresh
  // pushes make the aggregate.
  EXPECT_EQ(push("v", 0, 1.0f).outcome, ps::PushOutcome::Accumulated);
  EXPECT_EQ(push("v", 0, 1.0f).outcome, ps::PushOutcome::Applied);
  EXPECT_EQ(first("v"), 19.0f); // 20 - 1
  EXPECT_EQ(push("v", 1, 1.0f).outcome, ps::PushOutcome::Accumulated);
}

TEST_F(RecoveryTest, PushesOfAnotherEpochAreRefusedAndNothingApplied) {
  startPs("ps_0", Replication::async());
  client->restore(ps::RestoreSource::InitialValues, -1, 1);
  int64_t epoch = 0;
  client->pull({"w"}, &epoch);
  EXPECT_EQ(epoch, 1);
  client->restore(ps::RestoreSource::Checkpoint, 5, 2);
  Error error = expectError([&] { push("w", 0, 1.0f, /*epoch=*/1); });
  EXPECT_EQ(error.code(), ErrorCode::Aborted);
  EXPECT_TRUE(contains(error.what(), "nothing applied")) << error.what();
  EXPECT_EQ(first("w"), 15.0f);
  EXPECT_EQ(client->step(), 5);
  EXPECT_EQ(push("w", 5, 1.0f, 2).outcome, ps::PushOutcome::Applied);
  EXPECT_EQ(first("w"), 14.0f);
}

TEST_F(RecoveryTest, ARestoreEndsWaitsOfTheOldEpoch) {
  startPs("ps_1_sync", Replication::sync(2, 2));
  client->restore(ps::RestoreSource::InitialValues, -1, 1);
  push("v", 0, 1.0f, 1);
  std::future<Error> waiter = std::async(std::launch::async, [&] {
    return expectError([&] { client->waitForStep(0, milliseconds(5'000), 1); });
  });
  EXPECT_EQ(waiter.wait_for(milliseconds(300)), std::future_status::timeout);
  client->restore(ps::RestoreSource::Checkpoint, 9, 2);
  ASSERT_EQ(waiter.wait_for(milliseconds(3'000)), std::future_status::ready);
  EXPECT_EQ(waiter.get().code(), ErrorCode::Aborted);
  // A wait of the new epoch works as before.
  EXPECT_EQ(client->waitForStep(8, milliseconds(100), 2), 9);
}

TEST_F(RecoveryTest, AFailedRestoreChangesNothing) {
  startPs("ps_1_sync", Replication::sync(2, 2));
  client->restore(ps::RestoreSource::Checkpoint, 4, 2);
  for (auto [step, why] :
       {std::pair<int64_t, const char *>{404, "cannot restore the checkpoint "
                                              "of step 404"},
        {13, "the checkpoint of step 13 has no value of variable "
             "'v/Momentum'"}}) {
    Error error = expectError(
        [&] { client->restore(ps::RestoreSource::Checkpoint, step, 3); });
    EXPECT_EQ(error.code(), ErrorCode::FailedPrecondition);
    EXPECT_TRUE(contains(error.what(), why)) << error.what();
  }
  EXPECT_EQ(first("v"), 24.0f);
  EXPECT_EQ(client->status().epoch, 2);
  // An older epoch is refused: a restore never goes back.
  EXPECT_EQ(expectError([&] {
              client->restore(ps::RestoreSource::InitialValues, -1, 1);
            }).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(expectError([&] {
              client->restore(ps::RestoreSource::InitialValues, -1, 0);
            }).code(),
            ErrorCode::InvalidArgument);
}

TEST_F(RecoveryTest, WithoutACheckpointDirectoryRestoreFails) {
  RunningPs bare(module.function("ps_0"), Replication::async());
  PsClient bareClient(bare.task.taskName(), bare.server.address(),
                      fastClientOptions());
  Error error = expectError(
      [&] { bareClient.restore(ps::RestoreSource::Checkpoint, 1, 1); });
  EXPECT_EQ(error.code(), ErrorCode::FailedPrecondition);
  EXPECT_TRUE(contains(error.what(), "--logdir")) << error.what();
  EXPECT_EQ(bareClient.restore(ps::RestoreSource::InitialValues, -1, 1), 0);
}

} // namespace
} // namespace dtf::rpc
