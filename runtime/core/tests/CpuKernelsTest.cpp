//===- CpuKernelsTest.cpp - The GEMM library a task runs, and its results -===//
//
// Two checks: every GEMM library this build has computes what a
// double-precision reference does, at the shapes of a training step and at
// awkward ones; and the library the process chose uses the CPU's vectors,
// so that a machine on which OpenBLAS falls back to its generic kernels
// fails here, in CI, rather than running 3 to 6 times slower in silence.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/CpuKernels.h"
#include "runtime/core/Blas.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace dtf {
namespace {

struct GemmCase {
  bool transA, transB;
  int64_t m, n, k;
  /// Extra columns in each matrix's stored rows (lda > what it needs).
  int64_t padding;
  float alpha, beta;
};

/// Checks `library` on one case against a double-precision product, within
/// a float's rounding of the sum of |a_ik * b_kj| over k (per element).
void checkAgainstDouble(GemmLibrary library, const GemmCase &c) {
  std::mt19937 random(static_cast<unsigned>(c.m * 131 + c.n * 17 + c.k));
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  int64_t aRows = c.transA ? c.k : c.m, aCols = c.transA ? c.m : c.k;
  int64_t bRows = c.transB ? c.n : c.k, bCols = c.transB ? c.k : c.n;
  int64_t lda = aCols + c.padding, ldb = bCols + c.padding,
          ldc = c.n + c.padding;
  std::vector<float> a(aRows * lda), b(bRows * ldb), cValues(c.m * ldc);
  for (float &x : a)
    x = uniform(random);
  for (float &x : b)
    x = uniform(random);
  for (float &x : cValues)
    x = uniform(random);
  std::vector<float> before = cValues;
  auto at = [](const std::vector<float> &matrix, int64_t ld, bool transposed,
               int64_t row, int64_t col) {
    return transposed ? matrix[col * ld + row] : matrix[row * ld + col];
  };
  kernels::gemmOn(library, c.transA, c.transB, c.m, c.n, c.k, c.alpha, a.data(),
                  lda, b.data(), ldb, c.beta, cValues.data(), ldc);
  const double epsilon = std::numeric_limits<float>::epsilon();
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < c.k; ++p) {
        double term = static_cast<double>(at(a, lda, c.transA, i, p)) *
                      at(b, ldb, c.transB, p, j);
        sum += term;
        magnitude += std::fabs(term);
      }
      double expected = c.alpha * sum + c.beta * before[i * ldc + j];
      double bound = 4 * epsilon *
                     (std::fabs(c.alpha) * magnitude +
                      std::fabs(c.beta * before[i * ldc + j]) + 1e-30);
      ASSERT_NEAR(cValues[i * ldc + j], expected, bound)
          << "C[" << i << "][" << j << "]";
    }
  // What lies between the rows, beyond n, is not C's.
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = c.n; j < ldc; ++j)
      ASSERT_EQ(cValues[i * ldc + j], before[i * ldc + j]) << "padding";
}

TEST(CpuKernelsTest, EveryGemmLibraryMatchesADoublePrecisionReference) {
  const GemmCase cases[] = {
      // The MLP's step: forward, weight gradient, input gradient.
      {false, false, 100, 100, 784, 0, 1.0f, 0.0f},
      {true, false, 784, 100, 100, 0, 1.0f, 0.0f},
      {false, true, 100, 784, 100, 0, 1.0f, 0.0f},
      {false, false, 100, 10, 100, 0, 1.0f, 0.0f},
      // Odd sizes, every transpose, strided rows, alpha and beta.
      {false, false, 1, 1, 1, 0, 1.0f, 0.0f},
      {false, true, 7, 13, 33, 3, 0.5f, 1.0f},
      {true, false, 17, 5, 129, 1, -2.0f, 0.25f},
      {true, true, 65, 31, 9, 7, 1.0f, -1.0f},
      {false, false, 3, 300, 2, 0, 1.5f, 0.0f},
  };
  for (GemmLibrary library : {GemmLibrary::OpenBlas, GemmLibrary::OneDnn}) {
    if (!kernels::gemmLibraryAvailable(library))
      continue;
    for (const GemmCase &c : cases) {
      SCOPED_TRACE(
          std::string(library == GemmLibrary::OneDnn ? "oneDNN" : "OpenBLAS") +
          " " + (c.transA ? "T" : "N") + (c.transB ? "T" : "N") +
          " m=" + std::to_string(c.m) + " n=" + std::to_string(c.n) +
          " k=" + std::to_string(c.k));
      checkAgainstDouble(library, c);
    }
  }
}

// The CI check of runtime/core/CpuKernels.h: on a CPU with AVX2 or
// AVX-512, float GEMMs must not run a kernel narrower than AVX2 unless the
// environment chose the library (DTF_CPU_GEMM).
TEST(CpuKernelsTest, GemmUsesTheCpusVectors) {
  const CpuKernels &kernels = cpuKernels();
  std::cout << "CPU kernels: " << kernels.describe() << " on a CPU with "
            << vectorIsaName(kernels.cpuIsa) << "; OpenBLAS runs "
            << kernels.openBlasCore << std::endl;
  if (kernels.chosenByEnvironment)
    GTEST_SKIP() << "the environment chose the GEMM library: "
                 << kernels.reason;
  bool x86 = kernels.cpuIsa <= VectorIsa::Avx512;
  if (!x86 || kernels.cpuIsa < VectorIsa::Avx2)
    GTEST_SKIP() << "no AVX2 on this CPU (" << vectorIsaName(kernels.cpuIsa)
                 << ")";
  EXPECT_GE(kernels.gemmIsa, VectorIsa::Avx2)
      << "float GEMMs run a generic fallback: " << kernels.describe()
      << " on a CPU with " << vectorIsaName(kernels.cpuIsa);
}

TEST(CpuKernelsTest, DescribesTheLibraryItsKernelAndWhy) {
  const CpuKernels &kernels = cpuKernels();
  std::string line = kernels.describe();
  EXPECT_NE(line.find(kernels.gemmVersion), std::string::npos) << line;
  EXPECT_NE(line.find(kernels.gemmKernel), std::string::npos) << line;
  EXPECT_NE(line.find(kernels.reason), std::string::npos) << line;
  EXPECT_FALSE(kernels.gemmKernel.empty());
  EXPECT_EQ(line.find("denormals flushed") != std::string::npos,
            kernels.flushesDenormals)
      << line;
}

} // namespace
} // namespace dtf
