//===- SoftmaxTest.cpp - Softmax and cross-entropy ------------------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/tests/TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace dtf;
using namespace dtf::kernels;
using dtf::testing::expectInvalidArgument;
using dtf::testing::expectTensorNear;

namespace {
Tensor f64(Shape shape, std::vector<double> values) {
  return Tensor::fromVector<double>(std::move(shape), values);
}

std::vector<double> referenceSoftmax(const std::vector<double> &row) {
  double sum = 0;
  for (double v : row)
    sum += std::exp(v);
  std::vector<double> out;
  for (double v : row)
    out.push_back(std::exp(v) / sum);
  return out;
}
} // namespace

TEST(Softmax, RowsAlongLastAxis) {
  Tensor x = f64({2, 3}, {1, 2, 3, 0, 0, 0});
  std::vector<double> first = referenceSoftmax({1, 2, 3});
  expectTensorNear<double>(
      softmax(x),
      f64({2, 3}, {first[0], first[1], first[2], 1.0 / 3, 1.0 / 3, 1.0 / 3}),
      1e-15);
}

TEST(Softmax, LargeLogitsDoNotOverflow) {
  Tensor x = Tensor::fromVector<float>({1, 2}, {1000, 1001});
  Tensor y = softmax(x);
  const float e = std::exp(-1.0f);
  EXPECT_NEAR(y.data<float>()[0], e / (1 + e), 1e-6);
  EXPECT_NEAR(y.data<float>()[1], 1 / (1 + e), 1e-6);
}

TEST(Softmax, Grad) {
  // sum(dy * y) = 0.2*1 + 0.3*2 + 0.5*3 = 2.3.
  Tensor y = f64({1, 3}, {0.2, 0.3, 0.5});
  Tensor dy = f64({1, 3}, {1, 2, 3});
  expectTensorNear<double>(
      softmax_grad(dy, y),
      f64({1, 3}, {(1 - 2.3) * 0.2, (2 - 2.3) * 0.3, (3 - 2.3) * 0.5}), 1e-15);
  expectInvalidArgument(
      [&] {
        softmax_grad(dy, f64({3}, {1, 2, 3}));
      },
      {"softmax_grad", "f64[1,3]", "f64[3]"});
}

TEST(SoftmaxCrossEntropy, LossAndGrad) {
  Tensor logits = f64({2, 3}, {1, 2, 3, 1, 1, 1});
  Tensor labels = f64({2, 3}, {0, 0, 1, 0.5, 0.25, 0.25});
  std::vector<double> p = referenceSoftmax({1, 2, 3});
  expectTensorNear<double>(softmax_cross_entropy_with_logits(logits, labels),
                           f64({2}, {-std::log(p[2]), std::log(3.0)}), 1e-14);
  Tensor dloss = f64({2}, {2, -1});
  expectTensorNear<double>(
      softmax_cross_entropy_with_logits_grad(dloss, logits, labels),
      f64({2, 3}, {2 * p[0], 2 * p[1], 2 * (p[2] - 1), -(1.0 / 3 - 0.5),
                   -(1.0 / 3 - 0.25), -(1.0 / 3 - 0.25)}),
      1e-14);
}

TEST(SoftmaxCrossEntropy, StableForExtremeLogits) {
  // softmax of the labelled class underflows to 0 in float, yet the loss is
  // the finite 1000 (TensorFlow's log-sum-exp formulation).
  Tensor logits = Tensor::fromVector<float>({1, 2}, {1000, 0});
  Tensor labels = Tensor::fromVector<float>({1, 2}, {0, 1});
  Tensor loss = softmax_cross_entropy_with_logits(logits, labels);
  EXPECT_FLOAT_EQ(loss.data<float>()[0], 1000.0f);
}

TEST(SoftmaxCrossEntropy, ShapeErrors) {
  Tensor logits(DType::F32, {2, 3});
  expectInvalidArgument(
      [&] {
        softmax_cross_entropy_with_logits(logits, Tensor(DType::F32, {2, 4}));
      },
      {"f32[2,3]", "f32[2,4]"});
  expectInvalidArgument(
      [&] {
        softmax_cross_entropy_with_logits_grad(Tensor(DType::F32, {3}), logits,
                                               logits.clone());
      },
      {"dloss", "f32[3]", "f32[2,3]"});
  expectInvalidArgument(
      [&] {
        softmax_cross_entropy_with_logits(Tensor(DType::F32, {3}),
                                          Tensor(DType::F32, {3}));
      },
      {"rank 2"});
}

TEST(SparseSoftmaxCrossEntropy, EqualsTheDenseFormWithOneHotLabels) {
  Tensor logits = f64({3, 4}, {1, 2, 3, 4, 0, 0, 0, 0, -1, 5, 2, 0.5});
  Tensor ids = Tensor::fromVector<int64_t>({3}, {3, 0, 1});
  Tensor oneHot = f64({3, 4}, {0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0});
  expectTensorNear<double>(
      sparse_softmax_cross_entropy_with_logits(logits, ids),
      softmax_cross_entropy_with_logits(logits, oneHot), 1e-14);
  Tensor dloss = f64({3}, {2, -1, 0.5});
  expectTensorNear<double>(
      sparse_softmax_cross_entropy_with_logits_grad(dloss, logits, ids),
      softmax_cross_entropy_with_logits_grad(dloss, logits, oneHot), 1e-14);
  // int32 class ids too.
  expectTensorNear<double>(
      sparse_softmax_cross_entropy_with_logits(
          logits, Tensor::fromVector<int32_t>({3}, {3, 0, 1})),
      softmax_cross_entropy_with_logits(logits, oneHot), 1e-14);
}

TEST(SparseSoftmaxCrossEntropy, RejectsClassIdsOutOfRange) {
  Tensor logits(DType::F32, {2, 3});
  expectInvalidArgument(
      [&] {
        sparse_softmax_cross_entropy_with_logits(
            logits, Tensor::fromVector<int64_t>({2}, {0, 3}));
      },
      {"class id 3 of example 1 is outside [0, 3)"});
  expectInvalidArgument(
      [&] {
        sparse_softmax_cross_entropy_with_logits(
            logits, Tensor::fromVector<int64_t>({3}, {0, 1, 2}));
      },
      {"different numbers of examples"});
}
