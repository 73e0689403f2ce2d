//===- LayerMath.cpp - transpose, log_softmax, one_hot, tile, batch_matmul ===//
//
// The layer math of TF1 models that none of the other kernel files holds:
// permutations and tilings of a tensor, log-softmax, one-hot encodings and
// batched matrix products (reduce_prod is with the other reductions).
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/Blas.h"
#include "runtime/core/KernelSupport.h"

#include <algorithm>
#include <cmath>

namespace dtf::kernels {

namespace {

/// Row-major strides of `shape`, in elements.
std::vector<int64_t> rowMajorStrides(const Shape &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  return strides;
}

/// Calls fn(outOffset, inOffset) for every element of `outShape` in
/// row-major order, where inOffset advances by inStrides[d] along output
/// dimension d: a gather of x's elements whose strides map them.
template <typename Fn>
void forEachMappedElement(const Shape &outShape,
                          const std::vector<int64_t> &inStrides, Fn &&fn) {
  const int64_t count = numElementsOf(outShape);
  const size_t rank = outShape.size();
  std::vector<int64_t> index(rank, 0);
  int64_t inOffset = 0;
  for (int64_t outOffset = 0; outOffset < count; ++outOffset) {
    fn(outOffset, inOffset);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < outShape[d]) {
        inOffset += inStrides[d];
        break;
      }
      index[d] = 0;
      inOffset -= inStrides[d] * (outShape[d] - 1);
    }
  }
}

} // namespace

Tensor transpose(const Tensor &x, const std::vector<int64_t> &permutation) {
  const int64_t rank = x.rank();
  if (static_cast<int64_t>(permutation.size()) != rank)
    throw std::invalid_argument(opError(
        "transpose", "permutation of " + std::to_string(permutation.size()) +
                         " dimensions for " + x.typeString()));
  std::vector<bool> named(rank, false);
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= rank || named[dim])
      throw std::invalid_argument(opError(
          "transpose", "permutation names dimension " + std::to_string(dim) +
                           " out of range or twice for " + x.typeString()));
    named[dim] = true;
  }
  std::vector<int64_t> strides = rowMajorStrides(x.shape());
  Shape shape;
  std::vector<int64_t> inStrides;
  for (int64_t dim : permutation) {
    shape.push_back(x.dim(dim));
    inStrides.push_back(strides[dim]);
  }
  return dispatchAny("transpose", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out = Tensor::uninitialized(x.dtype(), shape);
    const T *px = x.data<T>();
    T *po = out.data<T>();
    forEachMappedElement(shape, inStrides,
                         [&](int64_t o, int64_t i) { po[o] = px[i]; });
    return out;
  });
}

Tensor log_softmax(const Tensor &x) {
  requireMinRank("log_softmax", x, "logits", 1);
  return dispatchFloat("log_softmax", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out = Tensor::uninitialized(x.dtype(), x.shape());
    const int64_t length = x.dim(-1);
    if (length == 0)
      return out;
    const int64_t rows = x.numElements() / length;
    const T *px = x.data<T>();
    T *po = out.data<T>();
    for (int64_t r = 0; r < rows; ++r) {
      const T *row = px + r * length;
      T *result = po + r * length;
      const T maxValue = *std::max_element(row, row + length);
      T sum = 0;
      for (int64_t i = 0; i < length; ++i) {
        result[i] = row[i] - maxValue;
        sum += std::exp(result[i]);
      }
      const T logSum = std::log(sum);
      for (int64_t i = 0; i < length; ++i)
        result[i] -= logSum;
    }
    return out;
  });
}

Tensor one_hot(const Tensor &indices, int64_t depth, double on_value,
               double off_value, DType dtype) {
  if (indices.dtype() != DType::I32 && indices.dtype() != DType::I64)
    throw std::invalid_argument(opError(
        "one_hot", "indices must be i32 or i64, got " + indices.typeString()));
  if (depth < 0)
    throw std::invalid_argument(
        opError("one_hot", "depth must be >= 0, got " + std::to_string(depth)));
  Shape shape = indices.shape();
  shape.push_back(depth);
  return dispatchFloat("one_hot", dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out = Tensor::filled(dtype, shape, off_value);
    T *po = out.data<T>();
    for (int64_t i = 0; i < indices.numElements(); ++i) {
      int64_t id = indices.dtype() == DType::I64
                       ? indices.data<int64_t>()[i]
                       : int64_t(indices.data<int32_t>()[i]);
      if (id >= 0 && id < depth)
        po[i * depth + id] = static_cast<T>(on_value);
    }
    return out;
  });
}

