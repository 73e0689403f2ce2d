//===- LibraryCalls.cpp - The dtf_cuda_* C ABI ----------------------------===//
//
// What `func.call @dtf_cuda_*` in a lowered program runs: the operands'
// memref descriptors are checked against each other and turned into the
// geometry of a cuBLAS/cuDNN call on the calling thread's device.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Library.h"

#include <sstream>

namespace dtf::cuda {

namespace {
thread_local Device *currentDevice = nullptr;
thread_local ErrorCode firstErrorCode = ErrorCode::Unknown;
thread_local std::string firstError;
} // namespace

LibraryContext::LibraryContext(Device &device) : previous(currentDevice) {
  currentDevice = &device;
}

LibraryContext::~LibraryContext() { currentDevice = previous; }

Device *LibraryContext::current() { return currentDevice; }

void LibraryContext::fail(ErrorCode code, std::string message) {
  if (firstError.empty()) {
    firstErrorCode = code;
    firstError = std::move(message);
  }
}

void LibraryContext::throwIfFailed() {
  if (firstError.empty())
    return;
  std::string message = std::move(firstError);
  firstError.clear();
  throw CudaError(firstErrorCode, message);
}

} // namespace dtf::cuda

using namespace dtf::cuda;
using dtf::ErrorCode;

namespace {

template <int N>
std::string shapeOf(const MemRefDescriptor<float, N> &memref) {
  std::ostringstream os;
  os << "[";
  for (int i = 0; i < N; ++i)
    os << (i ? "," : "") << memref.sizes[i];
  os << "]";
  return os.str();
}

/// The first element of a memref, which must be contiguous and row-major.
template <int N>
float *contiguous(const MemRefDescriptor<float, N> *memref, const char *what) {
  int64_t stride = 1;
  for (int i = N - 1; i >= 0; --i) {
    if (memref->sizes[i] != 1 && memref->strides[i] != stride)
      throw CudaError(ErrorCode::InvalidArgument,
                      std::string(what) + " " + shapeOf(*memref) +
                          " is not a contiguous row-major memref");
    stride *= memref->sizes[i];
  }
  return memref->aligned + memref->offset;
}

/// Runs `body(device)` for the C function `name`, recording any failure in
/// the LibraryContext instead of throwing across the C ABI.
template <typename Body> void guarded(const char *name, Body body) {
  try {
    Device *device = LibraryContext::current();
    if (!device)
      throw CudaError(ErrorCode::FailedPrecondition,
                      "called outside a dtf::cuda::LibraryContext, with no "
                      "device to run on");
    body(*device);
  } catch (const std::exception &error) {
    LibraryContext::fail(dtf::errorCodeOf(error),
                         std::string(name) + ": " + error.what());
  }
}

void requireEqual(int64_t actual, int64_t expected, const char *what,
                  const WindowGeometry &g) {
  if (actual != expected)
    throw CudaError(ErrorCode::InvalidArgument,
                    std::string(what) + " is " + std::to_string(actual) +
                        ", expected " + std::to_string(expected) + " for " +
                        g.toString());
}

/// The geometry of a convolution from its NHWC input, KRSC filter and NHWC
/// output, checked for consistency.
WindowGeometry convolutionGeometry(const DTFMemRef4DF32 &x,
                                   const DTFMemRef4DF32 &w,
                                   const DTFMemRef4DF32 &y, int64_t strideH,
                                   int64_t strideW, int64_t padH, int64_t padW,
                                   int64_t dilationH, int64_t dilationW) {
  WindowGeometry g;
  g.batch = x.sizes[0];
  g.height = x.sizes[1];
  g.width = x.sizes[2];
  g.channels = x.sizes[3];
  g.outChannels = w.sizes[0];
  g.windowH = w.sizes[1];
  g.windowW = w.sizes[2];
  g.strideH = strideH;
  g.strideW = strideW;
  g.dilationH = dilationH;
  g.dilationW = dilationW;
  g.padH = padH;
  g.padW = padW;
  // A dilated filter spans (size - 1) * dilation + 1 input cells.
  g.outHeight = WindowGeometry::outputSize(
      g.height, (g.windowH - 1) * dilationH + 1, strideH, padH);
  g.outWidth = WindowGeometry::outputSize(
      g.width, (g.windowW - 1) * dilationW + 1, strideW, padW);
  requireEqual(w.sizes[3], g.channels, "filter input channels", g);
  requireEqual(y.sizes[0], g.batch, "output batch", g);
  requireEqual(y.sizes[1], g.outHeight, "output height", g);
  requireEqual(y.sizes[2], g.outWidth, "output width", g);
  requireEqual(y.sizes[3], g.outChannels, "output channels", g);
  return g;
}

WindowGeometry poolingGeometry(const DTFMemRef4DF32 &x,
                               const DTFMemRef4DF32 &y, int64_t windowH,
                               int64_t windowW, int64_t strideH,
                               int64_t strideW, int64_t padH, int64_t padW) {
  WindowGeometry g;
  g.batch = x.sizes[0];
  g.height = x.sizes[1];
  g.width = x.sizes[2];
  g.channels = g.outChannels = x.sizes[3];
  g.windowH = windowH;
  g.windowW = windowW;
  g.strideH = strideH;
  g.strideW = strideW;
  g.padH = padH;
  g.padW = padW;
  g.outHeight = WindowGeometry::outputSize(g.height, windowH, strideH, padH);
  g.outWidth = WindowGeometry::outputSize(g.width, windowW, strideW, padW);
  requireEqual(y.sizes[0], g.batch, "output batch", g);
  requireEqual(y.sizes[1], g.outHeight, "output height", g);
  requireEqual(y.sizes[2], g.outWidth, "output width", g);
  requireEqual(y.sizes[3], g.channels, "output channels", g);
  return g;
}

void requireSameShape(const DTFMemRef4DF32 &a, const DTFMemRef4DF32 &b,
                      const char *what, const WindowGeometry &g) {
  for (int i = 0; i < 4; ++i)
    requireEqual(b.sizes[i], a.sizes[i], what, g);
}

} // namespace

