//===- Initializers.h - Variable initial values ---------------------------===//
//
// Fill an existing tensor in place. The random initializers are fully
// deterministic for a given seed on every platform: they draw from
// std::mt19937_64 (whose output the standard fixes) and transform with our own
// Box-Muller instead of std::normal_distribution (whose algorithm is
// implementation-defined).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"

#include <cstdint>

namespace dtf::initializers {

/// Sets every element to zero (any dtype).
void zeros(Tensor &tensor);
/// Sets every element to `value` converted to the tensor's dtype (any dtype;
/// Bool becomes value != 0).
void constant(Tensor &tensor, double value);
/// Independent N(mean, stddev^2) samples (f32/f64 only).
void random_normal(Tensor &tensor, double mean, double stddev, uint64_t seed);
/// Like random_normal, but a sample further than 2 stddev from the mean is
/// discarded and drawn again, as in TensorFlow's truncated_normal.
void truncated_normal(Tensor &tensor, double mean, double stddev,
                      uint64_t seed);

} // namespace dtf::initializers
