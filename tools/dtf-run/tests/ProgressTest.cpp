//===- ProgressTest.cpp - The --local progress bar and lines --------------===//

#include "tools/dtf-run/Progress.h"

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <thread>

using namespace dtf::run;
namespace coord = dtf::coord;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

TEST(Progress, FormatsDurations) {
  EXPECT_EQ(formatDuration(0), "0:00");
  EXPECT_EQ(formatDuration(7.4), "0:07");
  EXPECT_EQ(formatDuration(754), "12:34");
  EXPECT_EQ(formatDuration(3723), "1:02:03");
  EXPECT_EQ(formatDuration(-1), "?");
  EXPECT_EQ(formatDuration(1.0 / 0.0), "?");
}

TEST(Progress, FormatsTheBar) {
  EXPECT_EQ(formatProgressBar(1000, 2000, 100.0, 10),
            "[#####.....]  50%  1000/2000 steps  100.0 steps/s  ETA 0:10");
  EXPECT_EQ(formatProgressBar(0, 2000, 0.0, 4),
            "[....]   0%  0/2000 steps  0.0 steps/s  ETA ?");
  // Past the target (the last steps of async workers): full, no time left.
  EXPECT_EQ(formatProgressBar(2003, 2000, 50.0, 4),
            "[####] 100%  2003/2000 steps  50.0 steps/s  ETA 0:00");
}

TEST(Progress, FormatsTheLine) {
  EXPECT_EQ(formatProgressLine(400, 2000, 160.0),
            "progress: global step 400/2000 (20%), 160.0 steps/s, ETA 0:10");
}

TEST(ProgressTest, EpochOfAStreamedInput) {
  coord::DataStats stats;
  EXPECT_EQ(formatEpochProgress(stats, 2), ""); // no data set defined
  stats.defined = true;
  stats.currentEpoch = 1;
  stats.unitsDone = 3;
  stats.unitsPerEpoch = 8;
  EXPECT_EQ(formatEpochProgress(stats, 2), "epoch 2/2, 3/8 units done");
  EXPECT_EQ(formatEpochProgress(stats, 0), "epoch 2, 3/8 units done");
  stats.finished = true;
  stats.currentEpoch = 2;
  EXPECT_EQ(formatEpochProgress(stats, 2), "epoch 2/2, all units done");
  EXPECT_EQ(formatProgressLine(400, 2000, 160.0, "epoch 1/2, 3/8 units done"),
            formatProgressLine(400, 2000, 160.0) +
                ", epoch 1/2, 3/8 units done");
}

TEST(Progress, RateOverTheWindow) {
  RateMeter meter(2s);
  Clock::time_point t0 = Clock::now();
  EXPECT_EQ(meter.rate(), 0);
  meter.add(t0, 0);
  EXPECT_EQ(meter.rate(), 0);
  meter.add(t0 + 1s, 100);
  EXPECT_DOUBLE_EQ(meter.rate(), 100);
  // A slowdown shows once the fast samples leave the window.
  meter.add(t0 + 2s, 200);
  meter.add(t0 + 3s, 210);
  meter.add(t0 + 4s, 220);
  meter.add(t0 + 5s, 230);
  EXPECT_NEAR(meter.rate(), 10, 1e-9);
}

TEST(Progress, PlainLinesAtEachTenth) {
  std::ostringstream out;
  std::mutex mutex;
  ProgressReporter reporter(out, mutex, /*terminal=*/false, 1000,
                            [] { return std::nullopt; });
  Clock::time_point t0 = Clock::now();
  reporter.update(0, t0);
  reporter.update(50, t0 + 1s);
  reporter.update(120, t0 + 2s);
  reporter.update(150, t0 + 3s);
  reporter.update(350, t0 + 4s);
  reporter.update(1000, t0 + 5s);
  reporter.stop();
  EXPECT_EQ(out.str(),
            "progress: global step 120/1000 (12%), 60.0 steps/s, ETA 0:15\n"
            "progress: global step 350/1000 (35%), 87.5 steps/s, ETA 0:07\n"
            "progress: global step 1000/1000 (100%), 200.0 steps/s, ETA 0:00\n");
}

TEST(Progress, TerminalBarStaysBelowOtherLines) {
  std::ostringstream out;
  std::mutex mutex;
  ProgressReporter reporter(out, mutex, /*terminal=*/true, 100,
                            [] { return std::nullopt; });
  Clock::time_point t0 = Clock::now();
  reporter.update(0, t0);
  reporter.update(50, t0 + 1s);
  {
    std::lock_guard<std::mutex> lock(mutex);
    reporter.hideLocked();
    out << "[worker0] a line\n";
    reporter.showLocked();
  }
  reporter.stop();
  std::string text = out.str();
  std::string bar50 = formatProgressBar(50, 100, 50.0);
  EXPECT_EQ(text, formatProgressBar(0, 100, 0.0) + "\r\033[K" +
                      bar50 + "\r\033[K[worker0] a line\n" + bar50 + "\n");
}

TEST(Progress, PollsTheStepSource) {
  std::ostringstream out;
  std::mutex mutex;
  std::atomic<int64_t> step{0};
  ProgressReporter reporter(out, mutex, /*terminal=*/false, 10,
                            [&]() -> std::optional<int64_t> {
                              return step += 5;
                            },
                            10ms);
  reporter.start();
  for (int i = 0; i < 200; ++i) {
    std::this_thread::sleep_for(10ms);
    std::lock_guard<std::mutex> lock(mutex);
    if (out.str().find("(100%)") != std::string::npos)
      break;
  }
  reporter.stop();
  EXPECT_NE(out.str().find("progress: global step 10/10 (100%)"),
            std::string::npos)
      << out.str();
}
