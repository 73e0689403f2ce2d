//===- LowerToGPUTest.cpp - The GPU lowering's loops, run on the CPU ------===//
//
// Checks what --dtf-lower-to-gpu computes without a GPU: every function of
// test/GPU/Inputs/ops.mlir goes through --dtf-lower-to-gpu-loops (the GPU
// pipeline up to the tiled scf.parallel loops that become kernels, library
// calls included), is lowered to LLVM for the host and JIT-compiled, and
// its results are compared with the reference interpreter's on the same
// random arguments. The dtf_cuda_* library calls are served by naive CPU
// implementations of their ABI (runtime/ABI.md): this checks the calls the
// compiler emits (operands, OHWI filters, padding, slices), while the GPU
// tests of runtime/cuda check the cuBLAS/cuDNN side.
//
//===----------------------------------------------------------------------===//

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/InitAll.h"
#include "passes/Passes.h"
#include "runtime/exec/Interpreter.h"

#include "runtime/core/Kernels.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/TargetSelect.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace {

using dtf::DType;
using dtf::Shape;
using dtf::Tensor;

//===----------------------------------------------------------------------===//
// The dtf_cuda_* ABI on the CPU
//===----------------------------------------------------------------------===//

template <int N> struct MemRef {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];

  float &at(std::initializer_list<int64_t> index) {
    int64_t position = offset;
    int i = 0;
    for (int64_t x : index)
      position += x * strides[i++];
    return aligned[position];
  }
};

void cpuGemm(MemRef<2> *a, MemRef<2> *b, MemRef<2> *c, int64_t transposeA,
             int64_t transposeB) {
  int64_t m = c->sizes[0], n = c->sizes[1];
  int64_t k = transposeA ? a->sizes[0] : a->sizes[1];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p)
        sum += double(transposeA ? a->at({p, i}) : a->at({i, p})) *
               double(transposeB ? b->at({j, p}) : b->at({p, j}));
      c->at({i, j}) = static_cast<float>(sum);
    }
}

/// Calls fn(n, oh, ow, kh, kw, ih, iw) for every window cell of every output
/// pixel that falls inside the (symmetrically padded) input; cells are
/// dilationH and dilationW apart (1 for pooling).
template <typename Fn>
void forEachWindowCell(MemRef<4> *x, int64_t outH, int64_t outW,
                       int64_t windowH, int64_t windowW, int64_t strideH,
                       int64_t strideW, int64_t padH, int64_t padW,
                       int64_t dilationH, int64_t dilationW, Fn fn) {
  for (int64_t n = 0; n < x->sizes[0]; ++n)
    for (int64_t oh = 0; oh < outH; ++oh)
      for (int64_t ow = 0; ow < outW; ++ow)
        for (int64_t kh = 0; kh < windowH; ++kh)
          for (int64_t kw = 0; kw < windowW; ++kw) {
            int64_t ih = oh * strideH - padH + kh * dilationH;
            int64_t iw = ow * strideW - padW + kw * dilationW;
            if (ih >= 0 && ih < x->sizes[1] && iw >= 0 && iw < x->sizes[2])
              fn(n, oh, ow, kh, kw, ih, iw);
          }
}

void fill(MemRef<4> *m, float value) {
  for (int64_t a = 0; a < m->sizes[0]; ++a)
    for (int64_t b = 0; b < m->sizes[1]; ++b)
      for (int64_t c = 0; c < m->sizes[2]; ++c)
        for (int64_t d = 0; d < m->sizes[3]; ++d)
          m->at({a, b, c, d}) = value;
}

