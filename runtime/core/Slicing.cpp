//===- Slicing.cpp - concat and slice -------------------------------------===//
//
// Both move whole rows of bytes: they are dtype-agnostic copies, done with
// one memcpy per contiguous run.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/KernelSupport.h"

#include <cstring>

namespace dtf::kernels {

Tensor concat(const std::vector<const Tensor *> &inputs, int64_t axis) {
  if (inputs.empty())
    throw std::invalid_argument(opError("concat", "needs at least one input"));
  const Tensor &first = *inputs.front();
  if (first.rank() == 0)
    throw std::invalid_argument(
        opError("concat", "cannot concatenate scalars (" +
                              first.typeString() + ")"));
  const int64_t a = normalizeAxis("concat", axis, first.rank());
  Shape shape = first.shape();
  shape[a] = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor &input = *inputs[i];
    bool compatible = input.dtype() == first.dtype() &&
                      input.rank() == first.rank();
    for (int64_t d = 0; compatible && d < first.rank(); ++d)
      compatible = d == a || input.dim(d) == first.dim(d);
    if (!compatible)
      throw std::invalid_argument(opError(
          "concat", "input #" + std::to_string(i) + " is " +
                        input.typeString() + " but input #0 is " +
                        first.typeString() + "; along axis " +
                        std::to_string(a) + " only the sizes may differ"));
    shape[a] += input.dim(a);
  }

  Tensor out(first.dtype(), shape);
  if (out.numElements() == 0)
    return out;
  // Each outer index takes one contiguous run from every input in turn.
  int64_t outer = 1;
  for (int64_t d = 0; d < a; ++d)
    outer *= shape[d];
  const size_t elementSize = dtypeSize(first.dtype());
  const size_t innerBytes =
      numElementsOf(Shape(shape.begin() + a + 1, shape.end())) * elementSize;
  auto *dst = static_cast<std::byte *>(out.rawData());
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor *input : inputs) {
      size_t run = input->dim(a) * innerBytes;
      if (run == 0)
        continue;
      std::memcpy(dst,
                  static_cast<const std::byte *>(input->rawData()) + o * run,
                  run);
      dst += run;
    }
  return out;
}

Tensor slice(const Tensor &x, const std::vector<int64_t> &offsets,
             const std::vector<int64_t> &sizes) {
  const int64_t rank = x.rank();
  if (static_cast<int64_t>(offsets.size()) != rank ||
      static_cast<int64_t>(sizes.size()) != rank)
    throw std::invalid_argument(opError(
        "slice", "offsets " + shapeToString(offsets) + " and sizes " +
                     shapeToString(sizes) + " must have one entry per "
                     "dimension of " + x.typeString()));
  Shape shape(rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = sizes[d] == -1 ? x.dim(d) - offsets[d] : sizes[d];
    if (offsets[d] < 0 || size < 0 || offsets[d] + size > x.dim(d))
      throw std::invalid_argument(opError(
          "slice", "offsets " + shapeToString(offsets) + " and sizes " +
                       shapeToString(sizes) + " leave " + x.typeString() +
                       " in dimension " + std::to_string(d)));
    shape[d] = size;
  }

  Tensor out(x.dtype(), shape);
  if (out.numElements() == 0)
    return out;
  const size_t elementSize = dtypeSize(x.dtype());
  if (rank == 0) {
    std::memcpy(out.rawData(), x.rawData(), elementSize);
    return out;
  }
  // The dimensions after `inner` are taken whole, so that each index of the
  // dimensions before it starts one contiguous run.
  int64_t inner = rank - 1;
  while (inner > 0 && shape[inner] == x.dim(inner))
    --inner;
  std::vector<int64_t> strides(rank, 1); // x's element strides
  for (int64_t d = rank - 1; d > 0; --d)
    strides[d - 1] = strides[d] * x.dim(d);
  const size_t runBytes = shape[inner] * strides[inner] * elementSize;

  const auto *src = static_cast<const std::byte *>(x.rawData());
  auto *dst = static_cast<std::byte *>(out.rawData());
  std::vector<int64_t> index(inner, 0); // over the dimensions before `inner`
  int64_t start = 0;
  for (int64_t d = 0; d < rank; ++d)
    start += offsets[d] * strides[d];
  const int64_t numRuns = out.numElements() * elementSize / runBytes;
  for (int64_t run = 0; run < numRuns; ++run) {
    int64_t offset = start;
    for (int64_t d = 0; d < inner; ++d)
      offset += index[d] * strides[d];
    std::memcpy(dst, src + offset * elementSize, runBytes);
    dst += runBytes;
    for (int64_t d = inner; d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return out;
}

} // namespace dtf::kernels
