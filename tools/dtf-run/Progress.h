//===- Progress.h - Progress of a --local run: bar or lines -----*- C++ -*-===//
//
// `dtf-run --local` watches the global step (polling PS task 0) and shows
//
// - on a terminal, a bar on the last line, redrawn in place below the
//   tasks' output:
//     [##########..........]  52%  1040/2000 steps  180.3 steps/s  ETA 0:05
// - otherwise (a pipe, a file, a CI log), a plain line at every tenth:
//     progress: global step 1040/2000 (52%), 180.3 steps/s, ETA 0:05
//
// The rate is measured over the last few seconds, the ETA is what remains
// at that rate.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/coord/DataTypes.h"
#include "runtime/rpc/Options.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <thread>

namespace dtf::run {

/// "0:07", "12:34", "1:02:03"; "?" when unknown (negative or not finite).
std::string formatDuration(double seconds);

/// The terminal bar, `width` characters between the brackets, followed by
/// `detail` (the streamed input's epoch, say) when not empty.
std::string formatProgressBar(int64_t step, int64_t target,
                              double stepsPerSecond, int width = 30,
                              const std::string &detail = "");

/// The line printed when not on a terminal.
std::string formatProgressLine(int64_t step, int64_t target,
                               double stepsPerSecond,
                               const std::string &detail = "");

/// "epoch E/N, U/M units done" (or "epoch E, ..." without a last epoch)
/// of a streamed input; empty before the data set is defined.
std::string formatEpochProgress(const coord::DataStats &stats, int64_t epochs);

/// Whether `fd` is a terminal that understands carriage returns and
/// erasing a line (not TERM=dumb).
bool isInteractiveTerminal(int fd);

/// Steps per second over a sliding window of samples.
class RateMeter {
public:
  using Clock = std::chrono::steady_clock;
  explicit RateMeter(std::chrono::duration<double> window =
                         std::chrono::seconds(5))
      : window(window) {}
  void add(Clock::time_point time, int64_t step);
  /// 0 until two samples span some time.
  double rate() const;

private:
  std::chrono::duration<double> window;
  std::deque<std::pair<Clock::time_point, int64_t>> samples;
};

class ProgressReporter {
public:
  using Clock = std::chrono::steady_clock;
  /// The current global step, or nullopt when it cannot be read yet.
  using StepSource = std::function<std::optional<int64_t>()>;
  /// What to show after the steps (the epoch of streamed input); polled
  /// with the step.
  using DetailSource = std::function<std::string()>;

  /// Reports progress towards `target` on `out`; `outputMutex` serializes
  /// everything written to `out`. Call start() to begin polling.
  ProgressReporter(
      std::ostream &out, std::mutex &outputMutex, bool terminal, int64_t target,
      StepSource readStep,
      std::chrono::milliseconds interval = std::chrono::milliseconds(250),
      DetailSource readDetail = {});
  ~ProgressReporter();

  void start();
  /// Stops polling; on a terminal leaves the last bar on its own line.
  void stop();

  /// With the output mutex held, around writing other lines: hideLocked()
  /// erases the bar, showLocked() draws it again below them.
  void hideLocked();
  void showLocked();

  /// Feeds one reading (what the polling thread does); for tests.
  void update(int64_t step, Clock::time_point now,
              const std::string &detail = "");

private:
  void run();

  std::ostream &out;
  std::mutex &outputMutex;
  bool terminal;
  int64_t target;
  StepSource readStep;
  std::chrono::milliseconds interval;
  DetailSource readDetail;
  std::string detail;

  RateMeter meter;
  int64_t step = -1;
  /// Plain mode: the last tenth printed.
  int lastTenth = 0;
  bool barShown = false;

  std::mutex stateMutex;
  std::condition_variable wake;
  bool stopping = false;
  std::thread poller;
};

/// The reporter of a --local run: polls the step of PS task 0 at
/// `psAddress` with `clientOptions` (the cluster's TLS and token; its
/// deadline is replaced by a short one), and the epoch of a streamed input
/// from its data coordinator (`epochs`: --num_epochs); a bar when stdout is
/// an interactive terminal, lines otherwise. Not started.
std::unique_ptr<ProgressReporter>
makeLocalProgress(const std::string &psAddress,
                  rpc::ClientOptions clientOptions, int64_t target,
                  int64_t epochs, std::mutex &outputMutex);

/// The same for an in-graph run, whose tasks serve partitions rather than
/// a PS service: polls the variable `global_step` of whichever of the
/// tasks at `taskAddresses` holds it.
std::unique_ptr<ProgressReporter>
makeInGraphProgress(std::vector<std::string> taskAddresses,
                    rpc::ClientOptions clientOptions, int64_t target,
                    std::mutex &outputMutex);

} // namespace dtf::run