void cpuConv2D(MemRef<4> *x, MemRef<4> *w, MemRef<4> *y, int64_t sh, int64_t sw,
               int64_t ph, int64_t pw, int64_t dh, int64_t dw) {
  fill(y, 0);
  forEachWindowCell(x, y->sizes[1], y->sizes[2], w->sizes[1], w->sizes[2], sh,
                    sw, ph, pw, dh, dw,
                    [&](int64_t n, int64_t oh, int64_t ow, int64_t kh,
                        int64_t kw, int64_t ih, int64_t iw) {
                      for (int64_t k = 0; k < w->sizes[0]; ++k)
                        for (int64_t c = 0; c < w->sizes[3]; ++c)
                          y->at({n, oh, ow, k}) +=
                              x->at({n, ih, iw, c}) * w->at({k, kh, kw, c});
                    });
}

void cpuConv2DBackpropInput(MemRef<4> *w, MemRef<4> *dy, MemRef<4> *dx,
                            int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                            int64_t dh, int64_t dw) {
  fill(dx, 0);
  forEachWindowCell(dx, dy->sizes[1], dy->sizes[2], w->sizes[1], w->sizes[2],
                    sh, sw, ph, pw, dh, dw,
                    [&](int64_t n, int64_t oh, int64_t ow, int64_t kh,
                        int64_t kw, int64_t ih, int64_t iw) {
                      for (int64_t k = 0; k < w->sizes[0]; ++k)
                        for (int64_t c = 0; c < w->sizes[3]; ++c)
                          dx->at({n, ih, iw, c}) +=
                              dy->at({n, oh, ow, k}) * w->at({k, kh, kw, c});
                    });
}

void cpuConv2DBackpropFilter(MemRef<4> *x, MemRef<4> *dy, MemRef<4> *dw,
                             int64_t sh, int64_t sw, int64_t ph, int64_t pw,
                             int64_t dilationH, int64_t dilationW) {
  fill(dw, 0);
  forEachWindowCell(x, dy->sizes[1], dy->sizes[2], dw->sizes[1], dw->sizes[2],
                    sh, sw, ph, pw, dilationH, dilationW,
                    [&](int64_t n, int64_t oh, int64_t ow, int64_t kh,
                        int64_t kw, int64_t ih, int64_t iw) {
                      for (int64_t k = 0; k < dw->sizes[0]; ++k)
                        for (int64_t c = 0; c < dw->sizes[3]; ++c)
                          dw->at({k, kh, kw, c}) +=
                              x->at({n, ih, iw, c}) * dy->at({n, oh, ow, k});
                    });
}

void cpuMaxPool(MemRef<4> *x, MemRef<4> *y, int64_t wh, int64_t ww,
                int64_t sh, int64_t sw, int64_t ph, int64_t pw) {
  fill(y, -std::numeric_limits<float>::infinity());
  forEachWindowCell(x, y->sizes[1], y->sizes[2], wh, ww, sh, sw, ph, pw, 1, 1,
                    [&](int64_t n, int64_t oh, int64_t ow, int64_t, int64_t,
                        int64_t ih, int64_t iw) {
                      for (int64_t c = 0; c < x->sizes[3]; ++c)
                        y->at({n, oh, ow, c}) = std::max(
                            y->at({n, oh, ow, c}), x->at({n, ih, iw, c}));
                    });
}

void cpuMaxPoolGrad(MemRef<4> *x, MemRef<4> *y, MemRef<4> *dy, MemRef<4> *dx,
                    int64_t wh, int64_t ww, int64_t sh, int64_t sw, int64_t ph,
                    int64_t pw) {
  fill(dx, 0);
  // The gradient goes to the first maximum of each window, in row-major
  // window order.
  for (int64_t n = 0; n < y->sizes[0]; ++n)
    for (int64_t oh = 0; oh < y->sizes[1]; ++oh)
      for (int64_t ow = 0; ow < y->sizes[2]; ++ow)
        for (int64_t c = 0; c < y->sizes[3]; ++c) {
          int64_t bestH = -1, bestW = -1;
          float best = 0;
          for (int64_t kh = 0; kh < wh; ++kh)
            for (int64_t kw = 0; kw < ww; ++kw) {
              int64_t ih = oh * sh - ph + kh, iw = ow * sw - pw + kw;
              if (ih < 0 || ih >= x->sizes[1] || iw < 0 || iw >= x->sizes[2])
                continue;
              float v = x->at({n, ih, iw, c});
              if (bestH < 0 || v > best) {
                best = v;
                bestH = ih;
                bestW = iw;
              }
            }
          if (bestH >= 0)
            dx->at({n, bestH, bestW, c}) += dy->at({n, oh, ow, c});
        }
}

