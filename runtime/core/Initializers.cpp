//===- Initializers.cpp - Variable initial values -------------------------===//

#include "runtime/core/Initializers.h"

#include "runtime/core/KernelSupport.h"

#include <cmath>
#include <cstring>
#include <random>

namespace dtf::initializers {

namespace {

/// Standard normal samples from mt19937_64 via the Box-Muller transform. Each
/// pair of uniforms yields two samples; the second is kept for the next call.
class StandardNormalSource {
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
  std::mt19937_64 engine_;
  double spare_ = 0.0;
  bool hasSpare_ = false;
};

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
  StandardNormalSource source(seed);
  kernels::dispatchFloat("random_normal", tensor.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    fillWith<T>(tensor, mean, stddev, [&] { return source.next(); });
  });
}

void truncated_normal(Tensor &tensor, double mean, double stddev,
                      uint64_t seed) {
  checkStddev("truncated_normal", stddev);
  StandardNormalSource source(seed);
  auto drawWithinTwoSigma = [&] {
    double z;
    do {
      z = source.next();
    } while (std::fabs(z) > 2.0);
    return z;
  };
  kernels::dispatchFloat("truncated_normal", tensor.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    fillWith<T>(tensor, mean, stddev, drawWithinTwoSigma);
  });
}

} // namespace dtf::initializers
