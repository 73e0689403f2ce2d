//===- ServingCpuTest.cpp - A PS task's CPU per update while serving ------===//

#include "runtime/train/Tasks.h"

#include "runtime/train/tests/InProcessCluster.h"

#include <gtest/gtest.h>

namespace dtf::train {
namespace {

using namespace dtf::train::testing;

std::vector<Tensor> gradient(float value) {
  std::vector<Tensor> gradients;
  gradients.push_back(Tensor::filled(DType::F32, {2}, value));
  return gradients;
}

TEST(ServingCpuTest, CountsFromTheFirstUpdateAndKeepsTheObserverBeforeIt) {
  ps::Options options;
  std::vector<int64_t> observed;
  options.onApplied = [&](int64_t step, auto, auto) {
    observed.push_back(step);
  };
  ServingCpu servingCpu;
  servingCpu.attach(options);
  ps::ParameterServer task(std::make_unique<SgdProgram>(0, 1, 0.1f),
                           ps::Replication::async(), std::move(options));
  task.initialize();
  EXPECT_FALSE(servingCpu.secondsPerUpdate()) << "no update yet";
  task.push(0, 0, gradient(1));
  EXPECT_FALSE(servingCpu.secondsPerUpdate()) << "one update: no interval";
  // Updates that burn CPU between them: the figure is what the process
  // spent after the first, per update since.
  double before = processCpuSeconds();
  for (int64_t step = 1; step <= 20; ++step) {
    volatile double sink = 0;
    for (double spent = processCpuSeconds();
         processCpuSeconds() - spent < 0.002;)
      sink = sink + 1;
    task.push(step, 0, gradient(1));
  }
  double spent = processCpuSeconds() - before;
  std::optional<double> perUpdate = servingCpu.secondsPerUpdate();
  ASSERT_TRUE(perUpdate);
  EXPECT_GE(*perUpdate, 0.002);
  EXPECT_LE(*perUpdate, spent / 20 * 1.5);
  // The observer that was there before still sees every update.
  EXPECT_EQ(observed.size(), 21u);
  EXPECT_EQ(observed.back(), 21);
}

} // namespace
} // namespace dtf::train
