//===- InterpreterTest.cpp - Tests of the reference interpreter -----------===//

#include "runtime/exec/Interpreter.h"

#include "runtime/core/Initializers.h"

#include "passes/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <gtest/gtest.h>

namespace {

using ::dtf::DType;
using ::dtf::Tensor;
using ::dtf::exec::EvalError;
using ::dtf::exec::FeedMap;
using ::dtf::exec::Interpreter;
using ::dtf::exec::VariableStore;

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    mlir::DialectRegistry registry;
    dtf::ir::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  mlir::func::FuncOp parse(const char *source) {
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    return *module->getOps<mlir::func::FuncOp>().begin();
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

// y = x * w + b with w = 0.5 everywhere and b = [1, 2], then w += 1.
constexpr const char *kDense = R"mlir(
  func.func @main() -> tensor<2x2xf32> {
    %w = dtf.variable "w" init(#dtf.constant<0.5>) : !dtf.resource<tensor<3x2xf32>>
    %x = dtf.placeholder "x" : tensor<2x3xf32>
    %b = dtf.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %wv = dtf.read %w : !dtf.resource<tensor<3x2xf32>>
    %mm = dtf.matmul %x, %wv : tensor<2x3xf32>, tensor<3x2xf32>
    %y = dtf.bias_add %mm, %b : tensor<2x2xf32>, tensor<2xf32>
    %one = dtf.constant dense<1.0> : tensor<3x2xf32>
    dtf.assign_add %w, %one : !dtf.resource<tensor<3x2xf32>>
    return %y : tensor<2x2xf32>
  }
)mlir";

FeedMap denseFeeds() {
  FeedMap feeds;
  feeds.emplace("x", Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  return feeds;
}

TEST_F(InterpreterTest, RunsOpsInOrderAndUpdatesVariables) {
  mlir::func::FuncOp function = parse(kDense);
  VariableStore store;
  dtf::exec::initializeVariables(function, store, {});
  Interpreter interpreter(store);

  std::vector<Tensor> results = interpreter.run(function, denseFeeds());
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].toVector<float>(),
            (std::vector<float>{4.0f, 5.0f, 8.5f, 9.5f}));
  EXPECT_EQ(store.at("w").toVector<float>(), std::vector<float>(6, 1.5f));
}

TEST_F(InterpreterTest, FetchRunsOnlyTheNeededOps) {
  mlir::func::FuncOp function = parse(kDense);
  VariableStore store;
  dtf::exec::initializeVariables(function, store, {});
  Interpreter interpreter(store);

  mlir::Value y =
      function.getBody().front().getTerminator()->getOperand(0);
  std::vector<Tensor> fetched =
      interpreter.runAndFetch(function, denseFeeds(), y);
  EXPECT_EQ(fetched[0].toVector<float>(),
            (std::vector<float>{4.0f, 5.0f, 8.5f, 9.5f}));
  // The assign_add is not on the fetch's path, so it did not run.
  EXPECT_EQ(store.at("w").toVector<float>(), std::vector<float>(6, 0.5f));
}

TEST_F(InterpreterTest, PromotesFloatsToF64OnRequest) {
  mlir::func::FuncOp function = parse(kDense);
  VariableStore store;
  dtf::exec::EvalOptions options;
  options.promoteToF64 = true;
  dtf::exec::initializeVariables(function, store, options);
  Interpreter interpreter(store, options);
  std::vector<Tensor> results = interpreter.run(function, denseFeeds());
  EXPECT_EQ(results[0].dtype(), DType::F64);
  EXPECT_EQ(store.at("w").dtype(), DType::F64);
}

TEST_F(InterpreterTest, MissingFeedNamesThePlaceholder) {
  mlir::func::FuncOp function = parse(kDense);
  VariableStore store;
  dtf::exec::initializeVariables(function, store, {});
  Interpreter interpreter(store);
  try {
    interpreter.run(function, {});
    FAIL() << "expected an EvalError";
  } catch (const EvalError &error) {
    EXPECT_NE(std::string(error.what()).find("'x' is not fed"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(InterpreterTest, KernelErrorsNameTheOp) {
  mlir::func::FuncOp function = parse(kDense);
  VariableStore store;
  dtf::exec::initializeVariables(function, store, {});
  Interpreter interpreter(store);
  FeedMap feeds;
  feeds.emplace("x", Tensor::fromVector<float>({3, 2}, {1, 2, 3, 4, 5, 6}));
  try {
    interpreter.run(function, feeds);
    FAIL() << "expected an EvalError";
  } catch (const EvalError &error) {
    std::string message = error.what();
    EXPECT_NE(message.find("'dtf.placeholder'"), std::string::npos) << message;
    EXPECT_NE(message.find("expects shape [2,3]"), std::string::npos)
        << message;
  }
}

// dtf.rows_of_ids: each id's position among the sorted keys, their count
// for an id they lack, -1 for padding; on the Interpreter and the Executor
// alike (one kernel).
constexpr const char *kRowsOfIds = R"mlir(
  func.func @main() -> (tensor<2x4xi64>, tensor<3xi64>) {
    %ids = dtf.placeholder "ids" : tensor<2x4xi64>
    %keys = dtf.constant dense<[3, 17, 40, 1000000000000]> : tensor<4xi64>
    %rows = dtf.rows_of_ids %ids, %keys : tensor<2x4xi64>, tensor<4xi64> -> tensor<2x4xi64>
    %some = dtf.placeholder "some" : tensor<3xi64>
    %none = dtf.constant dense<> : tensor<0xi64>
    %default = dtf.rows_of_ids %some, %none : tensor<3xi64>, tensor<0xi64> -> tensor<3xi64>
    return %rows, %default : tensor<2x4xi64>, tensor<3xi64>
  }
)mlir";

TEST_F(InterpreterTest, RowsOfIdsFindsEachIdAmongTheSortedKeys) {
  mlir::func::FuncOp function = parse(kRowsOfIds);
  VariableStore store;
  Interpreter interpreter(store);
  FeedMap feeds;
  feeds.emplace("ids", Tensor::fromVector<int64_t>(
                           {2, 4}, {17, 0, -1, 3, 1000000000000, 41, 40, 4}));
  feeds.emplace("some", Tensor::fromVector<int64_t>({3}, {5, -1, 0}));
  std::vector<Tensor> results = interpreter.run(function, feeds);
  ASSERT_EQ(results.size(), 2u);
  // Absent ids (0, 41, 4: below, between and past the keys) read row 4.
  EXPECT_EQ(results[0].toVector<int64_t>(),
            (std::vector<int64_t>{1, 4, -1, 0, 3, 4, 2, 4}));
  // No keys: every id but padding reads the one default row.
  EXPECT_EQ(results[1].toVector<int64_t>(), (std::vector<int64_t>{0, -1, 0}));
}

TEST_F(InterpreterTest, RowsOfIdsRefusesANegativeIdOtherThanPadding) {
  mlir::func::FuncOp function = parse(kRowsOfIds);
  VariableStore store;
  Interpreter interpreter(store);
  FeedMap feeds;
  feeds.emplace(
      "ids", Tensor::fromVector<int64_t>({2, 4}, {17, -1, 3, 3, 40, -7, 0, 0}));
  feeds.emplace("some", Tensor::fromVector<int64_t>({3}, {5, -1, 0}));
  try {
    interpreter.run(function, feeds);
    FAIL() << "expected an EvalError";
  } catch (const EvalError &error) {
    std::string message = error.what();
    EXPECT_NE(message.find("'dtf.rows_of_ids'"), std::string::npos) << message;
    EXPECT_NE(message.find("id -7 at position 5 is negative; a dynamic "
                           "table's ids are >= 0 (-1 pads)"),
              std::string::npos)
        << message;
  }
}

TEST_F(InterpreterTest, BindsFunctionArguments) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @apply(%grad: tensor<2xf32>) {
      %v = dtf.variable "v" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2xf32>>
      dtf.apply_gradient_descent %v, %grad learning_rate 0.5 : !dtf.resource<tensor<2xf32>>
      return
    }
  )mlir");
  VariableStore store;
  dtf::exec::initializeVariables(function, store, {});
  Interpreter interpreter(store);
  std::vector<Tensor> arguments;
  arguments.push_back(Tensor::fromVector<float>({2}, {2.0f, 4.0f}));
  interpreter.run(function, {}, std::move(arguments));
  EXPECT_EQ(store.at("v").toVector<float>(), (std::vector<float>{0.0f, -1.0f}));

  std::vector<Tensor> wrongShape;
  wrongShape.push_back(Tensor::fromVector<float>({1}, {2.0f}));
  EXPECT_THROW(interpreter.run(function, {}, std::move(wrongShape)),
               EvalError);
}

TEST_F(InterpreterTest, InitializesVariablesWithDenseValuesAndUniformSamples) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @main() {
      %a = dtf.variable "a" init(#dtf.dense_init<dense<[[1.0, 2.0], [3.0, 4.5]]> : tensor<2x2xf32>>) : !dtf.resource<tensor<2x2xf32>>
      %b = dtf.variable "b" init(#dtf.dense_init<dense<[7, -1, 3]> : tensor<3xi64>>) : !dtf.resource<tensor<3xi64>>
      %c = dtf.variable "c" init(#dtf.random_uniform<minval = -0.5, maxval = 0.25, seed = 9>) : !dtf.resource<tensor<4x5xf32>>
      return
    }
  )mlir");
  VariableStore store;
  dtf::exec::initializeVariables(function, store, {});
  EXPECT_EQ(store.at("a").shape(), (dtf::Shape{2, 2}));
  EXPECT_EQ(store.at("a").toVector<float>(),
            (std::vector<float>{1.0f, 2.0f, 3.0f, 4.5f}));
  EXPECT_EQ(store.at("b").toVector<int64_t>(),
            (std::vector<int64_t>{7, -1, 3}));
  Tensor expected(DType::F32, {4, 5});
  dtf::initializers::random_uniform(expected, -0.5, 0.25, 9);
  EXPECT_EQ(store.at("c").toVector<float>(), expected.toVector<float>());

  // Promoted to f64, the values are the same.
  VariableStore promoted;
  dtf::exec::EvalOptions options;
  options.promoteToF64 = true;
  dtf::exec::initializeVariables(function, promoted, options);
  EXPECT_EQ(promoted.at("a").dtype(), DType::F64);
  EXPECT_EQ(promoted.at("a").toVector<double>(),
            (std::vector<double>{1.0, 2.0, 3.0, 4.5}));
}

// One training step after --dtf-autodiff and --dtf-expand-optimizer:
// loss = sum(w1 * x1) + sum(w2 * x2), so the gradients are the fed x1 =
// [3, 4] and x2 = [12], of global norm 13. Clipped to 6.5 they are halved;
// the learning rate 1 halves at every step (exponential_decay, staircase),
// so at global step 2 it is 0.25: w1 = -0.125 * [3, 4], w2 = -0.125 * 12.
TEST_F(InterpreterTest, TrainingStepClipsByGlobalNormAndDecaysTheRate) {
  mlir::func::FuncOp function = parse(R"mlir(
  func.func @main() -> tensor<f32> {
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
    %w1 = dtf.variable "w1" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    %w2 = dtf.variable "w2" init(#dtf.zeros) : !dtf.resource<tensor<1xf32>>
    %x1 = dtf.placeholder "x1" : tensor<2xf32>
    %x2 = dtf.placeholder "x2" : tensor<1xf32>
    %v1 = dtf.read %w1 : !dtf.resource<tensor<2xf32>>
    %v2 = dtf.read %w2 : !dtf.resource<tensor<1xf32>>
    %p1 = dtf.mul %v1, %x1 : tensor<2xf32>, tensor<2xf32>
    %p2 = dtf.mul %v2, %x2 : tensor<1xf32>, tensor<1xf32>
    %s1 = dtf.reduce_sum %p1 : tensor<2xf32>
    %s2 = dtf.reduce_sum %p2 : tensor<1xf32>
    %loss = dtf.add %s1, %s2 : tensor<f32>, tensor<f32>
    dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 1.0, schedule = #dtf.exponential_decay<decay_steps = 1.0, decay_rate = 0.5, staircase = true>>
        clip_by_global_norm 6.5 global_step %step : !dtf.resource<tensor<i64>>
    return %loss : tensor<f32>
  }
  )mlir");
  dtf::ir::registerAllPasses();
  mlir::PassManager passes(&context);
  ASSERT_TRUE(succeeded(mlir::parsePassPipeline(
      "func.func(dtf-autodiff,dtf-expand-optimizer)", passes)));
  ASSERT_TRUE(succeeded(passes.run(*module)));

  VariableStore store;
  dtf::exec::initializeVariables(function, store, {});
  FeedMap feeds;
  feeds.emplace("x1", Tensor::fromVector<float>({2}, {3, 4}));
  feeds.emplace("x2", Tensor::fromVector<float>({1}, {12}));
  Interpreter interpreter(store);
  // A schedule needs the step of the update.
  try {
    interpreter.run(function, feeds);
    ADD_FAILURE() << "an update with a schedule ran without a global step";
  } catch (const EvalError &error) {
    EXPECT_NE(std::string(error.what()).find("no global step"),
              std::string::npos)
        << error.what();
  }
  store.clear();
  dtf::exec::initializeVariables(function, store, {});
  interpreter.setGlobalStep(2);
  interpreter.run(function, feeds);
  EXPECT_EQ(store.at("w1").toVector<float>(),
            (std::vector<float>{-0.375f, -0.5f}));
  EXPECT_EQ(store.at("w2").toVector<float>(), (std::vector<float>{-1.5f}));
}

} // namespace
