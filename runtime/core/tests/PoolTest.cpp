//===- PoolTest.cpp - max_pool and max_pool_grad --------------------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/tests/TestUtil.h"

#include <gtest/gtest.h>

#include <limits>

using namespace dtf;
using namespace dtf::kernels;
using dtf::testing::expectInvalidArgument;
using dtf::testing::expectTensorEq;

namespace {
Tensor f32(Shape shape, std::vector<float> values) {
  return Tensor::fromVector<float>(std::move(shape), values);
}
const std::vector<int64_t> k2{1, 2, 2, 1}, k3{1, 3, 3, 1}, s1{1, 1, 1, 1},
    s2{1, 2, 2, 1};
} // namespace

TEST(MaxPool, ValidStride2) {
  Tensor x =
      f32({1, 4, 4, 1}, {1, 3, 2, 4, 5, 7, 6, 8, 9, 2, 1, 0, 3, 4, 8, 6});
  expectTensorEq<float>(max_pool(x, k2, s2, Padding::Valid),
                        f32({1, 2, 2, 1}, {7, 8, 9, 8}));
}

TEST(MaxPool, SameStride2PaddingNeverWins) {
  // All inputs negative: a zero from padding would win if it took part.
  // Window rows/cols are {0,1}, {1,2,3}, {3,4}, so the max is the top-left
  // valid cell, -(5r + c + 1).
  std::vector<float> values(25);
  for (int i = 0; i < 25; ++i)
    values[i] = -static_cast<float>(i + 1);
  Tensor out = max_pool(f32({1, 5, 5, 1}, values), k3, s2, Padding::Same);
  expectTensorEq<float>(
      out, f32({1, 3, 3, 1}, {-1, -2, -4, -6, -7, -9, -16, -17, -19}));
}

TEST(MaxPool, ChannelsAndBatchesAreIndependent) {
  // Channel 0 ascends, channel 1 descends; batch 1 is batch 0 plus 100.
  std::vector<float> values;
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 4; ++i) {
      values.push_back(100 * n + i);
      values.push_back(100 * n - i);
    }
  Tensor out = max_pool(f32({2, 2, 2, 2}, values), k2, s1, Padding::Valid);
  expectTensorEq<float>(out, f32({2, 1, 1, 2}, {3, 0, 103, 100}));
}

TEST(MaxPool, InfinityInputsStillPropagate) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor out = max_pool(f32({1, 1, 2, 1}, {-inf, -inf}), {1, 1, 2, 1},
                        {1, 1, 2, 1}, Padding::Valid);
  EXPECT_EQ(out.data<float>()[0], -inf);
}

TEST(MaxPoolGrad, TiesGoToFirstInRowMajorOrder) {
  Tensor x = f32({1, 2, 2, 1}, {5, 5, 5, 5});
  Tensor y = max_pool(x, k2, s2, Padding::Valid);
  expectTensorEq<float>(
      max_pool_grad(x, y, f32({1, 1, 1, 1}, {3}), k2, s2, Padding::Valid),
      f32({1, 2, 2, 1}, {3, 0, 0, 0}));
  // Later row, earlier column still loses to the first row.
  Tensor x2 = f32({1, 2, 2, 1}, {1, 5, 5, 2});
  expectTensorEq<float>(
      max_pool_grad(x2, y, f32({1, 1, 1, 1}, {3}), k2, s2, Padding::Valid),
      f32({1, 2, 2, 1}, {0, 3, 0, 0}));
}

TEST(MaxPoolGrad, OverlappingWindowsAccumulate) {
  Tensor x = f32({1, 3, 3, 1}, {1, 2, 3, 4, 9, 5, 6, 7, 8});
  Tensor y = max_pool(x, k2, s1, Padding::Valid);
  expectTensorEq<float>(y, f32({1, 2, 2, 1}, {9, 9, 9, 9}));
  Tensor dy = f32({1, 2, 2, 1}, {1, 2, 3, 4});
  expectTensorEq<float>(max_pool_grad(x, y, dy, k2, s1, Padding::Valid),
                        f32({1, 3, 3, 1}, {0, 0, 0, 0, 10, 0, 0, 0, 0}));
  // Tied row [5,5,5] with 2-wide windows: first window picks 0, second 1.
  Tensor row = f32({1, 1, 3, 1}, {5, 5, 5});
  std::vector<int64_t> k12{1, 1, 2, 1};
  Tensor yRow = max_pool(row, k12, s1, Padding::Valid);
  expectTensorEq<float>(max_pool_grad(row, yRow, f32({1, 1, 2, 1}, {1, 2}), k12,
                                      s1, Padding::Valid),
                        f32({1, 1, 3, 1}, {1, 2, 0}));
}

TEST(MaxPoolGrad, SameStride2RoutesToValidCells) {
  std::vector<float> values(25);
  for (int i = 0; i < 25; ++i)
    values[i] = -static_cast<float>(i + 1);
  Tensor x = f32({1, 5, 5, 1}, values);
  Tensor y = max_pool(x, k3, s2, Padding::Same);
  Tensor dy = Tensor::filled(DType::F32, {1, 3, 3, 1}, 1);
  Tensor dx = max_pool_grad(x, y, dy, k3, s2, Padding::Same);
  // Winners are rows {0,1,3} x cols {0,1,3}.
  std::vector<float> expected(25, 0);
  for (int r : {0, 1, 3})
    for (int c : {0, 1, 3})
      expected[r * 5 + c] = 1;
  expectTensorEq<float>(dx, f32({1, 5, 5, 1}, expected));
}

TEST(MaxPool, Errors) {
  Tensor x(DType::F32, {1, 4, 4, 1});
  expectInvalidArgument(
      [&] {
        max_pool(x, {2, 2}, s2, Padding::Valid);
      },
      {"max_pool", "ksize"});
  expectInvalidArgument(
      [&] {
        max_pool(x, k2, {1, 0, 1, 1}, Padding::Valid);
      },
      {"strides"});
  expectInvalidArgument(
      [&] {
        max_pool(Tensor(DType::F32, {4, 4}), k2, s2, Padding::Valid);
      },
      {"rank 4", "f32[4,4]"});
  Tensor wrong(DType::F32, {1, 3, 3, 1});
  expectInvalidArgument(
      [&] { max_pool_grad(x, wrong, wrong, k2, s2, Padding::Valid); },
      {"[1,2,2,1]", "f32[1,3,3,1]"});
}