//===----------------------------------------------------------------------===//
// Running lowered functions
//===----------------------------------------------------------------------===//

/// The host half of the CPU lowering: the loops and library calls of
/// --dtf-lower-to-gpu-loops to LLVM, with C wrappers for every function.
constexpr const char *kLowerLoopsToLLVM =
    "func.func(llvm-request-c-wrappers),convert-scf-to-cf,"
    "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
    "convert-math-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,"
    "convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts";

/// Uniform samples in [low, high), rounded down for integers and booleans.
Tensor uniform(DType dtype, const Shape &shape, double low, double high,
               uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> distribution(low, high);
  Tensor values(DType::F64, shape);
  double *data = values.data<double>();
  for (int64_t i = 0; i < values.numElements(); ++i) {
    data[i] = distribution(engine);
    if (dtype != DType::F32 && dtype != DType::F64)
      data[i] = std::floor(data[i]);
  }
  return dtype == DType::F64 ? std::move(values)
                             : dtf::kernels::cast(values, dtype);
}

/// Every element within 1e-4 of the reference, relative beyond magnitude 1.
void expectClose(const Tensor &actual, const Tensor &expected,
                 const std::string &what) {
  ASSERT_EQ(actual.dtype(), expected.dtype()) << what;
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  Tensor a = dtf::kernels::cast(actual, DType::F64);
  Tensor e = dtf::kernels::cast(expected, DType::F64);
  int failures = 0;
  for (int64_t i = 0; i < a.numElements() && failures < 10; ++i) {
    double x = a.data<double>()[i], y = e.data<double>()[i];
    if ((std::isnan(x) && std::isnan(y)) || x == y ||
        std::fabs(x - y) <= 1e-4 * std::max(1.0, std::fabs(y)))
      continue;
    ++failures;
    ADD_FAILURE() << what << ": element " << i << " is " << x
                  << " lowered, " << y << " in the interpreter";
  }
}

class LowerToGPUTest : public ::testing::Test {
protected:
  LowerToGPUTest() {
    static bool initialized = [] {
      llvm::InitializeNativeTarget();
      llvm::InitializeNativeTargetAsmPrinter();
      dtf::ir::registerAllPasses();
      return true;
    }();
    (void)initialized;
    mlir::DialectRegistry registry;
    dtf::ir::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Lowers `function` with --dtf-lower-to-gpu-loops and then to LLVM for
  /// this CPU, runs it on `args` and returns its results.
  std::vector<Tensor> runLowered(mlir::func::FuncOp function,
                                 const std::vector<Tensor> &args);

  mlir::MLIRContext context;
};

std::vector<Tensor> LowerToGPUTest::runLowered(mlir::func::FuncOp function,
                                               const std::vector<Tensor> &args) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(function.getLoc());
  module->push_back(function.clone());

