//===- ReductionTest.cpp - Reductions, argmax and shape kernels -----------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/tests/TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace dtf;
using namespace dtf::kernels;
using dtf::testing::expectInvalidArgument;
using dtf::testing::expectTensorEq;
using dtf::testing::expectTensorNear;

namespace {
Tensor f32(Shape shape, std::vector<float> values) {
  return Tensor::fromVector<float>(std::move(shape), values);
}
Tensor i64(Shape shape, std::vector<int64_t> values) {
  return Tensor::fromVector<int64_t>(std::move(shape), values);
}
// [2,3,2] holding 0..11.
Tensor iota() { return f32({2, 3, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}); }
} // namespace

TEST(ReduceSum, AllAxes) {
  Tensor all = reduce_sum(iota(), {});
  EXPECT_EQ(all.shape(), Shape{});
  EXPECT_EQ(all.scalarAsDouble(), 66);
  expectTensorEq<float>(reduce_sum(iota(), {}, true), f32({1, 1, 1}, {66}));
  expectTensorEq<float>(reduce_sum(Tensor::scalar(3.0f), {}),
                        Tensor::scalar(3.0f));
}

TEST(ReduceSum, SingleAxes) {
  expectTensorEq<float>(reduce_sum(iota(), {0}),
                        f32({3, 2}, {6, 8, 10, 12, 14, 16}));
  expectTensorEq<float>(reduce_sum(iota(), {1}), f32({2, 2}, {6, 9, 24, 27}));
  expectTensorEq<float>(reduce_sum(iota(), {-1}),
                        f32({2, 3}, {1, 5, 9, 13, 17, 21}));
  expectTensorEq<float>(reduce_sum(iota(), {2}, true),
                        f32({2, 3, 1}, {1, 5, 9, 13, 17, 21}));
}

TEST(ReduceSum, MultipleAxes) {
  expectTensorEq<float>(reduce_sum(iota(), {0, 2}), f32({3}, {14, 22, 30}));
  expectTensorEq<float>(reduce_sum(iota(), {-1, 0}, true),
                        f32({1, 3, 1}, {14, 22, 30}));
  expectTensorEq<float>(reduce_sum(iota(), {0, 1}), f32({2}, {30, 36}));
}

TEST(ReduceSum, IntegersAndEmpty) {
  expectTensorEq<int64_t>(reduce_sum(i64({2, 2}, {1, 2, 3, 4}), {1}),
                          i64({2}, {3, 7}));
  expectTensorEq<float>(reduce_sum(Tensor(DType::F32, {0, 3}), {0}),
                        f32({3}, {0, 0, 0}));
}

TEST(ReduceSum, FloatAccumulatesInDouble) {
  // 2^24 + 1 rounds back to 2^24 in float, so a float accumulator would
  // never move; the exact sum 2^24 + 2^20 is representable.
  const int64_t ones = 1 << 20;
  Tensor x = Tensor::filled(DType::F32, {ones + 1}, 1.0f);
  x.data<float>()[0] = 16777216.0f;
  EXPECT_EQ(reduce_sum(x, {}).scalarAsDouble(), 16777216.0 + ones);
}

TEST(ReduceSum, AxisErrors) {
  expectInvalidArgument([] { reduce_sum(iota(), {3}); },
                        {"reduce_sum", "axis 3", "rank 3"});
  expectInvalidArgument(
      [] {
        reduce_sum(iota(), {1, -2});
      },
      {"listed twice", "[2,3,2]"});
  expectInvalidArgument([] { reduce_sum(Tensor(DType::Bool, {2}), {}); },
                        {"unsupported dtype bool"});
}

TEST(ReduceMean, Axes) {
  expectTensorEq<float>(reduce_mean(iota(), {1}), f32({2, 2}, {2, 3, 8, 9}));
  EXPECT_EQ(reduce_mean(iota(), {}).scalarAsDouble(), 5.5);
  expectTensorEq<float>(reduce_mean(iota(), {0, 2}, true),
                        f32({1, 3, 1}, {3.5, 5.5, 7.5}));
  EXPECT_TRUE(
      std::isnan(reduce_mean(Tensor(DType::F64, {0}), {}).scalarAsDouble()));
  expectInvalidArgument([] { reduce_mean(i64({1}, {1}), {}); },
                        {"reduce_mean", "unsupported dtype i64"});
}

