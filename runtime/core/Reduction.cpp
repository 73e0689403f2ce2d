//===- Reduction.cpp - Reductions, argmax and shape kernels ---------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/KernelSupport.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace dtf::kernels {

namespace {

struct ReductionPlan {
  /// Input shape with reduced dimensions set to 1.
  Shape keptShape;
  /// Shape of the result (keptShape, or with reduced dimensions dropped).
  Shape outShape;
  /// Product of the reduced dimensions.
  int64_t reducedCount = 1;
};

ReductionPlan planReduction(const char *op, const Shape &inShape,
                            const std::vector<int64_t> &axes, bool keepDims) {
  const int64_t rank = static_cast<int64_t>(inShape.size());
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes) {
    int64_t a = normalizeAxis(op, axis, rank);
    if (reduced[a])
      throw std::invalid_argument(opError(
          op, "axis " + std::to_string(axis) + " is listed twice for shape " +
                  shapeToString(inShape)));
    reduced[a] = true;
  }
  ReductionPlan plan;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) {
      plan.reducedCount *= inShape[d];
      plan.keptShape.push_back(1);
      if (keepDims)
        plan.outShape.push_back(1);
    } else {
      plan.keptShape.push_back(inShape[d]);
      plan.outShape.push_back(inShape[d]);
    }
  }
  return plan;
}

/// Sums x into one accumulator per output element (in keptShape order).
template <typename T>
std::vector<AccumulatorT<T>> accumulateSums(const Tensor &x,
                                            const ReductionPlan &plan) {
  using Acc = AccumulatorT<T>;
  std::vector<Acc> sums(numElementsOf(plan.keptShape), Acc(0));
  const T *px = x.data<T>();
  if (x.numElements() == 0)
    return sums;
  if (x.rank() == 0) {
    sums[0] = px[0];
    return sums;
  }
  // Viewing the output as keptShape broadcast up to the input shape, every
  // input element adds into the output element it would be broadcast from.
  const std::vector<int64_t> strides[1] = {
      broadcastStrides(plan.keptShape, x.shape())};
  const bool rowReduced = strides[0].back() == 0;
  const int64_t length = x.dim(-1);
  forEachBroadcastRow(x.shape(), strides,
                      [&](int64_t inOffset, const int64_t *offsets) {
                        const T *row = px + inOffset;
                        Acc *target = sums.data() + offsets[0];
                        if (rowReduced) {
                          Acc sum = 0;
                          for (int64_t i = 0; i < length; ++i)
                            sum += row[i];
                          *target += sum;
                        } else {
                          for (int64_t i = 0; i < length; ++i)
                            target[i] += row[i];
                        }
                      });
  return sums;
}

/// Reduces x with `keep(best, candidate)` choosing between two elements,
/// from `initial`, into one result per output element: max and min, whose
/// NaN wins as in TensorFlow.
template <typename T, typename Keep>
Tensor reduceExtremum(const Tensor &x, const ReductionPlan &plan, T initial,
                      Keep keep) {
  Tensor out = Tensor::uninitialized(x.dtype(), plan.outShape);
  T *po = out.data<T>();
  std::fill(po, po + out.numElements(), initial);
  const T *px = x.data<T>();
  if (x.numElements() == 0)
    return out;
  if (x.rank() == 0) {
    po[0] = keep(po[0], px[0]);
    return out;
  }
  // As accumulateSums: every input element meets the output element it
  // would be broadcast from.
  const std::vector<int64_t> strides[1] = {
      broadcastStrides(plan.keptShape, x.shape())};
  const int64_t length = x.dim(-1);
  const bool rowReduced = strides[0].back() == 0;
  forEachBroadcastRow(x.shape(), strides,
                      [&](int64_t inOffset, const int64_t *offsets) {
                        const T *row = px + inOffset;
                        T *target = po + offsets[0];
                        if (rowReduced) {
                          for (int64_t i = 0; i < length; ++i)
                            *target = keep(*target, row[i]);
                        } else {
                          for (int64_t i = 0; i < length; ++i)
                            target[i] = keep(target[i], row[i]);
                        }
                      });
  return out;
}

/// What an empty max gives, as TensorFlow: -inf, or the lowest integer.
template <typename T> T lowestValue() {
  if constexpr (std::numeric_limits<T>::has_infinity)
    return -std::numeric_limits<T>::infinity();
  else
    return std::numeric_limits<T>::lowest();
}

