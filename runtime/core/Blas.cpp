//===- Blas.cpp - Typed GEMM wrapper over CBLAS ---------------------------===//

#include "runtime/core/Blas.h"

#include <cblas.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace dtf::kernels {

namespace {

/// The CBLAS interface takes int sizes (OpenBLAS may widen them, never
/// narrow); refuse rather than silently truncate.
int toBlasInt(int64_t value) {
  if (value > std::numeric_limits<int>::max())
    throw std::length_error("dtf::kernels::gemm: dimension " +
                            std::to_string(value) +
                            " exceeds the BLAS integer range");
  return static_cast<int>(value);
}

CBLAS_TRANSPOSE toTranspose(bool transpose) {
  return transpose ? CblasTrans : CblasNoTrans;
}

/// C = beta * C for the degenerate K == 0 product, which CBLAS may reject.
template <typename T>
void scaleRows(int64_t m, int64_t n, T beta, T *c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    T *row = c + i * ldc;
    if (beta == T(0))
      std::fill(row, row + n, T(0));
    else
      std::transform(row, row + n, row, [beta](T v) { return beta * v; });
  }
}

} // namespace

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
          float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
          float beta, float *c, int64_t ldc) {
  if (m == 0 || n == 0)
    return;
  if (k == 0)
    return scaleRows(m, n, beta, c, ldc);
  cblas_sgemm(CblasRowMajor, toTranspose(transA), toTranspose(transB),
              toBlasInt(m), toBlasInt(n), toBlasInt(k), alpha, a,
              toBlasInt(lda), b, toBlasInt(ldb), beta, c, toBlasInt(ldc));
}

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
          double alpha, const double *a, int64_t lda, const double *b,
          int64_t ldb, double beta, double *c, int64_t ldc) {
  if (m == 0 || n == 0)
    return;
  if (k == 0)
    return scaleRows(m, n, beta, c, ldc);
  cblas_dgemm(CblasRowMajor, toTranspose(transA), toTranspose(transB),
              toBlasInt(m), toBlasInt(n), toBlasInt(k), alpha, a,
              toBlasInt(lda), b, toBlasInt(ldb), beta, c, toBlasInt(ldc));
}

} // namespace dtf::kernels
