//===- Blas.cpp - Matrix products with cuBLAS -----------------------------===//

#include "runtime/cuda/Library.h"

#include "runtime/cuda/ErrorCodes.h"
#include "runtime/cuda/HostLibraries.h"

namespace dtf::cuda {

void gemm(Device &device, const float *a, const float *b, float *c, int64_t m,
          int64_t n, int64_t k, bool transposeA, bool transposeB) {
  std::lock_guard<std::recursive_mutex> lock(device.executionMutex());
  if (m == 0 || n == 0)
    return;
  if (k == 0) {
    device.memsetZero(c, static_cast<size_t>(m * n) * sizeof(float));
    return;
  }
  // cuBLAS is column-major, and a row-major [r, c] matrix is its column-major
  // transpose: compute c^T = op(b)^T op(a)^T.
  cublasHandle_t handle = device.blas();
  device.makeCurrent();
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t status = libraries::cublas().cublasSgemm(
      handle, transposeB ? CUBLAS_OP_T : CUBLAS_OP_N,
      transposeA ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n),
      static_cast<int>(m), static_cast<int>(k), &one, b,
      static_cast<int>(transposeB ? k : n), a,
      static_cast<int>(transposeA ? m : k), &zero, c, static_cast<int>(n));
  if (status != CUBLAS_STATUS_SUCCESS)
    throw CudaError(toErrorCode(status),
                    device.name() + ": cublasSgemm of [" + std::to_string(m) +
                        "," + std::to_string(k) + "] x [" + std::to_string(k) +
                        "," + std::to_string(n) + "]: " + statusName(status));
}

} // namespace dtf::cuda
