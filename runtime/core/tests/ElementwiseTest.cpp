//===- ElementwiseTest.cpp - Element-wise, broadcasting and matmul --------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/tests/TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace dtf;
using namespace dtf::kernels;
using dtf::testing::expectInvalidArgument;
using dtf::testing::expectTensorEq;
using dtf::testing::expectTensorNear;

namespace {
Tensor f32(Shape shape, std::vector<float> values) {
  return Tensor::fromVector<float>(std::move(shape), values);
}
Tensor f64(Shape shape, std::vector<double> values) {
  return Tensor::fromVector<double>(std::move(shape), values);
}
Tensor i32(Shape shape, std::vector<int32_t> values) {
  return Tensor::fromVector<int32_t>(std::move(shape), values);
}
Tensor i64(Shape shape, std::vector<int64_t> values) {
  return Tensor::fromVector<int64_t>(std::move(shape), values);
}
Tensor boolean(Shape shape, std::vector<bool> values) {
  return Tensor::fromVector<bool>(std::move(shape), values);
}
} // namespace

TEST(Binary, SameShape) {
  Tensor a = f32({2, 2}, {1, 2, 3, 4});
  Tensor b = f32({2, 2}, {10, 20, 30, 40});
  expectTensorEq<float>(add(a, b), f32({2, 2}, {11, 22, 33, 44}));
  expectTensorEq<float>(sub(a, b), f32({2, 2}, {-9, -18, -27, -36}));
  expectTensorEq<float>(mul(a, b), f32({2, 2}, {10, 40, 90, 160}));
  expectTensorEq<float>(div(b, a), f32({2, 2}, {10, 10, 10, 10}));
}

