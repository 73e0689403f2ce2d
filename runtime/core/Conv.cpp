//===- Conv.cpp - 2-D convolution and its gradients -----------------------===//
//
// All three kernels are GEMMs over an im2col matrix: one row per output pixel
// holding its receptive field as [KH, KW, Cin] (the same order as the first
// three filter dimensions, so the HWIO filter is already the [KH*KW*Cin, Cout]
// GEMM operand). Images are processed in chunks to bound the im2col buffer.
// A dilated filter's taps are `dilation` input cells apart: only the input
// cell each tap reads changes, so dilation is one factor in im2col's index.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/Blas.h"
#include "runtime/core/KernelSupport.h"
#include "runtime/core/Window.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace dtf::kernels {

namespace {

/// Upper bound on im2col elements per chunk (16 MiB of f32): big enough for
/// efficient GEMMs, small enough to stay out of the way of the activations.
constexpr int64_t kColumnBudget = int64_t(1) << 22;

struct ConvGeometry {
  int64_t batch, inH, inW, inC;
  int64_t kH, kW, outC;
  int64_t outH, outW;
  int64_t strideH, strideW, padTop, padLeft;
  int64_t dilationH, dilationW;

  int64_t patchSize() const { return kH * kW * inC; }
  int64_t outPixels() const { return outH * outW; }
  Shape outputShape() const { return {batch, outH, outW, outC}; }
  /// A 1x1 stride-1 convolution never pads, so each input pixel already is
  /// its own im2col row.
  bool isPointwise() const {
    return kH == 1 && kW == 1 && strideH == 1 && strideW == 1;
  }
  int64_t imagesPerChunk() const {
    const int64_t perImage = std::max<int64_t>(1, outPixels() * patchSize());
    return std::clamp<int64_t>(kColumnBudget / perImage, 1,
                               std::max<int64_t>(batch, 1));
  }
  /// Scratch for one chunk's im2col matrix (none for pointwise convs).
  /// Left uninitialised: im2col writes every element.
  template <typename T> std::unique_ptr<T[]> allocateColumns() const {
    if (isPointwise())
      return nullptr;
    return std::unique_ptr<T[]>(
        new T[imagesPerChunk() * outPixels() * patchSize()]);
  }
};

ConvGeometry makeGeometry(const char *op, const Shape &input,
                          const Shape &filter,
                          const std::vector<int64_t> &strides, Padding padding,
                          const std::vector<int64_t> &dilations) {
  auto hasNegative = [](const Shape &shape) {
    return std::any_of(shape.begin(), shape.end(),
                       [](int64_t d) { return d < 0; });
  };
  if (input.size() != 4 || filter.size() != 4 || hasNegative(input) ||
      hasNegative(filter))
    throw std::invalid_argument(opError(
        op, "expected input [N,H,W,Cin] and filter [KH,KW,Cin,Cout], got " +
                shapeToString(input) + " and " + shapeToString(filter)));
  if (filter[2] != input[3])
    throw std::invalid_argument(
        opError(op, "input channels of input " + shapeToString(input) +
                        " and filter " + shapeToString(filter) + " differ"));
  if (filter[0] < 1 || filter[1] < 1)
    throw std::invalid_argument(opError(
        op, "filter window must be non-empty, got " + shapeToString(filter)));
  SpatialPair stride = spatialAttribute(op, "strides", strides);
  SpatialPair dilation = spatialAttribute(op, "dilations", dilations);
  // Sized as TensorFlow does: by the cells the dilated filter spans.
  WindowDim h = computeWindowDim(op, input[1], (filter[0] - 1) * dilation.h + 1,
                                 stride.h, padding);
  WindowDim w = computeWindowDim(op, input[2], (filter[1] - 1) * dilation.w + 1,
                                 stride.w, padding);
  return {input[0],  input[1],    input[2],    input[3],   filter[0],
          filter[1], filter[3],   h.output,    w.output,   stride.h,
          stride.w,  h.padBefore, w.padBefore, dilation.h, dilation.w};
}

void requireShape(const char *op, const Tensor &t, const char *name,
                  const Shape &expected) {
  if (t.shape() != expected)
    throw std::invalid_argument(
        opError(op, std::string(name) + " must have shape " +
                        shapeToString(expected) + ", got " + t.typeString()));
}

/// Fills `col` [count * outPixels, patchSize] with the receptive fields of
/// images [first, first + count); padding cells are zero.
template <typename T>
void im2col(const ConvGeometry &g, const T *input, int64_t first, int64_t count,
            T *col) {
  const int64_t c = g.inC;
  for (int64_t n = first; n < first + count; ++n) {
    const T *image = input + n * g.inH * g.inW * c;
    for (int64_t oh = 0; oh < g.outH; ++oh)
      for (int64_t ow = 0; ow < g.outW; ++ow) {
        for (int64_t kh = 0; kh < g.kH; ++kh) {
          const int64_t ih = oh * g.strideH - g.padTop + kh * g.dilationH;
          T *dst = col + kh * g.kW * c;
          if (ih < 0 || ih >= g.inH) {
            std::fill(dst, dst + g.kW * c, T(0));
            continue;
          }
          for (int64_t kw = 0; kw < g.kW; ++kw) {
            const int64_t iw = ow * g.strideW - g.padLeft + kw * g.dilationW;
            if (iw < 0 || iw >= g.inW)
              std::fill(dst + kw * c, dst + (kw + 1) * c, T(0));
            else
              std::memcpy(dst + kw * c, image + (ih * g.inW + iw) * c,
                          c * sizeof(T));
          }
        }
        col += g.patchSize();
      }
  }
}

/// The adjoint of im2col: adds each row of `col` back onto the input pixels
/// it was gathered from (several rows share pixels when windows overlap).
template <typename T>
void col2imAccumulate(const ConvGeometry &g, const T *col, int64_t first,
                      int64_t count, T *dx) {
  const int64_t c = g.inC;
  for (int64_t n = first; n < first + count; ++n) {
    T *image = dx + n * g.inH * g.inW * c;
    for (int64_t oh = 0; oh < g.outH; ++oh)
      for (int64_t ow = 0; ow < g.outW; ++ow) {
        for (int64_t kh = 0; kh < g.kH; ++kh) {
          const int64_t ih = oh * g.strideH - g.padTop + kh * g.dilationH;
          if (ih < 0 || ih >= g.inH)
            continue;
          const T *src = col + kh * g.kW * c;
          for (int64_t kw = 0; kw < g.kW; ++kw) {
            const int64_t iw = ow * g.strideW - g.padLeft + kw * g.dilationW;
            if (iw < 0 || iw >= g.inW)
              continue;
            T *pixel = image + (ih * g.inW + iw) * c;
            for (int64_t ci = 0; ci < c; ++ci)
              pixel[ci] += src[kw * c + ci];
          }
        }
        col += g.patchSize();
      }
  }
}

/// Calls `body(first, rows, columns)` for each chunk of images of `input`,
/// with `columns` the chunk's im2col matrix ([rows, patch], rows = output
/// pixels of the chunk); a pointwise conv uses the input itself.
template <typename T, typename Body>
void forEachColumnChunk(const ConvGeometry &g, const T *input, Body body) {
  const int64_t chunk = g.imagesPerChunk();
  std::unique_ptr<T[]> col = g.allocateColumns<T>();
  for (int64_t first = 0; first < g.batch; first += chunk) {
    const int64_t count = std::min(chunk, g.batch - first);
    const T *columns = input + first * g.inH * g.inW * g.inC;
    if (!g.isPointwise()) {
      im2col(g, input, first, count, col.get());
      columns = col.get();
    }
    body(first, count * g.outPixels(), columns);
  }
}

template <typename T>
void conv2dForward(const ConvGeometry &g, const T *input, const T *filter,
                   T *out) {
  const int64_t patch = g.patchSize();
  forEachColumnChunk(g, input,
                     [&](int64_t first, int64_t rows, const T *columns) {
                       gemm(false, false, rows, g.outC, patch, T(1), columns,
                            patch, filter, g.outC, T(0),
                            out + first * g.outPixels() * g.outC, g.outC);
                     });
}

template <typename T>
void conv2dInputGrad(const ConvGeometry &g, const T *filter, const T *dy,
                     T *dx) {
  const int64_t patch = g.patchSize();
  const int64_t chunk = g.imagesPerChunk();
  std::unique_ptr<T[]> col = g.allocateColumns<T>();
  for (int64_t first = 0; first < g.batch; first += chunk) {
    const int64_t count = std::min(chunk, g.batch - first);
    const int64_t rows = count * g.outPixels();
    const T *dyChunk = dy + first * g.outPixels() * g.outC;
    // dcol = dy x filter^T; for a pointwise conv dcol already is dx.
    T *dcol = g.isPointwise() ? dx + first * g.inH * g.inW * g.inC : col.get();
    gemm(false, true, rows, patch, g.outC, T(1), dyChunk, g.outC, filter,
         g.outC, T(0), dcol, patch);
    if (!g.isPointwise())
      col2imAccumulate(g, col.get(), first, count, dx);
  }
}

template <typename T>
void conv2dFilterGrad(const ConvGeometry &g, const T *input, const T *dy,
                      T *dfilter) {
  const int64_t patch = g.patchSize();
  forEachColumnChunk(g, input,
                     [&](int64_t first, int64_t rows, const T *columns) {
                       // dfilter += col^T x dy, summed over all chunks.
                       gemm(true, false, patch, g.outC, rows, T(1), columns,
                            patch, dy + first * g.outPixels() * g.outC, g.outC,
                            first == 0 ? T(0) : T(1), dfilter, g.outC);
                     });
}

} // namespace

