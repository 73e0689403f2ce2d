//===- ExecutorTest.cpp - Tests of the concurrent executor ----------------===//

#include "runtime/exec/Executor.h"
#include "runtime/exec/Interpreter.h"
#include "runtime/exec/TestModules.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace {

using namespace std::chrono_literals;
using ::dtf::Clock;
using ::dtf::ErrorCode;
using ::dtf::Tensor;
using ::dtf::exec::EvalError;
using ::dtf::exec::Executor;
using ::dtf::exec::ExecutorOptions;
using ::dtf::exec::ExternalOpCall;
using ::dtf::exec::FeedMap;
using ::dtf::exec::Interpreter;
using ::dtf::exec::RunOptions;
using ::dtf::exec::VariableStore;

class ExecutorTest : public ::testing::Test {
protected:
  ExecutorTest() {
    mlir::DialectRegistry registry;
    dtf::ir::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    // Stand-ins for ops that leave the process ("test.pull").
    context.allowUnregisteredDialects();
  }

  mlir::func::FuncOp parse(const char *source) {
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    return *module->getOps<mlir::func::FuncOp>().begin();
  }

  static ExecutorOptions withThreads(size_t numThreads) {
    ExecutorOptions options;
    options.numThreads = numThreads;
    return options;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// An external op that completes only when its step is cancelled, from the
/// cancelling thread.
class HangUntilCancelled : public ::dtf::exec::ExternalOpHandler {
public:
  void runAsync(const ExternalOpCall &call,
                ::dtf::exec::ExternalOpDone done) override {
    auto token = call.cancellation->add(
        [done](const std::exception_ptr &reason) { done(reason, {}); });
    if (!token)
      done(call.cancellation->reason(), {});
  }
};

/// Runs `body` expecting an EvalError and returns it.
template <typename Body> EvalError expectEvalError(Body body) {
  try {
    body();
  } catch (const EvalError &error) {
    return error;
  }
  ADD_FAILURE() << "expected an EvalError";
  return EvalError("no error");
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// A two-layer perceptron's training step, as --dtf-autodiff and
// --dtf-expand-optimizer would write it: forward, backward, then SGD and
// momentum updates and the global step increment (read back afterwards).
constexpr const char *kMlp = R"mlir(
  func.func @train() -> (tensor<f32>, tensor<i64>, tensor<4x3xf32>) {
    %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
    %w1 = dtf.variable "w1" init(#dtf.truncated_normal<stddev = 0.5, seed = 1>) : !dtf.resource<tensor<6x5xf32>>
    %b1 = dtf.variable "b1" init(#dtf.constant<0.1>) : !dtf.resource<tensor<5xf32>>
    %w2 = dtf.variable "w2" init(#dtf.truncated_normal<stddev = 0.5, seed = 2>) : !dtf.resource<tensor<5x3xf32>>
    %b2 = dtf.variable "b2" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
    %w2_m = dtf.variable "w2/Momentum" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<5x3xf32>>
    %x = dtf.placeholder "x" : tensor<4x6xf32>
    %y_ = dtf.placeholder "y_" : tensor<4x3xf32>

    %w1v = dtf.read %w1 : !dtf.resource<tensor<6x5xf32>>
    %b1v = dtf.read %b1 : !dtf.resource<tensor<5xf32>>
    %h_mm = dtf.matmul %x, %w1v : tensor<4x6xf32>, tensor<6x5xf32>
    %h_lin = dtf.bias_add %h_mm, %b1v : tensor<4x5xf32>, tensor<5xf32>
    %h = dtf.relu %h_lin : tensor<4x5xf32>
    %w2v = dtf.read %w2 : !dtf.resource<tensor<5x3xf32>>
    %b2v = dtf.read %b2 : !dtf.resource<tensor<3xf32>>
    %l_mm = dtf.matmul %h, %w2v : tensor<4x5xf32>, tensor<5x3xf32>
    %logits = dtf.bias_add %l_mm, %b2v : tensor<4x3xf32>, tensor<3xf32>
    %probs = dtf.softmax %logits : tensor<4x3xf32>
    %xent = dtf.softmax_cross_entropy_with_logits %logits, %y_ : tensor<4x3xf32>, tensor<4x3xf32>
    %loss = dtf.reduce_mean %xent : tensor<4xf32>

    %dxent = dtf.constant dense<0.25> : tensor<4xf32>
    %dlogits = dtf.softmax_cross_entropy_with_logits_grad %dxent, %logits, %y_ : tensor<4xf32>, tensor<4x3xf32>, tensor<4x3xf32>
    %db2 = dtf.bias_add_grad %dlogits : tensor<4x3xf32>
    %dw2 = "dtf.matmul"(%h, %dlogits) {transpose_a = true} : (tensor<4x5xf32>, tensor<4x3xf32>) -> tensor<5x3xf32>
    %dh = "dtf.matmul"(%dlogits, %w2v) {transpose_b = true} : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
    %dh_lin = dtf.relu_grad %dh, %h_lin : tensor<4x5xf32>
    %db1 = dtf.bias_add_grad %dh_lin : tensor<4x5xf32>
    %dw1 = "dtf.matmul"(%x, %dh_lin) {transpose_a = true} : (tensor<4x6xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>

    dtf.apply_gradient_descent %w1, %dw1 learning_rate 0.1 : !dtf.resource<tensor<6x5xf32>>
    dtf.apply_gradient_descent %b1, %db1 learning_rate 0.1 : !dtf.resource<tensor<5xf32>>
    dtf.apply_momentum %w2, %w2_m, %dw2 learning_rate 0.1 momentum 0.9 : !dtf.resource<tensor<5x3xf32>>
    dtf.apply_gradient_descent %b2, %db2 learning_rate 0.1 : !dtf.resource<tensor<3xf32>>
    %one = dtf.constant dense<1> : tensor<i64>
    dtf.assign_add %step, %one : !dtf.resource<tensor<i64>>
    %stepv = dtf.read %step : !dtf.resource<tensor<i64>>
    return %loss, %stepv, %probs : tensor<f32>, tensor<i64>, tensor<4x3xf32>
  }
)mlir";

FeedMap mlpFeeds(int step) {
  std::vector<float> x(24), labels(12, 0.0f);
  for (int i = 0; i < 24; ++i)
    x[i] = 0.1f * ((i * 7 + step * 3) % 11) - 0.4f;
  for (int row = 0; row < 4; ++row)
    labels[row * 3 + (row + step) % 3] = 1.0f;
  FeedMap feeds;
  feeds.emplace("x", Tensor::fromVector<float>({4, 6}, x));
  feeds.emplace("y_", Tensor::fromVector<float>({4, 3}, labels));
  return feeds;
}

void expectNear(const Tensor &actual, const Tensor &expected) {
  ASSERT_EQ(actual.typeString(), expected.typeString());
  if (actual.dtype() == ::dtf::DType::I64) {
    EXPECT_EQ(actual.toVector<int64_t>(), expected.toVector<int64_t>());
    return;
  }
  std::vector<float> a = actual.toVector<float>();
  std::vector<float> e = expected.toVector<float>();
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], e[i], 1e-6 * (1 + std::abs(e[i]))) << "element " << i;
}

TEST_F(ExecutorTest, TrainingStepsMatchTheInterpreter) {
  mlir::func::FuncOp function = parse(kMlp);
  VariableStore reference, store;
  dtf::exec::initializeVariables(function, reference, {});
  dtf::exec::initializeVariables(function, store, {});
  Interpreter interpreter(reference);
  Executor executor(function, store, withThreads(4));

  for (int step = 0; step < 5; ++step) {
    std::vector<Tensor> expected = interpreter.run(function, mlpFeeds(step));
    std::vector<Tensor> actual = executor.run(mlpFeeds(step));
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
      expectNear(actual[i], expected[i]);
    // The read after the increment sees it.
    EXPECT_EQ(actual[1].toVector<int64_t>(), std::vector<int64_t>{step + 1});
  }
  ASSERT_EQ(store.size(), reference.size());
  for (auto &[name, value] : reference) {
    SCOPED_TRACE(name);
    expectNear(store.at(name), value);
  }
  // Training moved the weights.
  VariableStore initial;
  dtf::exec::initializeVariables(function, initial, {});
  EXPECT_NE(store.at("w1").toVector<float>(),
            initial.at("w1").toVector<float>());
}

TEST_F(ExecutorTest, RunsIndependentBranchesOnDifferentThreads) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @branches() -> tensor<4x4xf32> {
      %a = dtf.placeholder "a" : tensor<4x4xf32>
      %b = dtf.placeholder "b" : tensor<4x4xf32>
      %x = dtf.matmul %a, %a : tensor<4x4xf32>, tensor<4x4xf32>
      %y = dtf.matmul %b, %b : tensor<4x4xf32>, tensor<4x4xf32>
      %s = dtf.add %x, %y : tensor<4x4xf32>, tensor<4x4xf32>
      return %s : tensor<4x4xf32>
    }
  )mlir");
  // Each matmul waits until both have started: with the branches run one
  // after the other, the first would wait in vain.
  std::mutex mutex;
  std::condition_variable changed;
  int started = 0;
  int metTheOther = 0;
  std::set<std::thread::id> threads;
  ExecutorOptions options = withThreads(4);
  options.beforeOp = [&](mlir::Operation *op) {
    if (op->getName().getStringRef() != "dtf.matmul")
      return;
    std::unique_lock<std::mutex> lock(mutex);
    threads.insert(std::this_thread::get_id());
    ++started;
    changed.notify_all();
    if (changed.wait_for(lock, 20s, [&] { return started >= 2; }))
      ++metTheOther;
  };
  VariableStore store;
  Executor executor(function, store, std::move(options));
  FeedMap feeds;
  feeds.emplace("a", Tensor::filled(::dtf::DType::F32, {4, 4}, 1.0));
  feeds.emplace("b", Tensor::filled(::dtf::DType::F32, {4, 4}, 2.0));
  std::vector<Tensor> results = executor.run(feeds);
  EXPECT_EQ(metTheOther, 2);
  EXPECT_EQ(threads.size(), 2u);
  EXPECT_EQ(results[0].toVector<float>(), std::vector<float>(16, 4 + 16));
}

TEST_F(ExecutorTest, VariableAccessesKeepProgramOrder) {
  // No data edge orders these ops: only the variable does.
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @order() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
      %v = dtf.variable "v" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2xf32>>
      %seven = dtf.constant dense<7.0> : tensor<2xf32>
      %one = dtf.constant dense<1.0> : tensor<2xf32>
      %r0 = dtf.read %v : !dtf.resource<tensor<2xf32>>
      %r0b = dtf.read %v : !dtf.resource<tensor<2xf32>>
      dtf.assign %v, %seven : !dtf.resource<tensor<2xf32>>
      %r1 = dtf.read %v : !dtf.resource<tensor<2xf32>>
      dtf.assign_add %v, %one : !dtf.resource<tensor<2xf32>>
      dtf.apply_gradient_descent %v, %one learning_rate 2.0 : !dtf.resource<tensor<2xf32>>
      %r2 = dtf.read %v : !dtf.resource<tensor<2xf32>>
      return %r0, %r0b, %r1, %r2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
    }
  )mlir");
  std::mutex mutex;
  std::vector<mlir::Operation *> started;
  ExecutorOptions options = withThreads(4);
  options.beforeOp = [&](mlir::Operation *op) {
    std::lock_guard<std::mutex> lock(mutex);
    started.push_back(op);
  };
  VariableStore store;
  dtf::exec::initializeVariables(function, store, {});
  Executor executor(function, store, std::move(options));
  for (int run = 0; run < 20; ++run) {
    store.at("v") = Tensor::filled(::dtf::DType::F32, {2}, 1.0);
    started.clear();
    std::vector<Tensor> results = executor.run({});
    EXPECT_EQ(results[0].toVector<float>(), std::vector<float>(2, 1.0f));
    EXPECT_EQ(results[1].toVector<float>(), std::vector<float>(2, 1.0f));
    EXPECT_EQ(results[2].toVector<float>(), std::vector<float>(2, 7.0f));
    EXPECT_EQ(results[3].toVector<float>(), std::vector<float>(2, 6.0f));
    EXPECT_EQ(store.at("v").toVector<float>(), std::vector<float>(2, 6.0f));
    // Every write started after the accesses before it, every access after
    // the write before it. Only the two first reads may swap.
    std::vector<std::string> names;
    for (mlir::Operation *op : started)
      names.push_back(op->getName().getStringRef().str());
    ASSERT_EQ(names.size(), 7u);
    EXPECT_EQ(names[0], "dtf.read");
    EXPECT_EQ(names[1], "dtf.read");
    EXPECT_EQ((std::vector<std::string>(names.begin() + 2, names.end())),
              (std::vector<std::string>{"dtf.assign", "dtf.read",
                                        "dtf.assign_add",
                                        "dtf.apply_gradient_descent",
                                        "dtf.read"}));
  }
}

