//===- ErrorCodes.cpp - CUDA, cuBLAS and cuDNN statuses as codes ----------===//
//
// Codes follow what a caller can do about the failure. ResourceExhausted
// is only for memory: a launch that asks for more registers or threads than
// the GPU has fails the same way every time, so it is Internal, not a
// shortage to wait out. Unavailable is for a GPU that another process or
// the system holds for now. A kernel fault (illegal address, assert) leaves
// the context unusable, so it is Internal like the library's own failures.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/ErrorCodes.h"

namespace dtf::cuda {

ErrorCode toErrorCode(CUresult result) {
  switch (result) {
  case CUDA_ERROR_OUT_OF_MEMORY:
  case CUDA_ERROR_MPS_MAX_CLIENTS_REACHED:
  case CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED:
    return ErrorCode::ResourceExhausted;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_NOT_INITIALIZED:
  case CUDA_ERROR_DEINITIALIZED:
  case CUDA_ERROR_STUB_LIBRARY:
  case CUDA_ERROR_DEVICE_NOT_LICENSED:
  case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
  case CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
  case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
  case CUDA_ERROR_JIT_COMPILATION_DISABLED:
  case CUDA_ERROR_UNSUPPORTED_LIMIT:
  case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED:
  case CUDA_ERROR_NOT_SUPPORTED:
  case CUDA_ERROR_NOT_PERMITTED:
    return ErrorCode::FailedPrecondition;
  case CUDA_ERROR_DEVICE_UNAVAILABLE:
  case CUDA_ERROR_SYSTEM_NOT_READY:
  case CUDA_ERROR_MPS_CONNECTION_FAILED:
  case CUDA_ERROR_MPS_RPC_FAILURE:
  case CUDA_ERROR_MPS_SERVER_NOT_READY:
    return ErrorCode::Unavailable;
  case CUDA_ERROR_INVALID_VALUE:
  case CUDA_ERROR_INVALID_DEVICE:
  case CUDA_ERROR_INVALID_IMAGE:
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_INVALID_SOURCE:
  case CUDA_ERROR_INVALID_HANDLE:
    return ErrorCode::InvalidArgument;
  case CUDA_ERROR_NOT_FOUND:
    return ErrorCode::NotFound;
  default:
    return ErrorCode::Internal;
  }
}

ErrorCode toErrorCode(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_ALLOC_FAILED:
    return ErrorCode::ResourceExhausted;
  case CUBLAS_STATUS_NOT_INITIALIZED:
  case CUBLAS_STATUS_ARCH_MISMATCH:
  case CUBLAS_STATUS_NOT_SUPPORTED:
  case CUBLAS_STATUS_LICENSE_ERROR:
    return ErrorCode::FailedPrecondition;
  case CUBLAS_STATUS_INVALID_VALUE:
    return ErrorCode::InvalidArgument;
  default:
    return ErrorCode::Internal;
  }
}

ErrorCode toErrorCode(cudnnStatus_t status) {
  // cuDNN 9's statuses are a category (a multiple of 1000) plus a detail.
  switch (status) {
  case CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED:
  case CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED:
    return ErrorCode::ResourceExhausted;
  case CUDNN_STATUS_NOT_INITIALIZED:
  case CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH:
  case CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH:
  case CUDNN_STATUS_DEPRECATED:
  case CUDNN_STATUS_LICENSE_ERROR:
  case CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED:
    return ErrorCode::FailedPrecondition;
  default:
    break;
  }
  switch (CUDNN_STATUS_CATEGORY(status)) {
  case CUDNN_STATUS_BAD_PARAM:
    return ErrorCode::InvalidArgument;
  case CUDNN_STATUS_NOT_SUPPORTED:
    return ErrorCode::FailedPrecondition;
  default:
    return ErrorCode::Internal;
  }
}

const char *statusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  default:
    return "cuBLAS error";
  }
}

} // namespace dtf::cuda
