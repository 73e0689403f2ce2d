//===- Window.h - Sliding-window geometry for conv and pooling ------------===//
//
// Private to the runtime library.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Kernels.h"

#include <cstdint>
#include <vector>

namespace dtf::kernels {

/// One spatial dimension of a sliding window, sized as TensorFlow does.
struct WindowDim {
  int64_t output;
  /// Implicit padding before the first input element. SAME pads
  /// max((output - 1) * stride + window - input, 0) in total and puts the odd
  /// element after, so this is total / 2.
  int64_t padBefore;
};

WindowDim computeWindowDim(const char *op, int64_t input, int64_t window,
                           int64_t stride, Padding padding);

/// Height and width of a TF NHWC attribute {1, h, w, 1} (strides or ksize);
/// throws unless it has that form with h, w >= 1.
struct SpatialPair {
  int64_t h;
  int64_t w;
};
SpatialPair spatialAttribute(const char *op, const char *name,
                             const std::vector<int64_t> &values);

} // namespace dtf::kernels
