//===- GradientCheckTest.cpp - Backprop kernels vs finite differences -----===//
//
// For a kernel f and a fixed random cotangent w, the gradient kernel must
// return d/dx sum(w * f(x)). The tests compare it, in double precision, with
// central differences (h = 1e-6, whose truncation and rounding errors are
// both far below the 1e-6 relative tolerance for these well-scaled inputs).
// Inputs of non-smooth kernels (relu, clip, max) keep a margin from their
// kinks so that no perturbation crosses one.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/tests/TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>

using namespace dtf;
using namespace dtf::kernels;
using dtf::testing::randomTensor;

namespace {

double weightedSum(const Tensor &y, const Tensor &w) {
  EXPECT_EQ(y.shape(), w.shape());
  const double *py = y.data<double>();
  const double *pw = w.data<double>();
  double sum = 0;
  for (int64_t i = 0; i < y.numElements(); ++i)
    sum += py[i] * pw[i];
  return sum;
}

/// Checks analytic == d/dx sum(w * f(x)) at x by central differences, with
/// max |analytic - numeric| / max(|numeric|) < 1e-6.
void expectGradientMatches(const std::function<Tensor(const Tensor &)> &f,
                           const Tensor &x, const Tensor &w,
                           const Tensor &analytic) {
  ASSERT_EQ(analytic.shape(), x.shape());
  const double h = 1e-6;
  Tensor probe = x.clone();
  double *p = probe.data<double>();
  double maxError = 0, maxMagnitude = 0;
  for (int64_t i = 0; i < x.numElements(); ++i) {
    const double original = p[i];
    p[i] = original + h;
    const double plus = weightedSum(f(probe), w);
    p[i] = original - h;
    const double minus = weightedSum(f(probe), w);
    p[i] = original;
    const double numeric = (plus - minus) / (2 * h);
    maxError =
        std::max(maxError, std::fabs(numeric - analytic.data<double>()[i]));
    maxMagnitude = std::max(maxMagnitude, std::fabs(numeric));
  }
  ASSERT_GT(maxMagnitude, 1e-3) << "degenerate check: gradient is ~0";
  EXPECT_LT(maxError / maxMagnitude, 1e-6)
      << "max abs error " << maxError << ", max |gradient| " << maxMagnitude;
}

/// Random values at least `margin` away from each point in `kinks`.
Tensor awayFromKinks(const Shape &shape, std::vector<double> kinks,
                     double margin, uint64_t seed) {
  Tensor t = randomTensor(DType::F64, shape, seed);
  double *p = t.data<double>();
  for (int64_t i = 0; i < t.numElements(); ++i)
    for (double k : kinks)
      if (std::fabs(p[i] - k) < margin)
        p[i] = k + (p[i] < k ? -margin : margin);
  return t;
}

/// A random permutation of 0, 0.01, 0.02, ...: pairwise distinct by far more
/// than the finite-difference step, so window maxima never flip.
Tensor distinctValues(const Shape &shape, uint64_t seed) {
  Tensor t(DType::F64, shape);
  std::vector<int64_t> order(t.numElements());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.data<double>()[i] = 0.01 * static_cast<double>(order[i]);
  return t;
}

/// "2x5x5x2", for parameterised test names.
std::string shapeName(const Shape &shape) {
  std::string name;
  for (int64_t d : shape)
    name += (name.empty() ? "" : "x") + std::to_string(d);
  return name;
}

std::string paddingName(Padding padding) {
  return padding == Padding::Same ? "Same" : "Valid";
}

} // namespace

TEST(GradientCheck, ReluGrad) {
  Tensor x = awayFromKinks({3, 5}, {0}, 0.01, 1);
  Tensor w = randomTensor(DType::F64, {3, 5}, 2);
  expectGradientMatches([](const Tensor &v) { return relu(v); }, x, w,
                        relu_grad(w, x));
}