TEST_F(ExecutorTest, StalenessLearningRateScaleScalesMomentumUpdatesOnly) {
  // A PS task's staleness-dependent learning rate: an update with momentum
  // moves its variable by the scaled rate while its slot takes the whole
  // gradient; plain SGD and the rows of a table keep the whole rate.
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @update() {
      %w = dtf.variable "w" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2xf32>>
      %w_m = dtf.variable "w/Momentum" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
      %v = dtf.variable "v" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2xf32>>
      %table = dtf.variable "table" init(#dtf.constant<1.0>) : !dtf.resource<tensor<3x2xf32>>
      %one = dtf.constant dense<1.0> : tensor<2xf32>
      %ids = dtf.constant dense<[1]> : tensor<1xi64>
      %rows = dtf.constant dense<1.0> : tensor<1x2xf32>
      dtf.apply_momentum %w, %w_m, %one learning_rate 2.0 momentum 0.9 : !dtf.resource<tensor<2xf32>>
      dtf.apply_gradient_descent %v, %one learning_rate 2.0 : !dtf.resource<tensor<2xf32>>
      dtf.sparse_apply_gradient_descent %table[%ids], %rows learning_rate 2.0 : !dtf.resource<tensor<3x2xf32>>, tensor<1xi64>, tensor<1x2xf32>
      return
    }
  )mlir");
  VariableStore store;
  dtf::exec::initializeVariables(function, store, {});
  Executor executor(function, store, withThreads(2));
  RunOptions options;
  options.stalenessLearningRateScale = 0.25;
  executor.run({}, {}, options);
  EXPECT_EQ(store.at("w").toVector<float>(), std::vector<float>(2, 0.5f));
  EXPECT_EQ(store.at("w/Momentum").toVector<float>(),
            std::vector<float>(2, 1.0f));
  EXPECT_EQ(store.at("v").toVector<float>(), std::vector<float>(2, -1.0f));
  EXPECT_EQ(store.at("table").toVector<float>(),
            (std::vector<float>{1, 1, -1, -1, 1, 1}));
}

