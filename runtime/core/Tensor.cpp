//===- Tensor.cpp - Dense host tensor -------------------------------------===//

#include "runtime/core/Tensor.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <sstream>
#include <stdexcept>

namespace dtf {

namespace {
// Cache-line alignment lets the compiler use aligned vector loads in the
// element-wise loops and keeps BLAS on its fast path.
constexpr std::align_val_t kBufferAlignment{64};

template <typename T> void fillAs(void *buffer, int64_t count, double value) {
  T *out = static_cast<T *>(buffer);
  std::fill(out, out + count, static_cast<T>(value));
}
} // namespace

size_t dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return 4;
  case DType::F64:
    return 8;
  case DType::I32:
    return 4;
  case DType::I64:
    return 8;
  case DType::Bool:
    return 1;
  }
  throw std::invalid_argument("dtypeSize: invalid DType value");
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::Bool:
    return "bool";
  }
  throw std::invalid_argument("dtypeName: invalid DType value");
}

std::string shapeToString(const Shape &shape) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? "," : "") << shape[i];
  os << ']';
  return os.str();
}

int64_t numElementsOf(const Shape &shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0)
      throw std::invalid_argument("negative dimension in shape " +
                                  shapeToString(shape));
    count *= d;
  }
  return count;
}

Shape broadcastShapes(const Shape &a, const Shape &b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Right-aligned: missing leading dims behave as 1.
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw std::invalid_argument("shapes " + shapeToString(a) + " and " +
                                  shapeToString(b) +
                                  " are not broadcast-compatible");
    result[i] = da == 1 ? db : da;
  }
  return result;
}

void Tensor::BufferRelease::operator()(std::byte *p) const {
  if (viewOwner)
    viewOwner.reset();
  else
    ::operator delete[](p, kBufferAlignment);
}

Tensor::Tensor() : dtype_(DType::F32), shape_{0}, numElements_(0) {}

Tensor::Tensor(DType dtype, Shape shape)
    : Tensor(uninitialized(dtype, std::move(shape))) {
  if (byteSize() != 0)
    std::memset(buffer_.get(), 0, byteSize());
}

Tensor Tensor::uninitialized(DType dtype, Shape shape) {
  Tensor result;
  result.dtype_ = dtype;
  result.shape_ = std::move(shape);
  result.numElements_ = numElementsOf(result.shape_);
  size_t bytes = result.byteSize();
  if (bytes != 0)
    result.buffer_.reset(
        static_cast<std::byte *>(::operator new[](bytes, kBufferAlignment)));
  return result;
}

Tensor Tensor::view(DType dtype, Shape shape, void *data,
                    std::shared_ptr<const void> owner) {
  Tensor result;
  result.dtype_ = dtype;
  result.shape_ = std::move(shape);
  result.numElements_ = numElementsOf(result.shape_);
  if (reinterpret_cast<uintptr_t>(data) % dtypeSize(dtype) != 0)
    throw std::invalid_argument("a view of " + result.typeString() +
                                " must be aligned to " +
                                std::to_string(dtypeSize(dtype)) + " bytes");
  result.buffer_ = std::unique_ptr<std::byte[], BufferRelease>(
      static_cast<std::byte *>(data), BufferRelease{std::move(owner)});
  return result;
}

Tensor::Tensor(Tensor &&other) noexcept : Tensor() { swap(other); }

Tensor &Tensor::operator=(Tensor &&other) noexcept {
  Tensor moved(std::move(other));
  swap(moved);
  return *this;
}

void Tensor::swap(Tensor &other) noexcept {
  std::swap(dtype_, other.dtype_);
  shape_.swap(other.shape_);
  std::swap(numElements_, other.numElements_);
  buffer_.swap(other.buffer_);
}

Tensor Tensor::zeros(DType dtype, Shape shape) {
  return Tensor(dtype, std::move(shape));
}

Tensor Tensor::filled(DType dtype, Shape shape, double value) {
  Tensor result = uninitialized(dtype, std::move(shape));
  void *buffer = result.rawData();
  int64_t n = result.numElements();
  switch (dtype) {
  case DType::F32:
    fillAs<float>(buffer, n, value);
    break;
  case DType::F64:
    fillAs<double>(buffer, n, value);
    break;
  case DType::I32:
    fillAs<int32_t>(buffer, n, value);
    break;
  case DType::I64:
    fillAs<int64_t>(buffer, n, value);
    break;
  case DType::Bool:
    fillAs<bool>(buffer, n, value);
    break;
  }
  return result;
}

Tensor Tensor::clone() const {
  Tensor copy = uninitialized(dtype_, shape_);
  if (byteSize() != 0)
    std::memcpy(copy.rawData(), rawData(), byteSize());
  return copy;
}

int64_t Tensor::dim(int64_t axis) const {
  int64_t r = rank();
  if (axis < -r || axis >= r)
    throw std::out_of_range("Tensor::dim: axis " + std::to_string(axis) +
                            " out of range for " + typeString());
  return shape_[axis < 0 ? axis + r : axis];
}

double Tensor::scalarAsDouble() const {
  if (numElements_ != 1)
    throw std::invalid_argument("Tensor::scalarAsDouble: expected exactly one "
                                "element, got " +
                                typeString());
  switch (dtype_) {
  case DType::F32:
    return *data<float>();
  case DType::F64:
    return *data<double>();
  case DType::I32:
    return *data<int32_t>();
  case DType::I64:
    return static_cast<double>(*data<int64_t>());
  case DType::Bool:
    return *data<bool>() ? 1.0 : 0.0;
  }
  throw std::invalid_argument("Tensor::scalarAsDouble: invalid DType value");
}

void Tensor::reshape(Shape newShape) {
  if (numElementsOf(newShape) != numElements_)
    throw std::invalid_argument("reshape: cannot reshape " + typeString() +
                                " (" + std::to_string(numElements_) +
                                " elements) to " + shapeToString(newShape));
  shape_ = std::move(newShape);
}

std::string Tensor::typeString() const {
  return dtypeName(dtype_) + shapeToString(shape_);
}

void Tensor::checkDType(DType requested) const {
  if (requested != dtype_)
    throw std::invalid_argument(std::string("Tensor::data: requested ") +
                                dtypeName(requested) + " from a " +
                                typeString() + " tensor");
}

void Tensor::checkValueCount(const Shape &shape, size_t count) {
  if (static_cast<int64_t>(count) != numElementsOf(shape))
    throw std::invalid_argument("Tensor::fromVector: " + std::to_string(count) +
                                " values do not fill shape " +
                                shapeToString(shape));
}

} // namespace dtf
