//===- WorkerServiceTest.cpp - Partitions across worker services ----------===//
//
// Three worker services on 127.0.0.1, each on a port the OS picks, run the
// partitions of one function; their results must equal the whole function's
// under the reference interpreter.
//
//===----------------------------------------------------------------------===//

#include "RpcTestSupport.h"

#include "runtime/exec/Interpreter.h"
#include "runtime/exec/TestModules.h"
#include "runtime/rpc/WorkerClient.h"
#include "runtime/rpc/WorkerService.h"

#include <memory>
#include <thread>

namespace dtf::rpc {
namespace {

using namespace std::chrono_literals;
using testing::contains;
using testing::expectRpcError;
using testing::fastClientOptions;
using testing::secondsSince;

std::string taskName(int task) {
  return "/job:worker/task:" + std::to_string(task);
}

/// A worker service on its own server.
struct RunningWorker {
  RunningWorker(WorkerServiceOptions options)
      : service(std::move(options)), server(ServerOptions{"127.0.0.1:0"}) {
    server.addService(service, [this] { service.beginShutdown(); });
    server.start();
  }

  // The server goes first: it calls the service while stopping.
  WorkerService service;
  Server server;
};

/// What one step returned on each task.
struct StepOutcome {
  std::vector<std::vector<Tensor>> results;
  std::vector<std::exception_ptr> errors;
};

class WorkerServiceTest : public ::testing::Test {
protected:
  /// Starts `numTasks` workers that know each other.
  void startWorkers(int numTasks, size_t chunkBytes = kDefaultChunkBytes) {
    for (int task = 0; task < numTasks; ++task) {
      WorkerServiceOptions options;
      options.taskName = taskName(task);
      options.client = fastClientOptions();
      options.numThreads = 2;
      options.chunkBytes = chunkBytes;
      workers.push_back(std::make_unique<RunningWorker>(options));
    }
    for (int task = 0; task < numTasks; ++task) {
      for (int peer = 0; peer < numTasks; ++peer)
        if (peer != task)
          workers[task]->service.setPeerAddress(
              taskName(peer), workers[peer]->server.address());
      clients.push_back(std::make_unique<WorkerClient>(
          taskName(task), workers[task]->server.address(),
          fastClientOptions()));
    }
  }

  /// Runs step `stepId` of graph `<prefix>_worker_<task>` on every task at
  /// once, as a chief would, feeding task 0. A failed step is cleaned up
  /// everywhere.
  StepOutcome runStep(const std::string &prefix, int64_t stepId,
                      const exec::FeedMap &feeds,
                      std::chrono::milliseconds timeout = 10s,
                      int numTasks = -1) {
    if (numTasks < 0)
      numTasks = clients.size();
    const exec::FeedMap noFeeds;
    StepOutcome outcome;
    outcome.results.resize(numTasks);
    outcome.errors.resize(numTasks);
    std::vector<std::thread> threads;
    for (int task = 0; task < numTasks; ++task)
      threads.emplace_back([&, task] {
        try {
          outcome.results[task] = clients[task]->runStep(
              prefix + "_worker_" + std::to_string(task), stepId,
              task == 0 ? feeds : noFeeds, {}, timeout);
        } catch (...) {
          outcome.errors[task] = std::current_exception();
        }
      });
    for (std::thread &thread : threads)
      thread.join();
    for (std::exception_ptr &error : outcome.errors)
      if (error) {
        for (int task = 0; task < numTasks; ++task)
          try {
            clients[task]->cleanupStep(stepId);
          } catch (const RpcError &) {
            // A dead task holds nothing.
          }
        break;
      }
    return outcome;
  }

  void registerPartitions(const char *module, const std::string &prefix) {
    for (size_t task = 0; task < clients.size(); ++task)
      clients[task]->registerGraph(
          module, {prefix + "_worker_" + std::to_string(task)});
  }

