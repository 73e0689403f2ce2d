//===- Initializers.cpp - Variable initial values -------------------------===//

#include "runtime/core/Initializers.h"

#include "runtime/core/KernelSupport.h"

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace dtf::initializers {

namespace {

constexpr double kTwoPowMinus53 = 1.0 / 9007199254740992.0;

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
  Engine engine_;
  double spare_ = 0.0;
  bool hasSpare_ = false;
};

/// Uniform samples in [0, 1) from a 64-bit engine: its top 53 bits, scaled,
/// so every double of the form k * 2^-53 is equally likely.
template <typename Engine> class StandardUniformSource {
public:
  explicit StandardUniformSource(uint64_t seed) : engine_(seed) {}

  double next() {
    return static_cast<double>(engine_() >> 11) * kTwoPowMinus53;
  }

private:
  Engine engine_;
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

/// Checks that [minval, maxval) is a finite range that holds a value of
/// `dtype`, so that drawing again a sample that rounds to maxval ends.
void checkUniformBounds(const char *op, DType dtype, double minval,
                        double maxval) {
  double lower = minval, upper = maxval;
  if (dtype == DType::F32) {
    lower = static_cast<float>(minval);
    upper = static_cast<float>(maxval);
  }
  if (!std::isfinite(maxval - minval) || !std::isfinite(lower) ||
      !std::isfinite(upper) || !(lower < upper))
    throw std::invalid_argument(kernels::opError(
        op, "needs finite bounds minval < maxval in " +
                std::string(dtypeName(dtype)) + ", got [" +
                std::to_string(minval) + ", " + std::to_string(maxval) + ")"));
}

/// A sample of [minval, maxval) in T from `source`'s samples of [0, 1). One
/// that rounds up to maxval in T is drawn again.
template <typename T, typename Source>
T drawUniform(Source &source, double minval, double maxval) {
  T upper = static_cast<T>(maxval);
  T sample;
  do {
    sample = static_cast<T>(minval + (maxval - minval) * source.next());
  } while (!(sample < upper));
  return sample;
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

void orthogonal(Tensor &tensor, double gain, uint64_t seed) {
  const char *op = "orthogonal";
  if (tensor.rank() < 2)
    throw std::invalid_argument(kernels::opError(
        op, "needs a tensor of rank 2 or more, got " + tensor.typeString()));
  const int64_t cols = tensor.dim(tensor.rank() - 1);
  const int64_t rows = cols ? tensor.numElements() / cols : 0;
  // The QR of an m x n matrix, m >= n: the taller orientation.
  const bool wide = rows < cols;
  const int64_t m = wide ? cols : rows, n = wide ? rows : cols;
  StandardNormalSource<std::mt19937_64> source(seed);
  std::vector<double> a(m * n);
  for (double &value : a)
    value = source.next();
  // Householder: reflection k maps column k below the diagonal onto
  // alpha * e_k, alpha = -sign(x_0) |x| (R's diagonal), leaving its vector
  // in reflectors[k].
  std::vector<std::vector<double>> reflectors(n);
  std::vector<double> diagonal(n, 0.0);
  for (int64_t k = 0; k < n; ++k) {
    std::vector<double> v(m - k);
    double norm = 0;
    for (int64_t i = k; i < m; ++i) {
      v[i - k] = a[i * n + k];
      norm += v[i - k] * v[i - k];
    }
    norm = std::sqrt(norm);
    if (norm == 0)
      continue; // A zero column: R's diagonal 0, its sign 0, as TensorFlow's.
    double alpha = v[0] > 0 ? -norm : norm;
    v[0] -= alpha;
    double length = 0;
    for (double x : v)
      length += x * x;
    length = std::sqrt(length);
    for (double &x : v)
      x /= length;
    for (int64_t j = k; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i)
        dot += v[i - k] * a[i * n + j];
      for (int64_t i = k; i < m; ++i)
        a[i * n + j] -= 2 * dot * v[i - k];
    }
    diagonal[k] = alpha;
    reflectors[k] = std::move(v);
  }
  // The thin Q, m x n: the reflections applied, last first, to the first n
  // columns of the identity.
  std::vector<double> q(m * n, 0.0);
  for (int64_t j = 0; j < n; ++j)
    q[j * n + j] = 1;
  for (int64_t k = n - 1; k >= 0; --k) {
    const std::vector<double> &v = reflectors[k];
    if (v.empty())
      continue;
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i)
        dot += v[i - k] * q[i * n + j];
      for (int64_t i = k; i < m; ++i)
        q[i * n + j] -= 2 * dot * v[i - k];
    }
  }
  kernels::dispatchFloat(op, tensor.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *out = tensor.data<T>();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sign = diagonal[j] > 0 ? 1.0 : diagonal[j] < 0 ? -1.0 : 0.0;
        double value = gain * sign * q[i * n + j];
        // Q is [rows, cols], or its transpose where the rows are fewer.
        out[wide ? j * cols + i : i * cols + j] = static_cast<T>(value);
      }
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

void random_uniform(Tensor &tensor, double minval, double maxval,
                    uint64_t seed) {
  checkUniformBounds("random_uniform", tensor.dtype(), minval, maxval);
  StandardUniformSource<std::mt19937_64> source(seed);
  kernels::dispatchFloat("random_uniform", tensor.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *out = tensor.data<T>();
    for (int64_t i = 0, n = tensor.numElements(); i < n; ++i)
      out[i] = drawUniform<T>(source, minval, maxval);
  });
}

