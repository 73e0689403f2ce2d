//===- OptimizersTest.cpp - In-place variable updates ---------------------===//

#include "runtime/core/Kernels.h"

#include "runtime/core/tests/TestUtil.h"

#include <gtest/gtest.h>

using namespace dtf;
using namespace dtf::kernels;
using dtf::testing::expectInvalidArgument;
using dtf::testing::expectTensorNear;

namespace {
Tensor f64(Shape shape, std::vector<double> values) {
  return Tensor::fromVector<double>(std::move(shape), values);
}
} // namespace

TEST(ApplyGradientDescent, Step) {
  Tensor var = f64({2}, {1, 2});
  const void *buffer = var.rawData();
  apply_gradient_descent(var, 0.1, f64({2}, {0.5, -1}));
  EXPECT_EQ(var.rawData(), buffer);
  expectTensorNear<double>(var, f64({2}, {0.95, 2.1}), 1e-15);
}

TEST(ApplyMomentum, TwoSteps) {
  // accum: 1, then 0.9 * 1 + 2 = 2.9; var: 1 - 0.1, then 0.9 - 0.29.
  Tensor var = f64({1}, {1});
  Tensor accum = f64({1}, {0});
  apply_momentum(var, accum, 0.1, f64({1}, {1}), 0.9);
  expectTensorNear<double>(accum, f64({1}, {1}), 1e-15);
  expectTensorNear<double>(var, f64({1}, {0.9}), 1e-15);
  apply_momentum(var, accum, 0.1, f64({1}, {2}), 0.9);
  expectTensorNear<double>(accum, f64({1}, {2.9}), 1e-15);
  expectTensorNear<double>(var, f64({1}, {0.61}), 1e-15);
}

TEST(ApplyMomentum, NesterovTwoSteps) {
  // var -= lr * g + lr * momentum * accum: 1 - (0.1 + 0.09) = 0.81, then
  // 0.81 - (0.2 + 0.1 * 0.9 * 2.9) = 0.349.
  Tensor var = f64({1}, {1});
  Tensor accum = f64({1}, {0});
  apply_momentum(var, accum, 0.1, f64({1}, {1}), 0.9, true);
  expectTensorNear<double>(var, f64({1}, {0.81}), 1e-15);
  apply_momentum(var, accum, 0.1, f64({1}, {2}), 0.9, true);
  expectTensorNear<double>(accum, f64({1}, {2.9}), 1e-15);
  expectTensorNear<double>(var, f64({1}, {0.349}), 1e-15);
}

TEST(ApplyAdam, TwoSteps) {
  // lr 0.1, beta1 0.9, beta2 0.999, epsilon 1e-8, gradients 0.5 then -1.
  // Step 1: lr_t = 0.1 * sqrt(0.001) / 0.1, m = 0.05, v = 0.00025, so
  // var = 1 - lr_t * 0.05 / (sqrt(0.00025) + 1e-8) = 1 - 0.1 * (1 - ~6e-7).
  // Step 2: lr_t = 0.1 * sqrt(1 - 0.999^2) / (1 - 0.9^2), m = -0.055,
  // v = 0.00124975.
  for (DType dtype : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    const double tolerance = dtype == DType::F64 ? 1e-12 : 1e-6;
    Tensor var = Tensor::filled(dtype, {2}, 1);
    Tensor m(dtype, {2});
    Tensor v(dtype, {2});
    apply_adam(var, m, v, 0.9, 0.999, 0.1, 0.9, 0.999, 1e-8,
               Tensor::filled(dtype, {2}, 0.5));
    Tensor var64 = cast(var, DType::F64);
    expectTensorNear<double>(cast(m, DType::F64), f64({2}, {0.05, 0.05}),
                             tolerance);
    expectTensorNear<double>(cast(v, DType::F64), f64({2}, {0.00025, 0.00025}),
                             tolerance);
    expectTensorNear<double>(
        var64, f64({2}, {0.9000000632455132, 0.9000000632455132}), tolerance);
    apply_adam(var, m, v, 0.81, 0.998001, 0.1, 0.9, 0.999, 1e-8,
               Tensor::filled(dtype, {2}, -1));
    expectTensorNear<double>(cast(m, DType::F64), f64({2}, {-0.055, -0.055}),
                             tolerance);
    expectTensorNear<double>(cast(v, DType::F64),
                             f64({2}, {0.00124975, 0.00124975}), tolerance);
    expectTensorNear<double>(cast(var, DType::F64),
                             f64({2}, {0.9366104055930933, 0.9366104055930933}),
                             tolerance);
  }
}

TEST(AssignAdd, FloatAndInteger) {
  Tensor var = f64({2}, {1, 2});
  assign_add(var, f64({2}, {0.5, -3}));
  expectTensorNear<double>(var, f64({2}, {1.5, -1}), 0);
  Tensor step = Tensor::scalar<int64_t>(41);
  assign_add(step, Tensor::scalar<int64_t>(1));
  EXPECT_EQ(step.scalarAsDouble(), 42);
}

TEST(AssignMovingAverage, TwoSteps) {
  // decay 0.75: mean = 0.75 * mean + 0.25 * value, twice.
  Tensor mean = f64({2}, {0, 8});
  assign_moving_average(mean, f64({2}, {4, 0}), 0.75);
  expectTensorNear<double>(mean, f64({2}, {1, 6}), 1e-15);
  assign_moving_average(mean, f64({2}, {4, 0}), 0.75);
  expectTensorNear<double>(mean, f64({2}, {1.75, 4.5}), 1e-15);
  // A decay of 1 keeps the average; 0 replaces it.
  assign_moving_average(mean, f64({2}, {-1, -1}), 1.0);
  expectTensorNear<double>(mean, f64({2}, {1.75, 4.5}), 0);
  assign_moving_average(mean, f64({2}, {-1, -1}), 0.0);
  expectTensorNear<double>(mean, f64({2}, {-1, -1}), 0);
}

TEST(Optimizers, RejectMismatchedOperands) {
  Tensor var(DType::F32, {2});
  Tensor accum(DType::F32, {3});
  expectInvalidArgument(
      [&] { apply_gradient_descent(var, 0.1, Tensor(DType::F32, {3})); },
      {"apply_gradient_descent", "f32[2]", "f32[3]"});
  expectInvalidArgument(
      [&] { apply_momentum(var, accum, 0.1, var.clone(), 0.9); },
      {"apply_momentum", "accum"});
  Tensor m(DType::F64, {2}), v(DType::F32, {2});
  expectInvalidArgument(
      [&] {
        apply_adam(var, m, v, 0.9, 0.999, 0.1, 0.9, 0.999, 1e-8, var.clone());
      },
      {"apply_adam", "f64[2]"});
  expectInvalidArgument(
      [&] { assign_moving_average(var, Tensor(DType::F32, {3}), 0.99); },
      {"assign_moving_average", "f32[2]", "f32[3]"});
  Tensor ivar(DType::I32, {2});
  expectInvalidArgument(
      [&] { apply_gradient_descent(ivar, 0.1, ivar.clone()); },
      {"unsupported dtype i32"});
}