TEST(GradientCheck, ClipByValueGrad) {
  Tensor x = awayFromKinks({4, 6}, {-0.5, 0.7}, 0.01, 3);
  Tensor w = randomTensor(DType::F64, {4, 6}, 4);
  expectGradientMatches(
      [](const Tensor &v) { return clip_by_value(v, -0.5, 0.7); }, x, w,
      clip_by_value_grad(w, x, -0.5, 0.7));
}

TEST(GradientCheck, SoftmaxGrad) {
  Tensor x = randomTensor(DType::F64, {3, 2, 5}, 5);
  Tensor w = randomTensor(DType::F64, {3, 2, 5}, 6);
  expectGradientMatches([](const Tensor &v) { return softmax(v); }, x, w,
                        softmax_grad(w, softmax(x)));
}

TEST(GradientCheck, SoftmaxCrossEntropyGrad) {
  Tensor logits = randomTensor(DType::F64, {4, 6}, 7);
  // Soft labels, each row a distribution.
  Tensor labels = softmax(randomTensor(DType::F64, {4, 6}, 8));
  Tensor w = randomTensor(DType::F64, {4}, 9);
  expectGradientMatches(
      [&](const Tensor &v) {
        return softmax_cross_entropy_with_logits(v, labels);
      },
      logits, w, softmax_cross_entropy_with_logits_grad(w, logits, labels));
}

TEST(GradientCheck, BiasAddGrad) {
  Tensor x = randomTensor(DType::F64, {2, 3, 4}, 10);
  Tensor b = randomTensor(DType::F64, {4}, 11);
  Tensor w = randomTensor(DType::F64, {2, 3, 4}, 12);
  expectGradientMatches([&](const Tensor &v) { return bias_add(x, v); }, b, w,
                        bias_add_grad(w));
}

TEST(GradientCheck, MatmulGradsAreTransposedMatmuls) {
  Tensor a = randomTensor(DType::F64, {3, 4}, 13);
  Tensor b = randomTensor(DType::F64, {4, 5}, 14);
  Tensor w = randomTensor(DType::F64, {3, 5}, 15);
  expectGradientMatches([&](const Tensor &v) { return matmul(v, b); }, a, w,
                        matmul(w, b, false, true));
  expectGradientMatches([&](const Tensor &v) { return matmul(a, v); }, b, w,
                        matmul(a, w, true, false));
}

TEST(GradientCheck, BroadcastToGradIsReduceSum) {
  Tensor x = randomTensor(DType::F64, {3, 1}, 16);
  Tensor w = randomTensor(DType::F64, {2, 3, 4}, 17);
  Tensor grad = reduce_sum(reduce_sum(w, {0}), {1}, true);
  expectGradientMatches(
      [](const Tensor &v) {
        return broadcast_to(v, {2, 3, 4});
      },
      x, w, grad);
}

TEST(GradientCheck, ReduceMeanGradIsScaledBroadcast) {
  Tensor x = randomTensor(DType::F64, {2, 3, 4}, 18);
  Tensor w = randomTensor(DType::F64, {3}, 19);
  Tensor grad = mul(broadcast_to(reshape(w.clone(), {1, 3, 1}), {2, 3, 4}),
                    Tensor::scalar(1.0 / 8));
  expectGradientMatches(
      [](const Tensor &v) {
        return reduce_mean(v, {0, 2});
      },
      x, w, grad);
}

struct ConvGradCase {
  Shape input, filter;
  int64_t stride;
  Padding padding;
  int64_t dilation = 1;
};

// Readable parameter values for gtest output (and hence for CTest's names).
void PrintTo(const ConvGradCase &c, std::ostream *os) {
  *os << "input " << shapeToString(c.input) << " filter "
      << shapeToString(c.filter) << " stride " << c.stride << " padding "
      << paddingName(c.padding) << " dilation " << c.dilation;
}

class ConvGradientCheck : public ::testing::TestWithParam<ConvGradCase> {};

