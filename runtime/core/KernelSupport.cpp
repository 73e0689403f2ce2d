//===- KernelSupport.cpp - Shared helpers for kernel implementations ------===//

#include "runtime/core/KernelSupport.h"

namespace dtf::kernels {

std::string opError(const char *op, const std::string &message) {
  return std::string(op) + ": " + message;
}

void throwUnsupportedDType(const char *op, DType dtype, const char *supported) {
  throw std::invalid_argument(
      opError(op, std::string("unsupported dtype ") + dtypeName(dtype) +
                      " (supported: " + supported + ")"));
}

void requireSameDType(const char *op, const Tensor &a, const char *aName,
                      const Tensor &b, const char *bName) {
  if (a.dtype() != b.dtype())
    throw std::invalid_argument(opError(
        op, std::string("dtype mismatch: ") + aName + " is " + a.typeString() +
                " but " + bName + " is " + b.typeString()));
}

void requireSameType(const char *op, const Tensor &a, const char *aName,
                     const Tensor &b, const char *bName) {
  requireSameDType(op, a, aName, b, bName);
  if (a.shape() != b.shape())
    throw std::invalid_argument(opError(
        op, std::string("shape mismatch: ") + aName + " is " + a.typeString() +
                " but " + bName + " is " + b.typeString()));
}

void requireRank(const char *op, const Tensor &t, const char *name,
                 int64_t rank) {
  if (t.rank() != rank)
    throw std::invalid_argument(
        opError(op, std::string(name) + " must have rank " +
                        std::to_string(rank) + ", got " + t.typeString()));
}

void requireMinRank(const char *op, const Tensor &t, const char *name,
                    int64_t rank) {
  if (t.rank() < rank)
    throw std::invalid_argument(opError(
        op, std::string(name) + " must have rank >= " + std::to_string(rank) +
                ", got " + t.typeString()));
}

int64_t normalizeAxis(const char *op, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    throw std::invalid_argument(opError(op, "axis " + std::to_string(axis) +
                                                " out of range for rank " +
                                                std::to_string(rank)));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> broadcastStrides(const Shape &shape,
                                      const Shape &outShape) {
  const size_t rank = outShape.size();
  const size_t offset = rank - shape.size();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[offset + i] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

} // namespace dtf::kernels
