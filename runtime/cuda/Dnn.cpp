//===- Dnn.cpp - Convolution and pooling with cuDNN -----------------------===//
//
// cuDNN's legacy (descriptor) API on NHWC tensors and KRSC filters. The
// convolution algorithm is cuDNN's heuristic choice among those that run
// in FP32 without tensor cores (no TF32), remembered per geometry.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Library.h"

#include "runtime/cuda/ErrorCodes.h"
#include "runtime/cuda/HostLibraries.h"

#include <array>
#include <optional>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

namespace dtf::cuda {

int64_t WindowGeometry::outputSize(int64_t input, int64_t window,
                                   int64_t stride, int64_t pad) {
  int64_t span = input + 2 * pad - window;
  return span < 0 ? 0 : span / stride + 1;
}

std::string WindowGeometry::toString() const {
  std::ostringstream os;
  os << "[" << batch << "," << height << "," << width << "," << channels
     << "] window " << windowH << "x" << windowW << " stride " << strideH << "x"
     << strideW;
  if (dilationH != 1 || dilationW != 1)
    os << " dilation " << dilationH << "x" << dilationW;
  os << " pad " << padH << "x" << padW << " -> [" << batch << "," << outHeight
     << "," << outWidth << "," << outChannels << "]";
  return os.str();
}

namespace {

/// Throws a CudaError naming the device, the operation and its geometry.
void check(cudnnStatus_t status, Device &device, const char *what,
           const WindowGeometry &g) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw CudaError(toErrorCode(status),
                    device.name() + ": cuDNN " + what + " of " + g.toString() +
                        ": " + libraries::cudnn().cudnnGetErrorString(status));
}

int dim(int64_t value) { return static_cast<int>(value); }

struct TensorDescriptor {
  cudnnTensorDescriptor_t handle = nullptr;
  TensorDescriptor(Device &device, const WindowGeometry &g, int64_t n,
                   int64_t c, int64_t h, int64_t w) {
    check(libraries::cudnn().cudnnCreateTensorDescriptor(&handle), device, "tensor descriptor",
          g);
    check(libraries::cudnn().cudnnSetTensor4dDescriptor(handle, CUDNN_TENSOR_NHWC,
                                     CUDNN_DATA_FLOAT, dim(n), dim(c), dim(h),
                                     dim(w)),
          device, "tensor descriptor", g);
  }
  ~TensorDescriptor() { libraries::cudnn().cudnnDestroyTensorDescriptor(handle); }
};

struct FilterDescriptor {
  cudnnFilterDescriptor_t handle = nullptr;
  FilterDescriptor(Device &device, const WindowGeometry &g) {
    check(libraries::cudnn().cudnnCreateFilterDescriptor(&handle), device, "filter descriptor",
          g);
    check(libraries::cudnn().cudnnSetFilter4dDescriptor(handle, CUDNN_DATA_FLOAT,
                                     CUDNN_TENSOR_NHWC, dim(g.outChannels),
                                     dim(g.channels), dim(g.windowH),
                                     dim(g.windowW)),
          device, "filter descriptor", g);
  }
  ~FilterDescriptor() { libraries::cudnn().cudnnDestroyFilterDescriptor(handle); }
};

struct ConvolutionDescriptor {
  cudnnConvolutionDescriptor_t handle = nullptr;
  ConvolutionDescriptor(Device &device, const WindowGeometry &g) {
    check(libraries::cudnn().cudnnCreateConvolutionDescriptor(&handle), device,
          "convolution descriptor", g);
    // TensorFlow's conv2d is a cross-correlation.
    check(libraries::cudnn().cudnnSetConvolution2dDescriptor(
              handle, dim(g.padH), dim(g.padW), dim(g.strideH), dim(g.strideW),
              dim(g.dilationH), dim(g.dilationW), CUDNN_CROSS_CORRELATION,
              CUDNN_DATA_FLOAT),
          device, "convolution descriptor", g);
    check(libraries::cudnn().cudnnSetConvolutionMathType(handle, CUDNN_FMA_MATH), device,
          "convolution math type", g);
  }
  ~ConvolutionDescriptor() { libraries::cudnn().cudnnDestroyConvolutionDescriptor(handle); }
};

/// The descriptors of one convolution.
struct Convolution {
  Convolution(Device &device, const WindowGeometry &g)
      : x(device, g, g.batch, g.channels, g.height, g.width),
        y(device, g, g.batch, g.outChannels, g.outHeight, g.outWidth),
        filter(device, g), conv(device, g) {
    int n = 0, c = 0, h = 0, w = 0;
    check(libraries::cudnn().cudnnGetConvolution2dForwardOutputDim(conv.handle, x.handle,
                                                filter.handle, &n, &c, &h, &w),
          device, "output size", g);
    if (n != g.batch || c != g.outChannels || h != g.outHeight ||
        w != g.outWidth)
      throw CudaError(ErrorCode::InvalidArgument,
                      device.name() + ": cuDNN convolution of " + g.toString() +
                          " would give [" + std::to_string(n) + "," +
                          std::to_string(h) + "," + std::to_string(w) + "," +
                          std::to_string(c) + "]");
  }
  TensorDescriptor x, y;
  FilterDescriptor filter;
  ConvolutionDescriptor conv;
};

/// Scratch memory of a library call from the device's allocator, returned
/// when the call has been queued (reuse is stream-ordered).
struct Workspace {
  Device &device;
  void *pointer = nullptr;
  Workspace(Device &device, size_t bytes) : device(device) {
    if (bytes)
      pointer = device.allocate(bytes);
  }
  ~Workspace() { device.deallocate(pointer); }
};

bool usesTensorCores(cudnnMathType_t math) {
  return math == CUDNN_TENSOR_OP_MATH ||
         math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

enum class Pass { Forward, BackwardData, BackwardFilter };

/// Algorithms that worked, by device, pass and geometry.
struct AlgorithmCache {
  using Key = std::array<int64_t, 17>;
  std::mutex mutex;
  std::map<Key, int> algorithms;

  static Key key(Device &device, Pass pass, const WindowGeometry &g) {
    return {device.ordinal(), static_cast<int64_t>(pass),
            g.batch,          g.height,
            g.width,          g.channels,
            g.outChannels,    g.windowH,
            g.windowW,        g.strideH,
            g.strideW,        g.dilationH,
            g.dilationW,      g.padH,
            g.padW,           g.outHeight,
            g.outWidth};
  }
  std::optional<int> find(const Key &key) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = algorithms.find(key);
    if (it == algorithms.end())
      return std::nullopt;
    return it->second;
  }
  void insert(const Key &key, int algorithm) {
    std::lock_guard<std::mutex> lock(mutex);
    algorithms[key] = algorithm;
  }
};

AlgorithmCache &algorithmCache() {
  static AlgorithmCache *cache = new AlgorithmCache();
  return *cache;
}

/// Runs `run(algorithm)` with the remembered algorithm of this geometry, or
/// else with each of cuDNN's FP32 candidates in its order of preference
/// until one is supported. `candidates` fills (algorithm, math type,
/// status) triples.
template <typename Candidates, typename Run>
void runConvolution(Device &device, Pass pass, const WindowGeometry &g,
                    const char *what, Candidates candidates, Run run) {
  AlgorithmCache &cache = algorithmCache();
  AlgorithmCache::Key key = AlgorithmCache::key(device, pass, g);
  if (std::optional<int> algorithm = cache.find(key)) {
    check(run(*algorithm), device, what, g);
    return;
  }
  cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
  for (auto [algorithm, math, status] : candidates()) {
    if (status != CUDNN_STATUS_SUCCESS || usesTensorCores(math))
      continue;
    last = run(algorithm);
    if (last == CUDNN_STATUS_SUCCESS) {
      cache.insert(key, algorithm);
      return;
    }
    if (last != CUDNN_STATUS_NOT_SUPPORTED)
      break;
  }
  check(last, device, what, g);
}

struct Candidate {
  int algorithm;
  cudnnMathType_t math;
  cudnnStatus_t status;
};

} // namespace

