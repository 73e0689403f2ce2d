//===- Initializers.cpp - Variable initial values -------------------------===//

#include "runtime/core/Initializers.h"

#include "runtime/core/KernelSupport.h"

#include <cmath>
#include <cstring>
#include <random>

namespace dtf::initializers {

namespace {

/// The 64-bit words of a counter-based generator: word k of key K is
/// SplitMix64's output for the state K + k * golden ratio, so any word is
/// computed from the key alone, without a sequence before it.
class CounterEngine {
public:
  explicit CounterEngine(uint64_t key) : state_(key) {}
  uint64_t operator()() {
    state_ += 0x9E3779B97F4A7C15ull;
    return mix(state_);
  }
  /// SplitMix64's finalizer: a bijection of 64 bits that avalanches.
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

private:
  uint64_t state_;
};

/// Standard normal samples from a 64-bit engine (mt19937_64 for a whole
/// tensor, CounterEngine for a row) via the Box-Muller transform. Each
/// pair of uniforms yields two samples; the second is kept for the next
/// call.
template <typename Engine> class StandardNormalSource {
public:
  explicit StandardNormalSource(uint64_t seed) : engine_(seed) {}

  double next() {
    if (hasSpare_) {
      hasSpare_ = false;
      return spare_;
    }
    // u1 in (0, 1] so that log(u1) is finite; u2 in [0, 1).
    double u1 = (static_cast<double>(engine_() >> 11) + 1.0) * kTwoPowMinus53;
    double u2 = static_cast<double>(engine_() >> 11) * kTwoPowMinus53;
    double radius = std::sqrt(-2.0 * std::log(u1));
    double angle = 2.0 * M_PI * u2;
    spare_ = radius * std::sin(angle);
    hasSpare_ = true;
    return radius * std::cos(angle);
  }

private:
  static constexpr double kTwoPowMinus53 = 1.0 / 9007199254740992.0;
  Engine engine_;
  double spare_ = 0.0;
  bool hasSpare_ = false;
};

/// A sample further than 2 from 0 is drawn again, as in TensorFlow's
/// truncated_normal.
template <typename Source> double drawWithinTwoSigma(Source &source) {
  double z;
  do {
    z = source.next();
  } while (std::fabs(z) > 2.0);
  return z;
}

template <typename T, typename Draw>
void fillWith(Tensor &tensor, double mean, double stddev, Draw draw) {
  T *out = tensor.data<T>();
  for (int64_t i = 0, n = tensor.numElements(); i < n; ++i)
    out[i] = static_cast<T>(mean + stddev * draw());
}

void checkStddev(const char *op, double stddev) {
  if (!(stddev >= 0.0))
    throw std::invalid_argument(kernels::opError(
        op, "stddev must be >= 0, got " + std::to_string(stddev)));
}

} // namespace

void zeros(Tensor &tensor) {
  if (tensor.byteSize() != 0)
    std::memset(tensor.rawData(), 0, tensor.byteSize());
}

void constant(Tensor &tensor, double value) {
  Tensor filled = Tensor::filled(tensor.dtype(), tensor.shape(), value);
  tensor.swap(filled);
}

void random_normal(Tensor &tensor, double mean, double stddev, uint64_t seed) {
  checkStddev("random_normal", stddev);
  StandardNormalSource<std::mt19937_64> source(seed);
  kernels::dispatchFloat("random_normal", tensor.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    fillWith<T>(tensor, mean, stddev, [&] { return source.next(); });
  });
}

void truncated_normal(Tensor &tensor, double mean, double stddev,
                      uint64_t seed) {
  checkStddev("truncated_normal", stddev);
  StandardNormalSource<std::mt19937_64> source(seed);
  kernels::dispatchFloat("truncated_normal", tensor.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    fillWith<T>(tensor, mean, stddev,
                [&] { return drawWithinTwoSigma(source); });
  });
}

namespace {

/// Fills row i of `rows` from a StandardNormalSource<CounterEngine> keyed
/// by the seed and ids[i], drawing each sample with `draw`.
template <typename Draw>
void fillRowsPerId(const char *op, Tensor &rows, const Tensor &ids, double mean,
                   double stddev, uint64_t seed, Draw draw) {
  checkStddev(op, stddev);
  if (ids.dtype() != DType::I64 || ids.rank() != 1 || rows.rank() < 1 ||
      rows.dim(0) != ids.dim(0))
    throw std::invalid_argument(kernels::opError(
        op, "needs i64 ids [n] and rows [n, ...], got ids " + ids.typeString() +
                " and rows " + rows.typeString()));
  const int64_t *idData = ids.data<int64_t>();
  int64_t numRows = ids.dim(0);
  int64_t rowSize = numRows ? rows.numElements() / numRows : 0;
  // The key mixes the seed into the id so that two seeds give unrelated
  // rows for every id, and neighbouring ids unrelated rows for one seed.
  uint64_t seedKey = CounterEngine::mix(seed ^ 0x6A09E667F3BCC909ull);
  kernels::dispatchFloat(op, rows.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *out = rows.data<T>();
    for (int64_t row = 0; row < numRows; ++row) {
      StandardNormalSource<CounterEngine> source(
          CounterEngine::mix(seedKey + static_cast<uint64_t>(idData[row])));
      for (int64_t i = 0; i < rowSize; ++i)
        out[row * rowSize + i] = static_cast<T>(mean + stddev * draw(source));
    }
  });
}

} // namespace

void random_normal_rows(Tensor &rows, const Tensor &ids, double mean,
                        double stddev, uint64_t seed) {
  fillRowsPerId("random_normal", rows, ids, mean, stddev, seed,
                [](auto &source) { return source.next(); });
}

void truncated_normal_rows(Tensor &rows, const Tensor &ids, double mean,
                           double stddev, uint64_t seed) {
  fillRowsPerId("truncated_normal", rows, ids, mean, stddev, seed,
                [](auto &source) { return drawWithinTwoSigma(source); });
}

} // namespace dtf::initializers
