//===- GpuWorkerStepTest.cpp - A worker's step lowered for a GPU ----------===//
//
// The replica programs dtf-run trains, lowered as --device=GPU:K lowers
// them: without a GPU, that the lowering succeeds and gives host code the
// GPU executor runs; with one, that a training and a validation step give
// what the CPU gives, to 1e-4 of the largest magnitude.
//
//===----------------------------------------------------------------------===//

#include "runtime/train/Compile.h"
#include "runtime/train/WorkerStep.h"

#include "runtime/cuda/tests/GpuTestUtil.h"
#include "dialects/dtf/IR/DTFOps.h"
#include "dialects/dtf/IR/WorkerStepAttrs.h"
#include "passes/InitAll.h"
#include "runtime/cuda/exec/GpuFunction.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/MLIRContext.h"

namespace dtf::train {
namespace {

using cuda::testing::expectCloseOverall;
using cuda::testing::uniform;

class GpuWorkerStepTest : public ::testing::Test {
protected:
  GpuWorkerStepTest() {
    mlir::DialectRegistry registry;
    ir::registerAllDialects(registry);
    ir::registerAllPasses();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The worker program dtf-run trains `model` with: 1 PS, 2 workers, sync.
  WorkerProgram compile(const std::string &model) {
    ReplicationOptions replication;
    replication.sync = true;
    replication.replicasToAggregate = 2;
    replication.totalReplicas = 2;
    programs.push_back(compileModel(
        context, std::string(DTF_EXAMPLES "/") + model + ".mlir",
        cluster::ClusterSpec::fromHostLists("localhost:2222",
                                            "localhost:2223,localhost:2224"),
        replication));
    if (!programs.back())
      throw std::runtime_error(model + " does not compile");
    return prepareWorkerProgram(*programs.back());
  }

  /// A feed for every placeholder: images, one-hot labels, pulled
  /// parameters of small magnitude, the pulled global step.
  static exec::FeedMap feedsFor(const WorkerProgram &program) {
    exec::FeedMap feeds;
    uint64_t seed = 1;
    mlir::func::FuncOp function = program.function;
    function.walk([&](ir::PlaceholderOp placeholder) {
      std::string name = placeholder.getName().str();
      auto type = placeholder.getType();
      Shape shape(type.getShape().begin(), type.getShape().end());
      if (name == "y_") {
        Tensor labels(DType::F32, shape);
        for (int64_t n = 0; n < shape[0]; ++n)
          labels.data<float>()[n * shape[1] + (n * 7) % shape[1]] = 1;
        feeds.emplace(name, std::move(labels));
      } else if (type.getElementType().isInteger(64)) {
        feeds.emplace(name, Tensor::filled(DType::I64, shape, 7));
      } else if (name == "x") {
        feeds.emplace(name, uniform(DType::F32, shape, 0, 1, ++seed));
      } else {
        feeds.emplace(name, uniform(DType::F32, shape, -0.1, 0.1, ++seed));
      }
    });
    return feeds;
  }

  mlir::MLIRContext context;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> programs;
};

size_t gradientCount(const WorkerProgram &program) {
  size_t count = 0;
  for (const WorkerProgram::PushGroup &group : program.pushes)
    count += group.gradients.size();
  return count;
}

TEST_F(GpuWorkerStepTest, TheReplicaProgramsLowerToHostCodeTheExecutorRuns) {
  for (const char *model : {"mnist_mlp", "mnist_cnn"}) {
    SCOPED_TRACE(model);
    WorkerProgram program = compile(model);
    mlir::OwningOpRef<mlir::ModuleOp> lowered =
        lowerWorkerForGpu(program, "sm_90");
    auto train = lowered->lookupSymbol<mlir::func::FuncOp>("train");
    auto evaluate = lowered->lookupSymbol<mlir::func::FuncOp>("evaluate");
    ASSERT_TRUE(train && evaluate);
    EXPECT_EQ(train.getNumResults(),
              program.results.size() + gradientCount(program));
    EXPECT_EQ(evaluate.getNumResults(), program.results.size());
    EXPECT_NO_THROW(cuda::GpuFunction::verify(train));
    EXPECT_NO_THROW(cuda::GpuFunction::verify(evaluate));
    // The kernels are embedded as cubins; validation skips the backward
    // pass, so it launches fewer of them.
    int binaries = 0;
    lowered->walk([&](mlir::gpu::BinaryOp) { ++binaries; });
    EXPECT_GE(binaries, 1);
    auto launches = [](mlir::func::FuncOp function) {
      int count = 0;
      function.walk([&](mlir::gpu::LaunchFuncOp) { ++count; });
      return count;
    };
    EXPECT_LT(launches(evaluate), launches(train));
    // Pulled parameters and data are the only inputs; the pulled global
    // step stays on the host.
    for (unsigned i = 0; i < train.getNumArguments(); ++i) {
      auto feed = train.getArgAttrOfType<mlir::StringAttr>(i, "dtf.feed");
      ASSERT_TRUE(feed) << "argument " << i << " is not a feed";
      EXPECT_NE(feed.getValue(), dtf::ir::pulledPlaceholderName("global_step"));
    }
  }
}

TEST_F(GpuWorkerStepTest, StepsMatchTheCPU) {
  DTF_REQUIRE_GPU();
  for (const char *model : {"mnist_mlp", "mnist_cnn"}) {
    SCOPED_TRACE(model);
    WorkerProgram program = compile(model);
    exec::FeedMap feeds = feedsFor(program);
    std::unique_ptr<WorkerStep> cpu =
        makeCpuWorkerStep(program, {}, /*workerIndex=*/0);
    std::unique_ptr<WorkerStep> gpu = makeGpuWorkerStep(program, 0);
    std::vector<Tensor> expected = cpu->train(feeds);
    std::vector<Tensor> actual = gpu->train(feeds);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
      expectCloseOverall(actual[i], expected[i],
                         std::string(model) + " fetch " + std::to_string(i));
    expected = cpu->evaluate(feeds);
    actual = gpu->evaluate(feeds);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
      expectCloseOverall(actual[i], expected[i],
                         std::string(model) + " result " + std::to_string(i));
  }
}

TEST_F(GpuWorkerStepTest, AMissingGpuIsAnErrorNamingTheFlag) {
  WorkerProgram program = compile("mnist_mlp");
  int visible = cuda::deviceCount();
  try {
    makeGpuWorkerStep(program, visible);
    FAIL() << "GPU:" << visible << " of " << visible << " visible GPUs";
  } catch (const std::runtime_error &error) {
    EXPECT_NE(std::string(error.what()).find(
                  "--device=GPU:" + std::to_string(visible) + ": "),
              std::string::npos)
        << error.what();
  }
}

} // namespace
} // namespace dtf::train
