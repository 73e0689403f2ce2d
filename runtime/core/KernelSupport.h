//===- KernelSupport.h - Shared helpers for kernel implementations --------===//
//
// Private to the runtime library. Provides run-time dtype dispatch onto
// templated kernel bodies and the argument checks every kernel repeats.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace dtf::kernels {

/// Carries an element type into a generic lambda: `[](auto tag) { using T =
/// typename decltype(tag)::type; ... }`.
template <typename T> struct TypeTag { using type = T; };

/// "<op>: <message>", the form of every kernel diagnostic; op names are the
/// public function names, which are unique across the runtime.
std::string opError(const char *op, const std::string &message);

[[noreturn]] void throwUnsupportedDType(const char *op, DType dtype,
                                        const char *supported);

/// Calls fn(TypeTag<T>{}) for the C++ type of `dtype`, restricted to f32/f64.
template <typename Fn>
decltype(auto) dispatchFloat(const char *op, DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F32:
    return fn(TypeTag<float>{});
  case DType::F64:
    return fn(TypeTag<double>{});
  default:
    throwUnsupportedDType(op, dtype, "f32, f64");
  }
}

/// As dispatchFloat, for f32/f64/i32/i64.
template <typename Fn>
decltype(auto) dispatchNumeric(const char *op, DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F32:
    return fn(TypeTag<float>{});
  case DType::F64:
    return fn(TypeTag<double>{});
  case DType::I32:
    return fn(TypeTag<int32_t>{});
  case DType::I64:
    return fn(TypeTag<int64_t>{});
  default:
    throwUnsupportedDType(op, dtype, "f32, f64, i32, i64");
  }
}

/// As dispatchFloat, for every dtype.
template <typename Fn>
decltype(auto) dispatchAny(const char *op, DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F32:
    return fn(TypeTag<float>{});
  case DType::F64:
    return fn(TypeTag<double>{});
  case DType::I32:
    return fn(TypeTag<int32_t>{});
  case DType::I64:
    return fn(TypeTag<int64_t>{});
  case DType::Bool:
    return fn(TypeTag<bool>{});
  }
  throwUnsupportedDType(op, dtype, "f32, f64, i32, i64, bool");
}

/// Throws unless `a` and `b` have the same dtype.
void requireSameDType(const char *op, const Tensor &a, const char *aName,
                      const Tensor &b, const char *bName);
/// Throws unless `a` and `b` have the same dtype and shape.
void requireSameType(const char *op, const Tensor &a, const char *aName,
                     const Tensor &b, const char *bName);
/// Throws unless `t` has the given rank.
void requireRank(const char *op, const Tensor &t, const char *name,
                 int64_t rank);
/// Throws unless `t` has at least the given rank.
void requireMinRank(const char *op, const Tensor &t, const char *name,
                    int64_t rank);
/// Maps a possibly negative axis into [0, rank); throws if out of range.
int64_t normalizeAxis(const char *op, int64_t axis, int64_t rank);

/// Wider type used to accumulate sums: double for floating point so that long
/// float reductions do not drift, the type itself for integers (whose sums are
/// exact until they overflow, as in TensorFlow).
/// Whether `v` is a NaN; never for integers (the kernels' NaN rules, as
/// TensorFlow's Minimum or Max, written once for every dtype).
template <typename T> bool isNaN(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

template <typename T> struct Accumulator { using type = T; };
template <> struct Accumulator<float> { using type = double; };
template <typename T> using AccumulatorT = typename Accumulator<T>::type;

/// Row-major strides of `shape` as seen from the broadcast result
/// `outShape`: right-aligned, with 0 for dimensions that are broadcast
/// (size 1 in `shape`, or absent). Returns outShape.size() entries.
std::vector<int64_t> broadcastStrides(const Shape &shape,
                                      const Shape &outShape);

/// Walks `outShape` one innermost row at a time, calling
/// rowFn(outOffset, offsets) where offsets[k] is the element offset of the
/// row start in operand k (with strides[k] as from broadcastStrides). The
/// row length is outShape.back() and the operand k's element stride along
/// the row is strides[k].back(). `outShape` must have rank >= 1 and no zero
/// dimensions.
template <size_t NumOperands, typename RowFn>
void forEachBroadcastRow(const Shape &outShape,
                         const std::vector<int64_t> (&strides)[NumOperands],
                         RowFn &&rowFn) {
  const size_t rank = outShape.size();
  const int64_t rowLength = outShape[rank - 1];
  const int64_t numRows = numElementsOf(outShape) / rowLength;
  std::vector<int64_t> index(rank, 0);
  int64_t offsets[NumOperands] = {};
  for (int64_t row = 0; row < numRows; ++row) {
    rowFn(row * rowLength, offsets);
    // Odometer increment over the outer dimensions, updating each operand's
    // offset incrementally instead of recomputing it from the index.
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < outShape[d]) {
        for (size_t k = 0; k < NumOperands; ++k)
          offsets[k] += strides[k][d];
        break;
      }
      index[d] = 0;
      for (size_t k = 0; k < NumOperands; ++k)
        offsets[k] -= strides[k][d] * (outShape[d] - 1);
    }
  }
}

} // namespace dtf::kernels
