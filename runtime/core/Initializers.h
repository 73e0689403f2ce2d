//===- Initializers.h - Variable initial values ---------------------------===//
//
// Fill an existing tensor in place. The random initializers are fully
// deterministic for a given seed on every platform: they draw from
// std::mt19937_64 (whose output the standard fixes) and transform with our own
// Box-Muller instead of std::normal_distribution (whose algorithm is
// implementation-defined), and the uniform ones scale the engine's top 53
// bits instead of using std::uniform_real_distribution (likewise). They are
// not TensorFlow's samples for the same seed (TensorFlow draws from Philox):
// the distribution is equal, the values are not bit-equal.
//
// The row forms fill the rows of a dynamic embedding table, created one id
// at a time in whatever order the ids first arrive: row i's values depend
// on the seed and ids[i] only (a counter-based generator keyed by both), so
// an id gets the same row whenever and wherever it is created, and a row
// pull of an id not created yet can answer with it. They are not the rows
// a fixed table of the same seed has (that one is one mt19937_64 stream
// over the whole tensor). zeros and constant need no row form: every row
// of theirs is the same.
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
/// Independent samples of the uniform distribution on [minval, maxval)
/// (f32/f64 only), as TensorFlow's random_uniform: minval + (maxval - minval)
/// * u for u uniform in [0, 1). A sample that rounds to maxval in the
/// tensor's dtype is drawn again, so every element is below maxval there.
/// The bounds must be finite, with minval < maxval in the dtype.
void random_uniform(Tensor &tensor, double minval, double maxval,
                    uint64_t seed);

/// `gain` times a random orthogonal matrix (f32/f64, rank >= 2), as
/// TensorFlow's orthogonal_initializer draws it: the tensor flattened to
/// [product of all dimensions but the last, last], from the QR
/// decomposition (Householder, in double) of a matrix of standard normal
/// samples in its taller orientation, Q's columns multiplied by the signs
/// of R's diagonal so that Q is uniform over the orthogonal matrices, and
/// transposed where the rows are fewer than the columns.
void orthogonal(Tensor &tensor, double gain, uint64_t seed);

/// Row i of `rows` (f32/f64 [n, ...]) gets N(mean, stddev^2) samples keyed
/// by `seed` and ids[i] (`ids` i64 [n]), whatever the other rows.
void random_normal_rows(Tensor &rows, const Tensor &ids, double mean,
                        double stddev, uint64_t seed);
/// random_normal_rows, redrawing samples further than 2 stddev from the
/// mean, as truncated_normal does.
void truncated_normal_rows(Tensor &rows, const Tensor &ids, double mean,
                           double stddev, uint64_t seed);
/// Row i of `rows` (f32/f64 [n, ...]) gets random_uniform's samples of
/// [minval, maxval) keyed by `seed` and ids[i] (`ids` i64 [n]).
void random_uniform_rows(Tensor &rows, const Tensor &ids, double minval,
                         double maxval, uint64_t seed);

/// random_uniform's samples for run `run` of a stateful random op
/// (dtf.random_uniform): keyed by `seed` and `run` alone, so that every run
/// draws new samples and the same run the same ones, without a sequence of
/// earlier runs to replay.
void random_uniform_of_run(Tensor &tensor, double minval, double maxval,
                           uint64_t seed, uint64_t run);

} // namespace dtf::initializers