/// What an empty min gives: inf, or the highest integer.
template <typename T> T highestValue() {
  if constexpr (std::numeric_limits<T>::has_infinity)
    return std::numeric_limits<T>::infinity();
  else
    return std::numeric_limits<T>::max();
}

} // namespace

Tensor reduce_max(const Tensor &x, const std::vector<int64_t> &axes,
                  bool keep_dims) {
  ReductionPlan plan = planReduction("reduce_max", x.shape(), axes, keep_dims);
  return dispatchNumeric("reduce_max", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return reduceExtremum<T>(x, plan, lowestValue<T>(), [](T best, T v) {
      return isNaN(best) || !(isNaN(v) || v > best) ? best : v;
    });
  });
}

Tensor reduce_prod(const Tensor &x, const std::vector<int64_t> &axes,
                   bool keep_dims) {
  ReductionPlan plan = planReduction("reduce_prod", x.shape(), axes, keep_dims);
  return dispatchNumeric("reduce_prod", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    // A product folds as an extremum does: one running value per output
    // element, each input element folded into it in turn.
    return reduceExtremum<T>(x, plan, T(1),
                             [](T product, T v) { return product * v; });
  });
}

Tensor reduce_prod_grad(const Tensor &x, const Tensor &dy,
                        const std::vector<int64_t> &axes, bool keep_dims) {
  ReductionPlan plan =
      planReduction("reduce_prod_grad", x.shape(), axes, keep_dims);
  requireSameDType("reduce_prod_grad", x, "x", dy, "dy");
  if (dy.shape() != plan.outShape)
    throw std::invalid_argument(opError(
        "reduce_prod_grad", "dy " + dy.typeString() + " is not the shape " +
                                shapeToString(plan.outShape) +
                                " of reduce_prod of " + x.typeString()));
  return dispatchFloat("reduce_prod_grad", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
    if (x.numElements() == 0)
      return out;
    const T *px = x.data<T>();
    const T *pdy = dy.data<T>();
    T *po = out.data<T>();
    // The elements of each slice in row-major order, as x's offsets.
    std::vector<std::vector<int64_t>> slices(numElementsOf(plan.keptShape));
    if (x.rank() == 0) {
      slices[0].push_back(0);
    } else {
      const std::vector<int64_t> strides[1] = {
          broadcastStrides(plan.keptShape, x.shape())};
      const int64_t length = x.dim(-1);
      const int64_t step = strides[0].back();
      forEachBroadcastRow(
          x.shape(), strides, [&](int64_t inOffset, const int64_t *offsets) {
            for (int64_t i = 0; i < length; ++i)
              slices[offsets[0] + i * step].push_back(inOffset + i);
          });
    }
    // As TensorFlow: the exclusive cumulative products from the left and
    // from the right, their product, times dy.
    for (size_t s = 0; s < slices.size(); ++s) {
      const std::vector<int64_t> &members = slices[s];
      T left = 1;
      for (int64_t offset : members) {
        po[offset] = left;
        left *= px[offset];
      }
      T right = 1;
      for (size_t i = members.size(); i-- > 0;) {
        po[members[i]] = po[members[i]] * right * pdy[s];
        right *= px[members[i]];
      }
    }
    return out;
  });
}

Tensor reduce_min(const Tensor &x, const std::vector<int64_t> &axes,
                  bool keep_dims) {
  ReductionPlan plan = planReduction("reduce_min", x.shape(), axes, keep_dims);
  return dispatchNumeric("reduce_min", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return reduceExtremum<T>(x, plan, highestValue<T>(), [](T best, T v) {
      return isNaN(best) || !(isNaN(v) || v < best) ? best : v;
    });
  });
}

Tensor reduce_sum(const Tensor &x, const std::vector<int64_t> &axes,
                  bool keep_dims) {
  ReductionPlan plan = planReduction("reduce_sum", x.shape(), axes, keep_dims);
  return dispatchNumeric("reduce_sum", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto sums = accumulateSums<T>(x, plan);
    Tensor out(x.dtype(), plan.outShape);
    std::transform(sums.begin(), sums.end(), out.data<T>(),
                   [](auto s) { return static_cast<T>(s); });
    return out;
  });
}