namespace {

/// Fills row i of `rows` with `draw(source, tag)` for a Source keyed by the
/// seed and ids[i] (a StandardNormalSource or StandardUniformSource of a
/// CounterEngine); `tag` names the element type draw returns.
template <template <typename> class Source, typename Draw>
void fillRowsPerId(const char *op, Tensor &rows, const Tensor &ids,
                   uint64_t seed, Draw draw) {
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
      Source<CounterEngine> source(
          CounterEngine::mix(seedKey + static_cast<uint64_t>(idData[row])));
      for (int64_t i = 0; i < rowSize; ++i)
        out[row * rowSize + i] = draw(source, tag);
    }
  });
}

} // namespace

void random_normal_rows(Tensor &rows, const Tensor &ids, double mean,
                        double stddev, uint64_t seed) {
  checkStddev("random_normal", stddev);
  fillRowsPerId<StandardNormalSource>(
      "random_normal", rows, ids, seed, [&](auto &source, auto tag) {
        using T = typename decltype(tag)::type;
        return static_cast<T>(mean + stddev * source.next());
      });
}

void truncated_normal_rows(Tensor &rows, const Tensor &ids, double mean,
                           double stddev, uint64_t seed) {
  checkStddev("truncated_normal", stddev);
  fillRowsPerId<StandardNormalSource>(
      "truncated_normal", rows, ids, seed, [&](auto &source, auto tag) {
        using T = typename decltype(tag)::type;
        return static_cast<T>(mean + stddev * drawWithinTwoSigma(source));
      });
}

void random_uniform_rows(Tensor &rows, const Tensor &ids, double minval,
                         double maxval, uint64_t seed) {
  checkUniformBounds("random_uniform", rows.dtype(), minval, maxval);
  fillRowsPerId<StandardUniformSource>(
      "random_uniform", rows, ids, seed, [&](auto &source, auto tag) {
        using T = typename decltype(tag)::type;
        return drawUniform<T>(source, minval, maxval);
      });
}

void random_uniform_of_run(Tensor &tensor, double minval, double maxval,
                           uint64_t seed, uint64_t run) {
  checkUniformBounds("random_uniform", tensor.dtype(), minval, maxval);
  // As the row forms' key, with the run in place of the id.
  uint64_t seedKey = CounterEngine::mix(seed ^ 0x6A09E667F3BCC909ull);
  StandardUniformSource<CounterEngine> source(
      CounterEngine::mix(seedKey + run));
  kernels::dispatchFloat("random_uniform", tensor.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T *out = tensor.data<T>();
    for (int64_t i = 0, n = tensor.numElements(); i < n; ++i)
      out[i] = drawUniform<T>(source, minval, maxval);
  });
}

} // namespace dtf::initializers
