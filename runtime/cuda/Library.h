//===- Library.h - cuBLAS/cuDNN kernels and their C ABI ---------*- C++ -*-===//
//
// The operations --dtf-lower-to-gpu leaves to vendor libraries, in two
// forms:
//
// - C++ functions on device pointers of one Device, which queue the
//   library call on the device's stream;
// - the C ABI the lowered IR calls (`func.call @dtf_cuda_gemm_f32(...)`,
//   declared `llvm.emit_c_interface`): `_mlir_ciface_dtf_cuda_*`, taking
//   pointers to MLIR's strided memref descriptors. runtime/ABI.md ("GPU
//   library calls") specifies them.
//
// Layouts are TensorFlow's (row-major matrices, NHWC images) except for
// filters, which are cuDNN's OHWI (KRSC); the compiler transposes
// TensorFlow's HWIO. Padding is symmetric (cuDNN's); the compiler pads
// explicitly where TensorFlow's SAME padding is not. Arithmetic is FP32
// (no TF32), so results agree with dtf_runtime's CPU kernels.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/cuda/Device.h"

#include <cstdint>
#include <string>

namespace dtf::cuda {

//===----------------------------------------------------------------------===//
// C++ API
//===----------------------------------------------------------------------===//

/// c[m, n] = op(a) op(b) with op a transpose when requested: a is [m, k]
/// ([k, m] transposed), b [k, n] ([n, k] transposed). Row-major f32.
void gemm(Device &device, const float *a, const float *b, float *c, int64_t m,
          int64_t n, int64_t k, bool transposeA, bool transposeB);

/// The geometry of a 2-D convolution or pooling over NHWC images.
struct WindowGeometry {
  int64_t batch = 0, height = 0, width = 0, channels = 0;
  /// Output channels (filters) of a convolution; channels for pooling.
  int64_t outChannels = 0;
  int64_t windowH = 0, windowW = 0;
  int64_t strideH = 1, strideW = 1;
  /// Cells between a convolution filter's taps (cuDNN's dilation); 1 for
  /// pooling.
  int64_t dilationH = 1, dilationW = 1;
  /// Symmetric padding of each side.
  int64_t padH = 0, padW = 0;
  int64_t outHeight = 0, outWidth = 0;

  /// Output size along one dimension: (in + 2 pad - window) / stride + 1.
  static int64_t outputSize(int64_t input, int64_t window, int64_t stride,
                            int64_t pad);
  /// "x [N,H,W,C] window KHxKW stride SHxSW pad PHxPW -> [N,OH,OW,K]", with
  /// "dilation DHxDW" after the stride when a dilation is not 1.
  std::string toString() const;
};

/// y [N, OH, OW, K] = conv(x [N, H, W, C], filter [K, KH, KW, C]).
void conv2d(Device &device, const WindowGeometry &g, const float *x,
            const float *filter, float *y);
/// dx [N, H, W, C] from filter [K, KH, KW, C] and dy [N, OH, OW, K].
void conv2dBackpropInput(Device &device, const WindowGeometry &g,
                         const float *filter, const float *dy, float *dx);
/// dfilter [K, KH, KW, C] from x [N, H, W, C] and dy [N, OH, OW, K].
void conv2dBackpropFilter(Device &device, const WindowGeometry &g,
                          const float *x, const float *dy, float *dfilter);
/// y [N, OH, OW, C] = max over windows of x [N, H, W, C]; padding never
/// wins.
void maxPool(Device &device, const WindowGeometry &g, const float *x,
             float *y);
/// dx [N, H, W, C]: each dy routed to its window's maximum in x.
void maxPoolGrad(Device &device, const WindowGeometry &g, const float *x,
                 const float *y, const float *dy, float *dx);

//===----------------------------------------------------------------------===//
// The C ABI of lowered programs
//===----------------------------------------------------------------------===//

/// MLIR's descriptor of a strided memref of rank N (StridedMemRefType).
template <typename T, int N> struct MemRefDescriptor {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];
};

