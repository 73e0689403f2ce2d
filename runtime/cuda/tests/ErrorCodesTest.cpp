//===- ErrorCodesTest.cpp - CUDA failures as dtf::Error codes -------------===//
//
// Each kind of status of the driver, cuBLAS and cuDNN gives a CudaError of
// the code a caller can act on. No GPU is needed: the mapping is a function
// of the status alone.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/ErrorCodes.h"
#include "runtime/cuda/Driver.h"
#include "runtime/cuda/Library.h"

#include <gtest/gtest.h>

#include <string>

namespace dtf::cuda {
namespace {

/// The name of the code, so that a failure shows both.
template <typename Status> std::string codeOf(Status status) {
  return errorCodeName(toErrorCode(status));
}

TEST(ErrorCodesTest, DriverResults) {
  EXPECT_EQ(codeOf(CUDA_ERROR_OUT_OF_MEMORY), "RESOURCE_EXHAUSTED");
  EXPECT_EQ(codeOf(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED), "RESOURCE_EXHAUSTED");
  for (CUresult result :
       {CUDA_ERROR_NO_DEVICE, CUDA_ERROR_NOT_INITIALIZED,
        CUDA_ERROR_STUB_LIBRARY, CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
        CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
        CUDA_ERROR_NOT_SUPPORTED})
    EXPECT_EQ(codeOf(result), "FAILED_PRECONDITION") << result;
  for (CUresult result :
       {CUDA_ERROR_DEVICE_UNAVAILABLE, CUDA_ERROR_SYSTEM_NOT_READY,
        CUDA_ERROR_MPS_SERVER_NOT_READY})
    EXPECT_EQ(codeOf(result), "UNAVAILABLE") << result;
  for (CUresult result : {CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_DEVICE,
                          CUDA_ERROR_INVALID_IMAGE, CUDA_ERROR_INVALID_PTX,
                          CUDA_ERROR_INVALID_HANDLE})
    EXPECT_EQ(codeOf(result), "INVALID_ARGUMENT") << result;
  EXPECT_EQ(codeOf(CUDA_ERROR_NOT_FOUND), "NOT_FOUND");
  for (CUresult result :
       {CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_ILLEGAL_ADDRESS,
        CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_ILLEGAL_INSTRUCTION,
        CUDA_ERROR_ASSERT, CUDA_ERROR_LAUNCH_TIMEOUT,
        CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, CUDA_ERROR_ECC_UNCORRECTABLE,
        CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_UNKNOWN})
    EXPECT_EQ(codeOf(result), "INTERNAL") << result;
}

TEST(ErrorCodesTest, CublasStatuses) {
  EXPECT_EQ(codeOf(CUBLAS_STATUS_ALLOC_FAILED), "RESOURCE_EXHAUSTED");
  for (cublasStatus_t status :
       {CUBLAS_STATUS_NOT_INITIALIZED, CUBLAS_STATUS_ARCH_MISMATCH,
        CUBLAS_STATUS_NOT_SUPPORTED, CUBLAS_STATUS_LICENSE_ERROR})
    EXPECT_EQ(codeOf(status), "FAILED_PRECONDITION") << status;
  EXPECT_EQ(codeOf(CUBLAS_STATUS_INVALID_VALUE), "INVALID_ARGUMENT");
  for (cublasStatus_t status :
       {CUBLAS_STATUS_EXECUTION_FAILED, CUBLAS_STATUS_INTERNAL_ERROR,
        CUBLAS_STATUS_MAPPING_ERROR})
    EXPECT_EQ(codeOf(status), "INTERNAL") << status;
  EXPECT_STREQ(statusName(CUBLAS_STATUS_ALLOC_FAILED),
               "CUBLAS_STATUS_ALLOC_FAILED");
}

TEST(ErrorCodesTest, CudnnStatuses) {
  // CUDNN_STATUS_ALLOC_FAILED is cuDNN 9's host allocation failure.
  for (cudnnStatus_t status :
       {CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED,
        CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED})
    EXPECT_EQ(codeOf(status), "RESOURCE_EXHAUSTED") << status;
  for (cudnnStatus_t status :
       {CUDNN_STATUS_NOT_INITIALIZED, CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH,
        CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED, CUDNN_STATUS_NOT_SUPPORTED,
        CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH,
        CUDNN_STATUS_NOT_SUPPORTED_SHAPE})
    EXPECT_EQ(codeOf(status), "FAILED_PRECONDITION") << status;
  for (cudnnStatus_t status :
       {CUDNN_STATUS_BAD_PARAM, CUDNN_STATUS_BAD_PARAM_NULL_POINTER,
        CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH})
    EXPECT_EQ(codeOf(status), "INVALID_ARGUMENT") << status;
  for (cudnnStatus_t status :
       {CUDNN_STATUS_INTERNAL_ERROR, CUDNN_STATUS_EXECUTION_FAILED,
        CUDNN_STATUS_EXECUTION_FAILED_CUBLAS,
        CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED})
    EXPECT_EQ(codeOf(status), "INTERNAL") << status;
}

TEST(ErrorCodesTest, FailedDriverCallsThrowTheirCode) {
  try {
    driver::check(CUDA_ERROR_OUT_OF_MEMORY, "allocating");
    ADD_FAILURE() << "expected a CudaError";
  } catch (const CudaError &error) {
    EXPECT_EQ(errorCodeOf(error), ErrorCode::ResourceExhausted);
    EXPECT_EQ(std::string(error.what()).rfind("allocating: ", 0), 0u)
        << error.what();
  }
  EXPECT_NO_THROW(driver::check(CUDA_SUCCESS, "nothing"));
}

TEST(ErrorCodesTest, LibraryCallsKeepTheCodeOfTheirFirstError) {
  LibraryContext::fail(ErrorCode::ResourceExhausted, "first");
  LibraryContext::fail(ErrorCode::InvalidArgument, "second");
  try {
    LibraryContext::throwIfFailed();
    ADD_FAILURE() << "expected a CudaError";
  } catch (const CudaError &error) {
    EXPECT_EQ(error.code(), ErrorCode::ResourceExhausted);
    EXPECT_STREQ(error.what(), "first");
  }
  EXPECT_NO_THROW(LibraryContext::throwIfFailed());
}

} // namespace
} // namespace dtf::cuda
