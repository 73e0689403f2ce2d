//===- InitializersTest.cpp - Variable initial values ---------------------===//

#include "runtime/core/Initializers.h"

#include "runtime/core/tests/TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace dtf;
using namespace dtf::initializers;
using dtf::testing::expectInvalidArgument;

namespace {
struct Moments {
  double mean, stddev, maxAbsDeviation;
};

Moments moments(const Tensor &t, double center) {
  std::vector<double> v = t.toVector<double>();
  double sum = 0, sumSq = 0, maxDev = 0;
  for (double x : v) {
    sum += x;
    maxDev = std::max(maxDev, std::fabs(x - center));
  }
  double mean = sum / v.size();
  for (double x : v)
    sumSq += (x - mean) * (x - mean);
  return {mean, std::sqrt(sumSq / v.size()), maxDev};
}
} // namespace

TEST(Initializers, ZerosAndConstantForEveryDType) {
  Tensor f = Tensor::filled(DType::F32, {3}, 7);
  zeros(f);
  EXPECT_EQ(f.toVector<float>(), (std::vector<float>{0, 0, 0}));
  constant(f, 2.5);
  EXPECT_EQ(f.toVector<float>(), (std::vector<float>{2.5, 2.5, 2.5}));
  Tensor i(DType::I64, {2});
  constant(i, -3);
  EXPECT_EQ(i.toVector<int64_t>(), (std::vector<int64_t>{-3, -3}));
  Tensor b(DType::Bool, {2});
  constant(b, 1);
  EXPECT_EQ(b.toVector<bool>(), (std::vector<bool>{true, true}));
  EXPECT_EQ(b.shape(), Shape{2});
}

TEST(Initializers, RandomNormalIsBoxMullerOverMt19937_64) {
  // The first pair of samples, derived from the engine by hand: u1 in (0,1]
  // from the first 53-bit draw, u2 in [0,1) from the second.
  std::mt19937_64 engine(42);
  double u1 = (static_cast<double>(engine() >> 11) + 1.0) / 9007199254740992.0;
  double u2 = static_cast<double>(engine() >> 11) / 9007199254740992.0;
  double r = std::sqrt(-2.0 * std::log(u1));
  Tensor t(DType::F64, {2});
  random_normal(t, 1.0, 3.0, 42);
  EXPECT_DOUBLE_EQ(t.data<double>()[0],
                   1.0 + 3.0 * r * std::cos(2 * M_PI * u2));
  EXPECT_DOUBLE_EQ(t.data<double>()[1],
                   1.0 + 3.0 * r * std::sin(2 * M_PI * u2));
}

TEST(Initializers, RandomNormalIsDeterministicPerSeed) {
  Tensor a(DType::F64, {1001}), b(DType::F64, {1001}), c(DType::F64, {1001});
  random_normal(a, 0, 1, 7);
  random_normal(b, 0, 1, 7);
  random_normal(c, 0, 1, 8);
  EXPECT_EQ(a.toVector<double>(), b.toVector<double>());
  EXPECT_NE(a.toVector<double>(), c.toVector<double>());
  // f32 draws the same sequence, rounded.
  Tensor f(DType::F32, {1001});
  random_normal(f, 0, 1, 7);
  for (int i = 0; i < 1001; ++i)
    ASSERT_EQ(f.data<float>()[i], static_cast<float>(a.data<double>()[i]));
}

TEST(Initializers, RandomNormalMoments) {
  Tensor t(DType::F64, {200000});
  random_normal(t, 2.0, 0.5, 1);
  Moments m = moments(t, 2.0);
  EXPECT_NEAR(m.mean, 2.0, 0.01);
  EXPECT_NEAR(m.stddev, 0.5, 0.01);
  EXPECT_GT(m.maxAbsDeviation, 2 * 0.5); // Tails exist beyond 2 stddev.
}

TEST(Initializers, TruncatedNormalStaysWithinTwoStddev) {
  Tensor t(DType::F64, {200000});
  truncated_normal(t, -1.0, 0.1, 3);
  Moments m = moments(t, -1.0);
  EXPECT_LE(m.maxAbsDeviation, 2 * 0.1 + 1e-12);
  EXPECT_NEAR(m.mean, -1.0, 0.002);
  // The standard normal truncated to [-2, 2] has stddev 0.87962.
  EXPECT_NEAR(m.stddev, 0.1 * 0.87962, 0.002);
  Tensor again(DType::F64, {200000});
  truncated_normal(again, -1.0, 0.1, 3);
  EXPECT_EQ(t.toVector<double>(), again.toVector<double>());
}