void conv2d(Device &device, const WindowGeometry &g, const float *x,
            const float *filter, float *y) {
  std::lock_guard<std::recursive_mutex> lock(device.executionMutex());
  cudnnHandle_t handle = device.dnn();
  device.makeCurrent();
  Convolution c(device, g);
  const float one = 1.0f, zero = 0.0f;
  runConvolution(
      device, Pass::Forward, g, "convolution",
      [&] {
        std::vector<Candidate> result;
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int count = 0;
        check(libraries::cudnn().cudnnGetConvolutionForwardAlgorithm_v7(
                  handle, c.x.handle, c.filter.handle, c.conv.handle,
                  c.y.handle, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &count, perf),
              device, "convolution algorithm", g);
        for (int i = 0; i < count; ++i)
          result.push_back({perf[i].algo, perf[i].mathType, perf[i].status});
        return result;
      },
      [&](int algorithm) {
        auto algo = static_cast<cudnnConvolutionFwdAlgo_t>(algorithm);
        size_t bytes = 0;
        cudnnStatus_t status = libraries::cudnn().cudnnGetConvolutionForwardWorkspaceSize(
            handle, c.x.handle, c.filter.handle, c.conv.handle, c.y.handle,
            algo, &bytes);
        if (status != CUDNN_STATUS_SUCCESS)
          return status;
        Workspace workspace(device, bytes);
        return libraries::cudnn().cudnnConvolutionForward(
            handle, &one, c.x.handle, x, c.filter.handle, filter,
            c.conv.handle, algo, workspace.pointer, bytes, &zero, c.y.handle,
            y);
      });
}

