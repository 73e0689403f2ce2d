//===- SupervisorTest.cpp - The chief's recovery against real services ----===//
//
// The Supervisor of a chief with an in-process PS task and coordinator:
// after a PS task restarts, the epoch the chief establishes fences off what
// workers computed or waited for before the restart.
//
//===----------------------------------------------------------------------===//

#include "runtime/train/Supervisor.h"

#include "runtime/rpc/tests/RpcTestSupport.h"
#include "runtime/rpc/CoordinationService.h"

namespace dtf::train {
namespace {

using namespace dtf::rpc;
using namespace dtf::rpc::testing;
using std::chrono::milliseconds;

// A sync task of two replicas per aggregate, holding the global step.
constexpr const char *kModule = R"mlir(
module {
  func.func @ps_0(%g_w0: tensor<2xf32>, %g_w1: tensor<2xf32>)
      attributes {dtf.device = #dtf.device<"/job:ps/task:0">,
                  dtf.gradients = ["w"]} {
    %w = dtf.variable "w" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2xf32>>
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
    %s = dtf.add %g_w0, %g_w1 : tensor<2xf32>, tensor<2xf32>
    dtf.apply_gradient_descent %w, %s learning_rate 0.5 : !dtf.resource<tensor<2xf32>>
    %one = dtf.constant dense<1> : tensor<i64>
    dtf.assign_add %step, %one : !dtf.resource<tensor<i64>>
    return
  }
}
)mlir";

class SupervisorTest : public ::testing::Test {
protected:
  SupervisorTest()
      : module(kModule), coordination(twoWorkers()),
        coordinationServer(ServerOptions{"127.0.0.1:0"}) {
    coordinationServer.addService(coordination);
    coordinationServer.start();
    coordinator = std::make_unique<CoordinationClient>(
        coordinationServer.address(), fastClientOptions());
    options.recoveryTimeoutMs = 5'000;
  }

  static CoordinationOptions twoWorkers() {
    CoordinationOptions options;
    options.numWorkers = 2;
    return options;
  }

  /// Starts PS task 0 (again): a fresh process, which knows no epoch.
  void startPs() {
    ps.clear();
    running.reset();
    running = std::make_unique<RunningPs>(module.function("ps_0"),
                                          Replication::sync(2, 2));
    ps.push_back(std::make_unique<PsClient>(running->task.taskName(),
                                            running->server.address(),
                                            fastClientOptions()));
  }

  TestModule module;
  CoordinationService coordination;
  Server coordinationServer;
  std::unique_ptr<CoordinationClient> coordinator;
  std::unique_ptr<RunningPs> running;
  std::vector<std::unique_ptr<PsClient>> ps;
  ReliabilityOptions options;
};

TEST_F(SupervisorTest, ARestartedPsTaskNeverRepeatsAnEpoch) {
  startPs();
  Supervisor chief(ps, *coordinator, options, /*workerIndex=*/0,
                   /*syncMode=*/true);
  chief.start();
  // A worker pulled in the first epoch, then paused (as by SIGSTOP) across
  // the PS task's restart.
  int64_t pausedEpoch = 0;
  ps[0]->pull({"w"}, &pausedEpoch);
  ASSERT_GT(pausedEpoch, 0);

  startPs();
  ASSERT_TRUE(chief.recover(RpcError(grpc::StatusCode::UNAVAILABLE,
                                     "PS task 0 restarted")));
  int64_t newEpoch = ps[0]->status().epoch;
  EXPECT_GT(newEpoch, pausedEpoch);

  // What the paused worker sends when it resumes is fenced off: its wait
  // for the step it had reached ends at once instead of outliving the
  // restore, and its gradients are not applied.
  EXPECT_EQ(expectRpcError([&] {
              ps[0]->waitForStep(5, milliseconds(2'000), pausedEpoch);
            }).code(),
            grpc::StatusCode::ABORTED);
  Tensor gradient = Tensor::filled(DType::F32, {2}, 1.0f);
  EXPECT_EQ(expectRpcError([&] {
              ps[0]->push(0, {{"w", &gradient}}, pausedEpoch);
            }).code(),
            grpc::StatusCode::ABORTED);
  EXPECT_EQ(ps[0]->pull({"w"})[0].toVector<float>(),
            (std::vector<float>{1.0f, 1.0f}));
}

} // namespace
} // namespace dtf::train
