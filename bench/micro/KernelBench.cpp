//===- KernelBench.cpp - The CPU kernels at the MLP's sizes ---------------===//
//
// Google Benchmark programs for dtf::kernels: matmul at the MLP's forward
// and backward shapes (batch 100, 784-100-10) and a large square one (the
// machine's GEMM rate: bench/run.sh runs it with OPENBLAS_NUM_THREADS=1 for
// the single-core rate of the compute bound), conv2d at mnist_cnn's first
// layer, and element-wise kernels at the hidden layer's size. Counters:
// FLOP/s for the GEMMs and convolutions, bytes/s for element-wise kernels.
// BM_GemmOn runs the MLP's GEMMs on each GEMM library of the build, whatever
// runtime/core/CpuKernels.h chose: run it with OPENBLAS_CORETYPE=PRESCOTT
// too, which forces OpenBLAS's generic kernels, as on a CPU it does not know.
// BM_PixelScale converts a streamed batch's pixels (runtime/data/Inputs.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Blas.h"
#include "runtime/core/Kernels.h"
#include "runtime/data/Inputs.h"

#include <benchmark/benchmark.h>

using namespace dtf;

namespace {

Tensor ramp(Shape shape, float scale = 1e-3f) {
  Tensor t(DType::F32, shape);
  float *data = t.data<float>();
  for (int64_t i = 0; i < t.numElements(); ++i)
    data[i] = scale * static_cast<float>((i * 7919) % 1000 - 500);
  return t;
}

/// matmul(op(a), op(b)) with a [M,K] b [K,N] after the transposes.
void BM_Matmul(benchmark::State &state) {
  int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  bool ta = state.range(3) != 0, tb = state.range(4) != 0;
  Tensor a = ramp(ta ? Shape{k, m} : Shape{m, k});
  Tensor b = ramp(tb ? Shape{n, k} : Shape{k, n});
  for (auto _ : state)
    benchmark::DoNotOptimize(kernels::matmul(a, b, ta, tb));
  state.counters["FLOP/s"] = benchmark::Counter(
      2.0 * m * k * n, benchmark::Counter::kIsIterationInvariantRate);
}
// The MLP's GEMMs: forward x*hid_w, hid*sm_w; backward hid^T*dy (sm_w's
// gradient), dy*sm_w^T (hid's), x^T*dhid (hid_w's).
BENCHMARK(BM_Matmul)
    ->ArgNames({"M", "K", "N", "ta", "tb"})
    ->Args({100, 784, 100, 0, 0})
    ->Args({100, 100, 10, 0, 0})
    ->Args({100, 100, 10, 1, 0})
    ->Args({100, 10, 100, 0, 1})
    ->Args({784, 100, 100, 1, 0})
    ->Args({1024, 1024, 1024, 0, 0})
    ->Unit(benchmark::kMicrosecond);

/// The float GEMM of matmul on one library: 0 OpenBLAS, 1 oneDNN.
void BM_GemmOn(benchmark::State &state) {
  GemmLibrary library =
      state.range(0) == 0 ? GemmLibrary::OpenBlas : GemmLibrary::OneDnn;
  if (!kernels::gemmLibraryAvailable(library)) {
    state.SkipWithError("this build has no oneDNN");
    return;
  }
  int64_t m = state.range(1), k = state.range(2), n = state.range(3);
  bool ta = state.range(4) != 0, tb = state.range(5) != 0;
  Tensor a = ramp(ta ? Shape{k, m} : Shape{m, k});
  Tensor b = ramp(tb ? Shape{n, k} : Shape{k, n});
  Tensor c(DType::F32, {m, n});
  for (auto _ : state)
    kernels::gemmOn(library, ta, tb, m, n, k, 1.0f, a.data<float>(),
                    ta ? m : k, b.data<float>(), tb ? k : n, 0.0f,
                    c.data<float>(), n);
  state.counters["FLOP/s"] = benchmark::Counter(
      2.0 * m * k * n, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_GemmOn)
    ->ArgNames({"oneDNN", "M", "K", "N", "ta", "tb"})
    ->ArgsProduct({{0, 1}, {100}, {784}, {100}, {0}, {0}})
    ->Args({0, 784, 100, 100, 1, 0})
    ->Args({1, 784, 100, 100, 1, 0})
    ->Args({0, 100, 100, 10, 0, 0})
    ->Args({1, 100, 100, 10, 0, 0})
    ->Args({0, 100, 10, 100, 0, 1})
    ->Args({1, 100, 10, 100, 0, 1})
    ->Unit(benchmark::kMicrosecond);

void BM_Conv2d(benchmark::State &state) {
  // mnist_cnn's first layer: [100,28,28,1] conv [5,5,1,32], SAME.
  int64_t batch = state.range(0), cin = state.range(1), cout = state.range(2);
  Tensor input = ramp({batch, 28, 28, cin});
  Tensor filter = ramp({5, 5, cin, cout});
  for (auto _ : state)
    benchmark::DoNotOptimize(kernels::conv2d(input, filter, {1, 1, 1, 1},
                                             kernels::Padding::Same));
  state.counters["FLOP/s"] = benchmark::Counter(
      2.0 * batch * 28 * 28 * 25 * cin * cout,
      benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Conv2d)
    ->ArgNames({"N", "Cin", "Cout"})
    ->Args({100, 1, 32})
    ->Args({10, 32, 64})
    ->Unit(benchmark::kMicrosecond);

template <Tensor (*Kernel)(const Tensor &, const Tensor &)>
void BM_Binary(benchmark::State &state) {
  Tensor a = ramp({state.range(0), state.range(1)});
  Tensor b = ramp({state.range(0), state.range(1)});
  for (auto _ : state)
    benchmark::DoNotOptimize(Kernel(a, b));
  state.SetBytesProcessed(state.iterations() * a.numElements() * 4 * 3);
}
BENCHMARK_TEMPLATE(BM_Binary, kernels::add)->Args({100, 100})->Args({784, 100});
BENCHMARK_TEMPLATE(BM_Binary, kernels::mul)->Args({100, 100})->Args({784, 100});

void BM_BiasAdd(benchmark::State &state) {
  Tensor x = ramp({100, 100});
  Tensor b = ramp({100});
  for (auto _ : state)
    benchmark::DoNotOptimize(kernels::bias_add(x, b));
  state.SetBytesProcessed(state.iterations() * x.numElements() * 4 * 2);
}
BENCHMARK(BM_BiasAdd);

void BM_Relu(benchmark::State &state) {
  Tensor x = ramp({100, 100});
  for (auto _ : state)
    benchmark::DoNotOptimize(kernels::relu(x));
  state.SetBytesProcessed(state.iterations() * x.numElements() * 4 * 2);
}
BENCHMARK(BM_Relu);

void BM_Softmax(benchmark::State &state) {
  Tensor x = ramp({100, 10});
  for (auto _ : state)
    benchmark::DoNotOptimize(kernels::softmax(x));
  state.SetBytesProcessed(state.iterations() * x.numElements() * 4 * 2);
}
BENCHMARK(BM_Softmax);

void BM_ApplyAdam(benchmark::State &state) {
  // The PS's update of hid_w [784,100].
  Tensor var = ramp({784, 100}), m = ramp({784, 100}), v = ramp({784, 100}, 0);
  Tensor grad = ramp({784, 100});
  for (auto _ : state) {
    kernels::apply_adam(var, m, v, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, grad);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * var.numElements() * 4 * 7);
}
BENCHMARK(BM_ApplyAdam)->Unit(benchmark::kMicrosecond);

/// A streamed batch's pixels to f32 (100 Fashion-MNIST images) at
/// scale=1/255, which PixelScale divides (its label: by the reciprocal
/// with an FMA's correction, or by vdivps), and at 0.3, which it looks up.
void BM_PixelScale(benchmark::State &state) {
  double scale = state.range(0) == 0 ? 1.0 / 255 : 0.3;
  data::PixelScale convert(scale, DType::F32);
  std::vector<uint8_t> pixels(100 * 784);
  for (size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = static_cast<uint8_t>((i * 7919) % 256);
  std::vector<float> out(pixels.size());
  for (auto _ : state) {
    convert(pixels.data(), pixels.size(), out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(convert.way());
  state.SetBytesProcessed(state.iterations() * pixels.size() * 5);
}
BENCHMARK(BM_PixelScale)
    ->ArgName("table")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
