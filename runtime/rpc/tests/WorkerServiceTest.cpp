//===- WorkerServiceTest.cpp - Partitions across worker services ----------===//
//
// Three worker services on 127.0.0.1, each on a port the OS picks, run the
// partitions of one function; their results must equal the whole function's
// under the reference interpreter.
//
//===----------------------------------------------------------------------===//

#include "runtime/rpc/tests/RpcTestSupport.h"

#include "runtime/exec/ExecutorWorker.h"
#include "runtime/exec/Interpreter.h"
#include "runtime/exec/TestModules.h"
#include "runtime/rpc/WorkerClient.h"
#include "runtime/rpc/WorkerService.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

namespace dtf::rpc {
namespace {

using namespace std::chrono_literals;
using testing::contains;
using testing::expectError;
using testing::fastClientOptions;
using testing::secondsSince;

std::string taskName(int task) {
  return "/job:worker/task:" + std::to_string(task);
}

/// A worker task's graphs, served on its own server.
struct RunningWorker {
  explicit RunningWorker(WorkerServiceOptions options)
      : graphs(graphOptions(options.taskName)),
        service(graphs, std::move(options)),
        server(ServerOptions{"127.0.0.1:0"}) {
    server.addService(service);
    server.start();
  }

  static exec::ExecutorWorkerOptions graphOptions(const std::string &task) {
    exec::ExecutorWorkerOptions options;
    options.taskName = task;
    options.numThreads = 2;
    return options;
  }

  exec::ExecutorWorker graphs;
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
  /// Starts a worker for each of `tasks`; they know each other.
  void startWorkers(const std::vector<std::string> &tasks,
                    size_t chunkBytes = kDefaultChunkBytes) {
    for (const std::string &task : tasks) {
      WorkerServiceOptions options;
      options.taskName = task;
      options.client = fastClientOptions();
      options.chunkBytes = chunkBytes;
      workers.push_back(std::make_unique<RunningWorker>(options));
    }
    for (size_t task = 0; task < tasks.size(); ++task) {
      for (size_t peer = 0; peer < tasks.size(); ++peer)
        if (peer != task)
          workers[task]->service.setPeerAddress(
              tasks[peer], workers[peer]->server.address());
      clients.push_back(std::make_unique<WorkerClient>(
          tasks[task], workers[task]->server.address(), fastClientOptions()));
    }
  }

  /// Starts workers /job:worker/task:0 .. numTasks - 1.
  void startWorkers(int numTasks, size_t chunkBytes = kDefaultChunkBytes) {
    std::vector<std::string> tasks;
    for (int task = 0; task < numTasks; ++task)
      tasks.push_back(taskName(task));
    startWorkers(tasks, chunkBytes);
  }

  /// Runs step `stepId` of `graphs[task]` on each task at once, as a chief
  /// would, with `feeds[task]` (when given). A failed step is cleaned up
  /// everywhere.
  StepOutcome runStep(const std::vector<std::string> &graphs, int64_t stepId,
                      const std::vector<exec::FeedMap> &feeds,
                      std::chrono::milliseconds timeout = 10s) {
    size_t numTasks = graphs.size();
    const exec::FeedMap noFeeds;
    StepOutcome outcome;
    outcome.results.resize(numTasks);
    outcome.errors.resize(numTasks);
    std::vector<std::thread> threads;
    for (size_t task = 0; task < numTasks; ++task)
      threads.emplace_back([&, task] {
        try {
          outcome.results[task] = clients[task]->runStep(
              graphs[task], stepId,
              task < feeds.size() ? feeds[task] : noFeeds, {}, timeout);
        } catch (...) {
          outcome.errors[task] = std::current_exception();
        }
      });
    for (std::thread &thread : threads)
      thread.join();
    for (std::exception_ptr &error : outcome.errors)
      if (error) {
        for (auto &client : clients)
          try {
            client->cleanupStep(stepId);
          } catch (const Error &) {
            // A dead task holds nothing.
          }
        break;
      }
    return outcome;
  }