  std::vector<std::unique_ptr<RunningWorker>> workers;
  std::vector<std::unique_ptr<WorkerClient>> clients;
};

std::string messageOf(const std::exception_ptr &error) {
  return errorMessageOf(error);
}

TEST_F(WorkerServiceTest, PartitionsAcrossTasksMatchTheWholeFunction) {
  startWorkers(3);
  registerPartitions(exec::testing::kPartitionedModule, "main");

  testing::TestModule reference(exec::testing::kPartitionedModule);
  mlir::func::FuncOp main = reference.function("main");
  exec::VariableStore store;
  exec::initializeVariables(main, store, {});
  exec::Interpreter interpreter(store);

  for (int64_t step = 1; step <= 3; ++step) {
    exec::FeedMap feeds;
    feeds.emplace("x", Tensor::fromVector<float>(
                           {2, 2}, {1.0f, -2.0f, 0.5f * step, 3.0f}));
    std::vector<Tensor> expected = interpreter.run(main, feeds);
    StepOutcome outcome = runStep("main", step, feeds);
    for (int task = 0; task < 3; ++task)
      ASSERT_FALSE(outcome.errors[task])
          << "task " << task << ": " << messageOf(outcome.errors[task]);
    ASSERT_EQ(outcome.results[0].size(), 2u);
    EXPECT_EQ(outcome.results[0][0].toVector<float>(),
              expected[0].toVector<float>());
    EXPECT_EQ(outcome.results[0][1].toVector<float>(),
              expected[1].toVector<float>());
    EXPECT_TRUE(outcome.results[1].empty());
  }
  // The variable lives on task 1 and was updated there.
  EXPECT_EQ(workers[1]->service.snapshotVariables().at("w").toVector<float>(),
            store.at("w").toVector<float>());
  EXPECT_TRUE(workers[0]->service.snapshotVariables().empty());
  for (auto &worker : workers) {
    EXPECT_EQ(worker->service.localRendezvous().numBuffered(), 0u);
    EXPECT_EQ(worker->service.localRendezvous().numWaiting(), 0u);
  }
}

// Task 0 sends a 1 MiB tensor to task 1, which sends back its negation:
// both RecvTensor streams, the feed and the result travel in 64 KiB chunks.
constexpr const char *kLargeTransfer = R"mlir(
module {
  func.func @big_worker_0() -> tensor<256x1024xf32>
      attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
    %x = dtf.placeholder "x" : tensor<256x1024xf32>
    %r = dtf.relu %x : tensor<256x1024xf32>
    dtf.send %r, "edge_0" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<256x1024xf32>
    %n = dtf.recv "edge_1" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<256x1024xf32>
    return %n : tensor<256x1024xf32>
  }
  func.func @big_worker_1() attributes {dtf.device = #dtf.device<"/job:worker/task:1">} {
    %r = dtf.recv "edge_0" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<256x1024xf32>
    %n = dtf.neg %r : tensor<256x1024xf32>
    dtf.send %n, "edge_1" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<256x1024xf32>
    return
  }
}
)mlir";

TEST_F(WorkerServiceTest, LargeTensorsTravelInChunks) {
  startWorkers(2, /*chunkBytes=*/64 << 10);
  registerPartitions(kLargeTransfer, "big");
  std::vector<float> x(256 * 1024);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i % 1000) - 500.0f;
  exec::FeedMap feeds;
  feeds.emplace("x", Tensor::fromVector<float>({256, 1024}, x));
  StepOutcome outcome = runStep("big", 1, feeds);
  ASSERT_FALSE(outcome.errors[0]) << messageOf(outcome.errors[0]);
  ASSERT_FALSE(outcome.errors[1]) << messageOf(outcome.errors[1]);
  std::vector<float> result = outcome.results[0].at(0).toVector<float>();
  for (size_t i = 0; i < x.size(); ++i)
    if (result[i] != -std::max(x[i], 0.0f)) {
      ADD_FAILURE() << "element " << i << " is " << result[i];
      break;
    }
}