TEST(Binary, BroadcastRowVector) {
  Tensor a = f64({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = f64({3}, {10, 20, 30});
  expectTensorEq<double>(add(a, b), f64({2, 3}, {11, 22, 33, 14, 25, 36}));
  expectTensorEq<double>(sub(b, a), f64({2, 3}, {9, 18, 27, 6, 15, 24}));
}

TEST(Binary, BroadcastColumnTimesRow) {
  Tensor col = f32({2, 1}, {1, 2});
  Tensor row = f32({1, 3}, {10, 20, 30});
  expectTensorEq<float>(mul(col, row), f32({2, 3}, {10, 20, 30, 20, 40, 60}));
  expectTensorEq<float>(mul(row, col), f32({2, 3}, {10, 20, 30, 20, 40, 60}));
}

TEST(Binary, BroadcastHigherRankBothSides) {
  // [2,1,3] - [2,1] -> [2,2,3]: out[i,j,k] = a[i,0,k] - b[j,0].
  Tensor a = f32({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = f32({2, 1}, {10, 100});
  expectTensorEq<float>(sub(a, b), f32({2, 2, 3}, {-9, -8, -7, -99, -98, -97,
                                                   -6, -5, -4, -96, -95, -94}));
}

TEST(Binary, BroadcastInnerScalarRows) {
  // [2,2,1] + [2,1,1]: both operands broadcast along the innermost dim.
  Tensor a = f32({2, 2, 1}, {1, 2, 3, 4});
  Tensor b = f32({2, 1, 1}, {10, 20});
  Tensor out = add(a, broadcast_to(b, {2, 1, 3}));
  expectTensorEq<float>(
      out, f32({2, 2, 3}, {11, 11, 11, 12, 12, 12, 23, 23, 23, 24, 24, 24}));
  expectTensorEq<float>(add(a, b), f32({2, 2, 1}, {11, 12, 23, 24}));
}

TEST(Binary, ScalarOperands) {
  Tensor a = f32({3}, {1, 2, 3});
  Tensor s = Tensor::scalar(2.0f);
  expectTensorEq<float>(mul(a, s), f32({3}, {2, 4, 6}));
  expectTensorEq<float>(div(s, a), f32({3}, {2, 1, 2.0f / 3}));
  Tensor both = add(s, s);
  EXPECT_EQ(both.shape(), Shape{});
  EXPECT_EQ(both.scalarAsDouble(), 4.0);
  expectTensorEq<float>(add(f32({1}, {1}), s), f32({1}, {3}));
}

TEST(Binary, EmptyBroadcast) {
  Tensor out = add(f32({0, 3}, {}), f32({3}, {1, 2, 3}));
  EXPECT_EQ(out.shape(), (Shape{0, 3}));
}

TEST(Binary, Integers) {
  expectTensorEq<int32_t>(add(i32({2}, {1, 2}), i32({}, {5})),
                          i32({2}, {6, 7}));
  expectTensorEq<int64_t>(div(i64({4}, {7, -7, 6, 1}), i64({4}, {2, 2, 3, 5})),
                          i64({4}, {3, -3, 2, 0}));
  EXPECT_THROW(div(i32({1}, {1}), i32({1}, {0})), std::domain_error);
  Tensor inf = div(f32({1}, {1}), f32({1}, {0}));
  EXPECT_TRUE(std::isinf(inf.data<float>()[0]));
}

TEST(Binary, ErrorsNameBothShapesAndDTypes) {
  expectInvalidArgument(
      [] {
        add(f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2}, {1, 2}));
      },
      {"add", "[2,3]", "[2]"});
  expectInvalidArgument([] { mul(f32({1}, {1}), f64({1}, {1})); },
                        {"mul", "f32[1]", "f64[1]"});
  expectInvalidArgument([] { add(boolean({1}, {true}), boolean({1}, {true})); },
                        {"add", "unsupported dtype bool"});
}

TEST(Equal, AllDTypesWithBroadcasting) {
  expectTensorEq<bool>(equal(f32({2, 2}, {1, 2, 3, 1}), f32({2}, {1, 2})),
                       boolean({2, 2}, {true, true, false, false}));
  expectTensorEq<bool>(equal(f64({2}, {0.5, NAN}), f64({2}, {0.5, NAN})),
                       boolean({2}, {true, false}));
  expectTensorEq<bool>(equal(i32({3}, {1, 2, 3}), i32({}, {2})),
                       boolean({3}, {false, true, false}));
  expectTensorEq<bool>(equal(i64({2, 1}, {4, 5}), i64({1, 2}, {4, 5})),
                       boolean({2, 2}, {true, false, false, true}));
  expectTensorEq<bool>(equal(boolean({2}, {true, false}), boolean({}, {false})),
                       boolean({2}, {false, true}));
  expectInvalidArgument([] { equal(i32({1}, {1}), i64({1}, {1})); },
                        {"equal", "i32[1]", "i64[1]"});
}

TEST(Unary, Values) {
  Tensor x = f32({4}, {-2, -0.0f, 0.5f, 3});
  expectTensorEq<float>(relu(x), f32({4}, {0, 0, 0.5f, 3}));
  expectTensorEq<float>(neg(x), f32({4}, {2, 0, -0.5f, -3}));
  expectTensorEq<int32_t>(relu(i32({2}, {-1, 4})), i32({2}, {0, 4}));
  Tensor p = f64({3}, {1, 4, 0.25});
  expectTensorNear<double>(log(p), f64({3}, {0, std::log(4.0), std::log(0.25)}),
                           1e-15);
  expectTensorNear<double>(
      exp(p), f64({3}, {std::exp(1.0), std::exp(4.0), std::exp(0.25)}), 1e-12);
  expectTensorEq<double>(sqrt(p), f64({3}, {1, 2, 0.5}));
  expectInvalidArgument([] { log(i32({1}, {1})); },
                        {"log", "unsupported dtype i32", "f32, f64"});
}

TEST(Unary, ReluGrad) {
  Tensor dy = f32({4}, {1, 2, 3, 4});
  Tensor x = f32({4}, {-1, 0, 0.5f, 2});
  // Zero input gets zero gradient, as in TF's ReluGrad.
  expectTensorEq<float>(relu_grad(dy, x), f32({4}, {0, 0, 3, 4}));
  expectInvalidArgument(
      [&] {
        relu_grad(dy, f32({2}, {1, 2}));
      },
      {"relu_grad", "f32[4]", "f32[2]"});
}

TEST(BiasAdd, ForwardAndGrad) {
  Tensor x = f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Tensor b = f32({3}, {100, 200, 300});
  expectTensorEq<float>(bias_add(x, b),
                        f32({2, 2, 3}, {101, 202, 303, 104, 205, 306, 107, 208,
                                        309, 110, 211, 312}));
  expectTensorEq<float>(bias_add_grad(x), f32({3}, {22, 26, 30}));
  expectInvalidArgument(
      [&] {
        bias_add(x, f32({2}, {1, 2}));
      },
      {"bias_add", "f32[2]", "f32[2,2,3]"});
  expectInvalidArgument([&] { bias_add(b, b); }, {"rank >= 2"});
}

TEST(Clip, ForwardAndGradIncludeBounds) {
  Tensor x = f32({5}, {-3, -1, 0, 1, 3});
  expectTensorEq<float>(clip_by_value(x, -1, 1), f32({5}, {-1, -1, 0, 1, 1}));
  Tensor dy = f32({5}, {1, 2, 3, 4, 5});
  expectTensorEq<float>(clip_by_value_grad(dy, x, -1, 1),
                        f32({5}, {0, 2, 3, 4, 0}));
  expectTensorEq<int64_t>(clip_by_value(i64({3}, {-5, 2, 9}), 0, 4),
                          i64({3}, {0, 2, 4}));
  expectInvalidArgument([&] { clip_by_value(x, 2, 1); }, {"clip_by_value"});
}

TEST(Cast, BetweenAllDTypes) {
  Tensor x = f32({4}, {-1.7f, 0, 0.2f, 2.9f});
  expectTensorEq<int32_t>(cast(x, DType::I32), i32({4}, {-1, 0, 0, 2}));
  expectTensorEq<int64_t>(cast(x, DType::I64), i64({4}, {-1, 0, 0, 2}));
  expectTensorEq<bool>(cast(x, DType::Bool),
                       boolean({4}, {true, false, true, true}));
  expectTensorNear<double>(cast(x, DType::F64), f64({4}, {-1.7, 0, 0.2, 2.9}),
                           1e-6);
  expectTensorEq<float>(cast(boolean({2}, {true, false}), DType::F32),
                        f32({2}, {1, 0}));
  expectTensorEq<bool>(cast(i64({3}, {0, 5, -1}), DType::Bool),
                       boolean({3}, {false, true, true}));
  Tensor same = cast(x, DType::F32);
  EXPECT_NE(same.rawData(), x.rawData());
  expectTensorEq<float>(same, x);
}

TEST(Matmul, AllTransposeCombinations) {
  // a = [[1,2,3],[4,5,6]], b = [[7,8],[9,10],[11,12]], a*b =
  // [[58,64],[139,154]].
  Tensor a = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor aT = f32({3, 2}, {1, 4, 2, 5, 3, 6});
  Tensor b = f32({3, 2}, {7, 8, 9, 10, 11, 12});
  Tensor bT = f32({2, 3}, {7, 9, 11, 8, 10, 12});
  Tensor expected = f32({2, 2}, {58, 64, 139, 154});
  expectTensorEq<float>(matmul(a, b), expected);
  expectTensorEq<float>(matmul(aT, b, true, false), expected);
  expectTensorEq<float>(matmul(a, bT, false, true), expected);
  expectTensorEq<float>(matmul(aT, bT, true, true), expected);
}

TEST(Matmul, DoubleMatchesNaiveLoop) {
  Tensor a = dtf::testing::randomTensor(DType::F64, {17, 33}, 1);
  Tensor b = dtf::testing::randomTensor(DType::F64, {33, 9}, 2);
  Tensor expected(DType::F64, {17, 9});
  const double *pa = a.data<double>();
  const double *pb = b.data<double>();
  double *pe = expected.data<double>();
  for (int i = 0; i < 17; ++i)
    for (int j = 0; j < 9; ++j)
      for (int k = 0; k < 33; ++k)
        pe[i * 9 + j] += pa[i * 33 + k] * pb[k * 9 + j];
  expectTensorNear<double>(matmul(a, b), expected, 1e-12);
}

TEST(Matmul, EmptyInnerDimensionGivesZeros) {
  Tensor out = matmul(Tensor(DType::F32, {2, 0}), Tensor(DType::F32, {0, 3}));
  expectTensorEq<float>(out, Tensor(DType::F32, {2, 3}));
}

TEST(Matmul, Errors) {
  Tensor a(DType::F32, {2, 3});
  expectInvalidArgument([&] { matmul(a, a); }, {"matmul", "f32[2,3]"});
  expectInvalidArgument([&] { matmul(a, Tensor(DType::F32, {3})); },
                        {"rank 2", "f32[3]"});
  expectInvalidArgument(
      [&] {
        matmul(Tensor(DType::I32, {1, 1}), Tensor(DType::I32, {1, 1}));
      },
      {"unsupported dtype i32"});
}

// TfValuesTest holds the values to TensorFlow's; these are the dtype and
// shape errors, which name the op and what is wrong.
TEST(Select, BroadcastsAllThree) {
  Tensor condition = boolean({2, 1}, {true, false});
  expectTensorEq<float>(select(condition, f32({3}, {1, 2, 3}), f32({}, {0})),
                        f32({2, 3}, {1, 2, 3, 0, 0, 0}));
}

TEST(Select, Errors) {
  expectInvalidArgument(
      [] {
        select(f32({2}, {1, 0}), f32({2}, {1, 2}), f32({2}, {3, 4}));
      },
      {"select", "condition must be bool", "f32[2]"});
  expectInvalidArgument(
      [] {
        select(boolean({2}, {true, false}), f32({2}, {1, 2}), i32({2}, {3, 4}));
      },
      {"select", "on_true", "on_false"});
  expectInvalidArgument(
      [] {
        select(boolean({3}, {true, false, true}), f32({2}, {1, 2}),
               f32({2}, {3, 4}));
      },
      {"select", "[3], [2] and [2] are not broadcast-compatible"});
}

TEST(Logical, RejectsNumbers) {
  expectInvalidArgument([] { logical_and(f32({1}, {1}), f32({1}, {1})); },
                        {"logical_and", "lhs must be bool"});
  expectInvalidArgument([] { logical_not(i32({1}, {1})); },
                        {"logical_not", "x must be bool"});
}

TEST(Compare, OrderedComparisonsRejectBool) {
  expectInvalidArgument(
      [] { greater(boolean({1}, {true}), boolean({1}, {false})); },
      {"greater"});
}

TEST(Extrema, IntegersAndEmptySlices) {
  Tensor x = i32({2, 3}, {4, -1, 7, 0, 9, -5});
  expectTensorEq<int32_t>(reduce_max(x, {1}), i32({2}, {7, 9}));
  expectTensorEq<int32_t>(reduce_min(x, {0}, true), i32({1, 3}, {0, -1, -5}));
  Tensor empty = Tensor(DType::F32, {2, 0});
  expectTensorEq<float>(reduce_max(empty, {1}),
                        f32({2}, {-std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity()}));
}