/// The device the dtf_cuda_* functions called on this thread run on. Their
/// C signatures return nothing: the first failure is recorded here instead,
/// and the caller takes it after the call (no exception crosses the C ABI).
class LibraryContext {
public:
  /// Makes `device` current for the calls of this thread until destroyed.
  explicit LibraryContext(Device &device);
  ~LibraryContext();
  LibraryContext(const LibraryContext &) = delete;
  LibraryContext &operator=(const LibraryContext &) = delete;

  /// The device of the innermost live LibraryContext of this thread, or
  /// nullptr.
  static Device *current();
  /// Records the error of `code` and `message` unless one is already
  /// recorded.
  static void fail(ErrorCode code, std::string message);
  /// Throws CudaError with the code and message of the first error recorded
  /// on this thread since the last call, if any, and clears it.
  static void throwIfFailed();

private:
  Device *previous;
};

} // namespace dtf::cuda

extern "C" {
using DTFMemRef2DF32 = dtf::cuda::MemRefDescriptor<float, 2>;
using DTFMemRef4DF32 = dtf::cuda::MemRefDescriptor<float, 4>;

/// dtf_cuda_gemm_f32(a, b, c, transpose_a, transpose_b): c = op(a) op(b),
/// op a transpose where the flag (0 or 1) is set.
void _mlir_ciface_dtf_cuda_gemm_f32(DTFMemRef2DF32 *a, DTFMemRef2DF32 *b,
                                    DTFMemRef2DF32 *c, int64_t transposeA,
                                    int64_t transposeB);
/// dtf_cuda_conv2d_f32(x, w_ohwi, y, stride_h, stride_w, pad_h, pad_w,
/// dilation_h, dilation_w).
void _mlir_ciface_dtf_cuda_conv2d_f32(DTFMemRef4DF32 *x, DTFMemRef4DF32 *w,
                                      DTFMemRef4DF32 *y, int64_t strideH,
                                      int64_t strideW, int64_t padH,
                                      int64_t padW, int64_t dilationH,
                                      int64_t dilationW);
/// dtf_cuda_conv2d_backprop_input_f32(w_ohwi, dy, dx, strides, pads,
/// dilations).
void _mlir_ciface_dtf_cuda_conv2d_backprop_input_f32(
    DTFMemRef4DF32 *w, DTFMemRef4DF32 *dy, DTFMemRef4DF32 *dx, int64_t strideH,
    int64_t strideW, int64_t padH, int64_t padW, int64_t dilationH,
    int64_t dilationW);
/// dtf_cuda_conv2d_backprop_filter_f32(x, dy, dw_ohwi, strides, pads,
/// dilations).
void _mlir_ciface_dtf_cuda_conv2d_backprop_filter_f32(
    DTFMemRef4DF32 *x, DTFMemRef4DF32 *dy, DTFMemRef4DF32 *dw, int64_t strideH,
    int64_t strideW, int64_t padH, int64_t padW, int64_t dilationH,
    int64_t dilationW);
/// dtf_cuda_max_pool_f32(x, y, window_h, window_w, strides, pads).
void _mlir_ciface_dtf_cuda_max_pool_f32(DTFMemRef4DF32 *x, DTFMemRef4DF32 *y,
                                        int64_t windowH, int64_t windowW,
                                        int64_t strideH, int64_t strideW,
                                        int64_t padH, int64_t padW);
/// dtf_cuda_max_pool_grad_f32(x, y, dy, dx, window, strides, pads).
void _mlir_ciface_dtf_cuda_max_pool_grad_f32(
    DTFMemRef4DF32 *x, DTFMemRef4DF32 *y, DTFMemRef4DF32 *dy,
    DTFMemRef4DF32 *dx, int64_t windowH, int64_t windowW, int64_t strideH,
    int64_t strideW, int64_t padH, int64_t padW);
}
