//===- dtf-gradcheck.cpp - Numerical check of dtf gradients ---------------===//
//
// Checks the gradients --dtf-autodiff derives against central finite
// differences of the loss, both evaluated by the reference interpreter in
// f64. For every trainable variable a sample of elements is perturbed by
// +-epsilon; the analytic gradient must match (L(+) - L(-)) / (2 epsilon) to
// a relative error |a - n| / max(|a|, |n|, 1e-6) below the tolerance.
//
// Placeholders are fed rows of random probability distributions (uniform
// draws normalized along the last axis), which are valid inputs and valid
// labels for every loss of the dialect. With --mnist, the placeholders `x`
// and `y_` of the example models get the first images and one-hot labels of
// the MNIST-format test split instead: realistic activations keep relu
// kinks away from the finite-difference steps.
//
//===----------------------------------------------------------------------===//

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/InitAll.h"
#include "runtime/core/Sparse.h"
#include "runtime/data/IdxReader.h"
#include "runtime/exec/Interpreter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace mlir;
namespace cl = llvm::cl;
namespace ir = dtf::ir;

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<model.mlir>"),
                                          cl::Required);
static cl::opt<unsigned> samplesPerVariable(
    "samples", cl::desc("Elements checked per variable (all when fewer)"),
    cl::init(12));
static cl::opt<double> epsilon("epsilon",
                               cl::desc("Finite-difference step"),
                               cl::init(1e-6));
static cl::opt<double> tolerance("tolerance",
                                 cl::desc("Largest relative error accepted"),
                                 cl::init(1e-3));
static cl::opt<unsigned> seed("seed", cl::desc("Seed of feeds and samples"),
                              cl::init(1));
static cl::opt<std::string>
    mnistDir("mnist", cl::desc("Feed x and y_ from the t10k split of the "
                               "MNIST-format IDX files in this directory"));

/// Attribute marking the loss so that it can be found after --dtf-autodiff
/// replaced the minimize that named it.
static constexpr llvm::StringLiteral kLossMarker = "gradcheck.loss";

