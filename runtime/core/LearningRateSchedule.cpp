//===- LearningRateSchedule.cpp - Learning rates from the global step -----===//
//
// Each function follows the float32 graph that TensorFlow's
// learning_rate_schedule.py builds, operation by operation, so that the rate
// is TensorFlow's up to the rounding of pow and cos: the C library's powf
// and cosf round correctly or nearly so, Eigen's float pow in TensorFlow is
// off by up to a few ulps (runtime/core/tests/TfValuesTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "runtime/core/LearningRateSchedule.h"

#include <algorithm>
#include <cmath>

namespace dtf::kernels {
namespace {

struct Evaluate {
  float learningRate;
  float step;
  int64_t integerStep;

  float operator()(const ExponentialDecay &decay) const {
    float exponent = step / static_cast<float>(decay.decaySteps);
    if (decay.staircase)
      exponent = std::floor(exponent);
    return learningRate *
           std::pow(static_cast<float>(decay.decayRate), exponent);
  }

  float operator()(const PolynomialDecay &decay) const {
    float end = static_cast<float>(decay.endLearningRate);
    float decaySteps = static_cast<float>(decay.decaySteps);
    float at = step;
    if (decay.cycle) {
      // The first multiple of decay_steps at or above the step; 1 at step
      // 0, where the ceiling would be 0.
      float multiplier = at == 0.0f ? 1.0f : std::ceil(at / decaySteps);
      decaySteps = decaySteps * multiplier;
    } else {
      at = std::min(at, decaySteps);
    }
    float fraction = at / decaySteps;
    return (learningRate - end) *
               std::pow(1.0f - fraction, static_cast<float>(decay.power)) +
           end;
  }

  float operator()(const CosineDecay &decay) const {
    float decaySteps = static_cast<float>(decay.decaySteps);
    float fraction = std::min(step, decaySteps) / decaySteps;
    constexpr float pi = 3.14159265358979323846f;
    float cosine = 0.5f * (1.0f + std::cos(pi * fraction));
    // (1 - alpha) is a Python float that TensorFlow converts once.
    float decayed = static_cast<float>(1.0 - decay.alpha) * cosine +
                    static_cast<float>(decay.alpha);
    return learningRate * decayed;
  }

  float operator()(const PiecewiseConstant &piecewise) const {
    // Boundaries compare with the integer step, as TensorFlow's do when
    // they are integers.
    auto after = std::lower_bound(piecewise.boundaries.begin(),
                                  piecewise.boundaries.end(), integerStep);
    return static_cast<float>(
        piecewise.values[after - piecewise.boundaries.begin()]);
  }
};

} // namespace

float scheduledLearningRate(double learningRate,
                            const LearningRateSchedule &schedule,
                            int64_t globalStep) {
  int64_t step = std::max<int64_t>(globalStep, 0);
  return std::visit(Evaluate{static_cast<float>(learningRate),
                             static_cast<float>(step), step},
                    schedule);
}

} // namespace dtf::kernels
