//===- Driver.h - The CUDA driver API, loaded at run time -------*- C++ -*-===//
//
// Private to dtf_cuda. The driver (libcuda.so.1) ships with the NVIDIA
// kernel module, not with the toolkit: a machine without a GPU has none. It
// is therefore opened with dlopen on first use rather than linked, so that
// every binary using dtf_cuda starts, and reports "no CUDA device" instead
// of failing to load.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cuda.h>

#include <string>

namespace dtf::cuda::driver {

// The driver functions dtf_cuda uses. cuda.h maps several names to
// versioned entry points (cuMemAlloc -> cuMemAlloc_v2); going through the
// same macros, the table holds and looks up exactly those.
#define DTF_CUDA_DRIVER_FUNCTIONS(X)                                          \
  X(cuInit)                                                                   \
  X(cuDriverGetVersion)                                                       \
  X(cuGetErrorName)                                                           \
  X(cuGetErrorString)                                                         \
  X(cuDeviceGetCount)                                                         \
  X(cuDeviceGet)                                                              \
  X(cuDeviceGetName)                                                          \
  X(cuDeviceGetAttribute)                                                     \
  X(cuDeviceTotalMem)                                                         \
  X(cuDevicePrimaryCtxRetain)                                                 \
  X(cuDevicePrimaryCtxRelease)                                                \
  X(cuCtxSetCurrent)                                                          \
  X(cuStreamCreate)                                                           \
  X(cuStreamDestroy)                                                          \
  X(cuStreamSynchronize)                                                      \
  X(cuMemAlloc)                                                               \
  X(cuMemFree)                                                                \
  X(cuMemGetInfo)                                                             \
  X(cuMemcpyHtoDAsync)                                                        \
  X(cuMemcpyDtoHAsync)                                                        \
  X(cuMemcpyDtoDAsync)                                                        \
  X(cuMemsetD8Async)                                                          \
  X(cuModuleLoadData)                                                         \
  X(cuModuleUnload)                                                           \
  X(cuModuleGetFunction)                                                      \
  X(cuLaunchKernel)

struct Api {
#define DTF_CUDA_DECLARE(name) decltype(&::name) name = nullptr;
  DTF_CUDA_DRIVER_FUNCTIONS(DTF_CUDA_DECLARE)
#undef DTF_CUDA_DECLARE
};

/// The driver, opened and initialized (cuInit) on first use. Throws
/// CudaError(FailedPrecondition) saying why when there is no driver or it
/// cannot initialize (e.g. no device): the outcome is kept for the life of
/// the process, so no retry in it can succeed.
const Api &api();

/// Why api() would throw, or "" when the driver is usable. Never throws.
std::string unavailableReason();

/// "<what>: CUDA_ERROR_X (description)".
std::string describe(CUresult result, const char *what);

/// Throws CudaError(toErrorCode(result), describe(result, what)) unless
/// result is CUDA_SUCCESS.
void check(CUresult result, const char *what);

} // namespace dtf::cuda::driver