TEST(Initializers, RandomRejectsNonFloatAndNegativeStddev) {
  Tensor i(DType::I32, {2});
  expectInvalidArgument([&] { random_normal(i, 0, 1, 0); },
                        {"random_normal", "unsupported dtype i32"});
  Tensor f(DType::F32, {2});
  expectInvalidArgument([&] { truncated_normal(f, 0, -1, 0); },
                        {"truncated_normal", "stddev"});
}

/// A row initializer (rows, ids, seed) gives an id the same row whatever the
/// other ids of the batch and their order, other ids and seeds other rows.
template <typename FillRows>
void expectRowsPerIdAreTheSameWhateverTheOrder(const FillRows &fill) {
  Tensor forward(DType::F32, {3, 4});
  fill(forward, Tensor::fromVector<int64_t>({3}, {7, 1LL << 62, 0}), 5);
  Tensor backward(DType::F32, {2, 4});
  fill(backward, Tensor::fromVector<int64_t>({2}, {0, 7}), 5);
  std::vector<float> f = forward.toVector<float>();
  std::vector<float> b = backward.toVector<float>();
  EXPECT_EQ(std::vector<float>(f.begin(), f.begin() + 4),
            std::vector<float>(b.begin() + 4, b.end())); // id 7
  EXPECT_EQ(std::vector<float>(f.begin() + 8, f.end()),
            std::vector<float>(b.begin(), b.begin() + 4)); // id 0
  // Other ids and other seeds give other rows.
  EXPECT_NE(std::vector<float>(f.begin(), f.begin() + 4),
            std::vector<float>(f.begin() + 8, f.end()));
  EXPECT_NE(std::vector<float>(f.begin(), f.begin() + 4),
            std::vector<float>(f.begin() + 4, f.begin() + 8));
  Tensor otherSeed(DType::F32, {2, 4});
  fill(otherSeed, Tensor::fromVector<int64_t>({2}, {0, 7}), 6);
  EXPECT_NE(otherSeed.toVector<float>(), b);
}

TEST(Initializers, RowsPerIdAreTheSameWhateverTheOrderAndTheBatch) {
  expectRowsPerIdAreTheSameWhateverTheOrder(
      [](Tensor &rows, const Tensor &ids, int64_t seed) {
        random_normal_rows(rows, ids, 0.0, 1.0, seed);
      });
}

TEST(Initializers, RowsPerIdHaveTheMomentsOfTheirDistribution) {
  const int64_t numRows = 50000;
  std::vector<int64_t> ids(numRows);
  for (int64_t i = 0; i < numRows; ++i)
    ids[i] = i * 7919; // neighbouring and strided ids alike
  Tensor idTensor = Tensor::fromVector<int64_t>({numRows}, ids);
  Tensor normal(DType::F64, {numRows, 4});
  random_normal_rows(normal, idTensor, 2.0, 0.5, 11);
  Moments m = moments(normal, 2.0);
  EXPECT_NEAR(m.mean, 2.0, 0.01);
  EXPECT_NEAR(m.stddev, 0.5, 0.01);
  Tensor truncated(DType::F64, {numRows, 4});
  truncated_normal_rows(truncated, idTensor, -1.0, 0.1, 3);
  m = moments(truncated, -1.0);
  EXPECT_LE(m.maxAbsDeviation, 0.2 + 1e-12);
  EXPECT_NEAR(m.mean, -1.0, 0.002);
  EXPECT_NEAR(m.stddev, 0.1 * 0.87962, 0.002);
}

TEST(Initializers, RowsPerIdRejectIdsThatDoNotFitTheRows) {
  Tensor rows(DType::F32, {2, 3});
  expectInvalidArgument(
      [&] {
        random_normal_rows(rows, Tensor::fromVector<int64_t>({3}, {1, 2, 3}), 0,
                           1, 0);
      },
      {"random_normal", "i64 ids [n] and rows [n, ...]", "i64[3]", "f32[2,3]"});
  expectInvalidArgument(
      [&] {
        truncated_normal_rows(rows, Tensor::fromVector<int32_t>({2}, {1, 2}), 0,
                              1, 0);
      },
      {"truncated_normal", "i32[2]"});
}

namespace {
/// The mean and variance of a sample of n uniforms on [a, b) lie within
/// `kStandardErrors` standard errors of (a + b) / 2 and (b - a)^2 / 12: the
/// mean's standard error is (b - a) / sqrt(12 n), the variance's
/// (b - a)^2 / sqrt(180 n) (its fourth central moment is (b - a)^4 / 80).
constexpr double kStandardErrors = 6;

void expectUniformMoments(const Tensor &t, double a, double b) {
  std::vector<double> v;
  if (t.dtype() == DType::F32)
    for (float x : t.toVector<float>())
      v.push_back(x);
  else
    v = t.toVector<double>();
  double n = v.size();
  double sum = 0, sumSq = 0;
  for (double x : v)
    sum += x;
  double mean = sum / n;
  for (double x : v)
    sumSq += (x - mean) * (x - mean);
  double width = b - a;
  EXPECT_NEAR(mean, (a + b) / 2, kStandardErrors * width / std::sqrt(12 * n));
  EXPECT_NEAR(sumSq / n, width * width / 12,
              kStandardErrors * width * width / std::sqrt(180 * n));
}
} // namespace