/// Random probability rows for every placeholder of `function`.
static ::dtf::exec::FeedMap makeFeeds(func::FuncOp function,
                                    std::mt19937_64 &random) {
  ::dtf::exec::FeedMap feeds;
  std::uniform_real_distribution<double> uniform(0.05, 1.0);
  function.walk([&](ir::PlaceholderOp placeholder) {
    ::dtf::Shape shape = ::dtf::exec::toShape(placeholder.getType());
    ::dtf::Tensor feed(::dtf::DType::F64, shape);
    double *data = feed.data<double>();
    int64_t rowLength = shape.empty() ? 1 : shape.back();
    for (int64_t row = 0; row < feed.numElements() / rowLength; ++row) {
      double sum = 0;
      for (int64_t i = 0; i < rowLength; ++i)
        sum += data[row * rowLength + i] = uniform(random);
      for (int64_t i = 0; i < rowLength; ++i)
        data[row * rowLength + i] /= sum;
    }
    feeds.emplace(placeholder.getName().str(), std::move(feed));
  });
  if (mnistDir.empty())
    return feeds;
  ::dtf::data::MnistSplit split = ::dtf::data::loadMnistSplit(mnistDir, "t10k");
  for (auto [name, source] :
       {std::pair<const char *, ::dtf::Tensor *>{"x", &split.images},
        std::pair<const char *, ::dtf::Tensor *>{"y_", &split.oneHotLabels}}) {
    auto it = feeds.find(name);
    if (it == feeds.end())
      continue;
    const ::dtf::Shape &shape = it->second.shape();
    int64_t rowLength = source->numElements() / source->dim(0);
    if (shape.size() != 2 || shape[1] != rowLength || shape[0] > source->dim(0))
      throw std::runtime_error(std::string("--mnist: placeholder '") + name +
                               "' is not [batch, " +
                               std::to_string(rowLength) + "]");
    const float *rows = source->data<float>();
    double *out = it->second.data<double>();
    for (int64_t i = 0; i < it->second.numElements(); ++i)
      out[i] = rows[i];
  }
  return feeds;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  ir::registerAllPasses();
  cl::ParseCommandLineOptions(argc, argv,
                              "Checks dtf gradients by finite differences\n");

  DialectRegistry registry;
  ir::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFilename, &context);
  if (!module)
    return 1;

  // Mark each minimized loss, then differentiate.
  module->walk([&](ir::MinimizeOp minimize) {
    Operation *producer = minimize.getLoss().getDefiningOp();
    if (producer)
      producer->setAttr(kLossMarker, UnitAttr::get(&context));
  });
  // The pass manager is anchored on the module already; the pipeline text
  // names what nests inside it.
  PassManager passManager(&context);
  if (failed(parsePassPipeline("func.func(dtf-autodiff)", passManager,
                               llvm::errs())) ||
      failed(passManager.run(*module)))
    return 1;

  std::mt19937_64 random(seed);
  bool passed = true;
  unsigned checkedFunctions = 0;
  for (auto function : module->getOps<func::FuncOp>()) {
    SmallVector<ir::ApplyGradientsOp> applies(
        function.getOps<ir::ApplyGradientsOp>());
    if (applies.empty())
      continue;
    if (applies.size() != 1) {
      llvm::errs() << inputFilename << ": @" << function.getSymName()
                   << " has several minimize ops; check one at a time\n";
      return 1;
    }
    Value loss;
    function.walk([&](Operation *op) {
      if (op->hasAttr(kLossMarker))
        loss = op->getResult(0);
    });
    if (!loss) {
      llvm::errs() << inputFilename << ": @" << function.getSymName()
                   << ": the loss must be computed by an op\n";
      return 1;
    }
    ++checkedFunctions;

    // Keep the gradients as plain values: the check must not update anything.
    ir::ApplyGradientsOp apply = applies.front();
    SmallVector<Value> variables(apply.getVariables());
    SmallVector<Value> fetches(apply.getGradients());
    // A sparse gradient is checked as the dense one it stands for: its rows
    // summed into the rows of the ids they belong to.
    SmallVector<Value> sparseVariables(apply.getSparseVariables());
    for (auto [ids, rows] :
         llvm::zip(apply.getSparseIds(), apply.getSparseRows())) {
      fetches.push_back(ids);
      fetches.push_back(rows);
    }
    fetches.push_back(loss);
    apply.erase();

    ::dtf::exec::EvalOptions options;
    options.promoteToF64 = true;
    ::dtf::exec::VariableStore store;
    try {
      ::dtf::exec::FeedMap feeds = makeFeeds(function, random);
      ::dtf::exec::initializeVariables(function, store, options);
      ::dtf::exec::Interpreter interpreter(store, options);
      // The gradients of the training loss: dropout and batch norm as in a
      // training step.
      interpreter.setTraining(true);
      std::vector<::dtf::Tensor> analytic =
          interpreter.runAndFetch(function, feeds, fetches);
      size_t numDense = variables.size();
      for (auto [index, handle] : llvm::enumerate(sparseVariables)) {
        std::string name =
            handle.getDefiningOp<ir::VariableOp>().getName().str();
        analytic[numDense + index] = ::dtf::kernels::unsorted_segment_sum(
            analytic[numDense + 2 * index + 1], analytic[numDense + 2 * index],
            store.at(name).dim(0));
        variables.push_back(handle);
      }
      auto lossAt = [&]() {
        return interpreter.runAndFetch(function, feeds, loss)
            .front()
            .scalarAsDouble();
      };

      for (auto [index, handle] : llvm::enumerate(variables)) {
        std::string name =
            handle.getDefiningOp<ir::VariableOp>().getName().str();
        ::dtf::Tensor &value = store.at(name);
        const double *gradient = analytic[index].data<double>();
        int64_t count = value.numElements();
        std::vector<int64_t> elements(count);
        for (int64_t i = 0; i < count; ++i)
          elements[i] = i;
        std::shuffle(elements.begin(), elements.end(), random);
        elements.resize(std::min<int64_t>(count, samplesPerVariable));

        double worst = 0;
        for (int64_t element : elements) {
          double &x = value.data<double>()[element];
          double original = x;
          x = original + epsilon;
          double plus = lossAt();
          x = original - epsilon;
          double minus = lossAt();
          x = original;
          double numeric = (plus - minus) / (2 * epsilon);
          double error = std::fabs(gradient[element] - numeric) /
                         std::max({std::fabs(gradient[element]),
                                   std::fabs(numeric), 1e-6});
          worst = std::max(worst, error);
          if (!(error < tolerance)) {
            passed = false;
            llvm::outs() << "  mismatch " << name << "[" << element
                         << "]: analytic " << gradient[element]
                         << ", numeric " << numeric << "\n";
          }
        }
        llvm::outs() << "@" << function.getSymName() << " " << name << ": "
                     << elements.size() << " of " << count
                     << " elements, max relative error "
                     << llvm::format("%.3e", worst)
                     << (worst < tolerance ? "" : "  FAILED") << "\n";
      }
    } catch (const std::exception &error) {
      llvm::errs() << inputFilename << ": " << error.what() << "\n";
      return 1;
    }
  }
  if (checkedFunctions == 0) {
    llvm::errs() << inputFilename << ": no dtf.minimize to check\n";
    return 1;
  }
  llvm::outs() << (passed ? "gradient check passed" : "gradient check FAILED")
               << " (tolerance " << tolerance << ")\n";
  return passed ? 0 : 1;
}