Tensor tile(const Tensor &x, const std::vector<int64_t> &multiples) {
  const int64_t rank = x.rank();
  if (static_cast<int64_t>(multiples.size()) != rank)
    throw std::invalid_argument(
        opError("tile", std::to_string(multiples.size()) + " multiples for " +
                            x.typeString() + ", not one per dimension"));
  Shape shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (multiples[d] < 0)
      throw std::invalid_argument(opError(
          "tile", "multiple " + std::to_string(multiples[d]) +
                      " of dimension " + std::to_string(d) + " is negative"));
    shape.push_back(x.dim(d) * multiples[d]);
  }
  std::vector<int64_t> strides = rowMajorStrides(x.shape());
  return dispatchAny("tile", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out = Tensor::uninitialized(x.dtype(), shape);
    const T *px = x.data<T>();
    T *po = out.data<T>();
    const int64_t count = out.numElements();
    // Odometer over the output; `coordinate` is the input's index, which
    // wraps to 0 at the end of each copy of a dimension.
    std::vector<int64_t> index(rank, 0), coordinate(rank, 0);
    int64_t inOffset = 0;
    for (int64_t o = 0; o < count; ++o) {
      po[o] = px[inOffset];
      for (int64_t d = rank; d-- > 0;) {
        inOffset -= coordinate[d] * strides[d];
        if (++index[d] < shape[d]) {
          coordinate[d] = index[d] % x.dim(d);
          inOffset += coordinate[d] * strides[d];
          break;
        }
        index[d] = 0;
        coordinate[d] = 0;
      }
    }
    return out;
  });
}

Tensor batch_matmul(const Tensor &x, const Tensor &y, bool adj_x, bool adj_y) {
  requireMinRank("batch_matmul", x, "x", 2);
  requireMinRank("batch_matmul", y, "y", 2);
  requireSameDType("batch_matmul", x, "x", y, "y");
  const int64_t m = x.dim(adj_x ? -1 : -2);
  const int64_t k = x.dim(adj_x ? -2 : -1);
  const int64_t ky = y.dim(adj_y ? -1 : -2);
  const int64_t n = y.dim(adj_y ? -2 : -1);
  if (k != ky)
    throw std::invalid_argument(opError(
        "batch_matmul", "inner dimensions differ: x is " + x.typeString() +
                            (adj_x ? " (adjoint)" : "") + ", y is " +
                            y.typeString() + (adj_y ? " (adjoint)" : "")));
  const Shape xBatch(x.shape().begin(), x.shape().end() - 2);
  const Shape yBatch(y.shape().begin(), y.shape().end() - 2);
  Shape batch;
  try {
    batch = broadcastShapes(xBatch, yBatch);
  } catch (const std::invalid_argument &) {
    throw std::invalid_argument(opError(
        "batch_matmul", "batch dimensions of " + x.typeString() + " and " +
                            y.typeString() + " are not broadcast-compatible"));
  }
  Shape shape = batch;
  shape.push_back(m);
  shape.push_back(n);
  const int64_t batches = numElementsOf(batch);
  // Strides in matrices; 0 along the batch dimensions an operand broadcasts.
  const std::vector<int64_t> xStrides = broadcastStrides(xBatch, batch);
  const std::vector<int64_t> yStrides = broadcastStrides(yBatch, batch);
  return dispatchFloat("batch_matmul", x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    // gemm with beta 0 writes every element.
    Tensor out = Tensor::uninitialized(x.dtype(), shape);
    const T *px = x.data<T>();
    const T *py = y.data<T>();
    T *po = out.data<T>();
    const int64_t xMatrix = x.dim(-2) * x.dim(-1);
    const int64_t yMatrix = y.dim(-2) * y.dim(-1);
    std::vector<int64_t> index(batch.size(), 0);
    int64_t xOffset = 0, yOffset = 0;
    for (int64_t b = 0; b < batches; ++b) {
      gemm(adj_x, adj_y, m, n, k, T(1), px + xOffset * xMatrix, x.dim(-1),
           py + yOffset * yMatrix, y.dim(-1), T(0), po + b * m * n, n);
      for (size_t d = batch.size(); d-- > 0;) {
        if (++index[d] < batch[d]) {
          xOffset += xStrides[d];
          yOffset += yStrides[d];
          break;
        }
        index[d] = 0;
        xOffset -= xStrides[d] * (batch[d] - 1);
        yOffset -= yStrides[d] * (batch[d] - 1);
      }
    }
    return out;
  });
}

} // namespace dtf::kernels
