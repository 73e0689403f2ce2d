//===- TfValuesTest.cpp - Kernels against TensorFlow's own results --------===//
//
// testdata/tf_math_values.npz holds TensorFlow's outputs of the elementwise
// ops, reductions, average pooling and layer math DTF imports, on inputs with
// signed zeros, ties, infinities and NaN (written by
// testdata/write_tf_math_values.py). Each kernel must give the same values:
// NaN where TensorFlow gives NaN, the same infinities, and finite values
// within a few float ulps (TensorFlow's Eigen kernels approximate tanh and
// exp differently from the C library).
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Denormals.h"
#include "runtime/core/Kernels.h"
#include "runtime/core/LearningRateSchedule.h"
#include "runtime/data/Npy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

using namespace dtf;

namespace {

const char *const kFixture = DTF_TF_MATH_VALUES;

/// Member `key` of the fixture as a tensor of its own dtype.
Tensor fixture(const std::string &key) {
  data::Array array = data::readNpzMember(kFixture, key);
  DType dtype;
  switch (array.type) {
  case data::ElementType::F32:
    dtype = DType::F32;
    break;
  case data::ElementType::Bool:
    dtype = DType::Bool;
    break;
  case data::ElementType::I32:
    dtype = DType::I32;
    break;
  case data::ElementType::I64:
    dtype = DType::I64;
    break;
  default:
    ADD_FAILURE() << key << " is " << data::elementTypeName(array.type)
                  << ", not float32, bool, int32 or int64";
    return Tensor(DType::F32, {});
  }
  Tensor tensor = Tensor::uninitialized(dtype, array.shape);
  EXPECT_EQ(array.bytes.size(), tensor.byteSize()) << key;
  std::memcpy(tensor.rawData(), array.bytes.data(),
              std::min(array.bytes.size(), tensor.byteSize()));
  return tensor;
}

/// Whether `actual` is TensorFlow's `expected`: the same NaNs, infinities
/// and zeros, and finite values within 4 ulps.
bool sameAsTensorFlow(float actual, float expected) {
  if (std::isnan(expected) || std::isnan(actual))
    return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || expected == 0)
    return actual == expected;
  return std::abs(actual - expected) <=
         4 * std::numeric_limits<float>::epsilon() * std::abs(expected);
}

void expectLikeTensorFlow(const std::string &op, const Tensor &actual) {
  Tensor expected = fixture(op + ".out");
  ASSERT_EQ(actual.dtype(), expected.dtype()) << op;
  ASSERT_EQ(actual.shape(), expected.shape()) << op;
  for (int64_t i = 0; i < expected.numElements(); ++i) {
    if (expected.dtype() == DType::Bool) {
      EXPECT_EQ(actual.data<bool>()[i], expected.data<bool>()[i])
          << op << " element " << i;
    } else {
      float got = actual.data<float>()[i], want = expected.data<float>()[i];
      EXPECT_TRUE(sameAsTensorFlow(got, want))
          << op << " element " << i << ": DTF " << got << ", TensorFlow "
          << want;
    }
  }
}

using Unary = std::function<Tensor(const Tensor &)>;
using Binary = std::function<Tensor(const Tensor &, const Tensor &)>;

/// The kernels run as in a compute thread of either system, which flushes
/// denormals to zero (Denormals.h): TensorFlow's exp(-90) is 0, not the
/// float denormal 8.2e-40.
class TfValues : public ::testing::Test {
protected:
  ScopedFlushDenormals flushDenormals;
};

} // namespace

TEST_F(TfValues, Unary) {
  const std::pair<const char *, Unary> ops[] = {
      {"tanh", kernels::tanh},   {"exp", kernels::exp},
      {"sqrt", kernels::sqrt},   {"rsqrt", kernels::rsqrt},
      {"abs", kernels::abs},     {"sign", kernels::sign},
      {"floor", kernels::floor}, {"logical_not", kernels::logical_not},
  };
  for (const auto &[name, op] : ops)
    expectLikeTensorFlow(name, op(fixture(std::string(name) + ".x")));
}