void conv2dBackpropInput(Device &device, const WindowGeometry &g,
                         const float *filter, const float *dy, float *dx) {
  std::lock_guard<std::recursive_mutex> lock(device.executionMutex());
  cudnnHandle_t handle = device.dnn();
  device.makeCurrent();
  Convolution c(device, g);
  const float one = 1.0f, zero = 0.0f;
  runConvolution(
      device, Pass::BackwardData, g, "convolution input gradient",
      [&] {
        std::vector<Candidate> result;
        cudnnConvolutionBwdDataAlgoPerf_t
            perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        int count = 0;
        check(libraries::cudnn().cudnnGetConvolutionBackwardDataAlgorithm_v7(
                  handle, c.filter.handle, c.y.handle, c.conv.handle,
                  c.x.handle, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &count,
                  perf),
              device, "convolution input gradient algorithm", g);
        for (int i = 0; i < count; ++i)
          result.push_back({perf[i].algo, perf[i].mathType, perf[i].status});
        return result;
      },
      [&](int algorithm) {
        auto algo = static_cast<cudnnConvolutionBwdDataAlgo_t>(algorithm);
        size_t bytes = 0;
        cudnnStatus_t status = libraries::cudnn().cudnnGetConvolutionBackwardDataWorkspaceSize(
            handle, c.filter.handle, c.y.handle, c.conv.handle, c.x.handle,
            algo, &bytes);
        if (status != CUDNN_STATUS_SUCCESS)
          return status;
        Workspace workspace(device, bytes);
        return libraries::cudnn().cudnnConvolutionBackwardData(
            handle, &one, c.filter.handle, filter, c.y.handle, dy,
            c.conv.handle, algo, workspace.pointer, bytes, &zero, c.x.handle,
            dx);
      });
}

