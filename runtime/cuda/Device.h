//===- Device.h - CUDA devices, memory, kernels and device tensors -*- C++
//-*-===//
//
// The GPUs of a host as TensorFlow names them, /device:GPU:0 to
// /device:GPU:<n-1>. Each Device owns the primary context of its GPU, one
// stream on which everything for it runs in order, a caching allocator of
// its memory (plain cuMemAlloc; never managed memory) and, created on first
// use, cuBLAS and cuDNN handles bound to that stream.
//
// Tensors move between host and device only where a program says so
// (DeviceTensor::fromHost / toHost): feeds and fetches, and the values a
// worker receives from or sends to parameter servers.
//
// Every error, including the absence of a driver or a GPU, is a CudaError
// whose message says what failed on which device and whose code says what
// kind of failure it is (ErrorCodes.h). The headers do not include CUDA's:
// code using dtf_cuda builds without them.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/Tensor.h"
#include "runtime/cuda/Allocator.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

// CUDA's handle types, as cuda.h, cublas_api.h and cudnn.h declare them.
struct CUctx_st;
struct CUstream_st;
struct CUmod_st;
struct CUfunc_st;
struct cublasContext;
struct cudnnContext;

namespace dtf::cuda {

/// Any failure of the CUDA runtime of DTF. A dtf::Error, so that its code
/// (ResourceExhausted when out of device memory, FailedPrecondition without
/// a usable GPU, ...) reaches whoever handles it, across an RPC too; a type
/// of its own for the callers that handle a GPU's failures apart.
class CudaError : public Error {
public:
  using Error::Error;
};

/// The number of GPUs this process can use; 0 when there is no driver or
/// no device. Never throws.
int deviceCount();

/// Why this process can use no GPU ("" when it can): no driver library, no
/// device, a driver too old for the toolkit. Never throws.
std::string unavailableReason();

/// The ordinal of a TensorFlow GPU device name: "GPU:1", "/device:GPU:1",
/// "/gpu:1" or a full "/job:worker/task:0/device:GPU:1" (case-insensitive
/// device type). Throws std::invalid_argument for anything else, such as a
/// CPU device.
int parseDeviceOrdinal(std::string_view name);

/// Grid or block dimensions of a kernel launch.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

class Device;

/// A loaded cubin (or PTX, which the driver compiles). Unloaded on
/// destruction.
class KernelModule {
public:
  KernelModule(const KernelModule &) = delete;
  KernelModule &operator=(const KernelModule &) = delete;
  ~KernelModule();

  /// The kernel named `name`; throws CudaError if the module has none.
  CUfunc_st *function(const std::string &name) const;

private:
  friend class Device;
  KernelModule(Device &device, CUmod_st *module)
      : device(device), module(module) {}

  Device &device;
  CUmod_st *module;
};

class Device {
public:
  /// GPU `ordinal` of this process, set up on first use; it lives until the
  /// process exits. Throws CudaError(FailedPrecondition) naming the device
  /// and the reason when it cannot be used ("no CUDA device: ...", "GPU:3
  /// requested, but only 2 GPUs are visible").
  static Device &get(int ordinal);
  /// get(parseDeviceOrdinal(name)).
  static Device &get(std::string_view name);

  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  int ordinal() const { return ordinal_; }
  /// "/device:GPU:<ordinal>".
  std::string name() const;
  /// The product name and compute capability, e.g. "NVIDIA H100 (sm_90)".
  const std::string &description() const { return description_; }
  /// Compute capability as major * 10 + minor, e.g. 90.
  int computeCapability() const { return computeCapability_; }

  /// Makes this device's context current on the calling thread. Every
  /// member function does so itself; code calling CUDA libraries directly
  /// needs it.
  void makeCurrent();

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  /// Device memory from the caching allocator; throws
  /// CudaError(ResourceExhausted) when out of memory.
  void *allocate(size_t bytes);
  void deallocate(void *pointer);
  MemoryStats memoryStats() const { return allocator.stats(); }
  /// Gives cached memory back to the driver (after the stream drains).
  void releaseCachedMemory();

  /// Copies, queued on the stream. copyToHost waits for them, and for
  /// everything queued before.
  void copyToDevice(void *device, const void *host, size_t bytes);
  void copyToHost(void *host, const void *device, size_t bytes);
  void copyOnDevice(void *to, const void *from, size_t bytes);
  void memsetZero(void *device, size_t bytes);
  /// Waits for all work queued on the stream; throws CudaError for a
  /// failure of any of it.
  void synchronize();

  //===--------------------------------------------------------------------===//
  // Kernels and libraries
  //===--------------------------------------------------------------------===//

  /// Loads a cubin, fatbin or PTX image onto this device.
  std::unique_ptr<KernelModule> loadModule(const void *image, size_t size);
  /// Queues `kernel` with `parameters` (one pointer per kernel parameter,
  /// cuLaunchKernel's convention).
  void launch(CUfunc_st *kernel, Dim3 grid, Dim3 block,
              unsigned sharedMemoryBytes, void **parameters);

  CUstream_st *stream() const { return stream_; }
  /// cuBLAS and cuDNN handles on stream(), created on first use.
  cublasContext *blas();
  cudnnContext *dnn();

  /// Held by whoever queues a sequence of work on the device that must not
  /// interleave with another thread's (a program run, a library call).
  std::recursive_mutex &executionMutex() { return execution; }

private:
  explicit Device(int ordinal);

  int ordinal_;
  int computeCapability_ = 0;
  std::string description_;
  int cuDevice = 0;
  CUctx_st *context = nullptr;
  CUstream_st *stream_ = nullptr;
  cublasContext *blas_ = nullptr;
  cudnnContext *dnn_ = nullptr;
  std::mutex handleMutex;
  std::recursive_mutex execution;
  CachingAllocator allocator;
};

/// A dense, row-major tensor in the memory of one device. Move-only; its
/// buffer goes back to the device's allocator on destruction.
class DeviceTensor {
public:
  DeviceTensor() = default;
  /// An uninitialized tensor.
  DeviceTensor(Device &device, DType dtype, Shape shape);
  /// Takes ownership of `buffer`, from device.allocate(), of at least the
  /// tensor's size.
  DeviceTensor(Device &device, DType dtype, Shape shape, void *buffer);
  DeviceTensor(DeviceTensor &&other) noexcept;
  DeviceTensor &operator=(DeviceTensor &&other) noexcept;
  ~DeviceTensor();

  /// A device copy of a host tensor.
  static DeviceTensor fromHost(Device &device, const Tensor &tensor);
  /// A host copy; waits for the work queued before it.
  Tensor toHost() const;

  Device *device() const { return device_; }
  DType dtype() const { return dtype_; }
  const Shape &shape() const { return shape_; }
  int64_t numElements() const { return numElements_; }
  size_t byteSize() const {
    return static_cast<size_t>(numElements_) * dtypeSize(dtype_);
  }
  void *data() const { return buffer_; }
  /// "f32[2,3] on /device:GPU:0".
  std::string typeString() const;

private:
  Device *device_ = nullptr;
  DType dtype_ = DType::F32;
  Shape shape_;
  int64_t numElements_ = 0;
  void *buffer_ = nullptr;
};

} // namespace dtf::cuda
