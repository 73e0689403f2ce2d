//===- Elementwise.cpp - Element-wise and broadcasting kernels ------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/KernelSupport.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace dtf::kernels {

namespace {

Shape broadcastShapesFor(const char *op, const Tensor &a, const Tensor &b) {
  try {
    return broadcastShapes(a.shape(), b.shape());
  } catch (const std::invalid_argument &) {
    throw std::invalid_argument(opError(
        op, "shapes " + shapeToString(a.shape()) + " and " +
                shapeToString(b.shape()) + " are not broadcast-compatible"));
  }
}

/// out = fn(a, b) with NumPy broadcasting. Equal shapes and scalar operands
/// take flat loops; otherwise rows of the output are produced with the
/// operands' inner strides (each 0 or 1) specialised so the row loops stay
/// simple enough to vectorise.
template <typename Out, typename In, typename Fn>
Tensor broadcastBinary(const char *op, const Tensor &a, const Tensor &b,
                       Fn fn) {
  requireSameDType(op, a, "lhs", b, "rhs");
  Shape outShape = broadcastShapesFor(op, a, b);
  // Every element is written below.
  Tensor out = Tensor::uninitialized(dtypeOf<Out>, outShape);
  const int64_t n = out.numElements();
  if (n == 0)
    return out;
  const In *pa = a.data<In>();
  const In *pb = b.data<In>();
  Out *po = out.data<Out>();

  if (a.numElements() == n && b.numElements() == n) {
    // Same element count and broadcast-compatible means identical layout.
    for (int64_t i = 0; i < n; ++i)
      po[i] = fn(pa[i], pb[i]);
    return out;
  }
  if (b.numElements() == 1 && a.numElements() == n) {
    const In rhs = pb[0];
    for (int64_t i = 0; i < n; ++i)
      po[i] = fn(pa[i], rhs);
    return out;
  }
  if (a.numElements() == 1 && b.numElements() == n) {
    const In lhs = pa[0];
    for (int64_t i = 0; i < n; ++i)
      po[i] = fn(lhs, pb[i]);
    return out;
  }

  const std::vector<int64_t> strides[2] = {
      broadcastStrides(a.shape(), outShape),
      broadcastStrides(b.shape(), outShape)};
  const bool aContiguous = strides[0].back() == 1;
  const bool bContiguous = strides[1].back() == 1;
  const int64_t length = outShape.back();
  forEachBroadcastRow(outShape, strides,
                      [&](int64_t outOffset, const int64_t *offsets) {
                        const In *ra = pa + offsets[0];
                        const In *rb = pb + offsets[1];
                        Out *ro = po + outOffset;
                        if (aContiguous && bContiguous) {
                          for (int64_t i = 0; i < length; ++i)
                            ro[i] = fn(ra[i], rb[i]);
                        } else if (aContiguous) {
                          const In rhs = rb[0];
                          for (int64_t i = 0; i < length; ++i)
                            ro[i] = fn(ra[i], rhs);
                        } else if (bContiguous) {
                          const In lhs = ra[0];
                          for (int64_t i = 0; i < length; ++i)
                            ro[i] = fn(lhs, rb[i]);
                        } else {
                          std::fill(ro, ro + length, fn(ra[0], rb[0]));
                        }
                      });
  return out;
}

template <typename Fn>
Tensor numericBinary(const char *op, const Tensor &a, const Tensor &b, Fn fn) {
  return dispatchNumeric(op, a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return broadcastBinary<T, T>(op, a, b, [&](T x, T y) { return fn(x, y); });
  });
}

template <typename T, typename Fn> Tensor mapUnary(const Tensor &x, Fn fn) {
  Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
  const T *in = x.data<T>();
  T *po = out.data<T>();
  for (int64_t i = 0, n = x.numElements(); i < n; ++i)
    po[i] = fn(in[i]);
  return out;
}

template <typename Fn>
Tensor floatUnary(const char *op, const Tensor &x, Fn fn) {
  return dispatchFloat(op, x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return mapUnary<T>(x, [&](T v) { return static_cast<T>(fn(v)); });
  });
}

/// out = fn(dy, x) for two operands of identical type, as gradient kernels
/// need.
template <typename T, typename Fn>
Tensor zipSameShape(const Tensor &dy, const Tensor &x, Fn fn) {
  Tensor out = Tensor::uninitialized(dy.dtype(), dy.shape());
  const T *pdy = dy.data<T>();
  const T *px = x.data<T>();
  T *po = out.data<T>();
  for (int64_t i = 0, n = dy.numElements(); i < n; ++i)
    po[i] = fn(pdy[i], px[i]);
  return out;
}

