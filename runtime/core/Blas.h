//===- Blas.h - Typed GEMM over the CPU's fastest library -----------------===//
//
// Private to the runtime library (and its tests). CpuKernels.h says which
// library runs float GEMMs and why.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/CpuKernels.h"

#include <cstdint>

namespace dtf::kernels {

/// Row-major C[M,N] = alpha * op(A) * op(B) + beta * C, with op(A) [M,K] and
/// op(B) [K,N]; lda/ldb/ldc are the row strides of A, B, C as stored. Handles
/// empty dimensions (which CBLAS rejects through its leading-dimension
/// checks). Float GEMMs run on cpuKernels().gemm, double ones on OpenBLAS.
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
          float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
          float beta, float *c, int64_t ldc);
void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
          double alpha, const double *a, int64_t lda, const double *b,
          int64_t ldb, double beta, double *c, int64_t ldc);

/// Whether this build can run float GEMMs on `library` (oneDNN: x86-64).
bool gemmLibraryAvailable(GemmLibrary library);

/// The float GEMM on `library`, whatever cpuKernels() chose: the kernel
/// tests hold every available library to a double-precision reference.
void gemmOn(GemmLibrary library, bool transA, bool transB, int64_t m, int64_t n,
            int64_t k, float alpha, const float *a, int64_t lda, const float *b,
            int64_t ldb, float beta, float *c, int64_t ldc);

} // namespace dtf::kernels