TEST_F(ExecutorTest, FetchRunsOnlyTheNeededOps) {
  mlir::func::FuncOp function = parse(R"mlir(
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
  )mlir");
  VariableStore store;
  dtf::exec::initializeVariables(function, store, {});
  Executor executor(function, store, withThreads(2));
  FeedMap feeds;
  feeds.emplace("x", Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));

  mlir::Value y = function.getBody().front().getTerminator()->getOperand(0);
  mlir::Value x = y.getDefiningOp()->getOperand(0).getDefiningOp()->getOperand(0);
  for (int run = 0; run < 2; ++run) {
    std::vector<Tensor> fetched = executor.runAndFetch(feeds, {y, x, y});
    ASSERT_EQ(fetched.size(), 3u);
    EXPECT_EQ(fetched[0].toVector<float>(),
              (std::vector<float>{4.0f, 5.0f, 8.5f, 9.5f}));
    EXPECT_EQ(fetched[1].toVector<float>(),
              (std::vector<float>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(fetched[2].toVector<float>(), fetched[0].toVector<float>());
  }
  // The assign_add is not on the fetches' path, so it did not run.
  EXPECT_EQ(store.at("w").toVector<float>(), std::vector<float>(6, 0.5f));
  executor.run(feeds);
  EXPECT_EQ(store.at("w").toVector<float>(), std::vector<float>(6, 1.5f));
}

TEST_F(ExecutorTest, BindsFunctionArguments) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @apply(%grad: tensor<2xf32>, %scale: tensor<2xf32>) -> tensor<2xf32> {
      %v = dtf.variable "v" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2xf32>>
      %scaled = dtf.mul %grad, %scale : tensor<2xf32>, tensor<2xf32>
      dtf.apply_gradient_descent %v, %scaled learning_rate 0.5 : !dtf.resource<tensor<2xf32>>
      return %grad : tensor<2xf32>
    }
  )mlir");
  VariableStore store;
  dtf::exec::initializeVariables(function, store, {});
  Executor executor(function, store, withThreads(2));
  std::vector<Tensor> arguments;
  arguments.push_back(Tensor::fromVector<float>({2}, {2.0f, 4.0f}));
  arguments.push_back(Tensor::fromVector<float>({2}, {1.0f, 1.0f}));
  std::vector<Tensor> results = executor.run({}, std::move(arguments));
  EXPECT_EQ(results[0].toVector<float>(), (std::vector<float>{2.0f, 4.0f}));
  EXPECT_EQ(store.at("v").toVector<float>(), (std::vector<float>{0.0f, -1.0f}));

  std::vector<Tensor> wrongShape;
  wrongShape.push_back(Tensor::fromVector<float>({1}, {2.0f}));
  wrongShape.push_back(Tensor::fromVector<float>({2}, {1.0f, 1.0f}));
  EvalError error = expectEvalError(
      [&] { executor.run({}, std::move(wrongShape)); });
  EXPECT_TRUE(contains(error.what(), "argument #0 is f32[1] but must be f32[2]"))
      << error.what();
  EXPECT_THROW(executor.run({}), EvalError);
}