  mlir::PassManager pm(&context);
  dtf::ir::buildLowerToGPULoopsPipeline(pm, dtf::ir::LowerToGPUOptions());
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(mlir::parsePassPipeline(kLowerLoopsToLLVM, pm, errorStream))) {
    ADD_FAILURE() << errors;
    return {};
  }
  if (failed(pm.run(*module))) {
    ADD_FAILURE() << "lowering failed";
    return {};
  }

  auto engine = mlir::ExecutionEngine::create(*module);
  if (!engine) {
    ADD_FAILURE() << llvm::toString(engine.takeError());
    return {};
  }
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto define = [&](const char *name, auto *function) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                 llvm::JITSymbolFlags::Exported};
    };
    define("_mlir_ciface_dtf_cuda_gemm_f32", &cpuGemm);
    define("_mlir_ciface_dtf_cuda_conv2d_f32", &cpuConv2D);
    define("_mlir_ciface_dtf_cuda_conv2d_backprop_input_f32",
           &cpuConv2DBackpropInput);
    define("_mlir_ciface_dtf_cuda_conv2d_backprop_filter_f32",
           &cpuConv2DBackpropFilter);
    define("_mlir_ciface_dtf_cuda_max_pool_f32", &cpuMaxPool);
    define("_mlir_ciface_dtf_cuda_max_pool_grad_f32", &cpuMaxPoolGrad);
    return symbols;
  });

  // MLIR's C interface: a pointer to the results' descriptors (all 8-byte
  // fields: allocated, aligned, offset, sizes, strides), then a pointer to
  // each argument's descriptor.
  std::vector<std::vector<int64_t>> argDescriptors;
  for (const Tensor &arg : args) {
    std::vector<int64_t> words = {
        reinterpret_cast<int64_t>(arg.rawData()),
        reinterpret_cast<int64_t>(arg.rawData()), 0};
    words.insert(words.end(), arg.shape().begin(), arg.shape().end());
    int64_t stride = 1;
    std::vector<int64_t> strides(arg.rank());
    for (int64_t i = arg.rank() - 1; i >= 0; --i) {
      strides[i] = stride;
      stride *= arg.shape()[i];
    }
    words.insert(words.end(), strides.begin(), strides.end());
    argDescriptors.push_back(std::move(words));
  }
  size_t resultWords = 0;
  for (mlir::Type type : function.getResultTypes())
    resultWords += 3 + 2 * mlir::cast<mlir::RankedTensorType>(type).getRank();
  std::vector<int64_t> results(resultWords);
  void *resultPointer = results.data();
  std::vector<void *> argPointers;
  for (auto &words : argDescriptors)
    argPointers.push_back(words.data());
  std::vector<void *> packed = {&resultPointer};
  for (void *&pointer : argPointers)
    packed.push_back(&pointer);
  if (llvm::Error error = (*engine)->invokePacked(
          ("_mlir_ciface_" + function.getName()).str(), packed)) {
    ADD_FAILURE() << llvm::toString(std::move(error));
    return {};
  }

  std::vector<Tensor> tensors;
  size_t cursor = 0;
  for (mlir::Type type : function.getResultTypes()) {
    auto tensorType = mlir::cast<mlir::RankedTensorType>(type);
    Tensor tensor(dtf::exec::toDType(tensorType.getElementType(), {}),
                  dtf::exec::toShape(tensorType));
    int64_t rank = tensorType.getRank();
    const char *aligned = reinterpret_cast<const char *>(results[cursor + 1]);
    int64_t offset = results[cursor + 2];
    size_t size = dtf::dtypeSize(tensor.dtype());
    // Results are identity-layout memrefs (function boundaries bufferize
    // so); copy them out element by element through their strides anyway.
    for (int64_t i = 0; i < tensor.numElements(); ++i) {
      int64_t position = offset, rest = i;
      for (int64_t d = rank - 1; d >= 0; --d) {
        int64_t extent = results[cursor + 3 + d];
        position += (rest % extent) * results[cursor + 3 + rank + d];
        rest /= extent;
      }
      std::memcpy(static_cast<char *>(tensor.rawData()) + i * size,
                  aligned + position * size, size);
    }
    tensors.push_back(std::move(tensor));
    cursor += 3 + 2 * rank;
  }
  return tensors;
}

