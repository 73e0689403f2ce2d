//===- Window.cpp - Sliding-window geometry for conv and pooling ----------===//

#include "runtime/core/Window.h"

#include "runtime/core/KernelSupport.h"

#include <algorithm>
#include <sstream>

namespace dtf::kernels {

Padding parse_padding(std::string_view padding) {
  if (padding == "SAME")
    return Padding::Same;
  if (padding == "VALID")
    return Padding::Valid;
  throw std::invalid_argument(
      opError("parse_padding", "expected \"SAME\" or \"VALID\", got \"" +
                                   std::string(padding) + "\""));
}

WindowDim computeWindowDim(const char *op, int64_t input, int64_t window,
                           int64_t stride, Padding padding) {
  if (padding == Padding::Same) {
    const int64_t output = (input + stride - 1) / stride;
    const int64_t total =
        std::max<int64_t>((output - 1) * stride + window - input, 0);
    return {output, total / 2};
  }
  const int64_t output = (input - window + stride) / stride;
  if (output < 0)
    throw std::invalid_argument(opError(
        op, "window " + std::to_string(window) + " does not fit input size " +
                std::to_string(input) + " with VALID padding"));
  return {output, 0};
}

SpatialPair spatialAttribute(const char *op, const char *name,
                             const std::vector<int64_t> &values) {
  if (values.size() != 4 || values[0] != 1 || values[3] != 1 || values[1] < 1 ||
      values[2] < 1) {
    std::ostringstream os;
    os << name << " must be {1, h, w, 1} with h, w >= 1, got {";
    for (size_t i = 0; i < values.size(); ++i)
      os << (i ? ", " : "") << values[i];
    os << "}";
    throw std::invalid_argument(opError(op, os.str()));
  }
  return {values[1], values[2]};
}

} // namespace dtf::kernels