// dtf.learning_phase is a value of the run: a training step (dropout on)
// and an evaluation (dropout off) run one function.
TEST_F(ExecutorTest, LearningPhaseIsTheRunsTrainingFlag) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @dropout_like(%x: tensor<2xf32>) -> tensor<2xf32> {
      %training = dtf.learning_phase : tensor<i1>
      %zero = dtf.constant dense<0.0> : tensor<f32>
      %y = dtf.select %training, %zero, %x : tensor<i1>, tensor<f32>, tensor<2xf32>
      return %y : tensor<2xf32>
    }
  )mlir");
  VariableStore store;
  Executor executor(function, store, withThreads(2));
  auto runWith = [&](bool training) {
    std::vector<Tensor> arguments;
    arguments.push_back(Tensor::fromVector<float>({2}, {3.0f, 4.0f}));
    RunOptions run;
    run.training = training;
    return executor.run({}, std::move(arguments), run)[0].toVector<float>();
  };
  EXPECT_EQ(runWith(true), (std::vector<float>{0.0f, 0.0f}));
  EXPECT_EQ(runWith(false), (std::vector<float>{3.0f, 4.0f}));
}

TEST_F(ExecutorTest, MissingFeedNamesThePlaceholder) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @main() -> tensor<2xf32> {
      %x = dtf.placeholder "x" : tensor<2xf32>
      %y = dtf.relu %x : tensor<2xf32>
      return %y : tensor<2xf32>
    }
  )mlir");
  VariableStore store;
  Executor executor(function, store, withThreads(2));
  EvalError error = expectEvalError([&] { executor.run({}); });
  EXPECT_TRUE(contains(error.what(), "'dtf.placeholder' 'x' is not fed"))
      << error.what();
  EXPECT_TRUE(contains(error.what(), "loc(")) << error.what();
}