TEST(Initializers, RandomUniformLiesInItsRangeWithItsMoments) {
  Tensor f(DType::F32, {100000});
  random_uniform(f, -0.05, 0.05, 3);
  for (float x : f.toVector<float>()) {
    ASSERT_GE(x, -0.05f);
    ASSERT_LT(x, 0.05f);
  }
  expectUniformMoments(f, -0.05, 0.05);
  Tensor d(DType::F64, {1000, 100});
  random_uniform(d, 2.0, 5.0, 4);
  for (double x : d.toVector<double>()) {
    ASSERT_GE(x, 2.0);
    ASSERT_LT(x, 5.0);
  }
  expectUniformMoments(d, 2.0, 5.0);
}

TEST(Initializers, RandomUniformIsDeterministicPerSeed) {
  Tensor a(DType::F32, {64}), b(DType::F32, {64}), c(DType::F32, {64});
  random_uniform(a, -1, 1, 7);
  random_uniform(b, -1, 1, 7);
  random_uniform(c, -1, 1, 8);
  EXPECT_EQ(a.toVector<float>(), b.toVector<float>());
  EXPECT_NE(a.toVector<float>(), c.toVector<float>());
}

TEST(Initializers, RandomUniformDrawsAgainASampleThatRoundsToMaxval) {
  // [1, next float after 1): about half the samples round to maxval in f32.
  Tensor t(DType::F32, {1000});
  random_uniform(t, 1.0, std::nextafter(1.0f, 2.0f), 5);
  EXPECT_EQ(t.toVector<float>(), std::vector<float>(1000, 1.0f));
}

TEST(Initializers, RandomUniformRejectsARangeWithoutValues) {
  Tensor f(DType::F32, {2});
  expectInvalidArgument([&] { random_uniform(f, 1.0, 1.0, 0); },
                        {"random_uniform", "minval < maxval in f32"});
  // Apart in f64, one value in f32.
  expectInvalidArgument([&] { random_uniform(f, 1.0, 1.0 + 1e-12, 0); },
                        {"random_uniform", "minval < maxval in f32"});
  expectInvalidArgument([&] { random_uniform(f, -1e300, 1e300, 0); },
                        {"random_uniform", "finite bounds"});
  Tensor i(DType::I32, {2});
  expectInvalidArgument([&] { random_uniform(i, 0, 1, 0); },
                        {"random_uniform", "unsupported dtype i32"});
}

TEST(Initializers, RandomUniformRowsPerIdAreTheSameWhateverTheOrder) {
  expectRowsPerIdAreTheSameWhateverTheOrder(
      [](Tensor &rows, const Tensor &ids, int64_t seed) {
        random_uniform_rows(rows, ids, -1.0, 1.0, seed);
      });
}

TEST(Initializers, RandomUniformRowsLieInTheirRangeWithTheirMoments) {
  const int64_t numRows = 25000;
  std::vector<int64_t> ids(numRows);
  for (int64_t i = 0; i < numRows; ++i)
    ids[i] = i * 7919;
  Tensor rows(DType::F64, {numRows, 4});
  random_uniform_rows(rows, Tensor::fromVector<int64_t>({numRows}, ids), -3.0,
                      0.5, 11);
  for (double x : rows.toVector<double>()) {
    ASSERT_GE(x, -3.0);
    ASSERT_LT(x, 0.5);
  }
  expectUniformMoments(rows, -3.0, 0.5);
  Tensor f(DType::F32, {2, 2});
  expectInvalidArgument(
      [&] {
        random_uniform_rows(f, Tensor::fromVector<int64_t>({2}, {1, 2}), 2.0,
                            -2.0, 0);
      },
      {"random_uniform", "minval < maxval"});
}

