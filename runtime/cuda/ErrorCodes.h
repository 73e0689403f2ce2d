//===- ErrorCodes.h - CUDA, cuBLAS and cuDNN statuses as codes --*- C++ -*-===//
//
// Private to dtf_cuda. A CudaError carries the dtf::ErrorCode of what went
// wrong, so that a GPU failure crosses an RPC with a status its caller can
// act on (StatusConversion.h) rather than as UNKNOWN: out of device memory
// is ResourceExhausted, a missing or unsupported GPU or library
// FailedPrecondition (a busy one Unavailable), a bad value InvalidArgument,
// and a kernel that faulted, like any other failure of the driver or a
// library, Internal. These functions give that code for a status the
// driver, cuBLAS or cuDNN returned.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Error.h"

#include <cublas_v2.h>
#include <cuda.h>
#include <cudnn.h>

namespace dtf::cuda {

/// The code of a CudaError for a driver call that returned `result`.
ErrorCode toErrorCode(CUresult result);
/// The code of a CudaError for a cuBLAS call that returned `status`.
ErrorCode toErrorCode(cublasStatus_t status);
/// The code of a CudaError for a cuDNN call that returned `status`.
ErrorCode toErrorCode(cudnnStatus_t status);

/// "CUBLAS_STATUS_ALLOC_FAILED", ... (cublasGetStatusName is not among the
/// functions HostLibraries.h loads).
const char *statusName(cublasStatus_t status);

} // namespace dtf::cuda