TEST_F(ExecutorTest, KernelErrorCancelsTheStep) {
  // The division fails while the external op on the other branch waits; the
  // failure must end that wait and keep the ops after it from running.
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @main() -> (tensor<2xi32>, tensor<2xf32>) {
      %n = dtf.constant dense<[4, 6]> : tensor<2xi32>
      %z = dtf.placeholder "zero" : tensor<2xi32>
      %q = dtf.div %n, %z : tensor<2xi32>, tensor<2xi32> loc("model.py":12:3)
      %after = dtf.add %q, %n : tensor<2xi32>, tensor<2xi32>
      %p = "test.wait"() : () -> tensor<2xf32>
      %r = dtf.relu %p : tensor<2xf32>
      return %after, %r : tensor<2xi32>, tensor<2xf32>
    }
  )mlir");
  std::atomic<int> cancelledWaits{0};
  std::atomic<int> opsAfterwards{0};
  ExecutorOptions options = withThreads(2);
  options.externalOps["test.wait"] = ::dtf::exec::makeExternalOpHandler(
      [&](const ExternalOpCall &call) -> std::vector<Tensor> {
        // Wait for the cancellation, as an RPC would.
        std::mutex mutex;
        std::condition_variable cancelled;
        bool fired = false;
        auto token = call.cancellation->add([&](const std::exception_ptr &) {
          std::lock_guard<std::mutex> lock(mutex);
          fired = true;
          cancelled.notify_all();
        });
        if (token) {
          std::unique_lock<std::mutex> lock(mutex);
          cancelled.wait_for(lock, 20s, [&] { return fired; });
          lock.unlock();
          call.cancellation->remove(*token);
        }
        ++cancelledWaits;
        std::rethrow_exception(call.cancellation->reason());
      });
  // The division fails only once the wait has started.
  std::mutex mutex;
  std::condition_variable changed;
  bool waitStarted = false;
  options.beforeOp = [&](mlir::Operation *op) {
    if (mlir::isa<dtf::ir::AddOp, dtf::ir::ReluOp>(op))
      ++opsAfterwards;
    std::unique_lock<std::mutex> lock(mutex);
    if (op->getName().getStringRef() == "test.wait") {
      waitStarted = true;
      changed.notify_all();
    } else if (mlir::isa<dtf::ir::DivOp>(op)) {
      changed.wait_for(lock, 20s, [&] { return waitStarted; });
      waitStarted = false;
    }
  };
  VariableStore store;
  Executor executor(function, store, std::move(options));
  FeedMap feeds;
  feeds.emplace("zero", Tensor::fromVector<int32_t>({2}, {1, 0}));
  for (int run = 0; run < 3; ++run) {
    EvalError error = expectEvalError([&] { executor.run(feeds); });
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(error.what(), "loc(\"model.py\":12:3): 'dtf.div'"))
        << error.what();
    EXPECT_TRUE(contains(error.what(), "division by zero")) << error.what();
  }
  EXPECT_EQ(cancelledWaits.load(), 3);
  EXPECT_EQ(opsAfterwards.load(), 0);
}

