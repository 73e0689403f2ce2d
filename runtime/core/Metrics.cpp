//===- Metrics.cpp - Streaming evaluation metrics of CTR models -----------===//

#include "runtime/core/Metrics.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace dtf::metrics {

StreamingAuc::StreamingAuc(int numThresholds) {
  if (numThresholds <= 1)
    throw std::invalid_argument(
        "StreamingAuc: numThresholds must be > 1, got " +
        std::to_string(numThresholds));
  // TF (metrics_impl.auc): kepsilon = 1e-7; thresholds = [0.0 - kepsilon] +
  // [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds -
  // 2)] + [1.0 + kepsilon], in Python's double, then a float32 constant.
  constexpr double kEpsilon = 1e-7;
  thresholds_.reserve(static_cast<size_t>(numThresholds));
  thresholds_.push_back(static_cast<float>(0.0 - kEpsilon));
  for (int i = 0; i < numThresholds - 2; ++i)
    thresholds_.push_back(
        static_cast<float>((i + 1) * 1.0 / (numThresholds - 1)));
  thresholds_.push_back(static_cast<float>(1.0 + kEpsilon));
  positives_.assign(thresholds_.size() + 1, 0.0);
  negatives_.assign(thresholds_.size() + 1, 0.0);
}

void StreamingAuc::add(const float *predictions, const float *labels,
                       size_t count) {
  add(predictions, labels, nullptr, count);
}

void StreamingAuc::add(const float *predictions, const float *labels,
                       const float *weights, size_t count) {
  for (size_t i = 0; i < count; ++i)
    if (!(predictions[i] >= 0.0f && predictions[i] <= 1.0f))
      throw std::invalid_argument(
          "StreamingAuc::add: prediction " + std::to_string(predictions[i]) +
          " of example " + std::to_string(i) + " is outside [0, 1]");
  for (size_t i = 0; i < count; ++i) {
    // The number of thresholds strictly below the prediction: it is
    // predicted positive at exactly those.
    const size_t below = static_cast<size_t>(
        std::lower_bound(thresholds_.begin(), thresholds_.end(),
                         predictions[i]) -
        thresholds_.begin());
    const double weight = weights ? weights[i] : 1.0;
    (labels[i] != 0.0f ? positives_ : negatives_)[below] += weight;
  }
  examples_ += static_cast<int64_t>(count);
}

double StreamingAuc::auc() const {
  const size_t n = thresholds_.size();
  double totalPositive = 0, totalNegative = 0;
  for (size_t k = 0; k <= n; ++k) {
    totalPositive += positives_[k];
    totalNegative += negatives_[k];
  }
  // Threshold i's true positives are the positives above more than i
  // thresholds: those of buckets i + 1 .. n, summed from the top down.
  constexpr double kEpsilon = 1e-6;
  std::vector<double> tpr(n), fpr(n);
  double tp = 0, fp = 0;
  for (size_t i = n; i-- > 0;) {
    tp += positives_[i + 1];
    fp += negatives_[i + 1];
    const double fn = totalPositive - tp;
    const double tn = totalNegative - fp;
    tpr[i] = (tp + kEpsilon) / (tp + fn + kEpsilon);
    fpr[i] = fp / (fp + tn + kEpsilon);
  }
  double area = 0;
  for (size_t i = 0; i + 1 < n; ++i)
    area += (fpr[i] - fpr[i + 1]) * (tpr[i] + tpr[i + 1]) / 2;
  return area;
}

void StreamingAuc::reset() {
  std::fill(positives_.begin(), positives_.end(), 0.0);
  std::fill(negatives_.begin(), negatives_.end(), 0.0);
  examples_ = 0;
}

void StreamingLogLoss::add(const float *p, const float *z, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    const double clipped =
        std::min(std::max(static_cast<double>(p[i]), kEpsilon), 1 - kEpsilon);
    const double label = z[i];
    sum -= label * std::log(clipped) + (1 - label) * std::log(1 - clipped);
  }
  sum_ += sum;
  examples_ += static_cast<int64_t>(n);
}

double StreamingLogLoss::value() const {
  return examples_ ? sum_ / static_cast<double>(examples_) : 0.0;
}

void StreamingLogLoss::reset() {
  sum_ = 0;
  examples_ = 0;
}

} // namespace dtf::metrics