TEST(Argmax, AxesAndFirstMaxOnTies) {
  Tensor x = f32({2, 3}, {1, 5, 5, 7, 7, 2});
  expectTensorEq<int64_t>(argmax(x, 1), i64({2}, {1, 0}));
  expectTensorEq<int64_t>(argmax(x, -1), i64({2}, {1, 0}));
  expectTensorEq<int64_t>(argmax(x, 0), i64({3}, {1, 1, 0}));
  Tensor ties = f32({2, 2}, {3, 3, 3, 3});
  expectTensorEq<int64_t>(argmax(ties, 0), i64({2}, {0, 0}));
  expectTensorEq<int64_t>(argmax(ties, 1), i64({2}, {0, 0}));
  // Middle axis of a rank-3 tensor: iota grows along every axis.
  expectTensorEq<int64_t>(argmax(iota(), 1), i64({2, 2}, {2, 2, 2, 2}));
  expectTensorEq<int64_t>(
      argmax(Tensor::fromVector<int32_t>({3}, {-4, -1, -1}), 0),
      Tensor::scalar<int64_t>(1));
}

TEST(Argmax, Errors) {
  expectInvalidArgument([] { argmax(iota(), 3); }, {"argmax", "axis 3"});
  expectInvalidArgument(
      [] {
        argmax(Tensor(DType::F32, {2, 0}), 1);
      },
      {"empty axis", "f32[2,0]"});
}

TEST(BroadcastTo, NumPyRules) {
  expectTensorEq<float>(broadcast_to(f32({3}, {1, 2, 3}), {2, 3}),
                        f32({2, 3}, {1, 2, 3, 1, 2, 3}));
  expectTensorEq<float>(broadcast_to(f32({2, 1}, {1, 2}), {2, 3}),
                        f32({2, 3}, {1, 1, 1, 2, 2, 2}));
  expectTensorEq<float>(broadcast_to(Tensor::scalar(4.0f), {2}),
                        f32({2}, {4, 4}));
  expectTensorEq<float>(broadcast_to(f32({2}, {1, 2}), {1, 2}),
                        f32({1, 2}, {1, 2}));
  expectTensorEq<bool>(
      broadcast_to(Tensor::fromVector<bool>({1, 2}, {true, false}), {2, 2}),
      Tensor::fromVector<bool>({2, 2}, {true, false, true, false}));
  expectInvalidArgument(
      [] {
        broadcast_to(f32({3}, {1, 2, 3}), {3, 2});
      },
      {"broadcast_to", "f32[3]", "[3,2]"});
  expectInvalidArgument(
      [] {
        broadcast_to(f32({1, 2}, {1, 2}), {2});
      },
      {"f32[1,2]", "[2]"});
}

TEST(Reshape, InfersOneDimensionAndReusesBuffer) {
  Tensor x = iota();
  const void *buffer = x.rawData();
  Tensor y = reshape(std::move(x), {-1, 4});
  EXPECT_EQ(y.shape(), (Shape{3, 4}));
  EXPECT_EQ(y.rawData(), buffer);
  EXPECT_EQ(reshape(y.clone(), {12}).shape(), Shape{12});
  EXPECT_EQ(reshape(Tensor::fromVector<float>({1}, {1}), {}).shape(), Shape{});
  expectInvalidArgument(
      [&] {
        reshape(y.clone(), {5, -1});
      },
      {"reshape", "[5,-1]", "f32[3,4]"});
  expectInvalidArgument(
      [&] {
        reshape(y.clone(), {-1, -1});
      },
      {"at most one -1"});
  expectInvalidArgument(
      [&] {
        reshape(y.clone(), {2, 2});
      },
      {"f32[3,4]", "[2,2]"});
}