TEST_F(ExecutorTest, ExternalOpsComputeResults) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @main() -> tensor<2xf32> {
      %w = "test.pull"() {name = "w"} : () -> tensor<2xf32>
      %x = dtf.placeholder "x" : tensor<2xf32>
      %y = dtf.mul %w, %x : tensor<2xf32>, tensor<2xf32>
      "test.push"(%y) : (tensor<2xf32>) -> ()
      return %y : tensor<2xf32>
    }
  )mlir");
  std::vector<float> pushed;
  int64_t pushedStep = -1;
  ExecutorOptions options = withThreads(2);
  options.externalOps["test.pull"] = ::dtf::exec::makeExternalOpHandler(
      [](const ExternalOpCall &call) {
        EXPECT_EQ(call.op->getAttrOfType<mlir::StringAttr>("name").str(), "w");
        std::vector<Tensor> results;
        results.push_back(Tensor::fromVector<float>({2}, {3, 4}));
        return results;
      });
  options.externalOps["test.push"] = ::dtf::exec::makeExternalOpHandler(
      [&](const ExternalOpCall &call) {
        pushed = call.operands[0]->toVector<float>();
        pushedStep = call.stepId;
        return std::vector<Tensor>{};
      });
  VariableStore store;
  Executor executor(function, store, std::move(options));
  FeedMap feeds;
  feeds.emplace("x", Tensor::fromVector<float>({2}, {2, 0.5}));
  RunOptions run;
  run.stepId = 42;
  std::vector<Tensor> results = executor.run(feeds, {}, run);
  EXPECT_EQ(results[0].toVector<float>(), (std::vector<float>{6, 2}));
  EXPECT_EQ(pushed, (std::vector<float>{6, 2}));
  EXPECT_EQ(pushedStep, 42);
}

TEST_F(ExecutorTest, ExternalResultsAreChecked) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @main() -> tensor<2xf32> {
      %w = "test.pull"() : () -> tensor<2xf32>
      return %w : tensor<2xf32>
    }
  )mlir");
  ExecutorOptions options = withThreads(1);
  options.externalOps["test.pull"] = ::dtf::exec::makeExternalOpHandler(
      [](const ExternalOpCall &) {
        std::vector<Tensor> results;
        results.push_back(Tensor::fromVector<float>({3}, {1, 2, 3}));
        return results;
      });
  VariableStore store;
  Executor executor(function, store, std::move(options));
  EvalError error = expectEvalError([&] { executor.run({}); });
  EXPECT_TRUE(contains(error.what(), "'test.pull' result #0 is f32[3] but "
                                     "must be f32[2]"))
      << error.what();
}

TEST_F(ExecutorTest, OpsWithoutKernelOrHandlerAreRejectedWhenPreparing) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @main() -> tensor<2xf32> {
      %w = "test.pull"() : () -> tensor<2xf32>
      return %w : tensor<2xf32>
    }
  )mlir");
  VariableStore store;
  EvalError error = expectEvalError([&] { Executor executor(function, store); });
  EXPECT_TRUE(contains(error.what(), "'test.pull' has no CPU kernel"))
      << error.what();
}

TEST_F(ExecutorTest, DeadlineNamesTheOpsStillRunning) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @main() -> tensor<2xf32> {
      %w = "test.hang"() : () -> tensor<2xf32> loc("worker.py":3:1)
      return %w : tensor<2xf32>
    }
  )mlir");
  ExecutorOptions options = withThreads(1);
  options.externalOps["test.hang"] = std::make_shared<HangUntilCancelled>();
  VariableStore store;
  Executor executor(function, store, std::move(options));
  RunOptions run;
  run.stepId = 9;
  auto start = Clock::now();
  // Long enough for the op to have started on a loaded machine, so that the
  // message can name it.
  run.deadline = start + 1s;
  EvalError error = expectEvalError([&] { executor.run({}, {}, run); });
  EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded);
  EXPECT_TRUE(contains(error.what(), "step 9 missed its deadline; still "
                                     "running: loc(\"worker.py\":3:1): "
                                     "'test.hang'"))
      << error.what();
  EXPECT_LT(Clock::now() - start, 10s);

  // A caller's cancellation ends the step as well.
  ::dtf::CancellationManager caller;
  run.deadline.reset();
  run.cancellation = &caller;
  caller.cancel(::dtf::makeError(ErrorCode::Cancelled, "client went away"));
  error = expectEvalError([&] { executor.run({}, {}, run); });
  EXPECT_EQ(error.code(), ErrorCode::Cancelled);
  EXPECT_TRUE(contains(error.what(), "client went away")) << error.what();
}

TEST_F(ExecutorTest, ConcurrentStepsShareOnePool) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @main(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {
      %x = dtf.matmul %a, %a : tensor<8x8xf32>, tensor<8x8xf32>
      %y = dtf.relu %x : tensor<8x8xf32>
      %z = dtf.add %y, %a : tensor<8x8xf32>, tensor<8x8xf32>
      return %z : tensor<8x8xf32>
    }
  )mlir");
  VariableStore store;
  Executor executor(function, store, withThreads(3));
  std::vector<std::thread> callers;
  std::atomic<int> correct{0};
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        std::vector<Tensor> arguments;
        arguments.push_back(
            Tensor::filled(::dtf::DType::F32, {8, 8}, 0.5 * t));
        std::vector<Tensor> results =
            executor.run({}, std::move(arguments));
        float expected = 8 * 0.25f * t * t + 0.5f * t;
        if (results[0].toVector<float>() ==
            std::vector<float>(64, expected))
          ++correct;
      }
    });
  for (std::thread &caller : callers)
    caller.join();
  EXPECT_EQ(correct.load(), 100);
}

