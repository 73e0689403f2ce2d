//===- OpObserverTest.cpp - The executor's per-op observer ----------------===//

#include "runtime/exec/Executor.h"

#include "passes/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <thread>

namespace {

using ::dtf::Tensor;
using ::dtf::exec::FeedMap;
using ::dtf::exec::Executor;
using ::dtf::exec::ExecutorOptions;
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
    dtf::ir::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = mlir::parseSourceString<mlir::ModuleOp>(kModel, &context);
    function = *module->getOps<mlir::func::FuncOp>().begin();
    dtf::exec::initializeVariables(function, store, {});
    feeds.emplace("x", Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  }

  /// Options whose observer records into `observed`.
  ExecutorOptions observing(size_t threads) {
    ExecutorOptions options;
    options.numThreads = threads;
    options.opObserver = [this](mlir::Operation *op, Clock::time_point begin,
                                Clock::time_point end) {
      std::lock_guard<std::mutex> lock(mutex);
      observed.push_back({op->getName().getStringRef().str(), begin, end});
    };
    return options;
  }

  /// The names observed, sorted: concurrent ops may be seen in any order.
  std::vector<std::string> sortedNames() const {
    std::vector<std::string> result;
    for (const Observed &op : observed)
      result.push_back(op.name);
    std::sort(result.begin(), result.end());
    return result;
  }

  const Observed &find(const std::string &name) const {
    return *std::find_if(observed.begin(), observed.end(),
                         [&](const Observed &op) { return op.name == name; });
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp function;
  VariableStore store;
  FeedMap feeds;
  std::mutex mutex;
  std::vector<Observed> observed;
};

TEST_F(OpObserverTest, SeesEveryOpOfAStepAfterWhatItDependsOn) {
  Executor executor(function, store, observing(/*threads=*/4));
  Clock::time_point start = Clock::now();
  executor.run(feeds);
  Clock::time_point finish = Clock::now();
  // Constants and variables are computed when the step is prepared, and
  // the return is no op of the model.
  EXPECT_EQ(sortedNames(),
            (std::vector<std::string>{"dtf.assign_add", "dtf.matmul",
                                      "dtf.placeholder", "dtf.read"}));
  for (const Observed &op : observed) {
    EXPECT_LE(start, op.begin) << op.name;
    EXPECT_LE(op.begin, op.end) << op.name;
    EXPECT_LE(op.end, finish) << op.name;
  }
  EXPECT_LE(find("dtf.read").end, find("dtf.matmul").begin);
  EXPECT_LE(find("dtf.placeholder").end, find("dtf.matmul").begin);
  // The update waits for the read before it.
  EXPECT_LE(find("dtf.read").end, find("dtf.assign_add").begin);
}

TEST_F(OpObserverTest, SeesOnlyTheFetchedPath) {
  Executor executor(function, store, observing(/*threads=*/1));
  mlir::Value mm = function.getBody().front().getTerminator()->getOperand(0);
  executor.runAndFetch(feeds, mm);
  EXPECT_EQ(sortedNames(), (std::vector<std::string>{
                               "dtf.matmul", "dtf.placeholder", "dtf.read"}));
}

TEST_F(OpObserverTest, SeesAnExternalOpFromItsStartToItsResult) {
  // A stand-in for an op that leaves the process, as the worker's dtf.pull.
  context.allowUnregisteredDialects();
  mlir::OwningOpRef<mlir::ModuleOp> pullModule =
      mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
    func.func @pulling() -> tensor<2xf32> {
      %p = "test.pull"() : () -> tensor<2xf32>
      %r = dtf.relu %p : tensor<2xf32>
      return %r : tensor<2xf32>
    }
  )mlir",
                                              &context);
  mlir::func::FuncOp pulling =
      *pullModule->getOps<mlir::func::FuncOp>().begin();
  ExecutorOptions options = observing(/*threads=*/2);
  Clock::time_point handlerStarted, resultSent;
  options.externalOps["test.pull"] =
      dtf::exec::makeExternalOpHandler([&](const dtf::exec::ExternalOpCall &) {
        handlerStarted = Clock::now();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        resultSent = Clock::now();
        std::vector<Tensor> pulled;
        pulled.push_back(Tensor::fromVector<float>({2}, {-1.0f, 2.0f}));
        return pulled;
      });
  Executor executor(pulling, store, std::move(options));
  EXPECT_EQ(executor.run({})[0].toVector<float>(),
            (std::vector<float>{0.0f, 2.0f}));
  EXPECT_EQ(sortedNames(),
            (std::vector<std::string>{"dtf.relu", "test.pull"}));
  EXPECT_LE(find("test.pull").begin, handlerStarted);
  EXPECT_GE(find("test.pull").end, resultSent);
  EXPECT_LE(find("test.pull").end, find("dtf.relu").begin);
}

TEST_F(OpObserverTest, AnExecutorWithoutOneRunsTheSame) {
  Executor executor(function, store);
  std::vector<Tensor> results = executor.run(feeds);
  EXPECT_TRUE(observed.empty());
  EXPECT_EQ(results[0].toVector<float>(),
            (std::vector<float>{3.0f, 3.0f, 7.5f, 7.5f}));
}

} // namespace
