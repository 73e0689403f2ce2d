//===- OptimizerFixtureTest.cpp - Optimizer updates against TensorFlow's --===//
//
// The optimizer kernels' unit tests (runtime/core/tests/OptimizersTest.cpp)
// check DTF's updates against formulas written from DTF's reading of
// TensorFlow; a misreading would be in both. Here the reference is
// TensorFlow itself: testdata/optimizer_fixtures.json holds what
// tf.compat.v1's optimizers did, step by step, to two variables fed fixed
// gradients (testdata/make_optimizer_fixtures.py wrote it). Each test
// compiles the same training step from dtf IR with the production pipeline
// (--dtf-autodiff, --dtf-expand-optimizer), runs it on the production
// Executor from the same initial values with the same gradients, and
// compares every variable, slot and beta power by TensorFlow's name once
// initialized and after each step, as well as the set of variables the
// optimizer created.
//
//===----------------------------------------------------------------------===//

#include "runtime/exec/Executor.h"

#include "passes/InitAll.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

namespace {

using ::dtf::Tensor;
using ::dtf::exec::Executor;
using ::dtf::exec::ExecutorOptions;
using ::dtf::exec::FeedMap;
using ::dtf::exec::VariableStore;
using json = nlohmann::json;

/// The fixture, read once for all tests.
const json &fixture() {
  static const json parsed = [] {
    std::ifstream in(DTF_OPTIMIZER_FIXTURE);
    if (!in)
      throw std::runtime_error("cannot read " DTF_OPTIMIZER_FIXTURE);
    return json::parse(in);
  }();
  return parsed;
}

/// The fixture's configuration `name`.
const json &configuration(const std::string &name) {
  for (const json &config : fixture().at("configurations"))
    if (config.at("name") == name)
      return config;
  throw std::runtime_error("the fixture has no configuration " + name);
}

dtf::Shape shapeOf(const std::string &variable) {
  return fixture().at("shapes").at(variable).get<dtf::Shape>();
}

/// The fixture's floats are the shortest decimals of float32 values, which
/// read as a double and rounded give back exactly those float32 values.
std::vector<float> floats(const json &values) {
  std::vector<float> result;
  if (values.is_number()) {
    result.push_back(static_cast<float>(values.get<double>()));
    return result;
  }
  for (const json &value : values)
    result.push_back(static_cast<float>(value.get<double>()));
  return result;
}

/// "tensor<3x4xf32>" for `shape`.
std::string tensorType(const dtf::Shape &shape) {
  std::string type = "tensor<";
  for (int64_t dim : shape)
    type += std::to_string(dim) + "x";
  return type + "f32>";
}

/// The training step: loss = sum(w * gw) + sum(b * gb), whose gradients
/// with respect to w and b are the fed gw and gb themselves (the seed 1,
/// broadcast, times the feed: no rounding), so that the optimizer sees
/// exactly the gradients TensorFlow's apply_gradients was fed.
std::string trainingModule(const std::string &optimizer) {
  std::string w = tensorType(shapeOf("w")), b = tensorType(shapeOf("b"));
  std::ostringstream out;
  out << "func.func @train() {\n"
      << "  %step = dtf.variable \"global_step\" init(#dtf.zeros) "
         "{trainable = false} : !dtf.resource<tensor<i64>>\n"
      << "  %w = dtf.variable \"w\" init(#dtf.zeros) : !dtf.resource<" << w
      << ">\n"
      << "  %b = dtf.variable \"b\" init(#dtf.zeros) : !dtf.resource<" << b
      << ">\n"
      << "  %gw = dtf.placeholder \"gw\" : " << w << "\n"
      << "  %gb = dtf.placeholder \"gb\" : " << b << "\n"
      << "  %wv = dtf.read %w : !dtf.resource<" << w << ">\n"
      << "  %bv = dtf.read %b : !dtf.resource<" << b << ">\n"
      << "  %pw = dtf.mul %wv, %gw : " << w << ", " << w << "\n"
      << "  %pb = dtf.mul %bv, %gb : " << b << ", " << b << "\n"
      << "  %sw = dtf.reduce_sum %pw : " << w << "\n"
      << "  %sb = dtf.reduce_sum %pb : " << b << "\n"
      << "  %loss = dtf.add %sw, %sb : tensor<f32>, tensor<f32>\n"
      << "  dtf.minimize %loss : tensor<f32>, " << optimizer
      << " global_step %step : !dtf.resource<tensor<i64>>\n"
      << "  return\n"
      << "}\n";
  return out.str();
}

/// Whether DTF's `actual` is TensorFlow's `expected` up to rounding.
///
/// DTF's kernels evaluate TensorFlow's update formulas, but not always in
/// the same order (Adam's m: TensorFlow's m += (g - m) * (1 - beta1), DTF's
/// beta1 * m + (1 - beta1) * g), and the compiler may fuse a multiply and an
/// add into one FMA in the clone the CPU picks. Each such difference is an
/// ulp or two of an operand of the update, so the tolerance is relative to
/// the operands' magnitude, bounded by |value before the step| + |value
/// after|, not to the result's (w -= update can cancel to near zero). 1e-6
/// is about 8 float32 ulps (2^-23 = 1.2e-7): a few roundings over three
/// steps, far below what a wrong formula does (a swapped beta or a dropped
/// Nesterov term changes the result in its second or third digit). On
/// x86-64 with AVX-512, SGD and momentum match TensorFlow 2.21 bit for bit
/// and Adam within 2 ulps (1.3e-7 of the scale).
::testing::AssertionResult closeToTensorFlow(float actual, float expected,
                                             float before) {
  double scale = std::abs(double(expected)) + std::abs(double(before));
  double error = std::abs(double(actual) - double(expected));
  if (error <= 1e-6 * scale || actual == expected)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "DTF " << actual << " vs TensorFlow " << expected << " (before "
         << before << "): off by " << error << ", " << error / scale
         << " of the operands' scale";
}

/// TensorFlow's values of one state's float variables, by name.
using FloatState = std::map<std::string, std::vector<float>>;

/// Expects `store` to hold the variables of TensorFlow's `state` (name ->
/// value), no more and no fewer, with its values. `before` holds
/// TensorFlow's values of the state before, which scale the tolerance; it
/// becomes `state`'s, so that DTF's own errors never widen a tolerance.
void expectTensorFlowState(const VariableStore &store, const json &state,
                           FloatState &before) {
  // The optimizer created the variables TensorFlow's did, by the same
  // names (checkpoints and placement rely on them).
  std::set<std::string> tfNames, dtfNames;
  for (auto &item : state.items())
    tfNames.insert(item.key());
  for (auto &entry : store)
    dtfNames.insert(entry.first);
  EXPECT_EQ(dtfNames, tfNames);

  for (auto &item : state.items()) {
    const std::string &variable = item.key();
    const json &value = item.value();
    SCOPED_TRACE(variable);
    auto found = store.find(variable);
    if (found == store.end())
      continue; // Reported by the comparison of the names.
    const Tensor &actual = found->second;
    if (variable == "global_step") {
      EXPECT_EQ(actual.toVector<int64_t>(),
                std::vector<int64_t>{value.get<int64_t>()});
      continue;
    }
    std::vector<float> expected = floats(value);
    std::vector<float> got = actual.toVector<float>();
    std::vector<float> &previous = before[variable];
    if (previous.empty())
      previous = expected;
    ASSERT_EQ(got.size(), expected.size());
    ASSERT_EQ(previous.size(), expected.size());
    // One failure per tensor, naming its first wrong element: a wrong
    // formula makes most elements wrong.
    size_t mismatches = 0;
    std::string first;
    for (size_t i = 0; i < expected.size(); ++i) {
      ::testing::AssertionResult close =
          closeToTensorFlow(got[i], expected[i], previous[i]);
      if (!close && mismatches++ == 0)
        first = "element " + std::to_string(i) + ": " + close.message();
    }
    EXPECT_EQ(mismatches, 0u) << "elements differ from TensorFlow's, of "
                              << expected.size() << "; the first, " << first;
    previous = expected;
  }
}

class OptimizerFixtureTest : public ::testing::Test {
protected:
  OptimizerFixtureTest() {
    mlir::DialectRegistry registry;
    dtf::ir::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Trains with the optimizer of configuration `name` and compares the
  /// initialized state and each step's with TensorFlow's.
  void expectTensorFlowUpdates(const std::string &name);

  mlir::MLIRContext context;
};

void OptimizerFixtureTest::expectTensorFlowUpdates(const std::string &name) {
  const json &config = configuration(name);
  SCOPED_TRACE(config.at("tensorflow").get<std::string>());
  std::string source = trainingModule(config.at("dtf").get<std::string>());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  ASSERT_TRUE(module) << source;
  // func.func(dtf-autodiff,dtf-expand-optimizer), as dtf-reference-train.
  mlir::PassManager passManager(&context);
  passManager.addNestedPass<mlir::func::FuncOp>(dtf::ir::createAutodiffPass());
  passManager.addNestedPass<mlir::func::FuncOp>(
      dtf::ir::createExpandOptimizerPass());
  ASSERT_TRUE(succeeded(passManager.run(*module)));
  mlir::func::FuncOp train = *module->getOps<mlir::func::FuncOp>().begin();

  // TensorFlow's initial w and b; initializeVariables leaves present
  // variables alone and creates the rest (slots, beta powers, global step)
  // from their initializers, which must give what TensorFlow's gave.
  VariableStore store;
  const json &initial = fixture().at("initial");
  for (const char *variable : {"w", "b"})
    store.emplace(variable, Tensor::fromVector(shapeOf(variable),
                                               floats(initial.at(variable))));
  dtf::exec::initializeVariables(train, store, {});
  FloatState before;
  {
    SCOPED_TRACE("initialized");
    expectTensorFlowState(store, config.at("initialized"), before);
  }

  ExecutorOptions options;
  options.numThreads = 2;
  Executor executor(train, store, options);
  const json &gradients = fixture().at("gradients");
  const json &steps = config.at("steps");
  ASSERT_EQ(gradients.size(), steps.size());
  for (size_t step = 0; step < steps.size(); ++step) {
    SCOPED_TRACE("after step " + std::to_string(step + 1));
    FeedMap feeds;
    for (const char *variable : {"w", "b"}) {
      std::string feed = std::string("g") + variable;
      feeds.emplace(feed, Tensor::fromVector(shapeOf(variable),
                                             floats(gradients[step].at(feed))));
    }
    executor.run(feeds);
    expectTensorFlowState(store, steps[step], before);
  }
}

// The tests name the fixture's configurations one by one, so that each
// shows as its own test; this one notices a configuration the script gained
// but no test compares.
TEST_F(OptimizerFixtureTest, EveryConfigurationIsTested) {
  std::set<std::string> names;
  for (const json &config : fixture().at("configurations"))
    names.insert(config.at("name").get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{
                       "sgd", "momentum", "momentum_nesterov", "adam_defaults",
                       "adam", "rmsprop_defaults", "rmsprop",
                       "rmsprop_centered", "adadelta_defaults", "adadelta"}));
}

TEST_F(OptimizerFixtureTest, GradientDescent) {
  expectTensorFlowUpdates("sgd");
}

TEST_F(OptimizerFixtureTest, Momentum) { expectTensorFlowUpdates("momentum"); }

TEST_F(OptimizerFixtureTest, NesterovMomentum) {
  expectTensorFlowUpdates("momentum_nesterov");
}

// `#dtf.adam<>`: DTF's defaults must be TensorFlow's.
TEST_F(OptimizerFixtureTest, AdamDefaults) {
  expectTensorFlowUpdates("adam_defaults");
}

// beta1, beta2 and epsilon far from the defaults and from each other, so
// that a swap of the betas or a misplaced epsilon shows.
TEST_F(OptimizerFixtureTest, Adam) { expectTensorFlowUpdates("adam"); }

// TensorFlow 1's RMSProp starts its mean square at ones (the slot named
// w/RMSProp) and its momentum at zeros (w/RMSProp_1).
TEST_F(OptimizerFixtureTest, RMSPropDefaults) {
  expectTensorFlowUpdates("rmsprop_defaults");
}

TEST_F(OptimizerFixtureTest, RMSProp) { expectTensorFlowUpdates("rmsprop"); }

// Centered: the mean gradient is w/RMSProp_1 and the momentum w/RMSProp_2.
TEST_F(OptimizerFixtureTest, CenteredRMSProp) {
  expectTensorFlowUpdates("rmsprop_centered");
}

// Both slots start at zeros: accum (w/Adadelta) and accum_update
// (w/Adadelta_1).
TEST_F(OptimizerFixtureTest, AdadeltaDefaults) {
  expectTensorFlowUpdates("adadelta_defaults");
}

// rho and epsilon away from the defaults, at the learning rate of 1 of
// Zeiler's paper.
TEST_F(OptimizerFixtureTest, Adadelta) { expectTensorFlowUpdates("adadelta"); }

} // namespace
