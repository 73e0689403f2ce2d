//===- PsProgramTest.cpp - A compiled PS function's updates ---------------===//
//
// In sync mode a PS task applies one update from the gradients of N
// replicas: their average, as SyncReplicasOptimizer takes it. A wrong
// factor (the sum, or the mean over another N) trains with a learning rate
// N times off, which a loss that falls anyway does not reveal. These tests
// compile a model for clusters of 1 to 4 workers, exactly as dtf-run does
// (--dtf-training-pipeline), and run the PS function they get.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/PsProgram.h"

#include "passes/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using ::dtf::Tensor;
using ::dtf::exec::PsProgram;
using ::dtf::exec::VariableStore;

/// loss = sum(w * g): the gradient of w is the fed g, whatever w holds, so
/// each replica's pushed gradient is known exactly. SGD with learning rate
/// 1 (the default `optimizer`) makes the update the negated gradient the PS
/// applies.
std::string linearModel(int workers, const std::string &optimizer) {
  std::string hosts;
  for (int i = 0; i < workers; ++i)
    hosts += (i ? ", " : "") + std::string("\"localhost:") +
             std::to_string(3000 + i) + "\"";
  return R"mlir(module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2999"], worker = [)mlir" +
         hosts + R"mlir(]>} {
  func.func @main() -> tensor<f32> {
    %global_step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false}
        : !dtf.resource<tensor<i64>>
    %w = dtf.variable "w" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2x3xf32>>
    %g = dtf.placeholder "g" : tensor<2x3xf32>
    %wv = dtf.read %w : !dtf.resource<tensor<2x3xf32>>
    %product = dtf.mul %wv, %g : tensor<2x3xf32>, tensor<2x3xf32>
    %loss = dtf.reduce_sum %product : tensor<2x3xf32>
    dtf.minimize %loss : tensor<f32>, )mlir" +
         optimizer + R"mlir(
        global_step %global_step : !dtf.resource<tensor<i64>>
    return %loss : tensor<f32>
  }
}
)mlir";
}

class PsProgramTest : public ::testing::Test {
protected:
  PsProgramTest() {
    mlir::DialectRegistry registry;
    dtf::ir::registerAllDialects(registry);
    dtf::ir::registerAllPasses();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// @ps_0 of the model compiled for `workers` workers in `mode`.
  mlir::func::FuncOp
  compile(int workers, const std::string &mode,
          const std::string &optimizer = "#dtf.sgd<learning_rate = 1.0>") {
    module = mlir::parseSourceString<mlir::ModuleOp>(
        linearModel(workers, optimizer), &context);
    EXPECT_TRUE(module);
    mlir::PassManager passes(&context);
    EXPECT_TRUE(succeeded(mlir::parsePassPipeline(
        "dtf-training-pipeline{mode=" + mode + "}", passes)));
    EXPECT_TRUE(succeeded(passes.run(*module)));
    auto function = module->lookupSymbol<mlir::func::FuncOp>("ps_0");
    EXPECT_TRUE(function);
    return function;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// An update of gradients computed at global step `step`.
dtf::ps::UpdateContext atStep(int64_t step) {
  dtf::ps::UpdateContext context;
  context.globalStep = step;
  return context;
}

/// Replica r's gradient: distinct per replica and per element.
std::vector<float> gradientOf(int replica) {
  std::vector<float> values;
  for (int i = 0; i < 6; ++i)
    values.push_back(static_cast<float>((replica + 1) * (i + 1)) * 0.25f -
                     static_cast<float>(replica));
  return values;
}

TEST_F(PsProgramTest, SyncUpdateAppliesTheAverageOfTheReplicasGradients) {
  for (int workers : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::to_string(workers) + " workers");
    PsProgram program(compile(workers, "sync"));
    ASSERT_EQ(program.signature().gradientNames,
              (std::vector<std::string>{"w"}));
    ASSERT_EQ(program.signature().argumentTypes.size(),
              static_cast<size_t>(workers))
        << "one gradient of w per aggregated replica";
    VariableStore values;
    program.initialize(values);
    std::vector<Tensor> arguments;
    std::vector<double> sum(6, 0.0);
    for (int replica = 0; replica < workers; ++replica) {
      std::vector<float> gradient = gradientOf(replica);
      for (int i = 0; i < 6; ++i)
        sum[i] += gradient[i];
      arguments.push_back(Tensor::fromVector<float>({2, 3}, gradient));
    }
    program.apply(values, std::move(arguments), atStep(0));
    std::vector<float> w = values.at("w").toVector<float>();
    for (int i = 0; i < 6; ++i)
      EXPECT_NEAR(w[i], 1.0 - sum[i] / workers, 1e-6) << "element " << i;
    // One update per aggregate, however many replicas it averages.
    EXPECT_EQ(values.at("global_step").scalarAsDouble(), 1);
  }
}

TEST_F(PsProgramTest, AsyncUpdateAppliesOneReplicasGradientUnscaled) {
  for (int workers : {1, 3}) {
    SCOPED_TRACE(std::to_string(workers) + " workers");
    PsProgram program(compile(workers, "async"));
    ASSERT_EQ(program.signature().argumentTypes.size(), 1u);
    VariableStore values;
    program.initialize(values);
    std::vector<float> gradient = gradientOf(2);
    std::vector<Tensor> arguments;
    arguments.push_back(Tensor::fromVector<float>({2, 3}, gradient));
    program.apply(values, std::move(arguments), atStep(0));
    std::vector<float> w = values.at("w").toVector<float>();
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(w[i], 1.0f - gradient[i]) << "element " << i;
  }
}

// The optimizer's schedule reaches the PS function's update, which takes
// the rate of the step its gradients were computed at, not of the updates
// the task counted.
TEST_F(PsProgramTest, ScheduledUpdateTakesTheRateOfItsGlobalStep) {
  PsProgram program(
      compile(2, "async",
              "#dtf.sgd<learning_rate = 1.0, schedule = #dtf.exponential_decay<"
              "decay_steps = 2.0, decay_rate = 0.5, staircase = true>>"));
  VariableStore values;
  program.initialize(values);
  std::vector<float> gradient = gradientOf(0);
  std::vector<float> expected(6, 1.0f);
  for (auto [step, rate] :
       {std::pair<int64_t, float>{0, 1.0f}, {1, 1.0f}, {5, 0.25f}, {2, 0.5f}}) {
    SCOPED_TRACE("step " + std::to_string(step));
    std::vector<Tensor> arguments;
    arguments.push_back(Tensor::fromVector<float>({2, 3}, gradient));
    program.apply(values, std::move(arguments), atStep(step));
    std::vector<float> w = values.at("w").toVector<float>();
    for (int i = 0; i < 6; ++i) {
      expected[i] -= rate * gradient[i];
      EXPECT_EQ(w[i], expected[i]) << "element " << i;
    }
  }
}

} // namespace
