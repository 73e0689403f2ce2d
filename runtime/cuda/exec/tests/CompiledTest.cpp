//===- CompiledTest.cpp - Lowered programs on the GPU vs the CPU kernels --===//
//
// Every function of test/GPU/Inputs/ops.mlir and both example models (forward pass and
// gradients), lowered by --dtf-lower-to-gpu at build time, run by
// GpuFunction on GPU:0 and compared with the reference interpreter, which
// runs the same functions on the CPU kernels of dtf_runtime. Without a GPU
// the comparisons skip; the lowered host code is still checked against what
// the executor runs.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/exec/GpuFunction.h"

#include "runtime/cuda/tests/GpuTestUtil.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/InitAll.h"
#include "runtime/exec/Interpreter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

namespace dtf::cuda {
namespace {

using testing::expectClose;
using testing::expectCloseOverall;
using testing::uniform;

class CompiledTest : public ::testing::Test {
protected:
  CompiledTest() {
    mlir::DialectRegistry registry;
    dtf::ir::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  mlir::ModuleOp load(const std::string &path) {
    modules.push_back(mlir::parseSourceFile<mlir::ModuleOp>(path, &context));
    if (!modules.back())
      ADD_FAILURE() << "cannot parse " << path;
    return *modules.back();
  }

  /// Random arguments of `function`, in each argument's test.range.
  std::vector<Tensor> randomArguments(mlir::func::FuncOp function) {
    std::vector<Tensor> args;
    for (unsigned i = 0; i < function.getNumArguments(); ++i) {
      mlir::Type type = function.getArgumentTypes()[i];
      double low = -1, high = 1;
      if (auto range =
              function.getArgAttrOfType<mlir::ArrayAttr>(i, "test.range")) {
        low = mlir::cast<mlir::FloatAttr>(range[0]).getValueAsDouble();
        high = mlir::cast<mlir::FloatAttr>(range[1]).getValueAsDouble();
      }
      args.push_back(uniform(exec::toDType(mlir::getElementTypeOrSelf(type),
                                           exec::EvalOptions()),
                             exec::toShape(type), low, high, 1000 + i));
    }
    return args;
  }

  mlir::MLIRContext context;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules;
};

std::vector<Tensor> clones(const std::vector<Tensor> &tensors) {
  std::vector<Tensor> result;
  for (const Tensor &tensor : tensors)
    result.push_back(tensor.clone());
  return result;
}

std::vector<const Tensor *> pointers(const std::vector<Tensor> &tensors) {
  std::vector<const Tensor *> result;
  for (const Tensor &tensor : tensors)
    result.push_back(&tensor);
  return result;
}

TEST_F(CompiledTest, LoweredHostCodeIsWhatTheExecutorRuns) {
  for (const char *name :
       {"ops.gpu.mlir", "mnist_mlp.gpu.mlir", "mnist_cnn.gpu.mlir"}) {
    mlir::ModuleOp module = load(std::string(DTF_GPU_PROGRAMS "/") + name);
    ASSERT_TRUE(module) << name;
    int functions = 0;
    for (auto function : module.getOps<mlir::func::FuncOp>()) {
      if (function.isExternal())
        continue;
      ++functions;
      EXPECT_NO_THROW(GpuFunction::verify(function))
          << name << " @" << function.getName().str();
    }
    EXPECT_GT(functions, 0) << name;
    // Every kernel is a cubin, for the default sm_90.
    for (auto binary : module.getOps<mlir::gpu::BinaryOp>())
      for (mlir::Attribute attr : binary.getObjects())
        EXPECT_EQ(mlir::cast<mlir::gpu::ObjectAttr>(attr).getFormat(),
                  mlir::gpu::CompilationTarget::Binary)
            << name << " @" << binary.getName().str();
  }
}

TEST_F(CompiledTest, EveryOpMatchesTheCPUKernels) {
  DTF_REQUIRE_GPU();
  mlir::ModuleOp source = load(DTF_GPU_TEST_OPS);
  mlir::ModuleOp lowered = load(DTF_GPU_PROGRAMS "/ops.gpu.mlir");
  ASSERT_TRUE(source && lowered);
  Device &device = Device::get(0);
  for (auto reference : source.getOps<mlir::func::FuncOp>()) {
    std::string name = "@" + reference.getName().str();
    SCOPED_TRACE(name);
    auto function =
        lowered.lookupSymbol<mlir::func::FuncOp>(reference.getName());
    ASSERT_TRUE(function);
    std::vector<Tensor> args = randomArguments(reference);

    exec::VariableStore store;
    std::vector<Tensor> expected =
        exec::Interpreter(store).run(reference, {}, clones(args));
    GpuFunction gpu(function, device);
    std::vector<Tensor> actual = gpu.run(pointers(args));
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
      expectClose(actual[i], expected[i],
                  name + " result " + std::to_string(i));
    // A second run reuses cached memory and loaded kernels.
    std::vector<Tensor> again = gpu.run(pointers(args));
    for (size_t i = 0; i < again.size(); ++i)
      expectClose(again[i], expected[i],
                  name + " result " + std::to_string(i) + ", second run");
  }
}

/// A batch the example models accept: images in [0, 1) and one-hot labels.
std::map<std::string, Tensor> exampleFeeds() {
  std::map<std::string, Tensor> feeds;
  feeds.emplace("x", uniform(DType::F32, {100, 784}, 0, 1, 7));
  Tensor labels(DType::F32, {100, 10});
  for (int64_t n = 0; n < 100; ++n)
    labels.data<float>()[n * 10 + (n * 7) % 10] = 1;
  feeds.emplace("y_", std::move(labels));
  return feeds;
}

void checkModel(CompiledTest &test, const std::string &model,
                mlir::ModuleOp original, mlir::ModuleOp lifted,
                mlir::ModuleOp lowered) {
  SCOPED_TRACE(model);
  auto main = [](mlir::ModuleOp module) {
    return module.lookupSymbol<mlir::func::FuncOp>("main");
  };
  ASSERT_TRUE(main(original) && main(lifted) && main(lowered));
  exec::VariableStore variables;
  exec::initializeVariables(main(original), variables, {});
  std::map<std::string, Tensor> feeds = exampleFeeds();

  // The reference: the differentiated graph, its inputs lifted to
  // arguments like the GPU function's, on the CPU kernels.
  GpuFunction gpu(main(lowered), Device::get(0));
  std::vector<Tensor> args;
  mlir::func::FuncOp reference = main(lifted);
  for (unsigned i = 0; i < reference.getNumArguments(); ++i) {
    std::string feed = gpu.feedName(i), variable = gpu.variableName(i);
    args.push_back(feed.empty() ? variables.at(variable).clone()
                                : feeds.at(feed).clone());
  }
  exec::VariableStore unused;
  std::vector<Tensor> expected =
      exec::Interpreter(unused).run(reference, {}, std::move(args));
  std::vector<Tensor> actual = gpu.run(feeds, variables);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    std::string gradient = gpu.gradientName(i);
    std::string what = gradient.empty() ? "fetch " + std::to_string(i)
                                        : "gradient of " + gradient;
    expectCloseOverall(actual[i], expected[i], model + " " + what);
  }
  (void)test;
}

TEST_F(CompiledTest, ExampleModelsMatchTheCPU) {
  DTF_REQUIRE_GPU();
  for (std::string model : {"mnist_mlp", "mnist_cnn"}) {
    mlir::ModuleOp original =
        load(std::string(DTF_EXAMPLES "/") + model + ".mlir");
    mlir::ModuleOp lifted =
        load(std::string(DTF_GPU_PROGRAMS "/") + model + ".cpu.mlir");
    mlir::ModuleOp lowered =
        load(std::string(DTF_GPU_PROGRAMS "/") + model + ".gpu.mlir");
    ASSERT_TRUE(original && lifted && lowered);
    checkModel(*this, model, original, lifted, lowered);
  }
}

TEST_F(CompiledTest, WrongArgumentsAreClearErrors) {
  DTF_REQUIRE_GPU();
  mlir::ModuleOp lowered = load(DTF_GPU_PROGRAMS "/ops.gpu.mlir");
  ASSERT_TRUE(lowered);
  GpuFunction gpu(lowered.lookupSymbol<mlir::func::FuncOp>("log"),
                  Device::get(0));
  Tensor wrong(DType::F32, {299});
  try {
    gpu.run({&wrong});
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("must be f32[300]"),
              std::string::npos)
        << error.what();
  }
  EXPECT_THROW(gpu.run(std::vector<const Tensor *>{}), std::invalid_argument);
}

} // namespace
} // namespace dtf::cuda
