//===- CoordinationTest.cpp - The coordinator over gRPC -------------------===//
//
// The coordination service and its client: every call over the wire, the
// cluster token, errors as statuses and back, long waits in slices, and
// the whole protocol with PS tasks. runtime/coord/tests/CoordinatorTest.cpp
// tests the state machine itself.
//
//===----------------------------------------------------------------------===//

#include "runtime/rpc/tests/RpcTestSupport.h"

#include "runtime/coord/Coordinator.h"
#include "runtime/coord/HeartbeatSender.h"
#include "runtime/rpc/Channel.h"
#include "runtime/rpc/CoordinationClient.h"
#include "runtime/rpc/CoordinationService.h"

#include <future>
#include <thread>

namespace dtf::rpc {
namespace {

using namespace dtf::rpc::testing;
using coord::CoordinatorOptions;
using coord::HeartbeatSender;
using coord::Registration;
using coord::WorkerStates;
using std::chrono::milliseconds;

/// A coordinator served alone on a server.
struct RunningCoordinator {
  explicit RunningCoordinator(CoordinatorOptions options,
                              ServerOptions serverOptions = {"127.0.0.1:0"})
      : coordinator(std::move(options)), service(coordinator),
        server(std::move(serverOptions)) {
    server.addService(service);
    server.start();
  }
  coord::Coordinator coordinator;
  CoordinationService service;
  // Last: it calls the service while stopping.
  Server server;
};

CoordinatorOptions
cluster(int numPs, int numWorkers,
        milliseconds heartbeatTimeout = milliseconds(10'000)) {
  CoordinatorOptions options;
  options.numPsTasks = numPs;
  options.numWorkers = numWorkers;
  options.heartbeatTimeout = heartbeatTimeout;
  return options;
}

coord::DataSetDefinition dataSet(int units, int64_t epochs, uint64_t seed = 3) {
  coord::DataSetDefinition definition;
  for (int i = 0; i < units; ++i) {
    WorkUnit unit;
    unit.id = i;
    unit.path = "/data/part-" + std::to_string(i) + ".tfrecord.gz";
    unit.compression = Compression::Gzip;
    unit.end = 4096 + i;
    definition.units.push_back(unit);
  }
  definition.epochs = epochs;
  definition.seed = seed;
  return definition;
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

  // The coordinator's error, with its code, through a status.
  Error error = expectError([&] { client.registerTask("worker", 2); });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(error.what(), "RegisterTask failed: coordinator: no "
                                     "task /job:worker/task:2 in a cluster "
                                     "of 2 worker task(s)"))
      << error.what();
  EXPECT_EQ(expectError([&] { client.registerTask("chief", 0); }).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(expectError([&] { client.heartbeat("ps", 2); }).code(),
            ErrorCode::InvalidArgument);
  EXPECT_EQ(expectError([&] { client.workerDone(2); }).code(),
            ErrorCode::InvalidArgument);
}

TEST(CoordinationTest, WaitInitializedBlocksUntilTheChiefMarksIt) {
  RunningCoordinator coordinator(cluster(1, 2));
  CoordinationClient chief(coordinator.server.address(), fastClientOptions());
  CoordinationClient worker(coordinator.server.address(), fastClientOptions());
  std::future<void> waiting = std::async(
      std::launch::async, [&] { worker.waitInitialized(milliseconds(5'000)); });
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
  Error error = expectError([&] { worker.waitInitialized(milliseconds(400)); });
  EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded);
  EXPECT_TRUE(contains(error.what(), "WaitInitialized failed")) << error.what();
  EXPECT_TRUE(contains(error.what(), "not initialized")) << error.what();
  EXPECT_LT(secondsSince(start), 2.0);
}

TEST(CoordinationTest, StopReleasesWaitersForInitialization) {
  RunningCoordinator coordinator(cluster(1, 2));
  CoordinationClient chief(coordinator.server.address(), fastClientOptions());
  CoordinationClient worker(coordinator.server.address(), fastClientOptions());
  std::future<void> waiting = std::async(
      std::launch::async, [&] { worker.waitInitialized(milliseconds(5'000)); });
  std::this_thread::sleep_for(milliseconds(100));
  chief.stop("the chief failed to initialize");
  ASSERT_EQ(waiting.wait_for(milliseconds(3'000)), std::future_status::ready);
  Error error = expectError([&] { waiting.get(); });
  EXPECT_EQ(error.code(), ErrorCode::Aborted);
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
  Error error = expectError([&] { chief.waitWorkersDone(milliseconds(300)); });
  EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded);
  EXPECT_TRUE(contains(error.what(), "worker(s) 1 are still running"))
      << error.what();
}

TEST(CoordinationTest, GlobalStepComesFromItsSource) {
  CoordinatorOptions options = cluster(1, 1);
  options.globalStep = [] { return int64_t(41); };
  RunningCoordinator coordinator(options);
  CoordinationClient client(coordinator.server.address(), fastClientOptions());
  EXPECT_EQ(client.globalStep(), 41);

  RunningCoordinator withoutSource(cluster(1, 1));
  CoordinationClient other(withoutSource.server.address(), fastClientOptions());
  EXPECT_EQ(expectError([&] { other.globalStep(); }).code(),
            ErrorCode::Unimplemented);
}

TEST(CoordinationTest, ADeadCoordinatorIsAClearError) {
  auto coordinator = std::make_unique<RunningCoordinator>(cluster(1, 1));
  std::string address = coordinator->server.address();
  CoordinationClient client(address, fastClientOptions());
  client.registerTask("worker", 0);
  coordinator.reset();
  Error error = expectError([&] { client.heartbeat("worker", 0); });
  EXPECT_EQ(error.code(), ErrorCode::Unavailable);
  EXPECT_EQ(std::string(error.what())
                .rfind("coordinator /job:ps/task:0 at " + address +
                           ": Heartbeat failed: ",
                       0),
            0u)
      << error.what();
}

// Every RPC goes through the one check of the cluster token, before the
// coordinator sees the request.
TEST(CoordinationTest, EveryCallWithoutTheClusterTokenIsRefused) {
  ServerOptions serverOptions{"127.0.0.1:0"};
  serverOptions.clusterToken = "secret";
  CoordinatorOptions options = cluster(1, 1);
  options.globalStep = [] { return int64_t(3); };
  RunningCoordinator coordinator(options, serverOptions);
  CoordinationClient rogue(coordinator.server.address(), fastClientOptions());
  std::vector<std::function<void()>> calls = {
      [&] { rogue.registerTask("worker", 0); },
      [&] { rogue.heartbeat("worker", 0); },
      [&] { rogue.markInitialized(); },
      [&] { rogue.waitInitialized(milliseconds(100)); },
      [&] { rogue.globalStep(); },
      [&] { rogue.workerDone(0); },
      [&] { rogue.waitWorkersDone(milliseconds(100)); },
      [&] { rogue.stop("hostile"); },
      [&] { rogue.defineData(0, dataSet(2, 1)); },
      [&] { rogue.acquireUnit(0, milliseconds(100)); },
      [&] { rogue.reportData(0, coord::DataReport()); },
      [&] { rogue.dataState(0); },
      [&] { rogue.restoreDataState("state"); },
      [&] { rogue.dataStats(); },
  };
  for (const auto &call : calls) {
    Error error = expectError(call);
    EXPECT_EQ(error.code(), ErrorCode::Unauthenticated) << error.what();
    EXPECT_TRUE(contains(error.what(), "carries no cluster token"))
        << error.what();
  }
  EXPECT_FALSE(coordinator.coordinator.isInitialized());
  EXPECT_FALSE(coordinator.coordinator.stopRequested());
  EXPECT_TRUE(coordinator.coordinator.workerStates().done.empty());
  EXPECT_FALSE(coordinator.coordinator.dataStats().defined);

  ClientOptions withToken = fastClientOptions();
  withToken.clusterToken = "secret";
  CoordinationClient client(coordinator.server.address(), withToken);
  EXPECT_EQ(client.globalStep(), 3);
  client.workerDone(0);
  EXPECT_EQ(client.waitWorkersDone(milliseconds(1'000)).done,
            std::vector<int>{0});
}

TEST(CoordinationTest, AStoppingServerReleasesAWaitingClient) {
  RunningCoordinator coordinator(cluster(1, 2));
  CoordinationClient worker(coordinator.server.address(), fastClientOptions());
  std::future<void> waiting = std::async(std::launch::async, [&] {
    worker.waitInitialized(milliseconds(10'000));
  });
  std::this_thread::sleep_for(milliseconds(300));
  auto start = std::chrono::steady_clock::now();
  coordinator.server.shutdown();
  ASSERT_EQ(waiting.wait_for(milliseconds(3'000)), std::future_status::ready);
  EXPECT_EQ(expectError([&] { waiting.get(); }).code(), ErrorCode::Unavailable);
  // Released, not held until the end of the shutdown's grace period.
  EXPECT_LT(secondsSince(start), 1.0);
}

// The data coordinator over the wire: definitions, units (with what was
// trained of them), reports, the long poll of a worker waiting for a unit
// given back, the state of a checkpoint restored into a new coordinator.
TEST(CoordinationTest, HandsOutUnitsAndKeepsTheLedgerOverTheWire) {
  RunningCoordinator coordinator(cluster(1, 2));
  std::string address = coordinator.server.address();
  CoordinationClient worker0(address, fastClientOptions());
  CoordinationClient worker1(address, fastClientOptions());
  worker0.registerTask("worker", 0);
  worker1.registerTask("worker", 1);
  worker0.defineData(0, dataSet(2, 1));
  worker1.defineData(1, dataSet(2, 1));
  Error error = expectError([&] { worker1.defineData(1, dataSet(2, 1, 4)); });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(error.what(), "DefineData failed: data coordinator: "
                                     "worker 1's data set differs from the "
                                     "one defined first: its seed is 4"))
      << error.what();

  std::optional<WorkUnit> a = worker0.acquireUnit(0, milliseconds(1'000));
  std::optional<WorkUnit> b = worker0.acquireUnit(0, milliseconds(1'000));
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->path, dataSet(2, 1).units[a->id].path);
  EXPECT_EQ(a->compression, Compression::Gzip);
  EXPECT_EQ(a->end, uint64_t(4096 + a->id));

  // One report per step: a's end, a batch of both units pushing, the
  // batch before it trained.
  coord::DataReport report;
  report.unitsRead.push_back({0, a->id, 6});
  report.pushing = coord::groupExamples(
      {{0, a->id, 4}, {0, a->id, 5}, {0, b->id, 0}, {0, b->id, 1}});
  report.trained = coord::groupExamples(
      {{0, a->id, 0}, {0, a->id, 1}, {0, a->id, 2}, {0, a->id, 3}});
  report.globalStep = 7;
  worker0.reportData(0, report);
  coord::DataStats stats = worker1.dataStats();
  EXPECT_TRUE(stats.defined);
  EXPECT_EQ(stats.unitsPerEpoch, 2);
  EXPECT_EQ(stats.unitsOut, 2);
  EXPECT_EQ(stats.recordsTrained, 4);
  EXPECT_EQ(stats.unitsHandedOut, (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(stats.recordsTrainedPerWorker, (std::vector<int64_t>{4, 0}));
  EXPECT_EQ(stats.acquiresRefused, (std::vector<int64_t>{0, 0}));
  std::string state = worker1.dataState(7);

  // Worker 1 waits, over several slices, until worker 0 restarts.
  std::future<std::optional<WorkUnit>> waiting =
      std::async(std::launch::async,
                 [&] { return worker1.acquireUnit(1, milliseconds(5'000)); });
  EXPECT_EQ(waiting.wait_for(milliseconds(500)), std::future_status::timeout);
  // The new process registers and defines the data set again.
  worker0.registerTask("worker", 0);
  worker0.defineData(0, dataSet(2, 1));
  ASSERT_EQ(waiting.wait_for(milliseconds(3'000)), std::future_status::ready);
  std::optional<WorkUnit> again = waiting.get();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->id, std::min(a->id, b->id));
  if (again->id == a->id) {
    EXPECT_EQ(again->trained, (std::vector<RecordRange>{{0, 4}}));
  }
  EXPECT_EQ(worker1.dataStats().recordsInDoubt, 4);

  // Nothing pending, a unit out with a live worker: DEADLINE_EXCEEDED.
  ASSERT_TRUE(worker1.acquireUnit(1, milliseconds(1'000)));
  error = expectError([&] { worker0.acquireUnit(0, milliseconds(300)); });
  EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded);
  EXPECT_TRUE(contains(error.what(), "AcquireUnit failed")) << error.what();

  // A bad report is the coordinator's INVALID_ARGUMENT, nothing applied.
  error = expectError([&] {
    coord::DataReport bad;
    bad.trained.push_back({0, a->id, {{0, 7}}});
    worker1.reportData(1, bad);
  });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(error.what(), "which holds 6 records")) << error.what();

  // The state of step 7 restored into a new coordinator (PS task 0
  // restarted) before the workers define the data again.
  RunningCoordinator restarted(cluster(1, 2));
  CoordinationClient chief(restarted.server.address(), fastClientOptions());
  error = expectError([&] { chief.restoreDataState(state.substr(0, 20)); });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(error.what(), "RestoreDataState failed: data "
                                     "coordinator: the saved data state is "
                                     "truncated"))
      << error.what();
  chief.restoreDataState(state);
  chief.defineData(0, dataSet(2, 1));
  std::optional<WorkUnit> restored = chief.acquireUnit(0, milliseconds(1'000));
  ASSERT_TRUE(restored);
  EXPECT_EQ(restored->id, a->id);
  EXPECT_EQ(restored->trained, (std::vector<RecordRange>{{0, 4}}));
  coord::DataReport rest;
  rest.trained.push_back({0, a->id, {{4, 6}}});
  rest.globalStep = 8;
  chief.reportData(0, rest);
  std::optional<WorkUnit> other = chief.acquireUnit(0, milliseconds(1'000));
  ASSERT_TRUE(other);
  rest.unitsRead.push_back({0, other->id, 3});
  rest.trained = {{0, other->id, {{0, 3}}}};
  chief.reportData(0, rest);
  EXPECT_FALSE(chief.acquireUnit(0, milliseconds(1'000)));
  stats = chief.dataStats();
  EXPECT_TRUE(stats.finished);
  EXPECT_EQ(stats.recordsTrained, 9);
  EXPECT_EQ(stats.duplicateRecords, 0);
}

TEST(CoordinationTest, AMalformedDataReportIsInvalidArgument) {
  RunningCoordinator coordinator(cluster(1, 1));
  CoordinationClient worker(coordinator.server.address(), fastClientOptions());
  worker.defineData(0, dataSet(1, 1));
  auto stub = Coordination::NewStub(
      createChannel(coordinator.server.address(), fastClientOptions()));
  ReportDataRequest request;
  request.set_worker(0);
  UnitRecordRuns *runs = request.add_trained();
  runs->add_runs(0);
  runs->add_runs(2);
  runs->add_runs(5);
  grpc::ClientContext context;
  ReportDataResponse response;
  grpc::Status status = stub->ReportData(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(contains(status.error_message(), "3 range bounds"))
      << status.error_message();
  EXPECT_EQ(worker.dataStats().recordsTrained, 0);
}

/// PS task 0 as dtf-run serves it: its variables and the coordinator on
/// one server.
struct RunningPsTaskZero {
  explicit RunningPsTaskZero(mlir::func::FuncOp function,
                             ServerOptions serverOptions = {"127.0.0.1:0"},
                             Replication replication = Replication::async())
      : task(std::make_unique<exec::PsProgram>(function), replication, {}),
        coordinator(cluster(1, 2)), coordination(coordinator),
        service(task, [this] { server.requestStop(); }),
        server(std::move(serverOptions)) {
    server.addService(service);
    server.addService(coordination);
    server.start();
  }
  ps::ParameterServer task;
  coord::Coordinator coordinator;
  CoordinationService coordination;
  ParameterServerService service;
  // Last: it calls the services while stopping.
  Server server;
};

// A worker on PS task 0's host reports each step over its local socket;
// one told not to, over gRPC: the coordinator takes both alike.
TEST(CoordinationTest, AWorkerOnTheHostReportsDataOverTheLocalSocket) {
  TestModule module(kOneVariableModule);
  RunningPsTaskZero ps(module.function("ps_0"));
  ClientOptions grpcOnly = fastClientOptions();
  grpcOnly.localTransport = false;
  CoordinationClient local(ps.server.address(), fastClientOptions());
  CoordinationClient remote(ps.server.address(), grpcOnly);
  EXPECT_TRUE(local.usesLocalTransport());
  EXPECT_FALSE(remote.usesLocalTransport());

  local.registerTask("worker", 0);
  remote.registerTask("worker", 1);
  local.defineData(0, dataSet(2, 1));
  remote.defineData(1, dataSet(2, 1));
  std::optional<WorkUnit> a = local.acquireUnit(0, milliseconds(1'000));
  std::optional<WorkUnit> b = remote.acquireUnit(1, milliseconds(1'000));
  ASSERT_TRUE(a && b);
  coord::DataReport first;
  first.trained = coord::groupExamples({{0, a->id, 0}, {0, a->id, 1}});
  first.globalStep = 1;
  local.reportData(0, first);
  coord::DataReport second;
  second.trained = coord::groupExamples({{0, b->id, 0}});
  second.globalStep = 2;
  remote.reportData(1, second);
  coord::DataStats stats = local.dataStats();
  EXPECT_EQ(stats.recordsTrained, 3);
  EXPECT_EQ(stats.recordsTrainedPerWorker, (std::vector<int64_t>{2, 1}));

  // The coordinator's errors come back as over gRPC.
  coord::DataReport bad;
  bad.trained = coord::groupExamples({{0, 7, 0}});
  Error error = expectError([&] { local.reportData(0, bad); });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(error.what(), "ReportData failed: ")) << error.what();
  EXPECT_TRUE(contains(error.what(), "reported unit 7 of a data set of 2"))
      << error.what();
}

// A reader's poll for a unit (timeout 0) takes the local socket: the
// coordinator answers it as over gRPC, a unit, DEADLINE_EXCEEDED, or
// finished; one that would wait is refused there.
TEST(CoordinationTest, AWorkerOnTheHostPollsForUnitsOverTheLocalSocket) {
  TestModule module(kOneVariableModule);
  RunningPsTaskZero ps(module.function("ps_0"));
  CoordinationClient local(ps.server.address(), fastClientOptions());
  ASSERT_TRUE(local.usesLocalTransport());
  local.registerTask("worker", 0);
  local.registerTask("worker", 1);
  local.defineData(0, dataSet(2, 1));
  // Worker 0's request is the empty message.
  std::optional<WorkUnit> a = local.acquireUnit(0, milliseconds(0));
  std::optional<WorkUnit> b = local.acquireUnit(1, milliseconds(0));
  ASSERT_TRUE(a && b);
  EXPECT_NE(a->id, b->id);
  EXPECT_EQ(expectError([&] { local.acquireUnit(0, milliseconds(0)); }).code(),
            ErrorCode::DeadlineExceeded);
  // Both units read to their end and trained: the data's end.
  for (const WorkUnit &unit : {*a, *b}) {
    coord::DataReport done;
    done.unitsRead.push_back({0, unit.id, 1});
    done.trained = coord::groupExamples({{0, unit.id, 0}});
    done.globalStep = 1;
    local.reportData(unit.id == a->id ? 0 : 1, done);
  }
  EXPECT_FALSE(local.acquireUnit(0, milliseconds(0)));

  AcquireUnitRequest waiting;
  waiting.set_worker(1);
  waiting.set_timeout_ms(100);
  grpc::ByteBuffer request, response;
  bool own = false;
  ASSERT_TRUE(grpc::SerializationTraits<AcquireUnitRequest>::Serialize(
                  waiting, &request, &own)
                  .ok());
  grpc::Status refused =
      ps.coordination.serveLocal(LocalMethod::AcquireUnit, request, response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(contains(refused.error_message(), "waits for nothing"))
      << refused.error_message();
}

/// kOneVariableModule's PS task for synchronous training of 2 replicas.
constexpr const char *kOneVariableSyncModule = R"mlir(
module {
  func.func @ps_0(%g_w0: tensor<2xf32>, %g_w1: tensor<2xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:0">,
                  dtf.gradients = ["w"]} {
    %w = dtf.variable "w" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2xf32>>
    %sum = dtf.add %g_w0, %g_w1 : tensor<2xf32>, tensor<2xf32>
    dtf.apply_gradient_descent %w, %sum learning_rate 1.0 : !dtf.resource<tensor<2xf32>>
    return
  }
}
)mlir";

/// A worker of PS task 0 whose data reports ride its pushes
/// (DataReportRider.h), over the local socket or over gRPC.
class DataReportRidingTest : public ::testing::TestWithParam<bool> {
protected:
  ClientOptions options() const {
    ClientOptions options = fastClientOptions();
    options.localTransport = GetParam();
    return options;
  }
  /// Records [first, last) of `unit` of epoch 0.
  static std::vector<coord::UnitRecords> records(int64_t unit, int64_t first,
                                                 int64_t last) {
    std::vector<ExampleOrigin> examples;
    for (int64_t record = first; record < last; ++record)
      examples.push_back({0, unit, record});
    return coord::groupExamples(examples);
  }
  /// A report of records [first, last) of `unit` trained at `step`.
  static coord::DataReport trained(int64_t unit, int64_t first, int64_t last,
                                   int64_t step) {
    coord::DataReport report;
    report.trained = records(unit, first, last);
    report.globalStep = step;
    return report;
  }
  /// A step's report of its batch, records [first, last) of `unit`,
  /// riding the batch's push.
  static coord::DataReport batch(int64_t unit, int64_t first, int64_t last) {
    coord::DataReport report;
    report.pushing = records(unit, first, last);
    report.pushingRidesItsPush = true;
    return report;
  }
  static std::vector<NamedTensor> gradient(float value) {
    std::vector<NamedTensor> gradients;
    gradients.push_back({"w", Tensor::filled(DType::F32, {2}, value)});
    return gradients;
  }

  /// PS task 0 (its variable initialized) and worker 0, registered, whose
  /// reports ride its pushes.
  struct Cluster {
    explicit Cluster(const ClientOptions &options,
                     Replication replication = Replication::async())
        : module(replication.mode == Replication::Mode::Sync
                     ? kOneVariableSyncModule
                     : kOneVariableModule),
          ps(module.function("ps_0"), {"127.0.0.1:0"}, replication),
          coordinator(ps.server.address(), options),
          task("/job:ps/task:0", ps.server.address(), options) {
      task.carryDataReports(coordinator.rideReportsOnPushes());
      coordinator.registerTask("worker", 0);
      task.initialize();
    }
    /// Defines a data set of 2 units and takes one.
    WorkUnit takeUnit() {
      coordinator.defineData(0, dataSet(2, 1));
      std::optional<WorkUnit> unit =
          coordinator.acquireUnit(0, milliseconds(1'000));
      EXPECT_TRUE(unit);
      return unit.value_or(WorkUnit{});
    }
    TestModule module;
    RunningPsTaskZero ps;
    CoordinationClient coordinator;
    PsClient task;
  };
};

TEST_P(DataReportRidingTest, AReportRidesTheNextPushAndIsAppliedBeforeIt) {
  Cluster cluster(options());
  CoordinationClient &coordinator = cluster.coordinator;
  PsClient &task = cluster.task;
  EXPECT_EQ(task.usesLocalTransport(), GetParam());
  const WorkUnit unit = cluster.takeUnit();

  // Held until a push takes it: the coordinator has nothing yet.
  std::unique_ptr<coord::PendingReport> pending =
      coordinator.startReportData(0, trained(unit.id, 0, 3, 1));
  ASSERT_TRUE(pending);
  EXPECT_TRUE(pending->ridesPush());
  EXPECT_FALSE(pending->answered());
  EXPECT_EQ(coordinator.dataStats().recordsTrained, 0);

  std::future<ps::PushPullResult> call =
      task.startPushPull(0, gradient(0.5f), 0, {"w"});
  ps::PushPullResult result = call.get();
  EXPECT_EQ(result.push.step, 1);
  EXPECT_EQ(result.pulled.values[0].toVector<float>(),
            (std::vector<float>{0.5f, 0.5f}));
  // Answered with the push: finish() does not wait.
  EXPECT_TRUE(pending->answered());
  pending->finish();
  EXPECT_EQ(coordinator.dataStats().recordsTrained, 3);

  // A push with no report held carries none.
  Tensor quarter = Tensor::filled(DType::F32, {2}, 0.25f);
  EXPECT_EQ(task.push(1, {{"w", &quarter}}).step, 2);
  EXPECT_EQ(coordinator.dataStats().recordsTrained, 3);

  // A report the coordinator refuses does not stop the push it rides: as
  // a report of its own, it is dropped with a warning.
  coord::DataReport bad = trained(7, 0, 1, 2);
  pending = coordinator.startReportData(0, bad);
  EXPECT_EQ(task.pushPull(2, gradient(0.25f), 0, {"w"}).push.step, 3);
  Error refused = expectError([&] { pending->finish(); });
  EXPECT_EQ(refused.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(refused.what(), "reported unit 7 of a data set of 2"))
      << refused.what();
  if (GetParam()) {
    // A push dropped with its answer unread (its response is read by the
    // thread that waits for it, and nobody will): its report's fate is not
    // known, and finish() says so rather than wait.
    pending = coordinator.startReportData(0, trained(unit.id, 3, 4, 3));
    task.startPushPull(3, gradient(0.25f), 0, {"w"});
    EXPECT_EQ(expectError([&] { pending->finish(); }).code(),
              ErrorCode::Cancelled);
  }
}

TEST_P(DataReportRidingTest, AReportNoPushTookGoesAloneAndInOrder) {
  Cluster cluster(options());
  CoordinationClient &coordinator = cluster.coordinator;
  const WorkUnit unit = cluster.takeUnit();

  // Its answer asked for before any push: it goes in a call of its own.
  std::unique_ptr<coord::PendingReport> first =
      coordinator.startReportData(0, trained(unit.id, 0, 2, 1));
  first->finish();
  EXPECT_EQ(coordinator.dataStats().recordsTrained, 2);

  // Held behind one no push took: that one goes first, alone.
  std::unique_ptr<coord::PendingReport> second =
      coordinator.startReportData(0, trained(unit.id, 2, 4, 1));
  std::unique_ptr<coord::PendingReport> third =
      coordinator.startReportData(0, trained(unit.id, 4, 5, 1));
  EXPECT_TRUE(second->answered());
  second->finish();
  EXPECT_EQ(coordinator.dataStats().recordsTrained, 4);
  EXPECT_FALSE(third->answered());

  // A report sent whole (reportData) goes alone, after the held one.
  coordinator.reportData(0, trained(unit.id, 5, 6, 1));
  EXPECT_TRUE(third->answered());
  third->finish();
  EXPECT_EQ(coordinator.dataStats().recordsTrained, 6);
  coord::DataStats stats = coordinator.dataStats();
  EXPECT_EQ(stats.duplicateRecords, 0);
}

TEST_P(DataReportRidingTest, AReportARetryMayFixStopsItsPushToo) {
  Cluster cluster(options());
  CoordinationClient &coordinator = cluster.coordinator;
  PsClient &task = cluster.task;

  // No data set defined yet: FailedPrecondition, which a retry may fix.
  // The push must not reach the model before its report: neither is
  // applied.
  std::unique_ptr<coord::PendingReport> pending =
      coordinator.startReportData(0, trained(0, 0, 1, 1));
  Error error =
      expectError([&] { task.pushPull(0, gradient(0.5f), 0, {"w"}); });
  EXPECT_EQ(error.code(), ErrorCode::FailedPrecondition);
  EXPECT_TRUE(contains(error.what(), "not applied: the data report it "
                                     "carried failed"))
      << error.what();
  EXPECT_EQ(task.step(), 0);
  EXPECT_EQ(task.pull({"w"})[0].toVector<float>(),
            (std::vector<float>{1.0f, 1.0f}));
  EXPECT_EQ(expectError([&] { pending->finish(); }).code(),
            ErrorCode::FailedPrecondition);
}

TEST_P(DataReportRidingTest, APsTaskWithoutTheCoordinatorRefusesTheReport) {
  TestModule module(kOneVariableModule);
  RunningPs other(module.function("ps_0"), Replication::async());
  RunningCoordinator elsewhere(cluster(1, 1));
  CoordinationClient coordinator(elsewhere.server.address(), options());
  PsClient task("/job:ps/task:0", other.server.address(), options());
  task.carryDataReports(coordinator.rideReportsOnPushes());
  task.initialize();
  std::unique_ptr<coord::PendingReport> pending =
      coordinator.startReportData(0, trained(0, 0, 1, 1));
  EXPECT_EQ(task.pushPull(0, gradient(0.5f), 0, {"w"}).push.step, 1);
  Error error = expectError([&] { pending->finish(); });
  EXPECT_EQ(error.code(), ErrorCode::Unimplemented);
  EXPECT_TRUE(contains(error.what(), "this task hosts no data coordinator"))
      << error.what();
}

TEST_P(DataReportRidingTest, ABatchRidingItsAppliedPushIsTrainedWithIt) {
  Cluster cluster(options());
  CoordinationClient &coordinator = cluster.coordinator;
  PsClient &task = cluster.task;
  const WorkUnit unit = cluster.takeUnit();

  // Neither in flight nor trained until its push is applied; then trained
  // at the step the push made, with no report of its own.
  std::unique_ptr<coord::PendingReport> pending =
      coordinator.startReportData(0, batch(unit.id, 0, 3));
  EXPECT_EQ(coordinator.dataStats().recordsTrained, 0);
  EXPECT_EQ(task.pushPull(0, gradient(0.5f), 0, {"w"}).push.step, 1);
  ASSERT_TRUE(pending->answered());
  EXPECT_TRUE(pending->batchTrainedWithPush());
  pending->finish();
  EXPECT_EQ(coordinator.dataStats().recordsTrained, 3);
  // The data state of step 0 (a checkpoint before the push) holds none of
  // it, that of step 1 all.
  std::string before = coordinator.dataState(0);
  std::string after = coordinator.dataState(1);

  // Sent alone (its answer asked for before any push took it): in flight,
  // as pushing records, until the worker reports it trained.
  pending = coordinator.startReportData(0, batch(unit.id, 3, 5));
  pending->finish();
  EXPECT_FALSE(pending->batchTrainedWithPush());
  EXPECT_EQ(task.pushPull(1, gradient(0.5f), 0, {"w"}).push.step, 2);
  EXPECT_EQ(coordinator.dataStats().recordsTrained, 3);
  coordinator.reportData(0, trained(unit.id, 3, 5, 2));
  coord::DataStats stats = coordinator.dataStats();
  EXPECT_EQ(stats.recordsTrained, 5);
  EXPECT_EQ(stats.duplicateRecords, 0);
  EXPECT_EQ(stats.recordsInDoubt, 0);

  coordinator.restoreDataState(before);
  EXPECT_EQ(coordinator.dataStats().recordsTrained, 0);
  coordinator.restoreDataState(after);
  EXPECT_EQ(coordinator.dataStats().recordsTrained, 3);
}

TEST_P(DataReportRidingTest, ABatchWhosePushIsNotAppliedIsInFlight) {
  // Sync, 2 replicas: one push is accumulated, not applied.
  Cluster cluster(options(), Replication::sync(2, 2));
  CoordinationClient &coordinator = cluster.coordinator;
  PsClient &task = cluster.task;
  const WorkUnit unit = cluster.takeUnit();
  std::unique_ptr<coord::PendingReport> pending =
      coordinator.startReportData(0, batch(unit.id, 0, 4));
  EXPECT_EQ(task.pushPull(0, gradient(0.5f), 0, {}).push.outcome,
            ps::PushOutcome::Accumulated);
  ASSERT_TRUE(pending->answered());
  EXPECT_FALSE(pending->batchTrainedWithPush());
  pending->finish();
  EXPECT_EQ(coordinator.dataStats().recordsTrained, 0);
  // In flight: a new process of the worker gives its unit back, and the
  // batch counts as in doubt.
  coordinator.defineData(0, dataSet(2, 1));
  EXPECT_EQ(coordinator.dataStats().recordsInDoubt, 4);
}

INSTANTIATE_TEST_SUITE_P(Transports, DataReportRidingTest,
                         ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "LocalSocket" : "Grpc";
                         });

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
  CoordinatorOptions options = cluster(2, 2);
  options.globalStep = [&] { return task0.currentStep(); };
  coord::Coordinator hosted(options);
  CoordinationService coordination(hosted);
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
  EXPECT_TRUE(hosted.stopRequested());
  EXPECT_EQ(task0.currentStep(), 6);
}

} // namespace
} // namespace dtf::rpc
