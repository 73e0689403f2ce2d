//===- GpuTestUtil.h - Helpers of the GPU runtime tests ---------*- C++ -*-===//

#pragma once

#include "runtime/cuda/Device.h"
#include "runtime/core/Kernels.h"
#include "runtime/core/Tensor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

/// Skips the test, saying why, where this process has no GPU. GPU tests
/// must still compile and link everywhere; CI reports them as skipped.
#define DTF_REQUIRE_GPU()                                                      \
  do {                                                                         \
    if (::dtf::cuda::deviceCount() == 0)                                       \
      GTEST_SKIP() << "no CUDA device: " << ::dtf::cuda::unavailableReason();  \
  } while (false)

namespace dtf::cuda::testing {

/// GPU results agree with the CPU kernels of dtf_runtime to this tolerance:
/// absolute up to magnitude 1, relative beyond.
constexpr double kTolerance = 1e-4;

/// Expects equal dtype and shape and every element within kTolerance of the
/// CPU result.
inline void expectClose(const Tensor &gpu, const Tensor &cpu,
                        const std::string &what) {
  ASSERT_EQ(gpu.dtype(), cpu.dtype()) << what;
  ASSERT_EQ(gpu.shape(), cpu.shape())
      << what << ": " << gpu.typeString() << " vs " << cpu.typeString();
  Tensor g = kernels::cast(gpu, DType::F64);
  Tensor c = kernels::cast(cpu, DType::F64);
  const double *actual = g.data<double>();
  const double *expected = c.data<double>();
  int failures = 0;
  for (int64_t i = 0; i < g.numElements() && failures < 10; ++i) {
    double tolerance = kTolerance * std::max(1.0, std::fabs(expected[i]));
    bool bothNaN = std::isnan(actual[i]) && std::isnan(expected[i]);
    if (bothNaN || actual[i] == expected[i] ||
        std::fabs(actual[i] - expected[i]) <= tolerance)
      continue;
    ++failures;
    ADD_FAILURE() << what << ": element " << i << " of " << cpu.typeString()
                  << " is " << actual[i] << " on the GPU, " << expected[i]
                  << " on the CPU";
  }
}

/// Compares tensors relative to the largest magnitude of the CPU result: a
/// model's gradients sum many products in orders that differ between
/// cuBLAS/cuDNN and the CPU kernels.
inline void expectCloseOverall(const Tensor &gpu, const Tensor &cpu,
                        const std::string &what) {
  Tensor c = kernels::cast(cpu, DType::F64);
  double scale = 1;
  for (double x : c.toVector<double>())
    scale = std::max(scale, std::fabs(x));
  Tensor scaledGpu = kernels::cast(gpu, DType::F64);
  for (int64_t i = 0; i < c.numElements(); ++i) {
    c.data<double>()[i] /= scale;
    scaledGpu.data<double>()[i] /= scale;
  }
  expectClose(scaledGpu, c, what + " (scaled by " + std::to_string(scale) +
                                ")");
}

/// A tensor of samples uniform in [low, high), rounded down for integer and
/// boolean dtypes.
inline Tensor uniform(DType dtype, const Shape &shape, double low, double high,
                      uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> distribution(low, high);
  Tensor values(DType::F64, shape);
  double *data = values.data<double>();
  for (int64_t i = 0; i < values.numElements(); ++i)
    data[i] = distribution(engine);
  if (dtype != DType::F32 && dtype != DType::F64)
    for (int64_t i = 0; i < values.numElements(); ++i)
      data[i] = std::floor(data[i]);
  return dtype == DType::F64 ? std::move(values) : kernels::cast(values, dtype);
}

} // namespace dtf::cuda::testing