Tensor reduce_mean(const Tensor &x, const std::vector<int64_t> &axes,
                   bool keep_dims) {
  ReductionPlan plan = planReduction("reduce_mean", x.shape(), axes, keep_dims);
  return dispatchFloat("reduce_mean", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto sums = accumulateSums<T>(x, plan);
    // An empty reduction yields 0/0 = NaN, as in TensorFlow.
    const double count = static_cast<double>(plan.reducedCount);
    Tensor out(x.dtype(), plan.outShape);
    std::transform(sums.begin(), sums.end(), out.data<T>(),
                   [&](auto s) { return static_cast<T>(s / count); });
    return out;
  });
}

Tensor argmax(const Tensor &x, int64_t axis) {
  requireMinRank("argmax", x, "x", 1);
  const int64_t a = normalizeAxis("argmax", axis, x.rank());
  const int64_t length = x.dim(a);
  if (length == 0)
    throw std::invalid_argument(
        opError("argmax", "cannot take argmax over empty axis " +
                              std::to_string(axis) + " of " + x.typeString()));
  Shape outShape = x.shape();
  outShape.erase(outShape.begin() + a);
  const int64_t outer =
      numElementsOf(Shape(x.shape().begin(), x.shape().begin() + a));
  const int64_t inner =
      numElementsOf(Shape(x.shape().begin() + a + 1, x.shape().end()));
  return dispatchNumeric("argmax", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out(DType::I64, outShape);
    const T *px = x.data<T>();
    int64_t *pi = out.data<int64_t>();
    std::vector<T> best(inner);
    for (int64_t o = 0; o < outer; ++o) {
      // Scan the axis slice by slice so the inner loop is contiguous; the
      // strict comparison keeps the first maximum.
      const T *block = px + o * length * inner;
      int64_t *index = pi + o * inner;
      std::copy(block, block + inner, best.begin());
      std::fill(index, index + inner, 0);
      for (int64_t k = 1; k < length; ++k) {
        const T *slice = block + k * inner;
        for (int64_t i = 0; i < inner; ++i)
          if (slice[i] > best[i]) {
            best[i] = slice[i];
            index[i] = k;
          }
      }
    }
    return out;
  });
}

Tensor broadcast_to(const Tensor &x, const Shape &shape) {
  bool compatible;
  try {
    compatible = broadcastShapes(x.shape(), shape) == shape;
  } catch (const std::invalid_argument &) {
    compatible = false;
  }
  if (!compatible)
    throw std::invalid_argument(
        opError("broadcast_to", "cannot broadcast " + x.typeString() +
                                    " to shape " + shapeToString(shape)));
  if (x.numElements() == numElementsOf(shape)) {
    // Only size-1 dimensions are added: the data is already laid out right.
    Tensor out = x.clone();
    out.reshape(shape);
    return out;
  }
  return dispatchAny("broadcast_to", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out(x.dtype(), shape);
    if (out.numElements() == 0)
      return out;
    const T *px = x.data<T>();
    T *po = out.data<T>();
    const std::vector<int64_t> strides[1] = {
        broadcastStrides(x.shape(), shape)};
    const bool contiguous = strides[0].back() == 1;
    const int64_t length = shape.back();
    forEachBroadcastRow(
        shape, strides, [&](int64_t outOffset, const int64_t *offsets) {
          const T *row = px + offsets[0];
          if (contiguous)
            std::copy(row, row + length, po + outOffset);
          else
            std::fill(po + outOffset, po + outOffset + length, row[0]);
        });
    return out;
  });
}

Tensor reshape(Tensor x, const Shape &shape) {
  Shape resolved = shape;
  auto inferred = std::find(resolved.begin(), resolved.end(), -1);
  if (inferred != resolved.end()) {
    if (std::find(inferred + 1, resolved.end(), -1) != resolved.end())
      throw std::invalid_argument(opError(
          "reshape", "at most one -1 allowed in " + shapeToString(shape)));
    *inferred = 1;
    const int64_t known = numElementsOf(resolved);
    if (known == 0 || x.numElements() % known != 0)
      throw std::invalid_argument(
          opError("reshape", "cannot infer the -1 in " + shapeToString(shape) +
                                 " for " + x.typeString()));
    *inferred = x.numElements() / known;
  }
  try {
    x.reshape(std::move(resolved));
  } catch (const std::invalid_argument &) {
    throw std::invalid_argument(opError("reshape", "cannot reshape " +
                                                       x.typeString() + " to " +
                                                       shapeToString(shape)));
  }
  return x;
}

} // namespace dtf::kernels