void conv2dBackpropFilter(Device &device, const WindowGeometry &g,
                          const float *x, const float *dy, float *dfilter) {
  std::lock_guard<std::recursive_mutex> lock(device.executionMutex());
  cudnnHandle_t handle = device.dnn();
  device.makeCurrent();
  Convolution c(device, g);
  const float one = 1.0f, zero = 0.0f;
  runConvolution(
      device, Pass::BackwardFilter, g, "convolution filter gradient",
      [&] {
        std::vector<Candidate> result;
        cudnnConvolutionBwdFilterAlgoPerf_t
            perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        int count = 0;
        check(libraries::cudnn().cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                  handle, c.x.handle, c.y.handle, c.conv.handle,
                  c.filter.handle, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                  &count, perf),
              device, "convolution filter gradient algorithm", g);
        for (int i = 0; i < count; ++i)
          result.push_back({perf[i].algo, perf[i].mathType, perf[i].status});
        return result;
      },
      [&](int algorithm) {
        auto algo = static_cast<cudnnConvolutionBwdFilterAlgo_t>(algorithm);
        size_t bytes = 0;
        cudnnStatus_t status = libraries::cudnn().cudnnGetConvolutionBackwardFilterWorkspaceSize(
            handle, c.x.handle, c.y.handle, c.conv.handle, c.filter.handle,
            algo, &bytes);
        if (status != CUDNN_STATUS_SUCCESS)
          return status;
        Workspace workspace(device, bytes);
        return libraries::cudnn().cudnnConvolutionBackwardFilter(
            handle, &one, c.x.handle, x, c.y.handle, dy, c.conv.handle, algo,
            workspace.pointer, bytes, &zero, c.filter.handle, dfilter);
      });
}

namespace {
struct PoolingDescriptor {
  cudnnPoolingDescriptor_t handle = nullptr;
  PoolingDescriptor(Device &device, const WindowGeometry &g) {
    check(libraries::cudnn().cudnnCreatePoolingDescriptor(&handle), device, "pooling descriptor",
          g);
    check(libraries::cudnn().cudnnSetPooling2dDescriptor(handle, CUDNN_POOLING_MAX,
                                      CUDNN_NOT_PROPAGATE_NAN, dim(g.windowH),
                                      dim(g.windowW), dim(g.padH),
                                      dim(g.padW), dim(g.strideH),
                                      dim(g.strideW)),
          device, "pooling descriptor", g);
  }
  ~PoolingDescriptor() { libraries::cudnn().cudnnDestroyPoolingDescriptor(handle); }
};
} // namespace

void maxPool(Device &device, const WindowGeometry &g, const float *x,
             float *y) {
  std::lock_guard<std::recursive_mutex> lock(device.executionMutex());
  cudnnHandle_t handle = device.dnn();
  device.makeCurrent();
  PoolingDescriptor pool(device, g);
  TensorDescriptor xDesc(device, g, g.batch, g.channels, g.height, g.width);
  TensorDescriptor yDesc(device, g, g.batch, g.channels, g.outHeight,
                         g.outWidth);
  const float one = 1.0f, zero = 0.0f;
  check(libraries::cudnn().cudnnPoolingForward(handle, pool.handle, &one, xDesc.handle, x, &zero,
                            yDesc.handle, y),
        device, "max pooling", g);
}

void maxPoolGrad(Device &device, const WindowGeometry &g, const float *x,
                 const float *y, const float *dy, float *dx) {
  std::lock_guard<std::recursive_mutex> lock(device.executionMutex());
  cudnnHandle_t handle = device.dnn();
  device.makeCurrent();
  PoolingDescriptor pool(device, g);
  TensorDescriptor xDesc(device, g, g.batch, g.channels, g.height, g.width);
  TensorDescriptor yDesc(device, g, g.batch, g.channels, g.outHeight,
                         g.outWidth);
  const float one = 1.0f, zero = 0.0f;
  check(libraries::cudnn().cudnnPoolingBackward(handle, pool.handle, &one, yDesc.handle, y,
                             yDesc.handle, dy, xDesc.handle, x, &zero,
                             xDesc.handle, dx),
        device, "max pooling gradient", g);
}

} // namespace dtf::cuda
