//===- Pool.cpp - Max and average pooling and their gradients -------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/KernelSupport.h"
#include "runtime/core/Window.h"

#include <algorithm>

namespace dtf::kernels {

namespace {

struct PoolGeometry {
  int64_t batch, inH, inW, channels;
  int64_t kH, kW, strideH, strideW;
  int64_t outH, outW, padTop, padLeft;

  Shape outputShape() const { return {batch, outH, outW, channels}; }
  /// Valid input rows [begin, end) of the window for output row `oh`, with
  /// padding cells clipped away (they never take part in the max).
  std::pair<int64_t, int64_t> rowRange(int64_t oh) const {
    const int64_t start = oh * strideH - padTop;
    return {std::max<int64_t>(start, 0), std::min(start + kH, inH)};
  }
  std::pair<int64_t, int64_t> colRange(int64_t ow) const {
    const int64_t start = ow * strideW - padLeft;
    return {std::max<int64_t>(start, 0), std::min(start + kW, inW)};
  }
};

PoolGeometry makeGeometry(const char *op, const Shape &input,
                          const std::vector<int64_t> &ksize,
                          const std::vector<int64_t> &strides,
                          Padding padding) {
  if (input.size() != 4)
    throw std::invalid_argument(opError(
        op, "input must have rank 4 (NHWC), got " + shapeToString(input)));
  SpatialPair window = spatialAttribute(op, "ksize", ksize);
  SpatialPair stride = spatialAttribute(op, "strides", strides);
  WindowDim h = computeWindowDim(op, input[1], window.h, stride.h, padding);
  WindowDim w = computeWindowDim(op, input[2], window.w, stride.w, padding);
  return {input[0], input[1], input[2], input[3], window.h,    window.w,
          stride.h, stride.w, h.output, w.output, h.padBefore, w.padBefore};
}

PoolGeometry makeGeometry(const char *op, const Tensor &x,
                          const std::vector<int64_t> &ksize,
                          const std::vector<int64_t> &strides,
                          Padding padding) {
  requireRank(op, x, "input", 4);
  return makeGeometry(op, x.shape(), ksize, strides, padding);
}

/// Calls fn(n, oh, ow, inputPixels) for every output pixel, where
/// inputPixels(visit) calls visit(offset) for the element offset (of
/// channel 0) of each valid input pixel of the window in row-major order.
template <typename Fn> void forEachWindow(const PoolGeometry &g, Fn fn) {
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oh = 0; oh < g.outH; ++oh) {
      const auto [hBegin, hEnd] = g.rowRange(oh);
      for (int64_t ow = 0; ow < g.outW; ++ow) {
        const auto [wBegin, wEnd] = g.colRange(ow);
        const int64_t outOffset =
            ((n * g.outH + oh) * g.outW + ow) * g.channels;
        fn(outOffset, [&](auto visit) {
          for (int64_t ih = hBegin; ih < hEnd; ++ih)
            for (int64_t iw = wBegin; iw < wEnd; ++iw)
              visit(((n * g.inH + ih) * g.inW + iw) * g.channels);
        });
      }
    }
}

} // namespace

Tensor max_pool(const Tensor &x, const std::vector<int64_t> &ksize,
                const std::vector<int64_t> &strides, Padding padding) {
  PoolGeometry g = makeGeometry("max_pool", x, ksize, strides, padding);
  return dispatchFloat("max_pool", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out(x.dtype(), g.outputShape());
    const T *px = x.data<T>();
    T *po = out.data<T>();
    const int64_t c = g.channels;
    forEachWindow(g, [&](int64_t outOffset, auto inputPixels) {
      T *result = po + outOffset;
      bool first = true;
      inputPixels([&](int64_t inOffset) {
        const T *pixel = px + inOffset;
        if (first)
          std::copy(pixel, pixel + c, result);
        else
          for (int64_t ci = 0; ci < c; ++ci)
            result[ci] = pixel[ci] > result[ci] ? pixel[ci] : result[ci];
        first = false;
      });
    });
    return out;
  });
}