TEST_F(LowerToGPUTest, LoopsComputeWhatTheInterpreterComputes) {
  mlir::OwningOpRef<mlir::ModuleOp> source =
      mlir::parseSourceFile<mlir::ModuleOp>(DTF_GPU_TEST_OPS, &context);
  ASSERT_TRUE(source);
  int functions = 0;
  for (auto function : source->getOps<mlir::func::FuncOp>()) {
    std::string name = "@" + function.getName().str();
    SCOPED_TRACE(name);
    ++functions;
    std::vector<Tensor> args;
    for (unsigned i = 0; i < function.getNumArguments(); ++i) {
      mlir::Type type = function.getArgumentTypes()[i];
      double low = -1, high = 1;
      if (auto range =
              function.getArgAttrOfType<mlir::ArrayAttr>(i, "test.range")) {
        low = mlir::cast<mlir::FloatAttr>(range[0]).getValueAsDouble();
        high = mlir::cast<mlir::FloatAttr>(range[1]).getValueAsDouble();
      }
      args.push_back(uniform(
          dtf::exec::toDType(mlir::getElementTypeOrSelf(type), {}),
          dtf::exec::toShape(type), low, high, 1000 + i));
    }
    std::vector<Tensor> inputs;
    for (const Tensor &arg : args)
      inputs.push_back(arg.clone());
    dtf::exec::VariableStore store;
    std::vector<Tensor> expected =
        dtf::exec::Interpreter(store).run(function, {}, std::move(inputs));
    std::vector<Tensor> actual = runLowered(function, args);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
      expectClose(actual[i], expected[i],
                  name + " result " + std::to_string(i));
  }
  EXPECT_GT(functions, 20);
}

TEST_F(LowerToGPUTest, ExampleModelsComputeWhatTheInterpreterComputes) {
  for (const char *model : {"mnist_mlp", "mnist_cnn"}) {
    SCOPED_TRACE(model);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceFile<mlir::ModuleOp>(
            std::string(DTF_EXAMPLES "/") + model + ".mlir", &context);
    ASSERT_TRUE(module);
    auto main = module->lookupSymbol<mlir::func::FuncOp>("main");
    dtf::exec::VariableStore variables;
    dtf::exec::initializeVariables(main, variables, {});

    // The worker's computation: loss, accuracy and gradients of a batch.
    mlir::PassManager pm(&context);
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    ASSERT_TRUE(succeeded(mlir::parsePassPipeline(
        "func.func(dtf-autodiff),dtf-lift-graph-inputs", pm, errorStream)))
        << errors;
    ASSERT_TRUE(succeeded(pm.run(*module)));

    std::vector<Tensor> args;
    for (unsigned i = 0; i < main.getNumArguments(); ++i) {
      mlir::DictionaryAttr attrs = main.getArgAttrDict(i);
      if (auto variable = attrs.getAs<mlir::StringAttr>("dtf.variable")) {
        args.push_back(variables.at(variable.str()).clone());
      } else if (attrs.getAs<mlir::StringAttr>("dtf.feed").getValue() ==
                 "x") {
        args.push_back(uniform(DType::F32, {100, 784}, 0, 1, 7));
      } else {
        Tensor labels(DType::F32, {100, 10});
        for (int64_t n = 0; n < 100; ++n)
          labels.data<float>()[n * 10 + (n * 7) % 10] = 1;
        args.push_back(std::move(labels));
      }
    }
    std::vector<Tensor> inputs;
    for (const Tensor &arg : args)
      inputs.push_back(arg.clone());
    dtf::exec::VariableStore unused;
    std::vector<Tensor> expected =
        dtf::exec::Interpreter(unused).run(main, {}, std::move(inputs));
    std::vector<Tensor> actual = runLowered(main, args);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      // Sums of many products: compare relative to the largest magnitude.
      double scale = 1;
      Tensor e = dtf::kernels::cast(expected[i], DType::F64);
      for (double x : e.toVector<double>())
        scale = std::max(scale, std::fabs(x));
      Tensor scaledActual = dtf::kernels::cast(actual[i], DType::F64);
      for (int64_t j = 0; j < e.numElements(); ++j) {
        e.data<double>()[j] /= scale;
        scaledActual.data<double>()[j] /= scale;
      }
      expectClose(scaledActual, e, "result " + std::to_string(i));
    }
  }
}

} // namespace