void checkClipRange(const char *op, double clipMin, double clipMax) {
  if (!(clipMin <= clipMax))
    throw std::invalid_argument(
        opError(op, "clip_value_min " + std::to_string(clipMin) +
                        " exceeds clip_value_max " + std::to_string(clipMax)));
}

} // namespace

Tensor add(const Tensor &a, const Tensor &b) {
  return numericBinary("add", a, b, [](auto x, auto y) { return x + y; });
}

Tensor sub(const Tensor &a, const Tensor &b) {
  return numericBinary("sub", a, b, [](auto x, auto y) { return x - y; });
}

Tensor mul(const Tensor &a, const Tensor &b) {
  return numericBinary("mul", a, b, [](auto x, auto y) { return x * y; });
}

Tensor div(const Tensor &a, const Tensor &b) {
  return numericBinary("div", a, b, [](auto x, auto y) {
    if constexpr (std::is_integral_v<decltype(y)>) {
      if (y == 0)
        throw std::domain_error(opError("div", "integer division by zero"));
    }
    return x / y;
  });
}

Tensor div_no_nan(const Tensor &a, const Tensor &b) {
  return dispatchFloat("div_no_nan", a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return broadcastBinary<T, T>(
        "div_no_nan", a, b, [](T x, T y) { return y == T(0) ? T(0) : x / y; });
  });
}

Tensor minimum(const Tensor &a, const Tensor &b) {
  return numericBinary("minimum", a, b, [](auto x, auto y) {
    return isNaN(x) || x < y ? x : y;
  });
}

Tensor maximum(const Tensor &a, const Tensor &b) {
  return numericBinary("maximum", a, b, [](auto x, auto y) {
    return isNaN(x) || x > y ? x : y;
  });
}

Tensor pow(const Tensor &a, const Tensor &b) {
  return dispatchFloat("pow", a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return broadcastBinary<T, T>("pow", a, b,
                                 [](T x, T y) { return std::pow(x, y); });
  });
}

namespace {
template <typename Compare>
Tensor compareAny(const char *op, const Tensor &a, const Tensor &b,
                  Compare compare) {
  return dispatchAny(op, a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return broadcastBinary<bool, T>(op, a, b, compare);
  });
}

template <typename Compare>
Tensor compareNumeric(const char *op, const Tensor &a, const Tensor &b,
                      Compare compare) {
  return dispatchNumeric(op, a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return broadcastBinary<bool, T>(op, a, b, compare);
  });
}

void requireBool(const char *op, const Tensor &t, const char *name) {
  if (t.dtype() != DType::Bool)
    throw std::invalid_argument(opError(
        op, std::string(name) + " must be bool, got " + t.typeString()));
}
} // namespace

Tensor equal(const Tensor &a, const Tensor &b) {
  return compareAny("equal", a, b, [](auto x, auto y) { return x == y; });
}

Tensor not_equal(const Tensor &a, const Tensor &b) {
  return compareAny("not_equal", a, b, [](auto x, auto y) { return x != y; });
}

Tensor greater(const Tensor &a, const Tensor &b) {
  return compareNumeric("greater", a, b, [](auto x, auto y) { return x > y; });
}

Tensor greater_equal(const Tensor &a, const Tensor &b) {
  return compareNumeric("greater_equal", a, b,
                        [](auto x, auto y) { return x >= y; });
}

Tensor less(const Tensor &a, const Tensor &b) {
  return compareNumeric("less", a, b, [](auto x, auto y) { return x < y; });
}

Tensor less_equal(const Tensor &a, const Tensor &b) {
  return compareNumeric("less_equal", a, b,
                        [](auto x, auto y) { return x <= y; });
}

Tensor logical_and(const Tensor &a, const Tensor &b) {
  requireBool("logical_and", a, "lhs");
  return broadcastBinary<bool, bool>("logical_and", a, b,
                                     [](bool x, bool y) { return x && y; });
}

Tensor logical_or(const Tensor &a, const Tensor &b) {
  requireBool("logical_or", a, "lhs");
  return broadcastBinary<bool, bool>("logical_or", a, b,
                                     [](bool x, bool y) { return x || y; });
}