extern "C" {

void _mlir_ciface_dtf_cuda_gemm_f32(DTFMemRef2DF32 *a, DTFMemRef2DF32 *b,
                                    DTFMemRef2DF32 *c, int64_t transposeA,
                                    int64_t transposeB) {
  guarded("dtf_cuda_gemm_f32", [&](Device &device) {
    int64_t m = transposeA ? a->sizes[1] : a->sizes[0];
    int64_t k = transposeA ? a->sizes[0] : a->sizes[1];
    int64_t kb = transposeB ? b->sizes[1] : b->sizes[0];
    int64_t n = transposeB ? b->sizes[0] : b->sizes[1];
    if (k != kb || c->sizes[0] != m || c->sizes[1] != n)
      throw CudaError(ErrorCode::InvalidArgument,
                      "a " + shapeOf(*a) + (transposeA ? "^T" : "") +
                          " times b " + shapeOf(*b) + (transposeB ? "^T" : "") +
                          " does not fit c " + shapeOf(*c));
    gemm(device, contiguous(a, "a"), contiguous(b, "b"), contiguous(c, "c"), m,
         n, k, transposeA != 0, transposeB != 0);
  });
}

void _mlir_ciface_dtf_cuda_conv2d_f32(DTFMemRef4DF32 *x, DTFMemRef4DF32 *w,
                                      DTFMemRef4DF32 *y, int64_t strideH,
                                      int64_t strideW, int64_t padH,
                                      int64_t padW, int64_t dilationH,
                                      int64_t dilationW) {
  guarded("dtf_cuda_conv2d_f32", [&](Device &device) {
    WindowGeometry g = convolutionGeometry(*x, *w, *y, strideH, strideW, padH,
                                           padW, dilationH, dilationW);
    conv2d(device, g, contiguous(x, "x"), contiguous(w, "filter"),
           contiguous(y, "y"));
  });
}

void _mlir_ciface_dtf_cuda_conv2d_backprop_input_f32(
    DTFMemRef4DF32 *w, DTFMemRef4DF32 *dy, DTFMemRef4DF32 *dx, int64_t strideH,
    int64_t strideW, int64_t padH, int64_t padW, int64_t dilationH,
    int64_t dilationW) {
  guarded("dtf_cuda_conv2d_backprop_input_f32", [&](Device &device) {
    WindowGeometry g = convolutionGeometry(*dx, *w, *dy, strideH, strideW, padH,
                                           padW, dilationH, dilationW);
    conv2dBackpropInput(device, g, contiguous(w, "filter"),
                        contiguous(dy, "dy"), contiguous(dx, "dx"));
  });
}

void _mlir_ciface_dtf_cuda_conv2d_backprop_filter_f32(
    DTFMemRef4DF32 *x, DTFMemRef4DF32 *dy, DTFMemRef4DF32 *dw, int64_t strideH,
    int64_t strideW, int64_t padH, int64_t padW, int64_t dilationH,
    int64_t dilationW) {
  guarded("dtf_cuda_conv2d_backprop_filter_f32", [&](Device &device) {
    WindowGeometry g = convolutionGeometry(*x, *dw, *dy, strideH, strideW, padH,
                                           padW, dilationH, dilationW);
    conv2dBackpropFilter(device, g, contiguous(x, "x"), contiguous(dy, "dy"),
                         contiguous(dw, "dfilter"));
  });
}

void _mlir_ciface_dtf_cuda_max_pool_f32(DTFMemRef4DF32 *x, DTFMemRef4DF32 *y,
                                        int64_t windowH, int64_t windowW,
                                        int64_t strideH, int64_t strideW,
                                        int64_t padH, int64_t padW) {
  guarded("dtf_cuda_max_pool_f32", [&](Device &device) {
    WindowGeometry g = poolingGeometry(*x, *y, windowH, windowW, strideH,
                                       strideW, padH, padW);
    maxPool(device, g, contiguous(x, "x"), contiguous(y, "y"));
  });
}

void _mlir_ciface_dtf_cuda_max_pool_grad_f32(
    DTFMemRef4DF32 *x, DTFMemRef4DF32 *y, DTFMemRef4DF32 *dy,
    DTFMemRef4DF32 *dx, int64_t windowH, int64_t windowW, int64_t strideH,
    int64_t strideW, int64_t padH, int64_t padW) {
  guarded("dtf_cuda_max_pool_grad_f32", [&](Device &device) {
    WindowGeometry g = poolingGeometry(*x, *y, windowH, windowW, strideH,
                                       strideW, padH, padW);
    requireSameShape(*y, *dy, "dy", g);
    requireSameShape(*x, *dx, "dx", g);
    maxPoolGrad(device, g, contiguous(x, "x"), contiguous(y, "y"),
                contiguous(dy, "dy"), contiguous(dx, "dx"));
  });
}

} // extern "C"
