//===- MetricsTest.cpp - Streaming AUC and log loss -----------------------===//
//
// The AUC is compared with TF's computation written out here: its
// thresholds, the confusion counts at each by a loop over the examples, and
// the trapezoids of metrics_impl.auc's compute_auc.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Metrics.h"

#include "runtime/core/tests/TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace dtf;
using namespace dtf::metrics;
using dtf::testing::expectInvalidArgument;

namespace {

/// tf.compat.v1.metrics.auc (ROC, trapezoidal) of the examples, by
/// definition: thresholds as TF's Python builds them (then float32), counts
/// in double.
double referenceAuc(const std::vector<float> &p, const std::vector<float> &z,
                    const std::vector<float> &w, int numThresholds) {
  std::vector<float> thresholds = {static_cast<float>(0.0 - 1e-7)};
  for (int i = 0; i < numThresholds - 2; ++i)
    thresholds.push_back(
        static_cast<float>((i + 1) * 1.0 / (numThresholds - 1)));
  thresholds.push_back(static_cast<float>(1.0 + 1e-7));
  std::vector<double> tpr, fpr;
  for (float t : thresholds) {
    double tp = 0, fp = 0, tn = 0, fn = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      const double weight = w.empty() ? 1.0 : w[i];
      const bool positive = z[i] != 0;
      if (p[i] > t)
        (positive ? tp : fp) += weight;
      else
        (positive ? fn : tn) += weight;
    }
    const double eps = 1e-6;
    tpr.push_back((tp + eps) / (tp + fn + eps));
    fpr.push_back(fp / (fp + tn + eps));
  }
  double auc = 0;
  for (size_t i = 0; i + 1 < thresholds.size(); ++i)
    auc += (fpr[i] - fpr[i + 1]) * (tpr[i] + tpr[i + 1]) / 2;
  return auc;
}

/// Random predictions in [0, 1] (with values on the thresholds and the
/// ends), labels 0/1 correlated with them.
void randomExamples(size_t n, uint64_t seed, std::vector<float> &p,
                    std::vector<float> &z) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0, 1);
  p.clear();
  z.clear();
  for (size_t i = 0; i < n; ++i) {
    double value = uniform(rng);
    if (i % 17 == 0)
      value = std::round(value * 199) / 199; // on a threshold
    if (i % 101 == 0)
      value = i % 2 ? 0.0 : 1.0;
    p.push_back(static_cast<float>(value));
    z.push_back(uniform(rng) < value ? 1.0f : 0.0f);
  }
}

} // namespace

TEST(AucStreaming, MatchesTfDefinitionOverBatches) {
  for (int thresholds : {200, 2, 3, 1000}) {
    SCOPED_TRACE(thresholds);
    std::vector<float> p, z;
    randomExamples(5000, 1 + thresholds, p, z);
    StreamingAuc auc(thresholds);
    // Uneven batches.
    for (size_t begin = 0; begin < p.size();) {
      const size_t count = std::min<size_t>(p.size() - begin, 1 + begin % 777);
      auc.add(p.data() + begin, z.data() + begin, count);
      begin += count;
    }
    EXPECT_EQ(auc.examples(), 5000);
    EXPECT_NEAR(auc.auc(), referenceAuc(p, z, {}, thresholds), 1e-12);
  }
}

TEST(AucStreaming, WeightsAndLabelsCastToBool) {
  std::vector<float> p, z;
  randomExamples(3000, 7, p, z);
  std::mt19937_64 rng(8);
  std::vector<float> w;
  for (size_t i = 0; i < p.size(); ++i) {
    w.push_back(static_cast<float>(rng() % 4) * 0.5f); // some 0
    if (z[i] != 0 && i % 5 == 0)
      z[i] = 0.25f; // still positive: TF casts labels to bool
  }
  StreamingAuc auc;
  auc.add(p.data(), z.data(), w.data(), 1000);
  auc.add(p.data() + 1000, z.data() + 1000, w.data() + 1000, 2000);
  EXPECT_NEAR(auc.auc(), referenceAuc(p, z, w, 200), 1e-12);
}

