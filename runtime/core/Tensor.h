//===- Tensor.h - Dense host tensor ---------------------------------------===//
//
// A Tensor owns one contiguous, row-major buffer of a single element type.
// Moving is cheap (the buffer changes hands); copying is explicit through
// clone() so that accidental deep copies of large activations cannot happen.
//
// This header deliberately contains no `throw`: the MLIR side of the project
// is compiled with -fno-exceptions and may include it. All checks that can
// fail live out of line in Tensor.cpp.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dtf {

enum class DType { F32, F64, I32, I64, Bool };

using Shape = std::vector<int64_t>;

/// Size in bytes of one element of `dtype`.
size_t dtypeSize(DType dtype);
/// Short lowercase name used in diagnostics: "f32", "f64", "i32", "i64",
/// "bool".
const char *dtypeName(DType dtype);
/// Renders a shape as "[2,3]"; a scalar renders as "[]".
std::string shapeToString(const Shape &shape);
/// Product of the dimensions (1 for a scalar). Throws std::invalid_argument
/// on a negative dimension.
int64_t numElementsOf(const Shape &shape);
/// NumPy broadcasting of two shapes (right-aligned, size-1 dims stretch).
/// Throws std::invalid_argument naming both shapes when incompatible.
Shape broadcastShapes(const Shape &a, const Shape &b);

/// Maps a C++ element type to its DType. `bool` is stored as one byte.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> {
  static constexpr DType value = DType::F32;
};
template <> struct DTypeOf<double> {
  static constexpr DType value = DType::F64;
};
template <> struct DTypeOf<int32_t> {
  static constexpr DType value = DType::I32;
};
template <> struct DTypeOf<int64_t> {
  static constexpr DType value = DType::I64;
};
template <> struct DTypeOf<bool> {
  static constexpr DType value = DType::Bool;
};
template <typename T> inline constexpr DType dtypeOf = DTypeOf<T>::value;

static_assert(sizeof(bool) == 1, "Bool tensors store one byte per element");

class Tensor {
public:
  /// The empty tensor: f32 of shape [0], no buffer.
  Tensor();
  /// A zero-filled tensor.
  Tensor(DType dtype, Shape shape);

  static Tensor zeros(DType dtype, Shape shape);
  /// A tensor whose elements are left unset, for code that writes every
  /// one of them next (a copy, a decoder, a kernel): it saves the zeroing
  /// pass over memory that the constructor makes.
  static Tensor uninitialized(DType dtype, Shape shape);
  /// A tensor over memory it does not own, such as a received message's
  /// buffer: `owner` is kept while the tensor lives and released with it.
  /// `data` must be aligned for `dtype` and hold the whole tensor.
  static Tensor view(DType dtype, Shape shape, void *data,
                     std::shared_ptr<const void> owner);
  /// Every element set to `value` converted to `dtype` (Bool: value != 0).
  static Tensor filled(DType dtype, Shape shape, double value);
  /// Copies `values` (row-major) into a new tensor of dtype dtypeOf<T>.
  /// Throws std::invalid_argument if the count does not match `shape`.
  template <typename T>
  static Tensor fromVector(Shape shape, const std::vector<T> &values);
  /// A rank-0 tensor holding `value`.
  template <typename T> static Tensor scalar(T value);

  Tensor(Tensor &&other) noexcept;
  Tensor &operator=(Tensor &&other) noexcept;
  Tensor(const Tensor &) = delete;
  Tensor &operator=(const Tensor &) = delete;
  ~Tensor() = default;

  /// Deep copy.
  Tensor clone() const;
  void swap(Tensor &other) noexcept;

  DType dtype() const { return dtype_; }
  const Shape &shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  /// Size of dimension `axis`; negative axes count from the back.
  int64_t dim(int64_t axis) const;
  int64_t numElements() const { return numElements_; }
  size_t byteSize() const {
    return static_cast<size_t>(numElements_) * dtypeSize(dtype_);
  }

  /// Typed element access; throws std::invalid_argument if T does not match
  /// dtype().
  template <typename T> T *data() {
    checkDType(dtypeOf<T>);
    return reinterpret_cast<T *>(buffer_.get());
  }
  template <typename T> const T *data() const {
    checkDType(dtypeOf<T>);
    return reinterpret_cast<const T *>(buffer_.get());
  }
  void *rawData() { return buffer_.get(); }
  const void *rawData() const { return buffer_.get(); }

  /// Copies the elements out (row-major); dtype-checked like data<T>().
  template <typename T> std::vector<T> toVector() const {
    const T *begin = data<T>();
    return std::vector<T>(begin, begin + numElements_);
  }

  /// The single element converted to double, for scalar operands such as a
  /// learning rate. Throws unless numElements() == 1.
  double scalarAsDouble() const;

  /// Changes the shape without touching the buffer. Throws
  /// std::invalid_argument if the element count differs.
  void reshape(Shape newShape);

  /// "f32[2,3]".
  std::string typeString() const;

private:
  /// Frees an owned buffer; for a view, releases its owner instead.
  struct BufferRelease {
    mutable std::shared_ptr<const void> viewOwner;
    void operator()(std::byte *p) const;
  };

  void checkDType(DType requested) const;
  static void checkValueCount(const Shape &shape, size_t count);

  DType dtype_;
  Shape shape_;
  int64_t numElements_;
  std::unique_ptr<std::byte[], BufferRelease> buffer_;
};

template <typename T>
Tensor Tensor::fromVector(Shape shape, const std::vector<T> &values) {
  checkValueCount(shape, values.size());
  Tensor result(dtypeOf<T>, std::move(shape));
  T *out = result.data<T>();
  // Element-wise copy rather than memcpy so std::vector<bool> works too.
  for (size_t i = 0; i < values.size(); ++i)
    out[i] = values[i];
  return result;
}

template <typename T> Tensor Tensor::scalar(T value) {
  Tensor result(dtypeOf<T>, Shape{});
  *result.data<T>() = value;
  return result;
}

/// The value of every variable, by name: the state a PS task or a worker
/// holds.
using VariableStore = std::map<std::string, Tensor>;

/// Tensors fed to placeholders, by placeholder name: a step's feed_dict.
using FeedMap = std::map<std::string, Tensor>;

/// A tensor with the name it travels under (a variable, a gradient).
struct NamedTensor {
  std::string name;
  Tensor tensor;
};

/// A named tensor to send, by reference: the caller keeps it alive until
/// the call returns.
struct TensorRef {
  std::string name;
  const Tensor *tensor;
};

} // namespace dtf
