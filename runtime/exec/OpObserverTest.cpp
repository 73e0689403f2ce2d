//===- OpObserverTest.cpp - The interpreter's per-op observer -------------===//

#include "runtime/exec/Interpreter.h"

#include "passes/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

namespace {

using ::dtf::Tensor;
using ::dtf::exec::FeedMap;
using ::dtf::exec::Interpreter;
using ::dtf::exec::VariableStore;
using Clock = std::chrono::steady_clock;

constexpr const char *kModel = R"mlir(
  func.func @main() -> tensor<2x2xf32> {
    %w = dtf.variable "w" init(#dtf.constant<0.5>) : !dtf.resource<tensor<3x2xf32>>
    %x = dtf.placeholder "x" : tensor<2x3xf32>
    %wv = dtf.read %w : !dtf.resource<tensor<3x2xf32>>
    %mm = dtf.matmul %x, %wv : tensor<2x3xf32>, tensor<3x2xf32>
    %one = dtf.constant dense<1.0> : tensor<3x2xf32>
    dtf.assign_add %w, %one : !dtf.resource<tensor<3x2xf32>>
    return %mm : tensor<2x2xf32>
  }
)mlir";

struct Observed {
  std::string name;
  Clock::time_point begin, end;
};

class OpObserverTest : public ::testing::Test {
protected:
  OpObserverTest() {
    mlir::DialectRegistry registry;
    mlir::dtf::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = mlir::parseSourceString<mlir::ModuleOp>(kModel, &context);
    function = *module->getOps<mlir::func::FuncOp>().begin();
    dtf::exec::initializeVariables(function, store, {});
    feeds.emplace("x", Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  }

  std::vector<std::string> names() const {
    std::vector<std::string> result;
    for (const Observed &op : observed)
      result.push_back(op.name);
    return result;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp function;
  VariableStore store;
  FeedMap feeds;
  std::vector<Observed> observed;
};

TEST_F(OpObserverTest, SeesEveryEvaluatedOpInOrder) {
  Interpreter interpreter(store);
  interpreter.setOpObserver(
      [&](mlir::Operation *op, Clock::time_point begin, Clock::time_point end) {
        observed.push_back({op->getName().getStringRef().str(), begin, end});
      });
  Clock::time_point start = Clock::now();
  interpreter.run(function, feeds);
  EXPECT_EQ(names(), (std::vector<std::string>{
                         "dtf.variable", "dtf.placeholder", "dtf.read",
                         "dtf.matmul", "dtf.constant", "dtf.assign_add",
                         "func.return"}));
  Clock::time_point previousEnd = start;
  for (const Observed &op : observed) {
    EXPECT_LE(previousEnd, op.begin) << op.name;
    EXPECT_LE(op.begin, op.end) << op.name;
    previousEnd = op.end;
  }
}

TEST_F(OpObserverTest, SeesOnlyTheFetchedPath) {
  Interpreter interpreter(store);
  interpreter.setOpObserver(
      [&](mlir::Operation *op, Clock::time_point begin, Clock::time_point end) {
        observed.push_back({op->getName().getStringRef().str(), begin, end});
      });
  mlir::Value mm = function.getBody().front().getTerminator()->getOperand(0);
  interpreter.runAndFetch(function, feeds, mm);
  EXPECT_EQ(names(), (std::vector<std::string>{"dtf.variable",
                                               "dtf.placeholder", "dtf.read",
                                               "dtf.matmul"}));
}

TEST_F(OpObserverTest, CanBeTurnedOff) {
  Interpreter interpreter(store);
  interpreter.setOpObserver(
      [&](mlir::Operation *op, Clock::time_point begin, Clock::time_point end) {
        observed.push_back({op->getName().getStringRef().str(), begin, end});
      });
  interpreter.setOpObserver(nullptr);
  std::vector<Tensor> results = interpreter.run(function, feeds);
  EXPECT_TRUE(observed.empty());
  EXPECT_EQ(results[0].toVector<float>(),
            (std::vector<float>{3.0f, 3.0f, 7.5f, 7.5f}));
}

} // namespace