  /// The graphs `<prefix>_worker_<task>` of the first `numTasks` tasks.
  std::vector<std::string> workerGraphs(const std::string &prefix,
                                        int numTasks = -1) {
    std::vector<std::string> graphs;
    for (int task = 0; task < (numTasks < 0 ? int(clients.size()) : numTasks);
         ++task)
      graphs.push_back(prefix + "_worker_" + std::to_string(task));
    return graphs;
  }

  StepOutcome runStep(const std::string &prefix, int64_t stepId,
                      const exec::FeedMap &feeds,
                      std::chrono::milliseconds timeout = 10s,
                      int numTasks = -1) {
    std::vector<exec::FeedMap> perTask;
    perTask.push_back(cloneFeeds(feeds));
    return runStep(workerGraphs(prefix, numTasks), stepId, perTask, timeout);
  }

  static exec::FeedMap cloneFeeds(const exec::FeedMap &feeds) {
    exec::FeedMap copy;
    for (auto &[name, tensor] : feeds)
      copy.emplace(name, tensor.clone());
    return copy;
  }

  void registerPartitions(const std::string &module,
                          const std::vector<std::string> &graphs) {
    for (size_t task = 0; task < graphs.size(); ++task)
      clients[task]->registerGraph(module, {graphs[task]});
  }

  void registerPartitions(const char *module, const std::string &prefix) {
    registerPartitions(module, workerGraphs(prefix));
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
  EXPECT_EQ(workers[1]->graphs.snapshotVariables().at("w").toVector<float>(),
            store.at("w").toVector<float>());
  EXPECT_TRUE(workers[0]->graphs.snapshotVariables().empty());
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
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded) << error.what();
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
  Error error =
      expectError([&] { clients[0]->registerGraph("module {", {"main"}); });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(error.what(), "does not parse")) << error.what();

  error = expectError([&] {
    clients[0]->registerGraph(exec::testing::kPartitionedModule, {"nope"});
  });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(error.what(), "no function @nope")) << error.what();

