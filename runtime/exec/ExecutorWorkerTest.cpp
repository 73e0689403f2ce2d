//===- ExecutorWorkerTest.cpp - A worker task's graphs and variables ------===//
//
// In-graph recovery restores every task from the master's checkpoint
// through assignVariables; a restore that skipped any variable (an
// optimizer's slots, the beta powers, the global step) would leave the task
// training on a mix of two steps' state, which an accuracy bar does not
// see. These tests restore a model trained with Adam and compare every
// variable by name and value.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/ExecutorWorker.h"

#include "runtime/core/Error.h"

#include "passes/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <vector>

namespace {

using ::dtf::Tensor;
using ::dtf::exec::ExecutorWorker;
using ::dtf::exec::ExecutorWorkerOptions;
using ::dtf::exec::FeedMap;
using ::dtf::exec::VariableStore;

/// A linear model trained with Adam and a global step, before
/// --dtf-autodiff and --dtf-expand-optimizer.
constexpr const char *kAdamModel = R"mlir(
module {
  func.func @main() -> tensor<f32> {
    %global_step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false}
        : !dtf.resource<tensor<i64>>
    %w = dtf.variable "w" init(#dtf.truncated_normal<stddev = 0.5, seed = 3>)
        : !dtf.resource<tensor<3x2xf32>>
    %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    %x = dtf.placeholder "x" : tensor<4x3xf32>
    %y = dtf.placeholder "y" : tensor<4x2xf32>
    %wv = dtf.read %w : !dtf.resource<tensor<3x2xf32>>
    %bv = dtf.read %b : !dtf.resource<tensor<2xf32>>
    %mm = dtf.matmul %x, %wv : tensor<4x3xf32>, tensor<3x2xf32>
    %out = dtf.bias_add %mm, %bv : tensor<4x2xf32>, tensor<2xf32>
    %diff = dtf.sub %out, %y : tensor<4x2xf32>, tensor<4x2xf32>
    %sq = dtf.mul %diff, %diff : tensor<4x2xf32>, tensor<4x2xf32>
    %loss = dtf.reduce_mean %sq : tensor<4x2xf32>
    dtf.minimize %loss : tensor<f32>, #dtf.adam<learning_rate = 0.1>
        global_step %global_step : !dtf.resource<tensor<i64>>
    return %loss : tensor<f32>
  }
}
)mlir";

/// The model with its gradients and Adam's updates expanded, as MLIR text:
/// what the in-graph master registers with a task.
std::string expandedAdamModel() {
  mlir::DialectRegistry registry;
  dtf::ir::registerAllDialects(registry);
  dtf::ir::registerAllPasses();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kAdamModel, &context);
  EXPECT_TRUE(module);
  mlir::PassManager passes(&context);
  EXPECT_TRUE(succeeded(mlir::parsePassPipeline(
      "func.func(dtf-autodiff,dtf-expand-optimizer)", passes)));
  EXPECT_TRUE(succeeded(passes.run(*module)));
  std::string text;
  llvm::raw_string_ostream(text) << *module;
  return text;
}

/// Runs `steps` training steps, each on its own batch.
void train(ExecutorWorker &worker, int steps, int &batch) {
  for (int i = 0; i < steps; ++i, ++batch) {
    std::vector<float> x, y;
    for (int j = 0; j < 12; ++j)
      x.push_back(0.1f * static_cast<float>((batch * 7 + j * 3) % 11) - 0.5f);
    for (int j = 0; j < 8; ++j)
      y.push_back(0.2f * static_cast<float>((batch + j) % 5));
    FeedMap feeds;
    feeds["x"] = Tensor::fromVector<float>({4, 3}, x);
    feeds["y"] = Tensor::fromVector<float>({4, 2}, y);
    dtf::Worker::StepOptions step;
    step.stepId = batch;
    step.deadline = dtf::Clock::now() + std::chrono::minutes(1);
    worker.runStep("main", std::move(feeds), {}, step);
  }
}

bool equal(const Tensor &a, const Tensor &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         a.byteSize() == b.byteSize() &&
         std::memcmp(a.rawData(), b.rawData(), a.byteSize()) == 0;
}

std::vector<std::string> namesOf(const VariableStore &store) {
  std::vector<std::string> names;
  for (auto &entry : store)
    names.push_back(entry.first);
  return names;
}

ExecutorWorkerOptions oneThread() {
  ExecutorWorkerOptions options;
  options.taskName = "/job:worker/task:0";
  options.runInCallerThread = true;
  return options;
}

TEST(ExecutorWorkerTest, RestoreSetsEveryVariableSlotsAndStepIncluded) {
  ExecutorWorker worker(oneThread());
  worker.registerGraphs(expandedAdamModel(), {"main"});
  int batch = 0;
  train(worker, 3, batch);
  VariableStore checkpoint = worker.snapshotVariables();
  // Adam's state is there to restore: both slots of each variable, both
  // beta powers, and the global step.
  EXPECT_EQ(namesOf(checkpoint),
            (std::vector<std::string>{"b", "b/Adam", "b/Adam_1", "beta1_power",
                                      "beta2_power", "global_step", "w",
                                      "w/Adam", "w/Adam_1"}));
  EXPECT_EQ(checkpoint.at("global_step").scalarAsDouble(), 3);

  // Training on moves every variable away from the checkpoint, so that a
  // variable the restore skipped cannot equal its saved value by chance.
  train(worker, 2, batch);
  VariableStore moved = worker.snapshotVariables();
  for (auto &[name, value] : checkpoint)
    EXPECT_FALSE(equal(moved.at(name), value)) << name << " did not move";

  VariableStore copy;
  for (auto &[name, value] : checkpoint)
    copy.emplace(name, value.clone());
  std::vector<std::string> assigned = worker.assignVariables(std::move(copy));
  EXPECT_EQ(assigned, namesOf(checkpoint));
  VariableStore restored = worker.snapshotVariables();
  ASSERT_EQ(namesOf(restored), namesOf(checkpoint));
  for (auto &[name, value] : checkpoint)
    EXPECT_TRUE(equal(restored.at(name), value))
        << name << " is not the checkpoint's after the restore";

  // And the restored task trains as the original did from there: the same
  // two steps give the same state, bit for bit.
  batch -= 2;
  train(worker, 2, batch);
  VariableStore again = worker.snapshotVariables();
  for (auto &[name, value] : moved)
    EXPECT_TRUE(equal(again.at(name), value))
        << name << " differs after retraining from the restore";
}

TEST(ExecutorWorkerTest, RestoreOfAMismatchedValueSetsNothing) {
  ExecutorWorker worker(oneThread());
  worker.registerGraphs(expandedAdamModel(), {"main"});
  int batch = 0;
  train(worker, 1, batch);
  VariableStore before = worker.snapshotVariables();
  VariableStore values;
  values.emplace("b", Tensor::fromVector<float>({2}, {5, 5}));
  values.emplace("w/Adam",
                 Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  try {
    worker.assignVariables(std::move(values));
    FAIL() << "a value of another shape was assigned";
  } catch (const dtf::Error &error) {
    EXPECT_EQ(error.code(), dtf::ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("'w/Adam'"), std::string::npos)
        << error.what();
  }
  VariableStore after = worker.snapshotVariables();
  for (auto &[name, value] : before)
    EXPECT_TRUE(equal(after.at(name), value)) << name << " changed";
}

} // namespace
