//===- CoordinationTest.cpp - Start-up rendezvous and end of training -----===//

#include "runtime/rpc/tests/RpcTestSupport.h"

#include "runtime/rpc/CoordinationClient.h"
#include "runtime/rpc/CoordinationService.h"

#include <future>
#include <thread>

namespace dtf::rpc {
namespace {

using namespace dtf::rpc::testing;
using std::chrono::milliseconds;

/// A coordination service alone on a server.
struct RunningCoordinator {
  explicit RunningCoordinator(CoordinationOptions options)
      : service(std::move(options)), server(ServerOptions{"127.0.0.1:0"}) {
    server.addService(service);
    server.start();
  }
  CoordinationService service;
  Server server;
};

CoordinationOptions cluster(int numPs, int numWorkers,
                            milliseconds heartbeatTimeout = milliseconds(
                                10'000)) {
  CoordinationOptions options;
  options.numPsTasks = numPs;
  options.numWorkers = numWorkers;
  options.heartbeatTimeout = heartbeatTimeout;
  return options;
}

TEST(CoordinationTest, RegistersTasksOfTheCluster) {
  RunningCoordinator coordinator(cluster(2, 2));
  CoordinationClient client(coordinator.server.address(), fastClientOptions());
  client.waitUntilReachable();
  Registration registration = client.registerTask("worker", 1);
  EXPECT_FALSE(registration.initialized);
  EXPECT_FALSE(registration.stopRequested);
  client.registerTask("ps", 1);
  // A restarted task registers again.
  client.registerTask("worker", 1);

  RpcError error = expectRpcError([&] { client.registerTask("worker", 2); });
  EXPECT_EQ(error.code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(contains(error.what(), "no task /job:worker/task:2 in a cluster "
                                     "of 2 worker task(s)"))
      << error.what();
  EXPECT_EQ(expectRpcError([&] { client.registerTask("chief", 0); }).code(),
            grpc::StatusCode::INVALID_ARGUMENT);
}

TEST(CoordinationTest, WaitInitializedBlocksUntilTheChiefMarksIt) {
  RunningCoordinator coordinator(cluster(1, 2));
  CoordinationClient chief(coordinator.server.address(), fastClientOptions());
  CoordinationClient worker(coordinator.server.address(), fastClientOptions());
  std::future<void> waiting = std::async(std::launch::async, [&] {
    worker.waitInitialized(milliseconds(5'000));
  });
  // Longer than a wait slice: the client keeps asking.
  EXPECT_EQ(waiting.wait_for(milliseconds(500)), std::future_status::timeout);
  chief.markInitialized();
  ASSERT_EQ(waiting.wait_for(milliseconds(3'000)), std::future_status::ready);
  waiting.get();
  EXPECT_TRUE(worker.registerTask("worker", 1).initialized);
}

TEST(CoordinationTest, WaitInitializedTimesOut) {
  RunningCoordinator coordinator(cluster(1, 2));
  CoordinationClient worker(coordinator.server.address(), fastClientOptions());
  auto start = std::chrono::steady_clock::now();
  RpcError error =
      expectRpcError([&] { worker.waitInitialized(milliseconds(400)); });
  EXPECT_EQ(error.code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_TRUE(contains(error.what(), "WaitInitialized failed")) << error.what();
  EXPECT_TRUE(contains(error.what(), "not initialized")) << error.what();
  EXPECT_LT(secondsSince(start), 2.0);
}

TEST(CoordinationTest, StopReleasesWaitersForInitialization) {
  RunningCoordinator coordinator(cluster(1, 2));
  CoordinationClient chief(coordinator.server.address(), fastClientOptions());
  CoordinationClient worker(coordinator.server.address(), fastClientOptions());
  std::future<void> waiting = std::async(std::launch::async, [&] {
    worker.waitInitialized(milliseconds(5'000));
  });
  std::this_thread::sleep_for(milliseconds(100));
  chief.stop("the chief failed to initialize");
  ASSERT_EQ(waiting.wait_for(milliseconds(3'000)), std::future_status::ready);
  RpcError error = expectRpcError([&] { waiting.get(); });
  EXPECT_EQ(error.code(), grpc::StatusCode::ABORTED);
  EXPECT_TRUE(contains(error.what(), "the chief failed to initialize"))
      << error.what();
}

TEST(CoordinationTest, HeartbeatsAnswerStopOnceTrainingIsOver) {
  RunningCoordinator coordinator(cluster(1, 2));
  CoordinationClient client(coordinator.server.address(), fastClientOptions());
  EXPECT_FALSE(client.heartbeat("worker", 1));
  client.stop("done");
  EXPECT_TRUE(client.heartbeat("worker", 1));
  EXPECT_TRUE(client.registerTask("worker", 1).stopRequested);

  HeartbeatSender sender(client, "worker", 0, milliseconds(20));
  for (int i = 0; i < 100 && !sender.stopRequested(); ++i)
    std::this_thread::sleep_for(milliseconds(10));
  EXPECT_TRUE(sender.stopRequested());
  EXPECT_FALSE(sender.lastError());
}

TEST(CoordinationTest, AKilledWorkerDoesNotBlockTheEnd) {
  // Worker 0 is the chief, worker 1 trains a while longer and keeps sending
  // heartbeats, worker 2 registered and then died.
  RunningCoordinator coordinator(cluster(1, 3, milliseconds(400)));
  std::string address = coordinator.server.address();
  CoordinationClient chief(address, fastClientOptions());
  CoordinationClient slow(address, fastClientOptions());
  CoordinationClient killed(address, fastClientOptions());
  chief.registerTask("worker", 0);
  slow.registerTask("worker", 1);
  killed.registerTask("worker", 2);

  auto start = std::chrono::steady_clock::now();
  std::future<void> slowWorker = std::async(std::launch::async, [&] {
    HeartbeatSender heartbeats(slow, "worker", 1, milliseconds(100));
    std::this_thread::sleep_for(milliseconds(900));
    slow.workerDone(1);
  });
  chief.workerDone(0);
  WorkerStates states = chief.waitWorkersDone(milliseconds(5'000));
  double waited = secondsSince(start);
  slowWorker.get();

  EXPECT_EQ(states.done, (std::vector<int>{0, 1}));
  EXPECT_EQ(states.lost, std::vector<int>{2});
  // Worker 1's heartbeats kept it running past the heartbeat timeout.
  EXPECT_GE(waited, 0.8);
  EXPECT_LT(waited, 3.0);
}

TEST(CoordinationTest, AWorkerThatNeverRegisteredIsLostAfterTheTimeout) {
  RunningCoordinator coordinator(cluster(1, 2, milliseconds(300)));
  CoordinationClient chief(coordinator.server.address(), fastClientOptions());
  chief.workerDone(0);
  WorkerStates states = chief.waitWorkersDone(milliseconds(3'000));
  EXPECT_EQ(states.done, std::vector<int>{0});
  EXPECT_EQ(states.lost, std::vector<int>{1});
}

TEST(CoordinationTest, WaitWorkersDoneTimesOutWhileWorkersRun) {
  RunningCoordinator coordinator(cluster(1, 2, milliseconds(10'000)));
  CoordinationClient chief(coordinator.server.address(), fastClientOptions());
  chief.workerDone(0);
  RpcError error =
      expectRpcError([&] { chief.waitWorkersDone(milliseconds(300)); });
  EXPECT_EQ(error.code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_TRUE(contains(error.what(), "worker(s) 1 are still running"))
      << error.what();
}

TEST(CoordinationTest, GlobalStepComesFromItsSource) {
  CoordinationOptions options = cluster(1, 1);
  options.globalStep = [] { return int64_t(41); };
  RunningCoordinator coordinator(options);
  CoordinationClient client(coordinator.server.address(), fastClientOptions());
  EXPECT_EQ(client.globalStep(), 41);

  RunningCoordinator withoutSource(cluster(1, 1));
  CoordinationClient other(withoutSource.server.address(), fastClientOptions());
  EXPECT_EQ(expectRpcError([&] { other.globalStep(); }).code(),
            grpc::StatusCode::UNIMPLEMENTED);
}

TEST(CoordinationTest, ADeadCoordinatorIsAClearError) {
  auto coordinator = std::make_unique<RunningCoordinator>(cluster(1, 1));
  std::string address = coordinator->server.address();
  CoordinationClient client(address, fastClientOptions());
  client.registerTask("worker", 0);
  coordinator.reset();
  RpcError error = expectRpcError([&] { client.heartbeat("worker", 0); });
  EXPECT_EQ(error.code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(std::string(error.what())
                .rfind("coordinator /job:ps/task:0 at " + address +
                           ": Heartbeat failed: ",
                       0),
            0u)
      << error.what();
}

// The whole protocol of runtime/rpc/README.md with two PS tasks and two
// workers, PS task 0 hosting the coordinator beside its variables.
constexpr const char *kTwoPsModule = R"mlir(
module {
  func.func @ps_0(%g_a: tensor<2xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:0">,
                  dtf.gradients = ["a"]} {
    %a = dtf.variable "a" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2xf32>>
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
    dtf.apply_gradient_descent %a, %g_a learning_rate 1.0 : !dtf.resource<tensor<2xf32>>
    %one = dtf.constant dense<1> : tensor<i64>
    dtf.assign_add %step, %one : !dtf.resource<tensor<i64>>
    return
  }
  func.func @ps_1(%g_b: tensor<3xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:1">,
                  dtf.gradients = ["b"]} {
    %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
    dtf.apply_gradient_descent %b, %g_b learning_rate 1.0 : !dtf.resource<tensor<3xf32>>
    return
  }
}
)mlir";

TEST(CoordinationTest, TheChiefStopsEveryPsTaskAfterTraining) {
  TestModule module(kTwoPsModule);
  // PS task 0: its variables and the coordinator on one server.
  Server server0(ServerOptions{"127.0.0.1:0"});
  ps::ParameterServer task0(
      std::make_unique<exec::PsProgram>(module.function("ps_0")),
      Replication::async(2));
  ParameterServerService ps0(task0, [&] { server0.requestStop(); });
  CoordinationOptions options = cluster(2, 2);
  options.globalStep = [&] { return task0.currentStep(); };
  CoordinationService coordination(options);
  server0.addService(ps0);
  server0.addService(coordination);
  server0.start();
  RunningPs ps1(module.function("ps_1"), Replication::async(2));

  ClientOptions clientOptions = fastClientOptions();
  auto runWorker = [&](int index) {
    CoordinationClient coordinator(server0.address(), clientOptions);
    coordinator.waitUntilReachable();
    coordinator.registerTask("worker", index);
    PsClient task0("/job:ps/task:0", server0.address(), clientOptions);
    PsClient task1("/job:ps/task:1", ps1.server.address(), clientOptions);
    if (index == 0) {
      task0.initialize();
      task1.initialize();
      coordinator.markInitialized();
    } else {
      coordinator.waitInitialized(milliseconds(5'000));
    }
    HeartbeatSender heartbeats(coordinator, "worker", index, milliseconds(50));
    for (int step = 0; step < 3; ++step) {
      Tensor ga = Tensor::filled(DType::F32, {2}, 0.5);
      Tensor gb = Tensor::filled(DType::F32, {3}, 1.0);
      int64_t globalStep = coordinator.globalStep();
      task0.push(globalStep, {{"a", &ga}});
      task1.push(globalStep, {{"b", &gb}});
    }
    coordinator.workerDone(index);
    if (index == 0) {
      WorkerStates states = coordinator.waitWorkersDone(milliseconds(5'000));
      EXPECT_EQ(states.done, (std::vector<int>{0, 1}));
      coordinator.stop("training finished");
      // PS task 0 last: it hosts the coordinator.
      task1.stop("training finished");
      task0.stop("training finished");
    }
  };
  std::future<void> worker1 = std::async(std::launch::async, runWorker, 1);
  runWorker(0);
  worker1.get();

  server0.wait();
  ps1.server.wait();
  EXPECT_TRUE(coordination.stopRequested());
  EXPECT_EQ(task0.currentStep(), 6);
}

} // namespace
} // namespace dtf::rpc
