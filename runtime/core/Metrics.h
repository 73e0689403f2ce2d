//===- Metrics.h - Streaming evaluation metrics of CTR models -------------===//
//
// The two numbers a click-through-rate model is judged by, accumulated over
// the batches of an evaluation as TensorFlow's streaming metrics are (their
// local variables and update ops): the ROC AUC and the mean log loss. Each
// keeps only counters, so one object serves an evaluation of any length;
// they are not thread-safe (one per evaluating thread, or a lock).
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dtf::metrics {

/// tf.compat.v1.metrics.auc with its defaults: curve 'ROC',
/// summation_method 'trapezoidal', num_thresholds 200.
///
/// Thresholds as TF spaces them: t_0 = -1e-7, t_i = i / (n - 1) for
/// 0 < i < n - 1, t_{n-1} = 1 + 1e-7, rounded to float as TF's float32
/// constant, and an example counts as predicted positive at t_i when its
/// (float) prediction > t_i. The label is TF's cast to bool: positive when
/// != 0. Per threshold, true/false positives and negatives are summed
/// (weighted) over every batch added, and
///   tpr_i = (tp_i + 1e-6) / (tp_i + fn_i + 1e-6),
///   fpr_i = fp_i / (fp_i + tn_i + 1e-6),
///   auc = sum_i (fpr_i - fpr_{i+1}) * (tpr_i + tpr_{i+1}) / 2,
/// TF's compute_auc with its epsilon. Unlike TF, whose counters are float32
/// variables that stop counting past 2^24 examples, the counts are doubles.
class StreamingAuc {
public:
  /// Throws std::invalid_argument unless numThresholds > 1 (as TF).
  explicit StreamingAuc(int numThresholds = 200);

  /// Adds `count` examples. A prediction outside [0, 1] or NaN throws
  /// std::invalid_argument naming it and adds nothing: TF asserts
  /// predictions in [0, 1] (it does not clamp them).
  void add(const float *predictions, const float *labels, size_t count);
  /// As add, each example's counts weighted by weights[i] (TF's `weights`:
  /// 0 leaves an example out); null weights are all 1.
  void add(const float *predictions, const float *labels, const float *weights,
           size_t count);

  /// The AUC of everything added since construction or reset(); 0 before
  /// any example, as TF.
  double auc() const;
  void reset();
  /// Examples passed to add, whatever their weights.
  int64_t examples() const { return examples_; }

private:
  /// Ascending, float as TF compares them.
  std::vector<float> thresholds_;
  /// [k]: the weight of the positive (negative) examples whose prediction
  /// exceeds exactly the k lowest thresholds, k in [0, numThresholds]; the
  /// confusion counts at each threshold are sums over these.
  std::vector<double> positives_;
  std::vector<double> negatives_;
  int64_t examples_ = 0;
};

/// The mean binary log loss -(z log p + (1 - z) log(1 - p)) of predicted
/// probabilities p against labels z (0/1, or soft labels in [0, 1]), with p
/// clipped to [eps, 1 - eps], eps = 1e-7 (tf.keras.backend.epsilon()): the
/// clipping of tf.keras's binary_crossentropy on probabilities, whose TF 1.x
/// form then computes exactly this through logits (TF 2's form also adds
/// eps inside each log; tf.compat.v1.losses.log_loss adds it and does not
/// clip). Computed in double; NaN predictions give a NaN value.
class StreamingLogLoss {
public:
  static constexpr double kEpsilon = 1e-7;

  void add(const float *p, const float *z, size_t n);
  /// The mean over every example added; 0 before any.
  double value() const;
  void reset();
  int64_t examples() const { return examples_; }

private:
  double sum_ = 0;
  int64_t examples_ = 0;
};

} // namespace dtf::metrics