TEST_F(TfValues, Binary) {
  const std::pair<const char *, Binary> ops[] = {
      {"minimum", kernels::minimum},
      {"maximum", kernels::maximum},
      {"pow", kernels::pow},
      {"div_no_nan", kernels::div_no_nan},
      {"equal", kernels::equal},
      {"not_equal", kernels::not_equal},
      {"greater", kernels::greater},
      {"greater_equal", kernels::greater_equal},
      {"less", kernels::less},
      {"less_equal", kernels::less_equal},
      {"logical_and", kernels::logical_and},
      {"logical_or", kernels::logical_or},
  };
  for (const auto &[name, op] : ops) {
    std::string prefix(name);
    expectLikeTensorFlow(name,
                         op(fixture(prefix + ".x"), fixture(prefix + ".y")));
  }
}

TEST_F(TfValues, Select) {
  expectLikeTensorFlow("select", kernels::select(fixture("select.condition"),
                                                 fixture("select.x"),
                                                 fixture("select.y")));
}

// Signed zeros are equal as floats; TensorFlow's Minimum and Maximum return
// the second operand on ties, which decides the sign of a zero result.
TEST_F(TfValues, MinimumAndMaximumTiesTakeTheSecondOperand) {
  Tensor x = fixture("minimum.x"), y = fixture("minimum.y");
  Tensor expected = fixture("minimum.out"), actual = kernels::minimum(x, y);
  for (int64_t i = 0; i < expected.numElements(); ++i)
    EXPECT_EQ(std::signbit(actual.data<float>()[i]),
              std::signbit(expected.data<float>()[i]))
        << "minimum element " << i;
}

TEST_F(TfValues, Reductions) {
  expectLikeTensorFlow("reduce_max",
                       kernels::reduce_max(fixture("reduce_max.x"), {1}));
  expectLikeTensorFlow("reduce_min",
                       kernels::reduce_min(fixture("reduce_min.x"), {1}));
  expectLikeTensorFlow(
      "reduce_max_columns",
      kernels::reduce_max(fixture("reduce_max_columns.x"), {0}, true));
  expectLikeTensorFlow(
      "reduce_min_columns",
      kernels::reduce_min(fixture("reduce_min_columns.x"), {0}, true));
}

TEST_F(TfValues, AveragePooling) {
  struct Case {
    const char *name;
    std::vector<int64_t> ksize, strides;
    kernels::Padding padding;
  };
  for (const Case &pool : {Case{"avg_pool_same",
                                {1, 3, 3, 1},
                                {1, 2, 2, 1},
                                kernels::Padding::Same},
                           Case{"avg_pool_valid",
                                {1, 2, 2, 1},
                                {1, 1, 1, 1},
                                kernels::Padding::Valid}}) {
    std::string name(pool.name);
    Tensor x = fixture(name + ".x");
    expectLikeTensorFlow(
        name, kernels::avg_pool(x, pool.ksize, pool.strides, pool.padding));
    expectLikeTensorFlow(
        name + "_grad",
        kernels::avg_pool_grad(x.shape(), fixture(name + "_grad.dy"),
                               pool.ksize, pool.strides, pool.padding));
  }
}

// The layer math of TF1 models (write_layer_math in the script).
TEST_F(TfValues, Transpose) {
  expectLikeTensorFlow("transpose",
                       kernels::transpose(fixture("transpose.x"), {2, 0, 1}));
  expectLikeTensorFlow(
      "transpose_nchw",
      kernels::transpose(fixture("transpose_nchw.x"), {0, 3, 1, 2}));
}

TEST_F(TfValues, LogSoftmax) {
  expectLikeTensorFlow("log_softmax",
                       kernels::log_softmax(fixture("log_softmax.x")));
}

TEST_F(TfValues, OneHot) {
  expectLikeTensorFlow("one_hot", kernels::one_hot(fixture("one_hot.x"), 4, 1.0,
                                                   0.0, DType::F32));
  expectLikeTensorFlow(
      "one_hot_values",
      kernels::one_hot(fixture("one_hot_values.x"), 3, 5.0, -0.5, DType::F32));
}

TEST_F(TfValues, Tile) {
  expectLikeTensorFlow("tile", kernels::tile(fixture("tile.x"), {3, 2}));
  expectLikeTensorFlow("tile_3d",
                       kernels::tile(fixture("tile_3d.x"), {2, 1, 3}));
}

