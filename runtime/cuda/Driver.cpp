//===- Driver.cpp - The CUDA driver API, loaded at run time ---------------===//

#include "runtime/cuda/Driver.h"

#include "runtime/cuda/Device.h"
#include "runtime/cuda/ErrorCodes.h"

#include <dlfcn.h>

#include <mutex>

namespace dtf::cuda::driver {

#define DTF_CUDA_STRINGIFY_EXPANDED(name) DTF_CUDA_STRINGIFY(name)
#define DTF_CUDA_STRINGIFY(name) #name

namespace {

/// The outcome of loading the driver, computed once.
struct Loaded {
  Api api;
  std::string error;
};

Loaded load() {
  Loaded loaded;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *reason = dlerror();
    loaded.error = std::string("the CUDA driver library libcuda.so.1 cannot "
                               "be loaded (is an NVIDIA driver installed?): ") +
                   (reason ? reason : "unknown error");
    return loaded;
  }
#define DTF_CUDA_LOOKUP(name)                                                  \
  loaded.api.name = reinterpret_cast<decltype(&::name)>(                       \
      dlsym(library, DTF_CUDA_STRINGIFY_EXPANDED(name)));                      \
  if (!loaded.api.name) {                                                      \
    loaded.error = "the CUDA driver lacks " DTF_CUDA_STRINGIFY_EXPANDED(       \
        name) "; it is older than the CUDA toolkit DTF was built with";       \
    return loaded;                                                             \
  }
  DTF_CUDA_DRIVER_FUNCTIONS(DTF_CUDA_LOOKUP)
#undef DTF_CUDA_LOOKUP

  CUresult result = loaded.api.cuInit(0);
  if (result != CUDA_SUCCESS) {
    const char *name = nullptr;
    loaded.api.cuGetErrorName(result, &name);
    loaded.error = result == CUDA_ERROR_NO_DEVICE
                       ? "the CUDA driver found no device"
                       : std::string("the CUDA driver failed to initialize: ") +
                             (name ? name : "unknown error");
  }
  return loaded;
}

const Loaded &loaded() {
  static const Loaded instance = load();
  return instance;
}

} // namespace

const Api &api() {
  const Loaded &driver = loaded();
  if (!driver.error.empty())
    throw CudaError(ErrorCode::FailedPrecondition,
                    "no CUDA device: " + driver.error);
  return driver.api;
}

std::string unavailableReason() { return loaded().error; }

std::string describe(CUresult result, const char *what) {
  const Loaded &driver = loaded();
  const char *name = nullptr;
  const char *description = nullptr;
  if (driver.error.empty()) {
    driver.api.cuGetErrorName(result, &name);
    driver.api.cuGetErrorString(result, &description);
  }
  std::string message = std::string(what) + ": ";
  message += name ? name : "CUDA error " + std::to_string(result);
  if (description)
    message += std::string(" (") + description + ")";
  return message;
}

void check(CUresult result, const char *what) {
  if (result != CUDA_SUCCESS)
    throw CudaError(toErrorCode(result), describe(result, what));
}

} // namespace dtf::cuda::driver