Tensor max_pool_grad(const Tensor &x, const Tensor &y, const Tensor &dy,
                     const std::vector<int64_t> &ksize,
                     const std::vector<int64_t> &strides, Padding padding) {
  const char *op = "max_pool_grad";
  PoolGeometry g = makeGeometry(op, x, ksize, strides, padding);
  requireSameType(op, y, "y", dy, "dy");
  requireSameDType(op, x, "x", y, "y");
  if (y.shape() != g.outputShape())
    throw std::invalid_argument(
        opError(op, "y and dy must have the pooled shape " +
                        shapeToString(g.outputShape()) + " of x " +
                        x.typeString() + ", got " + y.typeString()));
  return dispatchFloat(op, x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor dx(x.dtype(), x.shape());
    const T *px = x.data<T>();
    const T *pdy = dy.data<T>();
    T *pdx = dx.data<T>();
    const int64_t c = g.channels;
    std::vector<T> best(c);
    std::vector<int64_t> bestOffset(c);
    forEachWindow(g, [&](int64_t outOffset, auto inputPixels) {
      // Like TensorFlow's CPU kernel: the first valid cell seeds the max and
      // only a strictly greater value replaces it, so ties go to the first
      // cell in row-major window order.
      bool first = true;
      inputPixels([&](int64_t inOffset) {
        const T *pixel = px + inOffset;
        for (int64_t ci = 0; ci < c; ++ci)
          if (first || pixel[ci] > best[ci]) {
            best[ci] = pixel[ci];
            bestOffset[ci] = inOffset + ci;
          }
        first = false;
      });
      if (!first)
        for (int64_t ci = 0; ci < c; ++ci)
          pdx[bestOffset[ci]] += pdy[outOffset + ci];
    });
    return dx;
  });
}

Tensor avg_pool(const Tensor &x, const std::vector<int64_t> &ksize,
                const std::vector<int64_t> &strides, Padding padding) {
  PoolGeometry g = makeGeometry("avg_pool", x, ksize, strides, padding);
  return dispatchFloat("avg_pool", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = AccumulatorT<T>;
    Tensor out(x.dtype(), g.outputShape());
    const T *px = x.data<T>();
    T *po = out.data<T>();
    const int64_t c = g.channels;
    std::vector<Acc> sums(c);
    forEachWindow(g, [&](int64_t outOffset, auto inputPixels) {
      std::fill(sums.begin(), sums.end(), Acc(0));
      int64_t cells = 0;
      inputPixels([&](int64_t inOffset) {
        for (int64_t ci = 0; ci < c; ++ci)
          sums[ci] += px[inOffset + ci];
        ++cells;
      });
      for (int64_t ci = 0; ci < c; ++ci)
        po[outOffset + ci] = static_cast<T>(sums[ci] / Acc(cells));
    });
    return out;
  });
}

Tensor avg_pool_grad(const Shape &inputShape, const Tensor &dy,
                     const std::vector<int64_t> &ksize,
                     const std::vector<int64_t> &strides, Padding padding) {
  const char *op = "avg_pool_grad";
  PoolGeometry g = makeGeometry(op, inputShape, ksize, strides, padding);
  if (dy.shape() != g.outputShape())
    throw std::invalid_argument(opError(
        op, "dy must have the pooled shape " + shapeToString(g.outputShape()) +
                " of the input " + shapeToString(inputShape) + ", got " +
                dy.typeString()));
  return dispatchFloat(op, dy.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor dx(dy.dtype(), inputShape);
    const T *pdy = dy.data<T>();
    T *pdx = dx.data<T>();
    const int64_t c = g.channels;
    forEachWindow(g, [&](int64_t outOffset, auto inputPixels) {
      int64_t cells = 0;
      inputPixels([&](int64_t) { ++cells; });
      inputPixels([&](int64_t inOffset) {
        for (int64_t ci = 0; ci < c; ++ci)
          pdx[inOffset + ci] += pdy[outOffset + ci] / static_cast<T>(cells);
      });
    });
    return dx;
  });
}

} // namespace dtf::kernels
