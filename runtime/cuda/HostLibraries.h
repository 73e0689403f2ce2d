//===- HostLibraries.h - cuBLAS and cuDNN, loaded at run time ---*- C++ -*-===//
//
// Private to dtf_cuda. Linking cuBLAS and cuDNN made every dtf-run process
// load them at start, GPU or not: their relocations alone touched about
// 200 MB, which every PS task and CPU worker carried as resident memory.
// They are opened with dlopen on first use instead, as the driver is
// (Driver.h), so that only a process that computes on a GPU pays for them.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cublas_v2.h>
#include <cudnn.h>

#include <string>
#include <vector>

namespace dtf::cuda::libraries {

// The functions dtf_cuda calls. cublas_v2.h maps names to versioned entry
// points (cublasSgemm -> cublasSgemm_v2); going through the same macros,
// the tables hold and look up exactly those.
#define DTF_CUBLAS_FUNCTIONS(X)                                               \
  X(cublasCreate)                                                             \
  X(cublasSetStream)                                                          \
  X(cublasSetMathMode)                                                        \
  X(cublasSgemm)

#define DTF_CUDNN_FUNCTIONS(X)                                                \
  X(cudnnCreate)                                                              \
  X(cudnnSetStream)                                                           \
  X(cudnnGetErrorString)                                                      \
  X(cudnnCreateTensorDescriptor)                                              \
  X(cudnnDestroyTensorDescriptor)                                             \
  X(cudnnSetTensor4dDescriptor)                                               \
  X(cudnnCreateFilterDescriptor)                                              \
  X(cudnnDestroyFilterDescriptor)                                             \
  X(cudnnSetFilter4dDescriptor)                                               \
  X(cudnnCreateConvolutionDescriptor)                                         \
  X(cudnnDestroyConvolutionDescriptor)                                        \
  X(cudnnSetConvolution2dDescriptor)                                          \
  X(cudnnSetConvolutionMathType)                                              \
  X(cudnnGetConvolution2dForwardOutputDim)                                    \
  X(cudnnGetConvolutionForwardAlgorithm_v7)                                   \
  X(cudnnGetConvolutionForwardWorkspaceSize)                                  \
  X(cudnnConvolutionForward)                                                  \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7)                              \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize)                             \
  X(cudnnConvolutionBackwardData)                                             \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)                            \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize)                           \
  X(cudnnConvolutionBackwardFilter)                                           \
  X(cudnnCreatePoolingDescriptor)                                             \
  X(cudnnDestroyPoolingDescriptor)                                            \
  X(cudnnSetPooling2dDescriptor)                                              \
  X(cudnnPoolingForward)                                                      \
  X(cudnnPoolingBackward)

#define DTF_CUDA_DECLARE_FUNCTION(name) decltype(&::name) name = nullptr;

struct Cublas {
  DTF_CUBLAS_FUNCTIONS(DTF_CUDA_DECLARE_FUNCTION)
};

struct Cudnn {
  DTF_CUDNN_FUNCTIONS(DTF_CUDA_DECLARE_FUNCTION)
};

/// cuBLAS, opened on first use. Throws CudaError(FailedPrecondition)
/// naming the library and why when it cannot be loaded or lacks a function.
const Cublas &cublas();

/// cuDNN, opened on first use; throws as cublas().
const Cudnn &cudnn();

/// dlopen of the first of `names` that loads (a soname, then the path in
/// the toolkit DTF was built with); null with `error` saying why not.
void *openFirst(const std::vector<std::string> &names, std::string &error);

} // namespace dtf::cuda::libraries
