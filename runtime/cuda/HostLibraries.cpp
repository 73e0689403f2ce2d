//===- HostLibraries.cpp - cuBLAS and cuDNN, loaded at run time -----------===//

#include "runtime/cuda/HostLibraries.h"

#include "runtime/cuda/Device.h"

#include <dlfcn.h>

namespace dtf::cuda::libraries {

#define DTF_CUDA_STRINGIFY_EXPANDED(name) DTF_CUDA_STRINGIFY(name)
#define DTF_CUDA_STRINGIFY(name) #name

void *openFirst(const std::vector<std::string> &names, std::string &error) {
  for (const std::string &name : names) {
    if (void *library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))
      return library;
    const char *reason = dlerror();
    error += (error.empty() ? "" : "; ") + std::string(reason ? reason : name);
  }
  return nullptr;
}

namespace {

/// The sonames of the toolkit's libraries, then their paths in it.
std::vector<std::string> candidates(const std::string &soname) {
  std::vector<std::string> names = {soname};
#ifdef DTF_CUDA_LIBRARY_DIR
  names.push_back(std::string(DTF_CUDA_LIBRARY_DIR) + "/" + soname);
#endif
#ifdef DTF_CUDNN_LIBRARY_DIR
  names.push_back(std::string(DTF_CUDNN_LIBRARY_DIR) + "/" + soname);
#endif
  return names;
}

template <typename Table> struct Loaded {
  Table table;
  std::string error;
};

/// Opens `soname` (what: "cuBLAS") and fills its table with `lookup`,
/// which sets the error when a function is missing.
template <typename Table, typename Lookup>
Loaded<Table> load(const char *what, const std::string &soname,
                   Lookup lookup) {
  Loaded<Table> loaded;
  void *library = openFirst(candidates(soname), loaded.error);
  if (!library) {
    loaded.error = std::string(what) + " (" + soname +
                   ") cannot be loaded: " + loaded.error;
    return loaded;
  }
  loaded.error.clear();
  lookup(library, loaded);
  return loaded;
}

#define DTF_CUDA_LOOKUP(name)                                                  \
  loaded.table.name = reinterpret_cast<decltype(&::name)>(                     \
      dlsym(library, DTF_CUDA_STRINGIFY_EXPANDED(name)));                      \
  if (!loaded.table.name) {                                                    \
    loaded.error = soname + " lacks " DTF_CUDA_STRINGIFY_EXPANDED(name);       \
    return;                                                                    \
  }

Loaded<Cublas> loadCublas() {
  std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
  return load<Cublas>("cuBLAS", soname,
                      [&](void *library, Loaded<Cublas> &loaded) {
                        DTF_CUBLAS_FUNCTIONS(DTF_CUDA_LOOKUP)
                      });
}

Loaded<Cudnn> loadCudnn() {
  std::string soname = "libcudnn.so." + std::to_string(CUDNN_MAJOR);
  return load<Cudnn>("cuDNN", soname,
                     [&](void *library, Loaded<Cudnn> &loaded) {
                       DTF_CUDNN_FUNCTIONS(DTF_CUDA_LOOKUP)
                     });
}

#undef DTF_CUDA_LOOKUP

template <typename Table> const Table &tableOf(const Loaded<Table> &loaded) {
  if (!loaded.error.empty())
    throw CudaError(ErrorCode::FailedPrecondition, loaded.error);
  return loaded.table;
}

} // namespace

const Cublas &cublas() {
  static const Loaded<Cublas> loaded = loadCublas();
  return tableOf(loaded);
}

const Cudnn &cudnn() {
  static const Loaded<Cudnn> loaded = loadCudnn();
  return tableOf(loaded);
}

} // namespace dtf::cuda::libraries