Tensor logical_not(const Tensor &x) {
  requireBool("logical_not", x, "x");
  return mapUnary<bool>(x, [](bool v) { return !v; });
}

Tensor select(const Tensor &condition, const Tensor &on_true,
              const Tensor &on_false) {
  const char *op = "select";
  requireBool(op, condition, "condition");
  requireSameDType(op, on_true, "on_true", on_false, "on_false");
  Shape shape;
  try {
    shape = broadcastShapes(condition.shape(),
                            broadcastShapes(on_true.shape(), on_false.shape()));
  } catch (const std::invalid_argument &) {
    throw std::invalid_argument(
        opError(op, "shapes " + shapeToString(condition.shape()) + ", " +
                        shapeToString(on_true.shape()) + " and " +
                        shapeToString(on_false.shape()) +
                        " are not broadcast-compatible"));
  }
  // Selection is rare enough in a step (masks of losses and clipping) that
  // materializing the broadcasts keeps this simple.
  const Tensor c = broadcast_to(condition, shape);
  const Tensor t = broadcast_to(on_true, shape);
  const Tensor f = broadcast_to(on_false, shape);
  return dispatchAny(op, on_true.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out = Tensor::uninitialized(on_true.dtype(), shape);
    const bool *pc = c.data<bool>();
    const T *pt = t.data<T>();
    const T *pf = f.data<T>();
    T *po = out.data<T>();
    for (int64_t i = 0, n = out.numElements(); i < n; ++i)
      po[i] = pc[i] ? pt[i] : pf[i];
    return out;
  });
}

Tensor relu(const Tensor &x) {
  return dispatchNumeric("relu", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return mapUnary<T>(x, [](T v) { return v > T(0) ? v : T(0); });
  });
}

Tensor relu_grad(const Tensor &dy, const Tensor &x) {
  requireSameType("relu_grad", dy, "dy", x, "x");
  return dispatchNumeric("relu_grad", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return zipSameShape<T>(dy, x, [](T g, T v) { return v > T(0) ? g : T(0); });
  });
}

Tensor neg(const Tensor &x) {
  return dispatchNumeric("neg", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return mapUnary<T>(x, [](T v) { return static_cast<T>(-v); });
  });
}

Tensor abs(const Tensor &x) {
  return dispatchNumeric("abs", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return mapUnary<T>(x, [](T v) { return static_cast<T>(std::abs(v)); });
  });
}

Tensor sign(const Tensor &x) {
  return dispatchNumeric("sign", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return mapUnary<T>(x, [](T v) {
      return isNaN(v) ? v : static_cast<T>((v > T(0)) - (v < T(0)));
    });
  });
}

Tensor log(const Tensor &x) {
  return floatUnary("log", x, [](auto v) { return std::log(v); });
}

Tensor exp(const Tensor &x) {
  return floatUnary("exp", x, [](auto v) { return std::exp(v); });
}

Tensor sqrt(const Tensor &x) {
  return floatUnary("sqrt", x, [](auto v) { return std::sqrt(v); });
}

Tensor rsqrt(const Tensor &x) {
  return floatUnary("rsqrt", x, [](auto v) { return 1 / std::sqrt(v); });
}

Tensor tanh(const Tensor &x) {
  return floatUnary("tanh", x, [](auto v) { return std::tanh(v); });
}

Tensor floor(const Tensor &x) {
  return floatUnary("floor", x, [](auto v) { return std::floor(v); });
}

Tensor bias_add(const Tensor &x, const Tensor &b) {
  requireMinRank("bias_add", x, "x", 2);
  requireRank("bias_add", b, "bias", 1);
  requireSameDType("bias_add", x, "x", b, "bias");
  if (b.dim(0) != x.dim(-1))
    throw std::invalid_argument(
        opError("bias_add", "bias " + b.typeString() +
                                " must match the last dimension of x " +
                                x.typeString()));
  return dispatchNumeric("bias_add", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
    const int64_t channels = b.numElements();
    const T *px = x.data<T>();
    const T *pb = b.data<T>();
    T *po = out.data<T>();
    for (int64_t base = 0, n = x.numElements(); base < n; base += channels)
      for (int64_t c = 0; c < channels; ++c)
        po[base + c] = px[base + c] + pb[c];
    return out;
  });
}