//===----------------------------------------------------------------------===//
// Send and recv
//===----------------------------------------------------------------------===//

/// Runs the three partitions of kPartitionedModule as step `stepId`, each
/// on its own executor and thread, all meeting in `rendezvous`. A failing
/// partition aborts the step in the rendezvous, so that the others stop
/// waiting for it. Returns task 0's results; rethrows the first error.
std::vector<Tensor> runPartitions(std::vector<Executor *> executors,
                                  ::dtf::LocalRendezvous &rendezvous,
                                  int64_t stepId, const FeedMap &feeds,
                                  std::optional<::dtf::Deadline> deadline) {
  std::vector<Tensor> results;
  const FeedMap noFeeds;
  std::vector<std::exception_ptr> errors(executors.size());
  std::vector<std::thread> threads;
  for (size_t task = 0; task < executors.size(); ++task)
    threads.emplace_back([&, task] {
      RunOptions run;
      run.stepId = stepId;
      run.rendezvous = &rendezvous;
      run.deadline = deadline;
      try {
        std::vector<Tensor> produced =
            executors[task]->run(task == 0 ? feeds : noFeeds, {}, run);
        if (task == 0)
          results = std::move(produced);
      } catch (...) {
        errors[task] = std::current_exception();
        rendezvous.abortStep(stepId, errors[task]);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (std::exception_ptr &error : errors)
    if (error)
      std::rethrow_exception(error);
  return results;
}

TEST_F(ExecutorTest, PartitionsMatchTheWholeFunction) {
  parse(::dtf::exec::testing::kPartitionedModule);
  auto lookup = [&](llvm::StringRef name) {
    return module->lookupSymbol<mlir::func::FuncOp>(name);
  };
  VariableStore reference;
  dtf::exec::initializeVariables(lookup("main"), reference, {});
  Interpreter interpreter(reference);

  std::vector<VariableStore> stores(3);
  std::vector<std::unique_ptr<Executor>> executors;
  auto pool = std::make_shared<::dtf::ThreadPool>(3);
  for (int task = 0; task < 3; ++task) {
    mlir::func::FuncOp partition =
        lookup("main_worker_" + std::to_string(task));
    dtf::exec::initializeVariables(partition, stores[task], {});
    ExecutorOptions options;
    options.threadPool = pool;
    executors.push_back(
        std::make_unique<Executor>(partition, stores[task], options));
  }
  ::dtf::LocalRendezvous rendezvous;
  for (int64_t step = 1; step <= 3; ++step) {
    FeedMap feeds;
    feeds.emplace("x", Tensor::fromVector<float>(
                           {2, 2}, {1.0f, -2.0f, 0.5f * step, 3.0f}));
    std::vector<Tensor> expected = interpreter.run(lookup("main"), feeds);
    std::vector<Tensor> actual =
        runPartitions({executors[0].get(), executors[1].get(),
                       executors[2].get()},
                      rendezvous, step, feeds, Clock::now() + 20s);
    ASSERT_EQ(actual.size(), 2u);
    EXPECT_EQ(actual[0].toVector<float>(), expected[0].toVector<float>());
    EXPECT_EQ(actual[1].toVector<float>(), expected[1].toVector<float>());
  }
  EXPECT_EQ(stores[1].at("w").toVector<float>(),
            reference.at("w").toVector<float>());
  EXPECT_EQ(rendezvous.numBuffered(), 0u);
  EXPECT_EQ(rendezvous.numWaiting(), 0u);
}

TEST_F(ExecutorTest, RecvWithoutSenderFailsAtTheDeadline) {
  parse(::dtf::exec::testing::kPartitionedModule);
  VariableStore store;
  Executor executor(module->lookupSymbol<mlir::func::FuncOp>("main_worker_2"),
                    store, withThreads(2));
  ::dtf::LocalRendezvous rendezvous;
  RunOptions run;
  run.stepId = 5;
  run.rendezvous = &rendezvous;
  run.deadline = Clock::now() + 100ms;
  EvalError error = expectEvalError([&] { executor.run({}, {}, run); });
  EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded);
  EXPECT_TRUE(contains(error.what(), "'dtf.recv'")) << error.what();
  EXPECT_EQ(rendezvous.numWaiting(), 0u);

  // Without a rendezvous, the step does not start.
  error = expectEvalError([&] { executor.run({}); });
  EXPECT_EQ(error.code(), ErrorCode::FailedPrecondition);
  EXPECT_TRUE(contains(error.what(), "need a rendezvous")) << error.what();
}

TEST_F(ExecutorTest, FailingPartitionEndsTheOthers) {
  parse(::dtf::exec::testing::kPartitionedModule);
  std::vector<VariableStore> stores(3);
  std::vector<std::unique_ptr<Executor>> executors;
  for (int task = 0; task < 3; ++task)
    executors.push_back(std::make_unique<Executor>(
        module->lookupSymbol<mlir::func::FuncOp>("main_worker_" +
                                                 std::to_string(task)),
        stores[task], withThreads(2)));
  // Task 1's variable is not initialized: task 1 fails, and tasks 0 and 2,
  // waiting for its tensors, fail with its error long before the deadline.
  ::dtf::LocalRendezvous rendezvous;
  FeedMap feeds;
  feeds.emplace("x", Tensor::filled(::dtf::DType::F32, {2, 2}, 1.0));
  auto start = Clock::now();
  EvalError error = expectEvalError([&] {
    runPartitions({executors[0].get(), executors[1].get(), executors[2].get()},
                  rendezvous, 1, feeds, start + 20s);
  });
  EXPECT_LT(Clock::now() - start, 10s);
  EXPECT_TRUE(contains(error.what(), "'w' is not initialized")) << error.what();
  EXPECT_EQ(rendezvous.numWaiting(), 0u);
}

// runInCallerThread: every op in the thread that calls run(), as
// TensorFlow runs a step for a negative inter_op_parallelism_threads.

TEST_F(ExecutorTest, InTheCallersThreadTrainingMatchesTheInterpreter) {
  mlir::func::FuncOp function = parse(kMlp);
  VariableStore reference, store;
  dtf::exec::initializeVariables(function, reference, {});
  dtf::exec::initializeVariables(function, store, {});
  Interpreter interpreter(reference);
  std::atomic<int> opsElsewhere{0};
  std::thread::id caller = std::this_thread::get_id();
  ExecutorOptions options;
  options.runInCallerThread = true;
  options.beforeOp = [&](mlir::Operation *) {
    if (std::this_thread::get_id() != caller)
      ++opsElsewhere;
  };
  Executor executor(function, store, std::move(options));
  EXPECT_EQ(executor.threadPool(), nullptr);
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> expected = interpreter.run(function, mlpFeeds(step));
    std::vector<Tensor> actual = executor.run(mlpFeeds(step));
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
      expectNear(actual[i], expected[i]);
  }
  EXPECT_EQ(opsElsewhere.load(), 0);
}

TEST_F(ExecutorTest, InTheCallersThreadOpsAfterAnAsynchronousOpRunThere) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @main() -> tensor<2xf32> {
      %w = "test.pull"() : () -> tensor<2xf32>
      %r = dtf.relu %w : tensor<2xf32>
      return %r : tensor<2xf32>
    }
  )mlir");
  // The pull completes later, from a thread of its own, as an RPC does.
  class LatePull : public ::dtf::exec::ExternalOpHandler {
  public:
    void runAsync(const ExternalOpCall &,
                  ::dtf::exec::ExternalOpDone done) override {
      std::thread([done] {
        std::this_thread::sleep_for(5ms);
        std::vector<Tensor> results;
        results.push_back(Tensor::fromVector<float>({2}, {-1, 3}));
        done(nullptr, std::move(results));
      }).detach();
    }
  };
  std::thread::id caller = std::this_thread::get_id();
  std::thread::id reluThread;
  ExecutorOptions options;
  options.runInCallerThread = true;
  options.externalOps["test.pull"] = std::make_shared<LatePull>();
  options.beforeOp = [&](mlir::Operation *op) {
    if (mlir::isa<dtf::ir::ReluOp>(op))
      reluThread = std::this_thread::get_id();
  };
  VariableStore store;
  Executor executor(function, store, std::move(options));
  for (int step = 0; step < 3; ++step)
    EXPECT_EQ(executor.run({})[0].toVector<float>(),
              (std::vector<float>{0, 3}));
  EXPECT_EQ(reluThread, caller);
}

TEST_F(ExecutorTest, InTheCallersThreadTheDeadlineEndsAHangingStep) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @main() -> tensor<2xf32> {
      %w = "test.hang"() : () -> tensor<2xf32>
      return %w : tensor<2xf32>
    }
  )mlir");
  ExecutorOptions options;
  options.runInCallerThread = true;
  options.externalOps["test.hang"] = std::make_shared<HangUntilCancelled>();
  VariableStore store;
  Executor executor(function, store, std::move(options));
  RunOptions run;
  auto start = Clock::now();
  run.deadline = start + 200ms;
  EvalError error = expectEvalError([&] { executor.run({}, {}, run); });
  EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded);
  EXPECT_GE(Clock::now() - start, 200ms);
  EXPECT_LT(Clock::now() - start, 10s);
}

} // namespace