TEST_F(WorkerServiceTest, DeadPeerIsAClearErrorWithinTheDeadline) {
  startWorkers(3);
  registerPartitions(exec::testing::kPartitionedModule, "main");
  std::string deadAddress = workers[2]->server.address();
  workers[2]->server.shutdown();

  exec::FeedMap feeds;
  feeds.emplace("x", Tensor::filled(DType::F32, {2, 2}, 1.0));
  auto start = std::chrono::steady_clock::now();
  StepOutcome outcome = runStep("main", 1, feeds, /*timeout=*/5s);
  EXPECT_LT(secondsSince(start), 5.0);

  // Task 0 fetches from task 2 and names it; the chief's own call to task 2
  // fails as well.
  ASSERT_TRUE(outcome.errors[0]);
  std::string message = messageOf(outcome.errors[0]);
  EXPECT_TRUE(contains(message, "worker /job:worker/task:2 at " +
                                    deadAddress + ": RecvTensor failed"))
      << message;
  EXPECT_TRUE(contains(message, "loc(\"module registered on "
                                "/job:worker/task:0\":")) << message;
  EXPECT_TRUE(contains(message, "'dtf.recv'")) << message;
  EXPECT_TRUE(contains(message, "UNAVAILABLE")) << message;
  ASSERT_TRUE(outcome.errors[2]);
  EXPECT_TRUE(contains(messageOf(outcome.errors[2]), "(UNAVAILABLE)"))
      << messageOf(outcome.errors[2]);
  for (int task = 0; task < 2; ++task) {
    EXPECT_EQ(workers[task]->service.localRendezvous().numBuffered(), 0u);
    EXPECT_EQ(workers[task]->service.localRendezvous().numWaiting(), 0u);
  }
}

TEST_F(WorkerServiceTest, PeerThatNeverSendsFailsAtTheDeadline) {
  startWorkers(3);
  registerPartitions(exec::testing::kPartitionedModule, "main");
  // Only task 0 runs the step: its recvs wait on live peers that never
  // send.
  exec::FeedMap feeds;
  feeds.emplace("x", Tensor::filled(DType::F32, {2, 2}, 1.0));
  auto start = std::chrono::steady_clock::now();
  StepOutcome outcome = runStep("main", 7, feeds, /*timeout=*/500ms,
                                /*numTasks=*/1);
  EXPECT_LT(secondsSince(start), 5.0);
  ASSERT_TRUE(outcome.errors[0]);
  try {
    std::rethrow_exception(outcome.errors[0]);
  } catch (const RpcError &error) {
    EXPECT_EQ(error.code(), grpc::StatusCode::DEADLINE_EXCEEDED)
        << error.what();
    // The task's own error, naming what it waited for, reaches the chief.
    EXPECT_TRUE(contains(error.what(), "'dtf.recv'")) << error.what();
  }
  // Nothing of the step is left waiting on the peers.
  for (auto &worker : workers) {
    auto deadline = std::chrono::steady_clock::now() + 5s;
    while (worker->service.localRendezvous().numWaiting() != 0 &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(10ms);
    EXPECT_EQ(worker->service.localRendezvous().numWaiting(), 0u);
  }
}

TEST_F(WorkerServiceTest, RegistrationAndStepErrorsAreClear) {
  startWorkers(1);
  RpcError error = expectRpcError(
      [&] { clients[0]->registerGraph("module {", {"main"}); });
  EXPECT_EQ(error.code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(contains(error.what(), "does not parse")) << error.what();

  error = expectRpcError([&] {
    clients[0]->registerGraph(exec::testing::kPartitionedModule, {"nope"});
  });
  EXPECT_EQ(error.code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(contains(error.what(), "no function @nope")) << error.what();

  error = expectRpcError(
      [&] { clients[0]->runStep("missing", 1, {}, {}, 2s); });
  EXPECT_EQ(error.code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(contains(error.what(), "has no graph 'missing'"))
      << error.what();

  // A kernel error keeps its code and names the op.
  clients[0]->registerGraph(R"mlir(
    func.func @f() -> tensor<2xf32> {
      %x = dtf.placeholder "x" : tensor<2xf32>
      return %x : tensor<2xf32>
    }
  )mlir",
                            {"f"});
  error = expectRpcError([&] { clients[0]->runStep("f", 1, {}, {}, 2s); });
  EXPECT_EQ(error.code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(contains(error.what(), "'dtf.placeholder' 'x' is not fed"))
      << error.what();
  exec::FeedMap feeds;
  feeds.emplace("x", Tensor::fromVector<float>({2}, {1, 2}));
  std::vector<Tensor> results = clients[0]->runStep("f", 2, feeds);
  EXPECT_EQ(results.at(0).toVector<float>(), (std::vector<float>{1, 2}));

  // A worker does not serve tensors another task sends.
  Error recvError(ErrorCode::Unknown, "");
  try {
    clients[0]->recvTensor("/job:worker/task:1;/job:worker/task:0;t", 1);
  } catch (const Error &caught) {
    recvError = caught;
  }
  EXPECT_EQ(recvError.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(recvError.what(), "does not send")) << recvError.what();
}

} // namespace
} // namespace dtf::rpc