  error = expectError([&] { clients[0]->runStep("missing", 1, {}, {}, 2s); });
  EXPECT_EQ(error.code(), ErrorCode::NotFound);
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
  error = expectError([&] { clients[0]->runStep("f", 1, {}, {}, 2s); });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
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

// The compiler's own output: examples/model_parallel_mlp.mlir through
// autodiff, the optimizer, variable placement and --dtf-partition gives one
// function per device (two PS tasks, two workers) with the send/recv pairs
// the pass chose. Three training steps across four worker services must
// equal three steps of the placed but unpartitioned function.
TEST_F(WorkerServiceTest, ModelParallelMlpPartitionedByTheCompiler) {
  mlir::DialectRegistry registry;
  dtf::ir::registerAllDialects(registry);
  dtf::ir::registerAllPasses();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::ifstream file(DTF_SOURCE_DIR "/examples/model_parallel_mlp.mlir");
  ASSERT_TRUE(file) << "cannot read the example";
  std::stringstream source;
  source << file.rdbuf();
  mlir::OwningOpRef<mlir::ModuleOp> placed =
      mlir::parseSourceString<mlir::ModuleOp>(source.str(), &context);
  ASSERT_TRUE(placed);
  // Runs `pipeline` (the passes within builtin.module(...)) on `module`.
  auto runPipeline = [&](mlir::ModuleOp module, const char *pipeline) {
    auto passes = mlir::PassManager::on<mlir::ModuleOp>(&context);
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    if (mlir::failed(mlir::parsePassPipeline(pipeline, passes, errorStream)))
      return ADD_FAILURE() << errors;
    EXPECT_TRUE(mlir::succeeded(passes.run(module))) << pipeline;
  };
  runPipeline(*placed, "func.func(dtf-autodiff,dtf-expand-optimizer),"
                       "dtf-place-variables");
  mlir::OwningOpRef<mlir::ModuleOp> partitioned = placed->clone();
  runPipeline(*partitioned, "dtf-partition,dtf-verify-partitions");
  // In generic form: on this branch the custom form of a matmul with
  // transpose_a/transpose_b does not parse back (fixed on main by "dtf: see
  // attr-dict attributes when inferring matmul and reduce result types").
  std::string partitionedText;
  llvm::raw_string_ostream partitionedStream(partitionedText);
  partitioned->print(partitionedStream,
                     mlir::OpPrintingFlags().printGenericOpForm());
  partitionedStream.flush();

  std::vector<std::string> tasks = {"/job:ps/task:0", "/job:ps/task:1",
                                    "/job:worker/task:0",
                                    "/job:worker/task:1"};
  std::vector<std::string> graphs = {"main_ps_0", "main_ps_1",
                                     "main_worker_0", "main_worker_1"};
  startWorkers(tasks);
  registerPartitions(partitionedText, graphs);

  auto main = placed->lookupSymbol<mlir::func::FuncOp>("main");
  exec::VariableStore reference;
  exec::initializeVariables(main, reference, {});
  exec::Interpreter interpreter(reference);

  std::mt19937 random(7);
  std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
  for (int64_t step = 1; step <= 3; ++step) {
    std::vector<float> images(100 * 784), labels(100 * 10, 0.0f);
    for (float &value : images)
      value = pixel(random);
    for (int row = 0; row < 100; ++row)
      labels[row * 10 + random() % 10] = 1.0f;
    exec::FeedMap feeds;
    feeds.emplace("x", Tensor::fromVector<float>({100, 784}, images));
    feeds.emplace("y_", Tensor::fromVector<float>({100, 10}, labels));
    std::vector<Tensor> expected = interpreter.run(main, feeds);

    // x is read on worker 0, y_ on worker 1.
    std::vector<exec::FeedMap> perTask(4);
    perTask[2].emplace("x", feeds.at("x").clone());
    perTask[3].emplace("y_", feeds.at("y_").clone());
    StepOutcome outcome = runStep(graphs, step, perTask);
    for (size_t task = 0; task < tasks.size(); ++task)
      ASSERT_FALSE(outcome.errors[task])
          << tasks[task] << ": " << messageOf(outcome.errors[task]);
    const std::vector<Tensor> &results = outcome.results[2];
    ASSERT_EQ(results.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      float value = results[i].toVector<float>().at(0);
      float want = expected[i].toVector<float>().at(0);
      EXPECT_NEAR(value, want, 1e-5 * (1 + std::abs(want)))
          << "step " << step << " result " << i;
    }
  }

  // Each PS task holds its variables, trained as the whole function's.
  size_t compared = 0;
  for (int ps = 0; ps < 2; ++ps)
    for (auto &[name, value] : workers[ps]->graphs.snapshotVariables()) {
      SCOPED_TRACE(name);
      ASSERT_TRUE(reference.count(name));
      const Tensor &want = reference.at(name);
      ASSERT_EQ(value.typeString(), want.typeString());
      if (value.dtype() == DType::I64) {
        EXPECT_EQ(value.toVector<int64_t>(), want.toVector<int64_t>());
      } else {
        std::vector<float> got = value.toVector<float>();
        std::vector<float> wanted = want.toVector<float>();
        for (size_t i = 0; i < got.size(); ++i)
          ASSERT_NEAR(got[i], wanted[i], 1e-5 * (1 + std::abs(wanted[i])))
              << "element " << i;
      }
      ++compared;
    }
  EXPECT_EQ(compared, reference.size());
  EXPECT_EQ(reference.at("global_step").toVector<int64_t>(),
            std::vector<int64_t>{3});
}

// What a step received from other tasks comes back with its results (and
// is summed per graph for the task's report): the 2x2 floats of each recv.
TEST_F(WorkerServiceTest, StepsReportTheBytesTheyReceived) {
  startWorkers(3);
  registerPartitions(exec::testing::kPartitionedModule, "main");
  exec::FeedMap feeds;
  feeds.emplace("x", Tensor::filled(DType::F32, {2, 2}, 1.0));
  std::map<std::string, int64_t> received;
  std::vector<std::thread> peers;
  for (int task = 1; task < 3; ++task)
    peers.emplace_back([&, task] {
      clients[task]->runStep("main_worker_" + std::to_string(task), 1, {});
    });
  clients[0]->runStep("main_worker_0", 1, feeds, {}, 10s, &received);
  for (std::thread &peer : peers)
    peer.join();
  // Task 0 received relu(b) from task 1 and -a and sum(d) from task 2.
  EXPECT_EQ(received, (std::map<std::string, int64_t>{
                          {taskName(1), 16}, {taskName(2), 16 + 4}}));
  std::map<std::string, GraphTraffic> traffic = workers[2]->service.traffic();
  ASSERT_TRUE(traffic.count("main_worker_2"));
  EXPECT_EQ(traffic["main_worker_2"].steps, 1);
  EXPECT_EQ(traffic["main_worker_2"].receivedBytes,
            (std::map<std::string, int64_t>{{taskName(0), 16},
                                            {taskName(1), 16}}));
}

// The master aborts a failed step everywhere: a task waiting for a tensor
// of that step fails at once with the reason, and so does one that starts
// the step afterwards, instead of waiting for its deadline.
TEST_F(WorkerServiceTest, AnAbortedStepEndsAtOnceEverywhere) {
  startWorkers(3);
  registerPartitions(exec::testing::kPartitionedModule, "main");
  auto start = std::chrono::steady_clock::now();
  std::exception_ptr waiting;
  std::thread waiter([&] {
    try {
      clients[1]->runStep("main_worker_1", 5, {}, {}, 20s);
    } catch (...) {
      waiting = std::current_exception();
    }
  });
  std::this_thread::sleep_for(100ms);
  for (auto &client : clients)
    client->abortStep(5, "step 5 failed on task /job:worker/task:9");
  waiter.join();
  Error late = expectError(
      [&] { clients[2]->runStep("main_worker_2", 5, {}, {}, 20s); });
  EXPECT_LT(secondsSince(start), 5.0);
  ASSERT_TRUE(waiting);
  EXPECT_TRUE(contains(messageOf(waiting), "task /job:worker/task:9"))
      << messageOf(waiting);
  EXPECT_TRUE(contains(late.what(), "task /job:worker/task:9")) << late.what();
  EXPECT_EQ(late.code(), ErrorCode::Aborted) << late.what();
}

// Checkpoints of in-graph training: a task's variables out, and back in all
// or nothing.
TEST_F(WorkerServiceTest, VariablesComeOutAndGoBackAllOrNothing) {
  startWorkers(3);
  registerPartitions(exec::testing::kPartitionedModule, "main");
  VariableStore variables = clients[1]->getVariables();
  ASSERT_EQ(variables.size(), 1u);
  EXPECT_EQ(variables.at("w").toVector<float>(), std::vector<float>(4, 0.5f));
  EXPECT_TRUE(clients[0]->getVariables().empty());
  EXPECT_TRUE(clients[1]->getVariables({"other"}).empty());
  EXPECT_EQ(clients[1]->getVariables({"w"}).size(), 1u);

  VariableStore values;
  values.emplace("w", Tensor::filled(DType::F32, {2, 2}, 3.0));
  values.emplace("elsewhere", Tensor::filled(DType::F32, {1}, 1.0));
  EXPECT_EQ(clients[1]->setVariables(values), std::vector<std::string>{"w"});
  EXPECT_TRUE(clients[0]->setVariables(values).empty());
  EXPECT_EQ(workers[1]->graphs.snapshotVariables().at("w").toVector<float>(),
            std::vector<float>(4, 3.0f));

  VariableStore misfit;
  misfit.emplace("w", Tensor::filled(DType::F32, {4}, 7.0));
  Error refused = expectError([&] { clients[1]->setVariables(misfit); });
  EXPECT_EQ(refused.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(refused.what(), "variable 'w' is f32[2,2]"))
      << refused.what();
  EXPECT_EQ(workers[1]->graphs.snapshotVariables().at("w").toVector<float>(),
            std::vector<float>(4, 3.0f));
}

// StopTask runs the task's stop hook with the master's reason.
TEST_F(WorkerServiceTest, StopTaskCallsTheHookWithTheReason) {
  std::string reason;
  WorkerServiceOptions options;
  options.taskName = taskName(0);
  options.onStopTask = [&](const std::string &why) { reason = why; };
  RunningWorker worker(options);
  WorkerClient client(taskName(0), worker.server.address(),
                      fastClientOptions());
  client.stopTask("training finished");
  EXPECT_EQ(reason, "training finished");
}

} // namespace
} // namespace dtf::rpc
