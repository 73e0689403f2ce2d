//===- SlicingTest.cpp - concat and slice ---------------------------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/tests/TestUtil.h"

namespace dtf::kernels {
namespace {

std::vector<float> iota(int64_t n) {
  std::vector<float> values(n);
  for (int64_t i = 0; i < n; ++i)
    values[i] = static_cast<float>(i);
  return values;
}

TEST(ConcatTest, JoinsAlongAnyAxis) {
  Tensor a = Tensor::fromVector<float>({2, 2}, {1, 2, 3, 4});
  Tensor b = Tensor::fromVector<float>({2, 1}, {5, 6});
  Tensor c = Tensor::fromVector<float>({1, 2}, {7, 8});
  EXPECT_EQ(concat({&a, &b}, 1).toVector<float>(),
            (std::vector<float>{1, 2, 5, 3, 4, 6}));
  EXPECT_EQ(concat({&a, &b}, -1).shape(), (Shape{2, 3}));
  Tensor rows = concat({&a, &c}, 0);
  EXPECT_EQ(rows.shape(), (Shape{3, 2}));
  EXPECT_EQ(rows.toVector<float>(), (std::vector<float>{1, 2, 3, 4, 7, 8}));
  Tensor i = Tensor::fromVector<int64_t>({2}, {1, 2});
  Tensor empty(DType::I64, {0});
  EXPECT_EQ(concat({&i, &empty, &i}, 0).toVector<int64_t>(),
            (std::vector<int64_t>{1, 2, 1, 2}));
}

TEST(ConcatTest, RejectsMismatchedInputs) {
  Tensor a = Tensor::fromVector<float>({2, 2}, {1, 2, 3, 4});
  Tensor b = Tensor::fromVector<float>({2, 1}, {5, 6});
  Tensor d = Tensor::fromVector<double>({2, 2}, {1, 2, 3, 4});
  Tensor s = Tensor::scalar<float>(1);
  EXPECT_THROW(concat({&a, &b}, 0), std::invalid_argument);
  EXPECT_THROW(concat({&a, &d}, 0), std::invalid_argument);
  EXPECT_THROW(concat({&a}, 2), std::invalid_argument);
  EXPECT_THROW(concat({&s, &s}, 0), std::invalid_argument);
  EXPECT_THROW(concat({}, 0), std::invalid_argument);
}

TEST(SliceTest, CutsBoxes) {
  Tensor x = Tensor::fromVector<float>({3, 4}, iota(12));
  EXPECT_EQ(slice(x, {1, 1}, {2, 2}).toVector<float>(),
            (std::vector<float>{5, 6, 9, 10}));
  EXPECT_EQ(slice(x, {1, 0}, {-1, -1}).toVector<float>(),
            (std::vector<float>{4, 5, 6, 7, 8, 9, 10, 11}));
  EXPECT_EQ(slice(x, {0, 3}, {3, 1}).toVector<float>(),
            (std::vector<float>{3, 7, 11}));
  EXPECT_EQ(slice(x, {2, 0}, {0, 4}).shape(), (Shape{0, 4}));
  Tensor s = Tensor::scalar<int32_t>(9);
  EXPECT_EQ(slice(s, {}, {}).toVector<int32_t>(), std::vector<int32_t>{9});
}

TEST(SliceTest, InvertsConcat) {
  Tensor x = Tensor::fromVector<float>({2, 3, 4}, iota(24));
  for (int64_t axis = 0; axis < 3; ++axis) {
    std::vector<int64_t> offsets(3, 0), firstSizes(3, -1), secondSizes(3, -1);
    firstSizes[axis] = 1;
    offsets[axis] = 1;
    Tensor first = slice(x, {0, 0, 0}, firstSizes);
    Tensor second = slice(x, offsets, secondSizes);
    dtf::testing::expectTensorEq<float>(concat({&first, &second}, axis), x);
  }
}

TEST(SliceTest, RejectsBoxesOutside) {
  Tensor x = Tensor::fromVector<float>({3, 4}, iota(12));
  EXPECT_THROW(slice(x, {2, 0}, {2, 4}), std::invalid_argument);
  EXPECT_THROW(slice(x, {-1, 0}, {1, 1}), std::invalid_argument);
  EXPECT_THROW(slice(x, {0}, {1}), std::invalid_argument);
  EXPECT_THROW(slice(x, {0, 0}, {1, -2}), std::invalid_argument);
}

} // namespace
} // namespace dtf::kernels
