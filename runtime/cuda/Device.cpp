//===- Device.cpp - CUDA devices, memory, kernels and device tensors ------===//

#include "runtime/cuda/Device.h"

#include "runtime/cuda/Driver.h"
#include "runtime/cuda/ErrorCodes.h"

#include "runtime/core/DeviceName.h"

#include "runtime/cuda/HostLibraries.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

namespace dtf::cuda {

using driver::api;
using driver::check;

namespace {

CUdeviceptr devicePointer(const void *pointer) {
  return reinterpret_cast<CUdeviceptr>(pointer);
}

} // namespace

int deviceCount() {
  if (!driver::unavailableReason().empty())
    return 0;
  int count = 0;
  if (api().cuDeviceGetCount(&count) != CUDA_SUCCESS)
    return 0;
  return count;
}

std::string unavailableReason() {
  std::string reason = driver::unavailableReason();
  if (reason.empty() && deviceCount() == 0)
    reason = "the CUDA driver found no device";
  return reason;
}

int parseDeviceOrdinal(std::string_view name) {
  std::string error;
  std::optional<DeviceName> device = DeviceName::parseDevice(name, error);
  if (device && !device->isGpu())
    error = "it is a " + device->type + " device";
  if (!device || !device->isGpu())
    throw std::invalid_argument(
        "'" + std::string(name) + "' is not a GPU device name (" + error +
        "); expected GPU:<n>, /device:GPU:<n> or "
        "/job:<job>/task:<i>/device:GPU:<n>");
  return static_cast<int>(device->index);
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

Device &Device::get(int ordinal) {
  // Devices are never destroyed: tensors and modules anywhere may hold on
  // to them until exit, and the driver may already be gone by then.
  static std::mutex mutex;
  static std::vector<Device *> *devices = new std::vector<Device *>();
  std::lock_guard<std::mutex> lock(mutex);
  std::string reason = driver::unavailableReason();
  if (!reason.empty())
    throw CudaError(ErrorCode::FailedPrecondition,
                    "no CUDA device: " + reason +
                        " (GPU:" + std::to_string(ordinal) + " requested)");
  int count = deviceCount();
  if (ordinal < 0 || ordinal >= count)
    throw CudaError(ErrorCode::FailedPrecondition,
                    "GPU:" + std::to_string(ordinal) + " requested, but only " +
                        std::to_string(count) +
                        (count == 1 ? " GPU is" : " GPUs are") +
                        " visible (CUDA_VISIBLE_DEVICES may hide others)");
  if (devices->size() < static_cast<size_t>(count))
    devices->resize(count, nullptr);
  Device *&device = (*devices)[ordinal];
  if (!device)
    device = new Device(ordinal);
  return *device;
}

Device &Device::get(std::string_view name) {
  return get(parseDeviceOrdinal(name));
}

Device::Device(int ordinal)
    : ordinal_(ordinal),
      allocator(
          [this](size_t bytes) -> void * {
            makeCurrent();
            CUdeviceptr pointer = 0;
            if (api().cuMemAlloc(&pointer, bytes) != CUDA_SUCCESS)
              return nullptr;
            return reinterpret_cast<void *>(pointer);
          },
          [this](void *block) {
            makeCurrent();
            api().cuMemFree(devicePointer(block));
          }) {
  const driver::Api &cu = api();
  std::string where = name();
  check(cu.cuDeviceGet(&cuDevice, ordinal), where.c_str());
  char productName[256] = {};
  check(cu.cuDeviceGetName(productName, sizeof(productName), cuDevice),
        where.c_str());
  int major = 0, minor = 0;
  check(cu.cuDeviceGetAttribute(
            &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cuDevice),
        where.c_str());
  check(cu.cuDeviceGetAttribute(
            &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cuDevice),
        where.c_str());
  computeCapability_ = major * 10 + minor;
  description_ = std::string(productName) + " (sm_" +
                 std::to_string(computeCapability_) + ")";
  check(cu.cuDevicePrimaryCtxRetain(&context, cuDevice),
        (where + ": retaining the primary context").c_str());
  makeCurrent();
  check(cu.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING),
        (where + ": creating a stream").c_str());
}

std::string Device::name() const {
  return "/device:GPU:" + std::to_string(ordinal_);
}

void Device::makeCurrent() {
  check(api().cuCtxSetCurrent(context),
        (name() + ": making the context current").c_str());
}

void *Device::allocate(size_t bytes) {
  void *pointer = allocator.allocate(bytes);
  if (!pointer) {
    MemoryStats stats = allocator.stats();
    throw CudaError(ErrorCode::ResourceExhausted,
                    name() + ": out of memory allocating " +
                        std::to_string(bytes) + " bytes (" +
                        std::to_string(stats.inUse) + " bytes in use)");
  }
  return pointer;
}

void Device::deallocate(void *pointer) { allocator.deallocate(pointer); }

void Device::releaseCachedMemory() {
  synchronize();
  allocator.releaseCached();
}

void Device::copyToDevice(void *device, const void *host, size_t bytes) {
  if (bytes == 0)
    return;
  makeCurrent();
  check(api().cuMemcpyHtoDAsync(devicePointer(device), host, bytes, stream_),
        (name() + ": copying to the device").c_str());
}

void Device::copyToHost(void *host, const void *device, size_t bytes) {
  if (bytes != 0) {
    makeCurrent();
    check(api().cuMemcpyDtoHAsync(host, devicePointer(device), bytes, stream_),
          (name() + ": copying to the host").c_str());
  }
  synchronize();
}

void Device::copyOnDevice(void *to, const void *from, size_t bytes) {
  if (bytes == 0)
    return;
  makeCurrent();
  check(api().cuMemcpyDtoDAsync(devicePointer(to), devicePointer(from), bytes,
                                stream_),
        (name() + ": copying on the device").c_str());
}

void Device::memsetZero(void *device, size_t bytes) {
  if (bytes == 0)
    return;
  makeCurrent();
  check(api().cuMemsetD8Async(devicePointer(device), 0, bytes, stream_),
        (name() + ": clearing memory").c_str());
}

void Device::synchronize() {
  makeCurrent();
  check(api().cuStreamSynchronize(stream_),
        (name() + ": running queued work").c_str());
}

std::unique_ptr<KernelModule> Device::loadModule(const void *image,
                                                 size_t size) {
  (void)size;
  makeCurrent();
  CUmodule module = nullptr;
  check(api().cuModuleLoadData(&module, image),
        (name() + ": loading a kernel module").c_str());
  return std::unique_ptr<KernelModule>(new KernelModule(*this, module));
}

void Device::launch(CUfunc_st *kernel, Dim3 grid, Dim3 block,
                    unsigned sharedMemoryBytes, void **parameters) {
  makeCurrent();
  check(api().cuLaunchKernel(kernel, grid.x, grid.y, grid.z, block.x, block.y,
                             block.z, sharedMemoryBytes, stream_, parameters,
                             nullptr),
        (name() + ": launching a kernel").c_str());
}

cublasContext *Device::blas() {
  std::lock_guard<std::mutex> lock(handleMutex);
  if (!blas_) {
    makeCurrent();
    cublasHandle_t handle = nullptr;
    cublasStatus_t status = libraries::cublas().cublasCreate(&handle);
    if (status != CUBLAS_STATUS_SUCCESS)
      throw CudaError(
          toErrorCode(status),
          name() + ": cuBLAS failed to initialize: " + statusName(status));
    libraries::cublas().cublasSetStream(handle, stream_);
    // FP32 arithmetic: no TF32 tensor-core shortcuts, so that results agree
    // with the CPU kernels.
    libraries::cublas().cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
    blas_ = handle;
  }
  return blas_;
}

cudnnContext *Device::dnn() {
  std::lock_guard<std::mutex> lock(handleMutex);
  if (!dnn_) {
    makeCurrent();
    cudnnHandle_t handle = nullptr;
    cudnnStatus_t status = libraries::cudnn().cudnnCreate(&handle);
    if (status != CUDNN_STATUS_SUCCESS)
      throw CudaError(toErrorCode(status),
                      name() + ": cuDNN failed to initialize: " +
                          libraries::cudnn().cudnnGetErrorString(status));
    libraries::cudnn().cudnnSetStream(handle, stream_);
    dnn_ = handle;
  }
  return dnn_;
}

//===----------------------------------------------------------------------===//
// KernelModule
//===----------------------------------------------------------------------===//

KernelModule::~KernelModule() {
  device.makeCurrent();
  api().cuModuleUnload(module);
}

CUfunc_st *KernelModule::function(const std::string &name) const {
  CUfunction function = nullptr;
  check(api().cuModuleGetFunction(&function, module, name.c_str()),
        (device.name() + ": looking up kernel '" + name + "'").c_str());
  return function;
}

//===----------------------------------------------------------------------===//
// DeviceTensor
//===----------------------------------------------------------------------===//

DeviceTensor::DeviceTensor(Device &device, DType dtype, Shape shape)
    : device_(&device), dtype_(dtype), shape_(std::move(shape)),
      numElements_(numElementsOf(shape_)) {
  buffer_ = device.allocate(byteSize());
}

DeviceTensor::DeviceTensor(Device &device, DType dtype, Shape shape,
                           void *buffer)
    : device_(&device), dtype_(dtype), shape_(std::move(shape)),
      numElements_(numElementsOf(shape_)), buffer_(buffer) {}

DeviceTensor::DeviceTensor(DeviceTensor &&other) noexcept
    : device_(other.device_), dtype_(other.dtype_),
      shape_(std::move(other.shape_)), numElements_(other.numElements_),
      buffer_(other.buffer_) {
  other.buffer_ = nullptr;
  other.numElements_ = 0;
}

DeviceTensor &DeviceTensor::operator=(DeviceTensor &&other) noexcept {
  if (this != &other) {
    if (buffer_)
      device_->deallocate(buffer_);
    device_ = other.device_;
    dtype_ = other.dtype_;
    shape_ = std::move(other.shape_);
    numElements_ = other.numElements_;
    buffer_ = other.buffer_;
    other.buffer_ = nullptr;
    other.numElements_ = 0;
  }
  return *this;
}

DeviceTensor::~DeviceTensor() {
  if (buffer_)
    device_->deallocate(buffer_);
}

DeviceTensor DeviceTensor::fromHost(Device &device, const Tensor &tensor) {
  DeviceTensor result(device, tensor.dtype(), tensor.shape());
  device.copyToDevice(result.data(), tensor.rawData(), tensor.byteSize());
  return result;
}

Tensor DeviceTensor::toHost() const {
  if (!device_)
    throw CudaError(ErrorCode::FailedPrecondition,
                    "copying an empty DeviceTensor to the host");
  Tensor result(dtype_, shape_);
  device_->copyToHost(result.rawData(), buffer_, byteSize());
  return result;
}

std::string DeviceTensor::typeString() const {
  return std::string(dtypeName(dtype_)) + shapeToString(shape_) + " on " +
         (device_ ? device_->name() : std::string("no device"));
}

} // namespace dtf::cuda