// Eigen's contraction and DTF's GEMM add the products in other orders, and
// a sum of products of both signs cancels: the results, of order 1, agree
// within 1e-6, not within ulps of a small result.
TEST_F(TfValues, BatchMatMul) {
  struct Case {
    const char *name;
    bool adjX, adjY;
  };
  for (const Case &product : {Case{"batch_matmul_nn", false, false},
                              Case{"batch_matmul_nt", false, true},
                              Case{"batch_matmul_tn", true, false},
                              Case{"batch_matmul_tt", true, true},
                              Case{"batch_matmul_broadcast", false, false}}) {
    std::string name(product.name);
    Tensor actual = kernels::batch_matmul(
        fixture(name + ".x"), fixture(name + ".y"), product.adjX, product.adjY);
    Tensor expected = fixture(name + ".out");
    ASSERT_EQ(actual.shape(), expected.shape()) << name;
    for (int64_t i = 0; i < expected.numElements(); ++i)
      EXPECT_NEAR(actual.data<float>()[i], expected.data<float>()[i], 1e-6)
          << name << " element " << i;
  }
}

TEST_F(TfValues, ReduceProd) {
  expectLikeTensorFlow("reduce_prod",
                       kernels::reduce_prod(fixture("reduce_prod.x"), {1}));
  expectLikeTensorFlow(
      "reduce_prod_columns",
      kernels::reduce_prod(fixture("reduce_prod_columns.x"), {0}, true));
  expectLikeTensorFlow("reduce_prod_grad",
                       kernels::reduce_prod_grad(fixture("reduce_prod_grad.x"),
                                                 fixture("reduce_prod_grad.dy"),
                                                 {1}, false));
  expectLikeTensorFlow("reduce_prod_grad_all",
                       kernels::reduce_prod_grad(
                           fixture("reduce_prod_grad_all.x"),
                           fixture("reduce_prod_grad_all.dy"), {0, 1}, true));
}

// tf_learning_rates.npz (testdata/write_tf_learning_rates.py): TensorFlow's
// learning rate of each decay schedule at a list of global steps. The
// schedules are the script's SCHEDULES, case for case. DTF evaluates them
// in float32 in TensorFlow's order of operations, with the C library's powf
// and cosf where TensorFlow has Eigen's: Eigen's float pow is up to 5 ulps
// from the correctly rounded power (0.5^3 is 0.124999985), so the rates
// agree within 8 ulps, not to the bit.
TEST(TfLearningRates, EachScheduleGivesTensorFlowsRates) {
  const char *const path = DTF_TF_LEARNING_RATES;
  data::Array steps = data::readNpzMember(path, "steps");
  ASSERT_EQ(steps.type, data::ElementType::I64);
  struct Case {
    const char *name;
    double learningRate;
    kernels::LearningRateSchedule schedule;
  };
  const Case cases[] = {
      {"exponential_staircase", 0.05,
       kernels::ExponentialDecay{1000, 0.9, /*staircase=*/true}},
      {"exponential", 0.1, kernels::ExponentialDecay{500, 0.5, false}},
      {"polynomial", 0.1,
       kernels::PolynomialDecay{2000, 0.001, 2.0, /*cycle=*/false}},
      {"polynomial_cycle", 0.1,
       kernels::PolynomialDecay{2000, 0.0001, 1.0, /*cycle=*/true}},
      {"cosine", 0.001, kernels::CosineDecay{3000, 0.1}},
      {"cosine_no_alpha", 0.01, kernels::CosineDecay{1000, 0.0}},
      {"piecewise", 0.1,
       kernels::PiecewiseConstant{{1000, 3000}, {0.1, 0.01, 0.001}}},
  };
  for (const Case &c : cases) {
    data::Array rates = data::readNpzMember(path, c.name);
    ASSERT_EQ(rates.type, data::ElementType::F32) << c.name;
    ASSERT_EQ(rates.shape, steps.shape) << c.name;
    for (int64_t i = 0; i < steps.shape[0]; ++i) {
      int64_t step;
      float expected;
      std::memcpy(&step, steps.bytes.data() + i * sizeof step, sizeof step);
      std::memcpy(&expected, rates.bytes.data() + i * sizeof expected,
                  sizeof expected);
      float actual =
          kernels::scheduledLearningRate(c.learningRate, c.schedule, step);
      EXPECT_LE(std::abs(actual - expected),
                8 * std::numeric_limits<float>::epsilon() * expected)
          << c.name << " at step " << step << ": DTF " << actual
          << ", TensorFlow " << expected;
    }
  }
}