// A stateful random op's samples are a function of its seed and the run:
// a run replayed draws the same ones, the next run new ones, and a run's
// samples have the moments of U[0, 1).
TEST(Initializers, RandomUniformOfARunFollowsItsSeedAndRun) {
  auto draw = [](uint64_t seed, uint64_t run) {
    Tensor samples(DType::F32, {100, 250});
    random_uniform_of_run(samples, 0.0, 1.0, seed, run);
    return samples.toVector<float>();
  };
  std::vector<float> first = draw(5, 0);
  EXPECT_EQ(first, draw(5, 0));
  EXPECT_NE(first, draw(5, 1));
  EXPECT_NE(first, draw(6, 0));
  for (float x : first) {
    ASSERT_GE(x, 0.0f);
    ASSERT_LT(x, 1.0f);
  }
  Tensor samples(DType::F64, {100, 250});
  random_uniform_of_run(samples, 0.0, 1.0, 5, 1u << 20);
  expectUniformMoments(samples, 0.0, 1.0);
}

namespace {
/// The Gram matrix of the columns of the [rows, cols] flattening of `t`:
/// t^T t, or of its rows, t t^T, where `rows` is set.
std::vector<double> gram(const Tensor &t, bool ofRows) {
  std::vector<double> v = t.toVector<double>();
  int64_t cols = t.dim(t.rank() - 1), rows = t.numElements() / cols;
  int64_t k = ofRows ? rows : cols;
  std::vector<double> g(k * k, 0.0);
  for (int64_t a = 0; a < k; ++a)
    for (int64_t b = 0; b < k; ++b)
      for (int64_t i = 0; i < (ofRows ? cols : rows); ++i)
        g[a * k + b] += ofRows ? v[a * cols + i] * v[b * cols + i]
                               : v[i * cols + a] * v[i * cols + b];
  return g;
}

void expectScaledIdentity(const std::vector<double> &g, double scale) {
  int64_t k = static_cast<int64_t>(std::sqrt(double(g.size())));
  for (int64_t a = 0; a < k; ++a)
    for (int64_t b = 0; b < k; ++b)
      EXPECT_NEAR(g[a * k + b], a == b ? scale : 0.0, 1e-12)
          << "at (" << a << ", " << b << ")";
}
} // namespace

// The fewer of the flattened matrix's rows and columns are orthonormal
// (times the gain): the columns of a tall matrix, the rows of a wide one,
// and a rank-3 tensor is a matrix of its last dimension's columns.
TEST(Initializers, OrthogonalColumnsOrRowsAreOrthonormal) {
  Tensor tall(DType::F64, {6, 4});
  orthogonal(tall, 1.0, 3);
  expectScaledIdentity(gram(tall, /*ofRows=*/false), 1.0);
  Tensor wide(DType::F64, {3, 5});
  orthogonal(wide, 2.0, 3);
  expectScaledIdentity(gram(wide, /*ofRows=*/true), 4.0);
  Tensor square(DType::F64, {5, 5});
  orthogonal(square, 1.0, 9);
  expectScaledIdentity(gram(square, /*ofRows=*/false), 1.0);
  expectScaledIdentity(gram(square, /*ofRows=*/true), 1.0);
  Tensor kernel(DType::F64, {4, 2, 3});
  orthogonal(kernel, 1.0, 5);
  expectScaledIdentity(gram(kernel, /*ofRows=*/false), 1.0);
}

// Q's columns signed as R's diagonal make Q uniform over the orthogonal
// matrices (TensorFlow's q *= sign(diag(r))): R's diagonal is positive, so
// Q's first column is the samples' first column, normalized. The samples
// are random_normal's of the same seed, drawn row by row.
TEST(Initializers, OrthogonalIsTheQOfAPositiveDiagonalR) {
  Tensor q(DType::F64, {6, 4});
  orthogonal(q, 1.0, 11);
  Tensor samples(DType::F64, {6, 4});
  random_normal(samples, 0.0, 1.0, 11);
  std::vector<double> a = samples.toVector<double>(), v = q.toVector<double>();
  double norm = 0;
  for (int64_t i = 0; i < 6; ++i)
    norm += a[i * 4] * a[i * 4];
  norm = std::sqrt(norm);
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_NEAR(v[i * 4], a[i * 4] / norm, 1e-12);
  Tensor again(DType::F64, {6, 4}), other(DType::F64, {6, 4});
  orthogonal(again, 1.0, 11);
  orthogonal(other, 1.0, 12);
  EXPECT_EQ(again.toVector<double>(), v);
  EXPECT_NE(other.toVector<double>(), v);
}

TEST(Initializers, OrthogonalRejectsVectorsAndIntegers) {
  Tensor vector(DType::F32, {4});
  expectInvalidArgument([&] { orthogonal(vector, 1.0, 1); },
                        {"orthogonal", "rank 2 or more", "f32[4]"});
  Tensor integers(DType::I32, {2, 2});
  expectInvalidArgument([&] { orthogonal(integers, 1.0, 1); },
                        {"unsupported dtype i32"});
}
