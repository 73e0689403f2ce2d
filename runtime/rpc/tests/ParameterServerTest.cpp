//===- ParameterServerTest.cpp - The PS service over real gRPC ------------===//
//
// Each test runs PS services on in-process servers at 127.0.0.1 with ports
// the OS picks, and talks to them through PsClient, twice: with Pull, Push
// and PushPull over the task's local socket (LocalTransport.h, what a
// worker on the PS task's host uses) and over gRPC (what one on another
// host uses). The PS functions are hand-written in the shape the
// replicate pass produces (runtime/ABI.md).
//
//===----------------------------------------------------------------------===//

#include "runtime/rpc/tests/RpcTestSupport.h"

#include "runtime/rpc/Channel.h"

#include "runtime/core/Initializers.h"

#include <grpcpp/generic/generic_stub.h>

#include <algorithm>
#include <future>
#include <mutex>
#include <thread>

namespace dtf::rpc {
namespace {

using namespace dtf::rpc::testing;
using std::chrono::milliseconds;

// Async PS task 0: w and b by gradient descent, and global_step. PS task 1:
// Adam on v, without global_step. Sync PS task 0 with two replicas per
// aggregate: averages the two groups. A 3.2 MB variable for streaming.
constexpr const char *kModule = R"mlir(
module {
  func.func @ps_0(%g_w: tensor<2x3xf32>, %g_b: tensor<3xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:0">,
                  dtf.gradients = ["w", "b"]} {
    %w = dtf.variable "w" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2x3xf32>>
    %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
    dtf.apply_gradient_descent %w, %g_w learning_rate 0.5 : !dtf.resource<tensor<2x3xf32>>
    dtf.apply_gradient_descent %b, %g_b learning_rate 0.5 : !dtf.resource<tensor<3xf32>>
    %one = dtf.constant dense<1> : tensor<i64>
    dtf.assign_add %step, %one : !dtf.resource<tensor<i64>>
    return
  }

  func.func @ps_1(%g_v: tensor<4xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:1">,
                  dtf.gradients = ["v"]} {
    %v = dtf.variable "v" init(#dtf.constant<1.0>) : !dtf.resource<tensor<4xf32>>
    %m = dtf.variable "v/Adam" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<4xf32>>
    %s = dtf.variable "v/Adam_1" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<4xf32>>
    %b1p = dtf.variable "beta1_power" init(#dtf.constant<0.9>) {trainable = false} : !dtf.resource<tensor<f32>>
    %b2p = dtf.variable "beta2_power" init(#dtf.constant<0.999>) {trainable = false} : !dtf.resource<tensor<f32>>
    %b1 = dtf.read %b1p : !dtf.resource<tensor<f32>>
    %b2 = dtf.read %b2p : !dtf.resource<tensor<f32>>
    dtf.apply_adam %v, %m, %s, %b1, %b2, %g_v learning_rate 0.1 beta1 0.9 beta2 0.999 epsilon 1.0e-8 : !dtf.resource<tensor<4xf32>>, tensor<f32>
    %beta1 = dtf.constant dense<0.9> : tensor<f32>
    %beta2 = dtf.constant dense<0.999> : tensor<f32>
    %nb1 = dtf.mul %b1, %beta1 : tensor<f32>, tensor<f32>
    %nb2 = dtf.mul %b2, %beta2 : tensor<f32>, tensor<f32>
    dtf.assign %b1p, %nb1 : !dtf.resource<tensor<f32>>
    dtf.assign %b2p, %nb2 : !dtf.resource<tensor<f32>>
    return
  }

  func.func @ps_0_sync(%g_w0: tensor<2x3xf32>, %g_b0: tensor<3xf32>,
                       %g_w1: tensor<2x3xf32>, %g_b1: tensor<3xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:0">,
                  dtf.gradients = ["w", "b"]} {
    %w = dtf.variable "w" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2x3xf32>>
    %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
    %half = dtf.constant dense<0.5> : tensor<f32>
    %sw = dtf.add %g_w0, %g_w1 : tensor<2x3xf32>, tensor<2x3xf32>
    %mw = dtf.mul %sw, %half : tensor<2x3xf32>, tensor<f32>
    %sb = dtf.add %g_b0, %g_b1 : tensor<3xf32>, tensor<3xf32>
    %mb = dtf.mul %sb, %half : tensor<3xf32>, tensor<f32>
    dtf.apply_gradient_descent %w, %mw learning_rate 1.0 : !dtf.resource<tensor<2x3xf32>>
    dtf.apply_gradient_descent %b, %mb learning_rate 1.0 : !dtf.resource<tensor<3xf32>>
    %one = dtf.constant dense<1> : tensor<i64>
    dtf.assign_add %step, %one : !dtf.resource<tensor<i64>>
    return
  }

  func.func @ps_broken(%g_w: tensor<2xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:3">,
                  dtf.gradients = ["w"]} {
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    dtf.apply_gradient_descent %w, %g_w learning_rate 1.0 : !dtf.resource<tensor<2xf32>>
    %x = dtf.placeholder "x" : tensor<2xf32>
    dtf.assign %w, %x : !dtf.resource<tensor<2xf32>>
    return
  }

  func.func @ps_table(%ids: tensor<?xi64>, %rows: tensor<?x2xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:4">,
                  dtf.gradients = [], dtf.sparse_gradients = ["table"]} {
    %table = dtf.variable "table" init(#dtf.constant<1.0>) : !dtf.resource<tensor<6x2xf32>>
    %accum = dtf.variable "table/Adagrad" init(#dtf.constant<1.0>) {trainable = false} : !dtf.resource<tensor<6x2xf32>>
    dtf.sparse_apply_adagrad %table, %accum[%ids], %rows learning_rate 1.0 : !dtf.resource<tensor<6x2xf32>>, tensor<?xi64>, tensor<?x2xf32>
    return
  }

  func.func @ps_dynamic(%ids: tensor<?xi64>, %rows: tensor<?x2xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:5">,
                  dtf.gradients = [], dtf.sparse_gradients = ["emb"]} {
    %emb = dtf.variable "emb" init(#dtf.truncated_normal<stddev = 0.5, seed = 3>) {dtf.dynamic_table = #dtf.dynamic_table<min_count = 2>} : !dtf.resource<tensor<?x2xf32>>
    %accum = dtf.variable "emb/Adagrad" init(#dtf.constant<1.0>) colocate_with("emb") {trainable = false} : !dtf.resource<tensor<?x2xf32>>
    dtf.sparse_apply_adagrad %emb, %accum[%ids], %rows learning_rate 1.0 : !dtf.resource<tensor<?x2xf32>>, tensor<?xi64>, tensor<?x2xf32>
    return
  }

  func.func @ps_big(%g_big: tensor<800x1000xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:2">,
                  dtf.gradients = ["big"]} {
    %big = dtf.variable "big" init(#dtf.constant<2.0>) : !dtf.resource<tensor<800x1000xf32>>
    dtf.apply_gradient_descent %big, %g_big learning_rate 0.5 : !dtf.resource<tensor<800x1000xf32>>
    return
  }
}
)mlir";

/// Whether the step's calls go over the local socket.
enum class Transport { Local, Grpc };

class ParameterServerTest : public ::testing::TestWithParam<Transport> {
protected:
  ParameterServerTest() : module(kModule) {}

  /// fastClientOptions() on the transport under test.
  ClientOptions transportOptions() const {
    ClientOptions options = fastClientOptions();
    options.localTransport = GetParam() == Transport::Local;
    return options;
  }

  /// Starts `function` on a server and connects a client to it.
  void startPs(const char *function, Replication replication,
               ServerOptions serverOptions = {"127.0.0.1:0"},
               ClientOptions clientOptions = fastClientOptions(),
               ps::Options psOptions = {}, exec::OpObserver opObserver = {}) {
    clientOptions.localTransport = GetParam() == Transport::Local;
    ps = std::make_unique<RunningPs>(module.function(function), replication,
                                     serverOptions, psOptions, opObserver);
    client = std::make_unique<PsClient>(ps->task.taskName(),
                                        ps->server.address(), clientOptions);
  }

  /// One replica's gradients of w and b, every element of each set to
  /// `w` and `b`.
  ps::PushResult pushWB(int64_t step, float w, float b) {
    Tensor gw = Tensor::filled(DType::F32, {2, 3}, w);
    Tensor gb = Tensor::filled(DType::F32, {3}, b);
    return client->push(step, {{"w", &gw}, {"b", &gb}});
  }

  std::vector<float> pullOne(const std::string &name) {
    return client->pull({name})[0].toVector<float>();
  }

  TestModule module;
  std::unique_ptr<RunningPs> ps;
  std::unique_ptr<PsClient> client;
};

TEST_P(ParameterServerTest, InitializeIsIdempotent) {
  startPs("ps_0", Replication::async());
  EXPECT_TRUE(client->initialize());
  EXPECT_FALSE(client->initialize());
  EXPECT_EQ(client->step(), 0);
}

TEST_P(ParameterServerTest, PullsAndPushesRoundTrip) {
  startPs("ps_0", Replication::async());
  client->initialize();
  std::vector<Tensor> values = client->pull({"w", "b", "global_step"});
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0].toVector<float>(), std::vector<float>(6, 1.0f));
  EXPECT_EQ(values[1].toVector<float>(), std::vector<float>(3, 0.0f));
  EXPECT_EQ(values[2].dtype(), DType::I64);

  ps::PushResult result = pushWB(/*step=*/0, 2.0f, 1.0f);
  EXPECT_EQ(result.outcome, ps::PushOutcome::Applied);
  EXPECT_EQ(result.step, 1);
  EXPECT_EQ(pullOne("w"), std::vector<float>(6, 0.0f));
  EXPECT_EQ(pullOne("b"), std::vector<float>(3, -0.5f));
  EXPECT_EQ(client->pull({"global_step"})[0].toVector<int64_t>(),
            std::vector<int64_t>{1});
}

TEST_P(ParameterServerTest, CountsTheBytesOfSuccessfulPullsAndPushes) {
  startPs("ps_0", Replication::async());
  client->initialize();
  EXPECT_EQ(client->transferStats().pulledBytes, 0u);
  client->pull({"w", "b"});
  ps::TransferStats afterPull = client->transferStats();
  EXPECT_EQ(afterPull.pulls, 1u);
  // 9 floats of data plus the chunk headers.
  EXPECT_GE(afterPull.pulledBytes, 36u);
  EXPECT_LT(afterPull.pulledBytes, 200u);
  pushWB(/*step=*/0, 1.0f, 1.0f);
  ps::TransferStats afterPush = client->transferStats();
  EXPECT_EQ(afterPush.pushes, 1u);
  EXPECT_GE(afterPush.pushedBytes, 36u);
  EXPECT_EQ(afterPush.pulledBytes, afterPull.pulledBytes);
  // A failed call counts nothing.
  expectError([&] { client->pull({"nope"}); });
  EXPECT_EQ(client->transferStats().pulls, 1u);
}

TEST_P(ParameterServerTest, AsyncAppliesEveryPushAtOnce) {
  startPs("ps_0", Replication::async(/*totalReplicas=*/3));
  client->initialize();
  // Async mode ignores the step tags: old and new pushes alike apply.
  for (int64_t tag : {0, 0, 5})
    EXPECT_EQ(pushWB(tag, 0.5f, 0.0f).outcome, ps::PushOutcome::Applied);
  EXPECT_EQ(client->step(), 3);
  EXPECT_EQ(pullOne("w"), std::vector<float>(6, 0.25f));
  EXPECT_EQ(ps->task.stats().appliedUpdates, 3);
  EXPECT_EQ(ps->task.stats().stalePushes, 0);
}

TEST_P(ParameterServerTest, ConcurrentAsyncPushesAreSerialized) {
  startPs("ps_0", Replication::async(/*totalReplicas=*/4));
  client->initialize();
  std::vector<std::thread> workers;
  for (int worker = 0; worker < 4; ++worker)
    workers.emplace_back([&] {
      for (int i = 0; i < 5; ++i)
        pushWB(0, 0.0f, 1.0f);
    });
  for (std::thread &worker : workers)
    worker.join();
  EXPECT_EQ(client->step(), 20);
  EXPECT_EQ(pullOne("b"), std::vector<float>(3, -10.0f));
}

TEST_P(ParameterServerTest, AppliesAdamOnATaskWithoutGlobalStep) {
  startPs("ps_1", Replication::async());
  client->initialize();
  Tensor gradient = Tensor::fromVector<float>({4}, {1.0f, -2.0f, 3.0f, 0.5f});
  ps::PushResult result = client->push(0, {{"v", &gradient}});
  // Without global_step the step counts the applied updates.
  EXPECT_EQ(result.step, 1);
  // Adam's first step moves every element by learning_rate against the sign
  // of its gradient.
  std::vector<float> v = pullOne("v");
  std::vector<float> expected = {0.9f, 1.1f, 0.9f, 0.9f};
  for (size_t i = 0; i < v.size(); ++i)
    EXPECT_NEAR(v[i], expected[i], 1e-5) << i;
  EXPECT_NEAR(client->pull({"beta1_power"})[0].scalarAsDouble(), 0.81, 1e-6);
}

TEST_P(ParameterServerTest, SyncAggregatesThenAppliesOnce) {
  startPs("ps_0_sync", Replication::sync(/*replicasToAggregate=*/2,
                                         /*totalReplicas=*/3));
  client->initialize();
  ps::PushResult first = pushWB(0, 1.0f, 2.0f);
  EXPECT_EQ(first.outcome, ps::PushOutcome::Accumulated);
  EXPECT_EQ(first.step, 0);
  EXPECT_EQ(pullOne("w"), std::vector<float>(6, 1.0f)) << "applied too early";

  ps::PushResult second = pushWB(0, 3.0f, 4.0f);
  EXPECT_EQ(second.outcome, ps::PushOutcome::Applied);
  EXPECT_EQ(second.step, 1);
  // The mean of the two groups, applied once with learning rate 1.
  EXPECT_EQ(pullOne("w"), std::vector<float>(6, -1.0f));
  EXPECT_EQ(pullOne("b"), std::vector<float>(3, -3.0f));
}

TEST_P(ParameterServerTest, SyncDropsStalePushes) {
  startPs("ps_0_sync", Replication::sync(2, 3));
  client->initialize();
  pushWB(0, 1.0f, 1.0f);
  pushWB(0, 1.0f, 1.0f);
  // The third (slowest) replica of step 0 arrives after the aggregate.
  ps::PushResult late = pushWB(0, 100.0f, 100.0f);
  EXPECT_EQ(late.outcome, ps::PushOutcome::Stale);
  EXPECT_EQ(late.step, 1);
  EXPECT_EQ(pullOne("w"), std::vector<float>(6, 0.0f));
  // And it does not count towards step 1's aggregate.
  EXPECT_EQ(pushWB(1, 1.0f, 1.0f).outcome, ps::PushOutcome::Accumulated);

  UpdateStats stats = ps->task.stats();
  EXPECT_EQ(stats.appliedUpdates, 1);
  EXPECT_EQ(stats.appliedPushes, 2);
  EXPECT_EQ(stats.stalePushes, 1);
}

TEST_P(ParameterServerTest, SyncFuturePushesWaitForTheirStep) {
  startPs("ps_0_sync", Replication::sync(2, 3));
  client->initialize();
  // A worker that saw step 1 elsewhere pushes here before this task got
  // there.
  EXPECT_EQ(pushWB(1, 2.0f, 0.0f).outcome, ps::PushOutcome::Queued);
  EXPECT_EQ(pushWB(1, 2.0f, 0.0f).outcome, ps::PushOutcome::Queued);
  EXPECT_EQ(client->step(), 0);
  EXPECT_EQ(pullOne("w"), std::vector<float>(6, 1.0f));

  // Completing step 0 admits the queued pushes, which complete step 1.
  EXPECT_EQ(pushWB(0, 1.0f, 0.0f).outcome, ps::PushOutcome::Accumulated);
  ps::PushResult result = pushWB(0, 1.0f, 0.0f);
  EXPECT_EQ(result.outcome, ps::PushOutcome::Applied);
  EXPECT_EQ(result.step, 2);
  EXPECT_EQ(pullOne("w"), std::vector<float>(6, -2.0f));
}

TEST_P(ParameterServerTest, SyncQueueOfFuturePushesIsBounded) {
  ps::Options psOptions;
  psOptions.maxQueuedPushes = 1;
  startPs("ps_0_sync", Replication::sync(2, 3), {"127.0.0.1:0"},
          fastClientOptions(), psOptions);
  client->initialize();
  EXPECT_EQ(pushWB(7, 1.0f, 1.0f).outcome, ps::PushOutcome::Queued);
  Error error = expectError([&] { pushWB(8, 1.0f, 1.0f); });
  EXPECT_EQ(error.code(), ErrorCode::ResourceExhausted);
  EXPECT_TRUE(contains(error.what(), "too many pushes for future steps"))
      << error.what();
}

TEST_P(ParameterServerTest, ATaskWhoseUpdateFailedServesNoMore) {
  startPs("ps_broken", Replication::async());
  client->initialize();
  Tensor gradient = Tensor::filled(DType::F32, {2}, 1.0);
  Error error = expectError([&] { client->push(0, {{"w", &gradient}}); });
  EXPECT_EQ(error.code(), ErrorCode::Internal);
  EXPECT_TRUE(contains(error.what(), "applying gradients failed, the variables "
                                     "may be partly updated"))
      << error.what();
  EXPECT_TRUE(contains(error.what(), "'x' is not fed")) << error.what();
  // Half-updated variables are not served.
  EXPECT_EQ(expectError([&] { client->pull({"w"}); }).code(),
            ErrorCode::Internal);
}

TEST_P(ParameterServerTest, TokenBarrierReleasesWaitersWhenTheStepPasses) {
  startPs("ps_0_sync", Replication::sync(2, 2));
  client->initialize();
  pushWB(0, 1.0f, 1.0f);
  std::future<int64_t> waiter = std::async(std::launch::async, [&] {
    return client->waitForStep(0, milliseconds(5'000));
  });
  EXPECT_EQ(waiter.wait_for(milliseconds(300)), std::future_status::timeout)
      << "released before the aggregate was applied";
  pushWB(0, 1.0f, 1.0f);
  ASSERT_EQ(waiter.wait_for(milliseconds(3'000)), std::future_status::ready);
  EXPECT_EQ(waiter.get(), 1);
  // A step already passed returns at once.
  EXPECT_EQ(client->waitForStep(0, milliseconds(100)), 1);
}

TEST_P(ParameterServerTest, TokenBarrierTimesOut) {
  startPs("ps_0_sync", Replication::sync(2, 2));
  client->initialize();
  auto start = std::chrono::steady_clock::now();
  Error error = expectError([&] { client->waitForStep(0, milliseconds(500)); });
  EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded) << error.what();
  EXPECT_TRUE(contains(error.what(), "WaitForStep failed")) << error.what();
  EXPECT_LT(secondsSince(start), 2.0);
}

TEST_P(ParameterServerTest, WrongShapeIsRejectedAndNothingApplied) {
  startPs("ps_0", Replication::async());
  client->initialize();
  Tensor gw = Tensor::filled(DType::F32, {3, 2}, 1.0);
  Tensor gb = Tensor::filled(DType::F32, {3}, 1.0);
  Error error = expectError([&] { client->push(0, {{"w", &gw}, {"b", &gb}}); });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  std::string message = error.what();
  EXPECT_TRUE(contains(message, "PS /job:ps/task:0 at 127.0.0.1:")) << message;
  EXPECT_TRUE(contains(message, "Push failed")) << message;
  EXPECT_TRUE(contains(message, "nothing applied")) << message;
  EXPECT_TRUE(contains(message, "'w' is f32[3,2]")) << message;
  EXPECT_TRUE(contains(message, "f32[2,3]")) << message;
  EXPECT_EQ(pullOne("w"), std::vector<float>(6, 1.0f));
  EXPECT_EQ(pullOne("b"), std::vector<float>(3, 0.0f));
  EXPECT_EQ(client->step(), 0);

  // A wrong dtype as well.
  Tensor intW(DType::I32, {2, 3});
  error = expectError([&] { client->push(0, {{"w", &intW}, {"b", &gb}}); });
  EXPECT_TRUE(contains(error.what(), "'w' is i32[2,3] but variable 'w' is "
                                     "f32[2,3]"))
      << error.what();
}

TEST_P(ParameterServerTest, SyncRejectsAPushWhoseLastGradientIsWrong) {
  startPs("ps_0_sync", Replication::sync(2, 2));
  client->initialize();
  Tensor gw = Tensor::filled(DType::F32, {2, 3}, 1.0);
  Tensor gb = Tensor::filled(DType::F32, {4}, 1.0);
  EXPECT_EQ(expectError([&] {
              client->push(0, {{"w", &gw}, {"b", &gb}});
            }).code(),
            ErrorCode::InvalidArgument);
  // Its valid first gradient was not accumulated either: one good push
  // does not complete the aggregate.
  EXPECT_EQ(pushWB(0, 1.0f, 1.0f).outcome, ps::PushOutcome::Accumulated);
  EXPECT_EQ(client->step(), 0);
}

TEST_P(ParameterServerTest, RejectsWrongNamesOrderAndCount) {
  startPs("ps_0", Replication::async());
  client->initialize();
  Tensor gw = Tensor::filled(DType::F32, {2, 3}, 1.0);
  Tensor gb = Tensor::filled(DType::F32, {3}, 1.0);
  auto failure = [&](std::vector<TensorRef> gradients) {
    return std::string(expectError([&] { client->push(0, gradients); }).what());
  };
  EXPECT_TRUE(contains(failure({{"b", &gb}, {"w", &gw}}),
                       "the gradient of 'b' comes at position 0, where 'w' "
                       "belongs"));
  EXPECT_TRUE(contains(failure({{"nope", &gw}, {"b", &gb}}),
                       "'nope' is not a variable of the task"));
  EXPECT_TRUE(contains(failure({{"global_step", &gw}}),
                       "variable 'global_step' takes no gradients"));
  EXPECT_TRUE(
      contains(failure({{"w", &gw}}), "the gradient of 'b' is missing"));
  EXPECT_TRUE(
      contains(failure({{"w", &gw}, {"b", &gb}, {"b", &gb}}), "'b' is extra"));
  EXPECT_EQ(client->step(), 0);
}

TEST_P(ParameterServerTest, PullOfAnUnknownVariableIsNotFound) {
  startPs("ps_0", Replication::async());
  client->initialize();
  Error error = expectError([&] { client->pull({"w", "missing"}); });
  EXPECT_EQ(error.code(), ErrorCode::NotFound);
  EXPECT_TRUE(contains(error.what(), "no variable 'missing'")) << error.what();
  EXPECT_TRUE(contains(error.what(), "it holds b, global_step, w"))
      << error.what();
}

TEST_P(ParameterServerTest, CallsBeforeInitializationFailPrecondition) {
  startPs("ps_0", Replication::async());
  EXPECT_EQ(expectError([&] { client->pull({"w"}); }).code(),
            ErrorCode::FailedPrecondition);
  EXPECT_EQ(expectError([&] { pushWB(0, 1.0f, 1.0f); }).code(),
            ErrorCode::FailedPrecondition);
}

TEST_P(ParameterServerTest, PullsAndPushesTensorsOfMegabytesInOneMessage) {
  // 3.2 MB: gRPC receives it in many slices, which the decoder reads as
  // they are.
  startPs("ps_big", Replication::async());
  client->initialize();
  std::vector<Tensor> values = client->pull({"big"});
  EXPECT_EQ(values[0].shape(), (Shape{800, 1000}));
  EXPECT_EQ(values[0].toVector<float>(), std::vector<float>(800'000, 2.0f));

  Tensor gradient(DType::F32, {800, 1000});
  for (int64_t i = 0; i < gradient.numElements(); ++i)
    gradient.data<float>()[i] = static_cast<float>(i % 7);
  EXPECT_EQ(client->push(0, {{"big", &gradient}}).outcome,
            ps::PushOutcome::Applied);
  // Every element: the PS applied the gradient from the slices gRPC
  // received, in place where they allowed it.
  std::vector<float> updated = pullOne("big");
  size_t wrong = 0;
  for (size_t i = 0; i < updated.size(); ++i)
    wrong += updated[i] != 2.0f - 0.5f * static_cast<float>(i % 7);
  EXPECT_EQ(wrong, 0u);
}

TEST_P(ParameterServerTest, MessagesBeyondTheLimitFailWithAStatus) {
  // Both sides accept at most 2 MiB per message; the variable is 3.2 MB.
  ServerOptions serverOptions{"127.0.0.1:0"};
  serverOptions.maxMessageBytes = 2 << 20;
  ClientOptions clientOptions = transportOptions();
  clientOptions.maxMessageBytes = 2 << 20;
  startPs("ps_big", Replication::async(), serverOptions, clientOptions);
  client->initialize();
  Error pull = expectError([&] { client->pull({"big"}); });
  EXPECT_EQ(pull.code(), ErrorCode::ResourceExhausted) << pull.what();
  EXPECT_TRUE(contains(pull.what(), "larger than max")) << pull.what();

  // A client that allows itself more than the server accepts.
  ClientOptions unlimited = transportOptions();
  PsClient careless(ps->task.taskName(), ps->server.address(), unlimited);
  Tensor gradient = Tensor::filled(DType::F32, {800, 1000}, 1.0);
  Error push = expectError([&] { careless.push(0, {{"big", &gradient}}); });
  EXPECT_EQ(push.code(), ErrorCode::ResourceExhausted) << push.what();
  EXPECT_EQ(client->step(), 0);
}

TEST_P(ParameterServerTest, MalformedMessageIsRejectedWithAStatus) {
  startPs("ps_0", Replication::async());
  client->initialize();
  // Field 1, length-delimited, with a length far past the end: not a
  // parseable WaitForStepRequest.
  const char garbage[] = "\x0a\xff\xff\xff\xff\x0f";
  grpc::Slice slice(garbage, sizeof(garbage) - 1);
  grpc::ByteBuffer request(&slice, 1), response;
  grpc::GenericStub stub(
      createChannel(ps->server.address(), fastClientOptions()));
  grpc::ClientContext context;
  setTimeout(context, milliseconds(2'000));
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/dtf.rpc.ParameterServer/WaitForStep",
                 grpc::StubOptions(), &request, &response,
                 [&](grpc::Status status) { done.set_value(status); });
  grpc::Status status = done.get_future().get();
  // gRPC answers a request it cannot parse with INTERNAL; the handler never
  // sees it.
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL);
  // The server goes on serving.
  EXPECT_EQ(client->step(), 0);
}

TEST_P(ParameterServerTest, RejectsAFunctionThatDoesNotFitTheMode) {
  // ps_0 takes one group of gradients; sync with two replicas needs two.
  EXPECT_THROW(ps::ParameterServer(
                   std::make_unique<exec::PsProgram>(module.function("ps_0")),
                   Replication::sync(2, 2)),
               std::invalid_argument);
}

TEST_P(ParameterServerTest, RefusesVariablesThatDoNotFitInMemory) {
  // ps_big's one variable is 3.2 MB; with 3 MB left the task is refused,
  // with a message that names the variable and its bytes, before it
  // allocates anything.
  ps::Options options;
  options.availableMemory = 3'000'000;
  try {
    ps::ParameterServer(
        std::make_unique<exec::PsProgram>(module.function("ps_big")),
        Replication::async(), options);
    FAIL() << "no error";
  } catch (const std::invalid_argument &error) {
    EXPECT_EQ(std::string(error.what()),
              "PS task /job:ps/task:2: variable 'big' (f32[800,1000]) needs "
              "3200000 bytes (3.2 MB); the variables of the task need 3.2 MB "
              "in all, more than the 3.0 MB of memory this task can allocate");
  }
  options.availableMemory = 3'200'000;
  EXPECT_NO_THROW(ps::ParameterServer(
      std::make_unique<exec::PsProgram>(module.function("ps_big")),
      Replication::async(), options));
}

TEST_P(ParameterServerTest, TwoTasksServeTheirOwnVariables) {
  RunningPs ps0(module.function("ps_0"), Replication::async());
  RunningPs ps1(module.function("ps_1"), Replication::async());
  PsClient client0("/job:ps/task:0", ps0.server.address(), transportOptions());
  PsClient client1("/job:ps/task:1", ps1.server.address(), transportOptions());
  client0.initialize();
  client1.initialize();
  EXPECT_EQ(client1.pull({"v"})[0].toVector<float>(),
            std::vector<float>(4, 1.0f));
  EXPECT_EQ(expectError([&] { client1.pull({"w"}); }).code(),
            ErrorCode::NotFound);
}

// Observability hooks (dtf-run --trace): every op of each update, then the
// update itself with the step it reached.
TEST_P(ParameterServerTest, ObserverHooksSeeEachUpdate) {
  std::mutex opsMutex; // The executor runs ops on several threads.
  std::vector<std::string> ops;
  std::vector<int64_t> appliedSteps;
  ps::Options psOptions;
  exec::OpObserver opObserver = [&](mlir::Operation *op,
                                    std::chrono::steady_clock::time_point begin,
                                    std::chrono::steady_clock::time_point end) {
    EXPECT_LE(begin, end);
    std::lock_guard<std::mutex> lock(opsMutex);
    ops.push_back(op->getName().getStringRef().str());
  };
  psOptions.onApplied = [&](int64_t step,
                            std::chrono::steady_clock::time_point begin,
                            std::chrono::steady_clock::time_point end) {
    EXPECT_LE(begin, end);
    appliedSteps.push_back(step);
  };
  startPs("ps_0", Replication::async(), {"127.0.0.1:0"}, fastClientOptions(),
          psOptions, opObserver);
  client->initialize();
  pushWB(0, 1.0f, 1.0f);
  pushWB(1, 1.0f, 1.0f);
  EXPECT_EQ(appliedSteps, (std::vector<int64_t>{1, 2}));
  // Each run of @ps_0 updates w, b and the global step; its variables and
  // constant are prepared once, before the first update.
  std::sort(ops.begin(), ops.end());
  EXPECT_EQ(ops, (std::vector<std::string>{
                     "dtf.apply_gradient_descent", "dtf.apply_gradient_descent",
                     "dtf.apply_gradient_descent", "dtf.apply_gradient_descent",
                     "dtf.assign_add", "dtf.assign_add"}));
}

// An embedding table: a worker pulls the rows of its ids only and pushes
// the rows of its sparse gradient; Adagrad updates those rows and their
// accumulators, nothing else.
TEST_P(ParameterServerTest, PullsRowsAndAppliesSparseGradients) {
  startPs("ps_table", Replication::async());
  client->initialize();
  ps::RowRequest request;
  request.name = "table";
  request.ids = Tensor::fromVector<int64_t>({3}, {4, 0, 4});
  std::vector<ps::RowRequest> requests;
  requests.push_back(std::move(request));
  std::vector<Tensor> rows = client->pullRows(requests);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(rows[0].toVector<float>(), std::vector<float>(6, 1.0f));

  // accum = 1 + 3^2 = 10 and row -= 3 / sqrt(10) where the gradient is 3.
  Tensor ids = Tensor::fromVector<int64_t>({2}, {1, 5});
  Tensor gradient = Tensor::fromVector<float>({2, 2}, {3, 3, 0, 0});
  ps::PushResult result =
      client->push(0, {{"table", &ids}, {"table", &gradient}});
  EXPECT_EQ(result.outcome, ps::PushOutcome::Applied);
  std::vector<float> table = pullOne("table");
  float moved = 1.0f - 3.0f / std::sqrt(10.0f);
  std::vector<float> expected(12, 1.0f);
  expected[2] = expected[3] = moved;
  for (size_t i = 0; i < table.size(); ++i)
    EXPECT_NEAR(table[i], expected[i], 1e-6) << "element " << i;
  std::vector<float> accum = pullOne("table/Adagrad");
  EXPECT_FLOAT_EQ(accum[2], 10.0f);
  EXPECT_FLOAT_EQ(accum[10], 1.0f);
}

// A dynamic table (min_count 2): raw 63-bit ids, rows pulled before their
// creation are their initializer's, the second push carrying an id creates
// its row and Adagrad's accumulator row and updates both; a snapshot holds
// the created rows with their ids.
TEST_P(ParameterServerTest, DynamicTablesCreateRowsForRawIds) {
  startPs("ps_dynamic", Replication::async());
  client->initialize();
  const int64_t bigId = (int64_t(1) << 62) + 5;
  auto pullRowsOf = [&](const std::string &name) {
    std::vector<ps::RowRequest> requests(1);
    requests[0].name = name;
    requests[0].ids = Tensor::fromVector<int64_t>({2}, {bigId, 7});
    return client->pullRows(requests).at(0).toVector<float>();
  };
  Tensor initial(DType::F32, {2, 2});
  initializers::truncated_normal_rows(
      initial, Tensor::fromVector<int64_t>({2}, {bigId, 7}), 0.0, 0.5, 3);
  EXPECT_EQ(pullRowsOf("emb"), initial.toVector<float>());

  Tensor ids = Tensor::fromVector<int64_t>({1}, {bigId});
  Tensor gradient = Tensor::fromVector<float>({1, 2}, {3, 3});
  client->push(0, {{"emb", &ids}, {"emb", &gradient}});
  EXPECT_EQ(pullRowsOf("emb"), initial.toVector<float>()) << "min_count 2";
  client->push(0, {{"emb", &ids}, {"emb", &gradient}});
  std::vector<float> rows = pullRowsOf("emb");
  std::vector<float> expected = initial.toVector<float>();
  for (int k = 0; k < 2; ++k) // accum = 1 + 3^2, row -= 3 / sqrt(10)
    EXPECT_NEAR(rows[k], expected[k] - 3.0f / std::sqrt(10.0f), 1e-6);
  EXPECT_EQ(std::vector<float>(rows.begin() + 2, rows.end()),
            std::vector<float>(expected.begin() + 2, expected.end()));
  EXPECT_EQ(pullRowsOf("emb/Adagrad"), (std::vector<float>{10, 10, 1, 1}));

  ps::Snapshot snapshot = ps->task.snapshot();
  std::map<std::string, std::vector<int64_t>> ids64;
  for (const NamedTensor &tensor : snapshot.tensors)
    if (tensor.name == "emb/ids")
      ids64[tensor.name] = tensor.tensor.toVector<int64_t>();
  EXPECT_EQ(ids64["emb/ids"], (std::vector<int64_t>{bigId}));
  ps::DynamicTableStats stats = ps->task.stats().dynamicTables.at(0);
  EXPECT_EQ(stats.rows, 1);
  EXPECT_EQ(stats.droppedIds, 1);
}

TEST_P(ParameterServerTest, RowsOutsideATableAreAClearError) {
  startPs("ps_table", Replication::async());
  client->initialize();
  auto expectRowsError = [&](const std::string &name, Tensor ids,
                             ErrorCode code,
                             std::vector<std::string> fragments) {
    std::vector<ps::RowRequest> requests(1);
    requests[0].name = name;
    requests[0].ids = std::move(ids);
    Error error = expectError([&] { client->pullRows(requests); });
    EXPECT_EQ(error.code(), code) << error.what();
    for (const std::string &fragment : fragments)
      EXPECT_TRUE(contains(error.what(), fragment))
          << error.what() << " lacks " << fragment;
  };
  expectRowsError("table", Tensor::fromVector<int64_t>({2}, {1, 6}),
                  ErrorCode::InvalidArgument,
                  {"rows of 'table'", "id 6", "[0, 6)"});
  expectRowsError("table", Tensor::fromVector<int64_t>({1, 1}, {1}),
                  ErrorCode::InvalidArgument, {"row ids are 1-D"});
  expectRowsError("nope", Tensor::fromVector<int64_t>({1}, {1}),
                  ErrorCode::NotFound, {"no variable 'nope'"});
  // A sparse gradient whose rows are not the table's is refused whole.
  Tensor ids = Tensor::fromVector<int64_t>({1}, {1});
  Tensor rows = Tensor::fromVector<float>({1, 3}, {1, 1, 1});
  Error error = expectError([&] {
    client->push(0, {{"table", &ids}, {"table", &rows}});
  });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(error.what(), "the gradient of 'table' is f32[1,3] "
                                     "but variable 'table' is f32[-1,2]"))
      << error.what();
  EXPECT_EQ(pullOne("table"), std::vector<float>(12, 1.0f));
}

TEST_P(ParameterServerTest, StepCallsTakeTheTransportUnderTest) {
  startPs("ps_0", Replication::async());
  client->initialize();
  EXPECT_EQ(client->usesLocalTransport(), GetParam() == Transport::Local);
}

INSTANTIATE_TEST_SUITE_P(Transports, ParameterServerTest,
                         ::testing::Values(Transport::Local, Transport::Grpc),
                         [](const ::testing::TestParamInfo<Transport> &info) {
                           return info.param == Transport::Local ? "Local"
                                                                 : "Grpc";
                         });

} // namespace
} // namespace dtf::rpc
