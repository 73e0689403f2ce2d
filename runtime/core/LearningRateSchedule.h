//===- LearningRateSchedule.h - Learning rates from the global step -------===//
//
// TensorFlow's learning-rate decay functions (tf.compat.v1.train.*_decay),
// evaluated as TensorFlow evaluates the graph they build: in float32, in
// the same order of operations, from the global step cast to float32. The
// compiler's #dtf.*_decay attributes (dialects/dtf/IR/DTFAttrs.td) map one
// to one onto these structs; runtime/ABI.md says which step an update uses.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cstdint>
#include <variant>
#include <vector>

namespace dtf::kernels {

/// learning_rate * decay_rate ^ (step / decay_steps), the exponent floored
/// with `staircase`.
struct ExponentialDecay {
  double decaySteps = 1;
  double decayRate = 1;
  bool staircase = false;
};

/// (learning_rate - end) * (1 - step / decay_steps) ^ power + end, the step
/// held at decay_steps after it, or with `cycle` decay_steps stretched to
/// the first multiple of itself at or above the step.
struct PolynomialDecay {
  double decaySteps = 1;
  double endLearningRate = 0.0001;
  double power = 1;
  bool cycle = false;
};

/// learning_rate * ((1 - alpha) * 0.5 * (1 + cos(pi * t)) + alpha), with
/// t = min(step, decay_steps) / decay_steps.
struct CosineDecay {
  double decaySteps = 1;
  double alpha = 0;
};

/// values[0] for steps up to boundaries[0], values[i] for steps in
/// (boundaries[i-1], boundaries[i]], the last value after the last
/// boundary. values has one more element than boundaries.
struct PiecewiseConstant {
  std::vector<int64_t> boundaries;
  std::vector<double> values;
};

using LearningRateSchedule = std::variant<ExponentialDecay, PolynomialDecay,
                                          CosineDecay, PiecewiseConstant>;

/// The learning rate of `schedule`, which starts at `learningRate`, at
/// global step `globalStep` (negative steps count as 0).
float scheduledLearningRate(double learningRate,
                            const LearningRateSchedule &schedule,
                            int64_t globalStep);

} // namespace dtf::kernels