Tensor conv2d(const Tensor &input, const Tensor &filter,
              const std::vector<int64_t> &strides, Padding padding,
              const std::vector<int64_t> &dilations) {
  requireSameDType("conv2d", input, "input", filter, "filter");
  ConvGeometry g = makeGeometry("conv2d", input.shape(), filter.shape(),
                                strides, padding, dilations);
  return dispatchFloat("conv2d", input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out(input.dtype(), g.outputShape());
    conv2dForward(g, input.data<T>(), filter.data<T>(), out.data<T>());
    return out;
  });
}

Tensor conv2d_backprop_input(const Shape &input_shape, const Tensor &filter,
                             const Tensor &dy,
                             const std::vector<int64_t> &strides,
                             Padding padding,
                             const std::vector<int64_t> &dilations) {
  const char *op = "conv2d_backprop_input";
  requireSameDType(op, filter, "filter", dy, "dy");
  ConvGeometry g = makeGeometry(op, input_shape, filter.shape(), strides,
                                padding, dilations);
  requireShape(op, dy, "dy", g.outputShape());
  return dispatchFloat(op, dy.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor dx(dy.dtype(), input_shape);
    conv2dInputGrad(g, filter.data<T>(), dy.data<T>(), dx.data<T>());
    return dx;
  });
}

Tensor conv2d_backprop_filter(const Tensor &input, const Shape &filter_shape,
                              const Tensor &dy,
                              const std::vector<int64_t> &strides,
                              Padding padding,
                              const std::vector<int64_t> &dilations) {
  const char *op = "conv2d_backprop_filter";
  requireSameDType(op, input, "input", dy, "dy");
  ConvGeometry g = makeGeometry(op, input.shape(), filter_shape, strides,
                                padding, dilations);
  requireShape(op, dy, "dy", g.outputShape());
  return dispatchFloat(op, dy.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor dfilter(dy.dtype(), filter_shape);
    conv2dFilterGrad(g, input.data<T>(), dy.data<T>(), dfilter.data<T>());
    return dfilter;
  });
}

} // namespace dtf::kernels
