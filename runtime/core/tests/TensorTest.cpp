//===- TensorTest.cpp - Tensor and shape helpers --------------------------===//

#include "runtime/core/Tensor.h"

#include "runtime/core/tests/TestUtil.h"

#include <gtest/gtest.h>

#include <type_traits>

using namespace dtf;
using dtf::testing::expectInvalidArgument;

TEST(Tensor, DefaultIsEmpty) {
  Tensor t;
  EXPECT_EQ(t.dtype(), DType::F32);
  EXPECT_EQ(t.shape(), Shape{0});
  EXPECT_EQ(t.numElements(), 0);
  EXPECT_EQ(t.byteSize(), 0u);
}

TEST(Tensor, ConstructorZeroFillsAndSizes) {
  struct Case {
    DType dtype;
    size_t elementSize;
  };
  for (Case c : {Case{DType::F32, 4}, Case{DType::F64, 8}, Case{DType::I32, 4},
                 Case{DType::I64, 8}, Case{DType::Bool, 1}}) {
    Tensor t(c.dtype, {2, 3, 4});
    EXPECT_EQ(t.numElements(), 24);
    EXPECT_EQ(t.byteSize(), 24 * c.elementSize);
    EXPECT_EQ(dtypeSize(c.dtype), c.elementSize);
    const auto *bytes = static_cast<const unsigned char *>(t.rawData());
    for (size_t i = 0; i < t.byteSize(); ++i)
      ASSERT_EQ(bytes[i], 0) << dtypeName(c.dtype);
  }
}

TEST(Tensor, ScalarHasEmptyShapeAndOneElement) {
  Tensor s = Tensor::scalar(2.5);
  EXPECT_EQ(s.dtype(), DType::F64);
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(s.numElements(), 1);
  EXPECT_EQ(*s.data<double>(), 2.5);
  EXPECT_EQ(s.scalarAsDouble(), 2.5);
  EXPECT_EQ(Tensor::scalar<int64_t>(7).scalarAsDouble(), 7.0);
  EXPECT_EQ(Tensor::scalar(true).scalarAsDouble(), 1.0);
}

TEST(Tensor, ScalarAsDoubleRejectsNonScalars) {
  Tensor t(DType::F32, {2});
  expectInvalidArgument([&] { t.scalarAsDouble(); }, {"f32[2]"});
}

TEST(Tensor, FromVectorAndToVector) {
  Tensor t = Tensor::fromVector<int32_t>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(t.dtype(), DType::I32);
  EXPECT_EQ(t.toVector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4}));
  Tensor b = Tensor::fromVector<bool>({3}, {true, false, true});
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(b.toVector<bool>(), (std::vector<bool>{true, false, true}));
  expectInvalidArgument(
      [] {
        Tensor::fromVector<float>({2, 2}, {1, 2, 3});
      },
      {"3", "[2,2]"});
}

TEST(Tensor, DataChecksDType) {
  Tensor t(DType::F32, {2});
  EXPECT_NO_THROW(t.data<float>());
  expectInvalidArgument([&] { t.data<double>(); }, {"f64", "f32[2]"});
  expectInvalidArgument([&] { t.data<int32_t>(); }, {"i32"});
}

TEST(Tensor, FilledConvertsValue) {
  EXPECT_EQ(Tensor::filled(DType::F32, {2}, 1.5).toVector<float>(),
            (std::vector<float>{1.5f, 1.5f}));
  EXPECT_EQ(Tensor::filled(DType::I64, {2}, 3).toVector<int64_t>(),
            (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(Tensor::filled(DType::Bool, {1}, 0.25).toVector<bool>(),
            (std::vector<bool>{true}));
  EXPECT_EQ(Tensor::zeros(DType::F64, {2}).toVector<double>(),
            (std::vector<double>{0, 0}));
}

TEST(Tensor, CloneIsDeepAndMoveIsCheap) {
  static_assert(!std::is_copy_constructible_v<Tensor>);
  static_assert(std::is_nothrow_move_constructible_v<Tensor>);
  Tensor a = Tensor::fromVector<float>({2}, {1, 2});
  Tensor b = a.clone();
  b.data<float>()[0] = 9;
  EXPECT_EQ(a.data<float>()[0], 1);

  const void *buffer = a.rawData();
  Tensor c = std::move(a);
  EXPECT_EQ(c.rawData(), buffer);
  EXPECT_EQ(c.toVector<float>(), (std::vector<float>{1, 2}));
  // The moved-from tensor is the valid empty tensor.
  EXPECT_EQ(a.numElements(), 0); // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(a.shape(), Shape{0});

  Tensor d;
  d = std::move(c);
  EXPECT_EQ(d.rawData(), buffer);
}

TEST(Tensor, BuffersAreCacheLineAligned) {
  Tensor t(DType::F32, {3});
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.rawData()) % 64, 0u);
}

TEST(Tensor, ReshapeKeepsBuffer) {
  Tensor t = Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  const void *buffer = t.rawData();
  t.reshape({3, 2});
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(t.rawData(), buffer);
  expectInvalidArgument([&] { t.reshape({4}); }, {"f32[3,2]", "[4]"});
}

TEST(Tensor, DimAcceptsNegativeAxes) {
  Tensor t(DType::F32, {2, 3, 4});
  EXPECT_EQ(t.dim(0), 2);
  EXPECT_EQ(t.dim(-1), 4);
  EXPECT_EQ(t.dim(-3), 2);
  EXPECT_THROW(t.dim(3), std::out_of_range);
  EXPECT_THROW(t.dim(-4), std::out_of_range);
}

TEST(Tensor, TypeStringAndShapeHelpers) {
  EXPECT_EQ(Tensor(DType::I64, {2, 3}).typeString(), "i64[2,3]");
  EXPECT_EQ(Tensor::scalar(true).typeString(), "bool[]");
  EXPECT_EQ(shapeToString({}), "[]");
  EXPECT_EQ(numElementsOf({}), 1);
  EXPECT_EQ(numElementsOf({2, 0, 3}), 0);
  expectInvalidArgument([] { numElementsOf({2, -1}); }, {"[2,-1]"});
  expectInvalidArgument([] { Tensor(DType::F32, {-2}); }, {"[-2]"});
}

TEST(Tensor, BroadcastShapes) {
  EXPECT_EQ(broadcastShapes({2, 3}, {3}), (Shape{2, 3}));
  EXPECT_EQ(broadcastShapes({2, 1}, {1, 3}), (Shape{2, 3}));
  EXPECT_EQ(broadcastShapes({}, {4, 1}), (Shape{4, 1}));
  EXPECT_EQ(broadcastShapes({5, 1, 3}, {4, 1}), (Shape{5, 4, 3}));
  EXPECT_EQ(broadcastShapes({0, 3}, {1, 3}), (Shape{0, 3}));
  expectInvalidArgument([] { broadcastShapes({2, 3}, {2}); }, {"[2,3]", "[2]"});
}