TEST_P(ConvGradientCheck, InputAndFilterGrads) {
  const ConvGradCase &c = GetParam();
  const std::vector<int64_t> strides{1, c.stride, c.stride, 1};
  const std::vector<int64_t> dilations{1, c.dilation, c.dilation, 1};
  Tensor input = randomTensor(DType::F64, c.input, 20);
  Tensor filter = randomTensor(DType::F64, c.filter, 21);
  Shape outShape = conv2d(input, filter, strides, c.padding, dilations).shape();
  Tensor w = randomTensor(DType::F64, outShape, 22);
  expectGradientMatches(
      [&](const Tensor &v) {
        return conv2d(v, filter, strides, c.padding, dilations);
      },
      input, w,
      conv2d_backprop_input(input.shape(), filter, w, strides, c.padding,
                            dilations));
  expectGradientMatches(
      [&](const Tensor &v) {
        return conv2d(input, v, strides, c.padding, dilations);
      },
      filter, w,
      conv2d_backprop_filter(input, filter.shape(), w, strides, c.padding,
                             dilations));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ConvGradientCheck,
    ::testing::Values(
        ConvGradCase{{2, 5, 5, 2}, {3, 3, 2, 3}, 1, Padding::Same},
        ConvGradCase{{2, 6, 5, 2}, {3, 3, 2, 3}, 2, Padding::Same},
        ConvGradCase{{2, 7, 6, 2}, {2, 3, 2, 2}, 2, Padding::Valid},
        ConvGradCase{{1, 5, 5, 3}, {3, 3, 3, 2}, 1, Padding::Valid},
        ConvGradCase{{2, 4, 4, 3}, {1, 1, 3, 2}, 1, Padding::Same},
        ConvGradCase{{1, 4, 4, 2}, {2, 2, 2, 2}, 1, Padding::Same},
        ConvGradCase{{2, 7, 6, 2}, {3, 2, 2, 3}, 1, Padding::Same, 2},
        ConvGradCase{{1, 8, 7, 2}, {2, 3, 2, 2}, 1, Padding::Valid, 3}),
    [](const ::testing::TestParamInfo<ConvGradCase> &info) {
      const ConvGradCase &c = info.param;
      // The names of undilated cases are those they had before dilations.
      return "In" + shapeName(c.input) + "_Filter" + shapeName(c.filter) +
             "_Stride" + std::to_string(c.stride) + "_" +
             paddingName(c.padding) +
             (c.dilation == 1 ? "" : "_Dilation" + std::to_string(c.dilation));
    });

struct PoolGradCase {
  Shape input;
  int64_t window, stride;
  Padding padding;
};

void PrintTo(const PoolGradCase &c, std::ostream *os) {
  *os << "input " << shapeToString(c.input) << " window " << c.window
      << " stride " << c.stride << " padding " << paddingName(c.padding);
}

class MaxPoolGradientCheck : public ::testing::TestWithParam<PoolGradCase> {};

TEST_P(MaxPoolGradientCheck, Grad) {
  const PoolGradCase &c = GetParam();
  const std::vector<int64_t> ksize{1, c.window, c.window, 1};
  const std::vector<int64_t> strides{1, c.stride, c.stride, 1};
  Tensor x = distinctValues(c.input, 23);
  Tensor y = max_pool(x, ksize, strides, c.padding);
  Tensor w = randomTensor(DType::F64, y.shape(), 24);
  expectGradientMatches(
      [&](const Tensor &v) { return max_pool(v, ksize, strides, c.padding); },
      x, w, max_pool_grad(x, y, w, ksize, strides, c.padding));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, MaxPoolGradientCheck,
    ::testing::Values(PoolGradCase{{2, 4, 4, 3}, 2, 2, Padding::Valid},
                      PoolGradCase{{2, 5, 5, 2}, 3, 2, Padding::Same},
                      PoolGradCase{{1, 5, 6, 2}, 3, 1, Padding::Same},
                      PoolGradCase{{1, 7, 7, 1}, 3, 2, Padding::Valid}),
    [](const ::testing::TestParamInfo<PoolGradCase> &info) {
      const PoolGradCase &c = info.param;
      return "In" + shapeName(c.input) + "_Window" + std::to_string(c.window) +
             "_Stride" + std::to_string(c.stride) + "_" +
             paddingName(c.padding);
    });