Tensor bias_add_grad(const Tensor &dy) {
  requireMinRank("bias_add_grad", dy, "dy", 2);
  return dispatchNumeric("bias_add_grad", dy.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = AccumulatorT<T>;
    const int64_t channels = dy.dim(-1);
    std::vector<Acc> sums(channels, Acc(0));
    const T *pdy = dy.data<T>();
    for (int64_t base = 0, n = dy.numElements(); base < n; base += channels)
      for (int64_t c = 0; c < channels; ++c)
        sums[c] += pdy[base + c];
    Tensor out = Tensor::uninitialized(dy.dtype(), {channels});
    std::copy(sums.begin(), sums.end(), out.data<T>());
    return out;
  });
}

Tensor clip_by_value(const Tensor &x, double clip_min, double clip_max) {
  checkClipRange("clip_by_value", clip_min, clip_max);
  return dispatchNumeric("clip_by_value", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T lo = static_cast<T>(clip_min);
    const T hi = static_cast<T>(clip_max);
    return mapUnary<T>(x, [=](T v) { return std::min(std::max(v, lo), hi); });
  });
}

Tensor clip_by_value_grad(const Tensor &dy, const Tensor &x, double clip_min,
                          double clip_max) {
  checkClipRange("clip_by_value_grad", clip_min, clip_max);
  requireSameType("clip_by_value_grad", dy, "dy", x, "x");
  return dispatchNumeric("clip_by_value_grad", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T lo = static_cast<T>(clip_min);
    const T hi = static_cast<T>(clip_max);
    return zipSameShape<T>(
        dy, x, [=](T g, T v) { return lo <= v && v <= hi ? g : T(0); });
  });
}

Tensor cast(const Tensor &x, DType dtype) {
  if (x.dtype() == dtype)
    return x.clone();
  return dispatchAny("cast", x.dtype(), [&](auto fromTag) {
    using From = typename decltype(fromTag)::type;
    return dispatchAny("cast", dtype, [&](auto toTag) {
      using To = typename decltype(toTag)::type;
      Tensor out = Tensor::uninitialized(dtype, x.shape());
      const From *in = x.data<From>();
      To *po = out.data<To>();
      for (int64_t i = 0, n = x.numElements(); i < n; ++i)
        po[i] = static_cast<To>(in[i]);
      return out;
    });
  });
}

//===----------------------------------------------------------------------===//
// Logistic regression
//===----------------------------------------------------------------------===//

namespace {
/// 1 / (1 + e^-x) through e = exp(-|x|) <= 1, which cannot overflow.
template <typename T> T stableSigmoid(T x) {
  const T e = std::exp(-std::abs(x));
  return (x >= 0 ? T(1) : e) / (T(1) + e);
}
} // namespace

Tensor sigmoid(const Tensor &x) {
  return floatUnary("sigmoid", x, [](auto v) { return stableSigmoid(v); });
}

Tensor sigmoid_grad(const Tensor &y, const Tensor &dy) {
  const char *op = "sigmoid_grad";
  requireSameType(op, y, "y", dy, "dy");
  return dispatchFloat(op, y.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return zipSameShape<T>(dy, y, [](T g, T v) { return g * v * (T(1) - v); });
  });
}

Tensor sigmoid_cross_entropy_with_logits(const Tensor &logits,
                                         const Tensor &labels) {
  const char *op = "sigmoid_cross_entropy_with_logits";
  requireSameType(op, logits, "logits", labels, "labels");
  return dispatchFloat(op, logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return zipSameShape<T>(logits, labels, [](T x, T z) {
      return std::max(x, T(0)) - x * z + std::log1p(std::exp(-std::abs(x)));
    });
  });
}

Tensor sigmoid_cross_entropy_with_logits_grad(const Tensor &dloss,
                                              const Tensor &logits,
                                              const Tensor &labels) {
  const char *op = "sigmoid_cross_entropy_with_logits_grad";
  requireSameType(op, logits, "logits", labels, "labels");
  requireSameType(op, dloss, "dloss", logits, "logits");
  return dispatchFloat(op, logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out = Tensor::uninitialized(logits.dtype(), logits.shape());
    const T *pd = dloss.data<T>();
    const T *px = logits.data<T>();
    const T *pz = labels.data<T>();
    T *po = out.data<T>();
    for (int64_t i = 0, n = logits.numElements(); i < n; ++i)
      po[i] = pd[i] * (stableSigmoid(px[i]) - pz[i]);
    return out;
  });
}

} // namespace dtf::kernels