TEST(AucStreaming, PerfectRandomAndInvertedClassifiers) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<float> uniform(0, 1);
  std::vector<float> p, z, inverted;
  for (int i = 0; i < 20000; ++i) {
    const bool positive = i % 3 == 0;
    p.push_back(positive ? 0.6f + 0.4f * uniform(rng) : 0.5f * uniform(rng));
    z.push_back(positive ? 1.0f : 0.0f);
    inverted.push_back(1.0f - p.back());
  }
  StreamingAuc perfect;
  perfect.add(p.data(), z.data(), p.size());
  EXPECT_NEAR(perfect.auc(), 1.0, 1e-6);
  StreamingAuc worst;
  worst.add(inverted.data(), z.data(), p.size());
  EXPECT_NEAR(worst.auc(), 0.0, 1e-6);
  // Predictions independent of the labels.
  std::vector<float> noise;
  for (size_t i = 0; i < p.size(); ++i)
    noise.push_back(uniform(rng));
  StreamingAuc random;
  random.add(noise.data(), z.data(), p.size());
  EXPECT_NEAR(random.auc(), 0.5, 0.02);
  EXPECT_NEAR(random.auc(), referenceAuc(noise, z, {}, 200), 1e-12);
}

TEST(AucStreaming, EqualsRankStatisticWhenThresholdsSeparateScores) {
  // Scores at bucket centres: the ROC through the thresholds is the exact
  // one, so the area is the Mann-Whitney statistic (ties count half), up
  // to TF's epsilon.
  std::mt19937_64 rng(10);
  std::vector<float> p, z;
  for (int i = 0; i < 2000; ++i) {
    const int bucket = static_cast<int>(rng() % 10);
    p.push_back((bucket + 0.5f) / 10);
    z.push_back(rng() % 10 < static_cast<unsigned>(bucket) ? 1.0f : 0.0f);
  }
  double wins = 0, pairs = 0;
  for (size_t i = 0; i < p.size(); ++i)
    for (size_t j = 0; j < p.size(); ++j)
      if (z[i] != 0 && z[j] == 0) {
        pairs += 1;
        wins += p[i] > p[j] ? 1 : (p[i] == p[j] ? 0.5 : 0);
      }
  StreamingAuc auc(11);
  auc.add(p.data(), z.data(), p.size());
  EXPECT_NEAR(auc.auc(), wins / pairs, 1e-6);
}

TEST(AucStreaming, ResetEmptyAndBadInput) {
  StreamingAuc auc;
  EXPECT_EQ(auc.auc(), 0.0); // TF's value before any example
  const float p[] = {0.2f, 0.9f}, z[] = {0, 1};
  auc.add(p, z, 2);
  EXPECT_NEAR(auc.auc(), 1.0, 1e-5);
  auc.reset();
  EXPECT_EQ(auc.examples(), 0);
  EXPECT_EQ(auc.auc(), 0.0);
  const float bad[] = {0.5f, 1.5f};
  expectInvalidArgument([&] { auc.add(bad, z, 2); },
                        {"StreamingAuc::add", "1.5", "example 1", "[0, 1]"});
  const float nan[] = {std::nanf("")};
  expectInvalidArgument([&] { auc.add(nan, z, 1); }, {"StreamingAuc::add"});
  EXPECT_EQ(auc.examples(), 0);
  expectInvalidArgument([] { StreamingAuc one(1); },
                        {"StreamingAuc", "numThresholds must be > 1", "1"});
}

TEST(LogLossStreaming, MeanAgainstReferenceWithClipping) {
  std::vector<float> p, z;
  randomExamples(1000, 11, p, z);
  p[3] = 0.0f; // clipped to 1e-7
  z[3] = 1.0f;
  p[4] = 1.0f; // clipped to 1 - 1e-7
  z[4] = 0.0f;
  z[5] = 0.3f; // a soft label
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const double q = std::min(std::max(double(p[i]), 1e-7), 1 - 1e-7);
    sum += -(z[i] * std::log(q) + (1 - z[i]) * std::log(1 - q));
  }
  StreamingLogLoss loss;
  loss.add(p.data(), z.data(), 400);
  loss.add(p.data() + 400, z.data() + 400, 600);
  EXPECT_EQ(loss.examples(), 1000);
  EXPECT_NEAR(loss.value(), sum / 1000, 1e-12);

  StreamingLogLoss saturated;
  saturated.add(&p[3], &z[3], 1);
  EXPECT_NEAR(saturated.value(), -std::log(1e-7), 1e-9);
  saturated.reset();
  EXPECT_EQ(saturated.value(), 0.0);
  EXPECT_EQ(saturated.examples(), 0);
}
