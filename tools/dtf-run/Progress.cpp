//===- Progress.cpp - Progress of a --local run: bar or lines -------------===//

#include "tools/dtf-run/Progress.h"

#include "runtime/rpc/CoordinationClient.h"
#include "runtime/rpc/PsClient.h"
#include "runtime/rpc/WorkerClient.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <unistd.h>

namespace dtf::run {

std::string formatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0)
    return "?";
  long long total = std::llround(seconds);
  long long hours = total / 3600, minutes = total / 60 % 60, secs = total % 60;
  char text[64];
  if (hours > 0)
    std::snprintf(text, sizeof(text), "%lld:%02lld:%02lld", hours, minutes,
                  secs);
  else
    std::snprintf(text, sizeof(text), "%lld:%02lld", minutes, secs);
  return text;
}

static double fraction(int64_t step, int64_t target) {
  if (target <= 0)
    return 1.0;
  return std::clamp(static_cast<double>(step) / target, 0.0, 1.0);
}

static std::string eta(int64_t step, int64_t target, double rate) {
  if (step >= target)
    return formatDuration(0);
  return rate > 0 ? formatDuration((target - step) / rate) : "?";
}

std::string formatProgressBar(int64_t step, int64_t target,
                              double stepsPerSecond, int width,
                              const std::string &detail) {
  double done = fraction(step, target);
  int filled = static_cast<int>(done * width);
  std::string bar = "[" + std::string(filled, '#') +
                    std::string(width - filled, '.') + "]";
  char text[160];
  std::snprintf(text, sizeof(text),
                " %3d%%  %lld/%lld steps  %.1f steps/s  ETA %s",
                static_cast<int>(done * 100), static_cast<long long>(step),
                static_cast<long long>(target), stepsPerSecond,
                eta(step, target, stepsPerSecond).c_str());
  return bar + text + (detail.empty() ? "" : "  " + detail);
}

std::string formatProgressLine(int64_t step, int64_t target,
                               double stepsPerSecond,
                               const std::string &detail) {
  char text[160];
  std::snprintf(text, sizeof(text),
                "progress: global step %lld/%lld (%d%%), %.1f steps/s, ETA %s",
                static_cast<long long>(step), static_cast<long long>(target),
                static_cast<int>(fraction(step, target) * 100),
                stepsPerSecond, eta(step, target, stepsPerSecond).c_str());
  return text + (detail.empty() ? "" : ", " + detail);
}

std::string formatEpochProgress(const coord::DataStats &stats, int64_t epochs) {
  if (!stats.defined)
    return "";
  std::string epoch =
      "epoch " + std::to_string(std::min(stats.currentEpoch + 1,
                                         epochs > 0 ? epochs : INT64_MAX));
  if (epochs > 0)
    epoch += "/" + std::to_string(epochs);
  if (stats.finished)
    return epoch + ", all units done";
  return epoch + ", " + std::to_string(stats.unitsDone) + "/" +
         std::to_string(stats.unitsPerEpoch) + " units done";
}

bool isInteractiveTerminal(int fd) {
  if (!::isatty(fd))
    return false;
  const char *term = std::getenv("TERM");
  return !term || std::strcmp(term, "dumb") != 0;
}

void RateMeter::add(Clock::time_point time, int64_t step) {
  samples.emplace_back(time, step);
  // Keep one sample older than the window, so that the rate spans it.
  while (samples.size() > 2 && time - samples[1].first > window)
    samples.pop_front();
}

double RateMeter::rate() const {
  if (samples.size() < 2)
    return 0;
  double seconds = std::chrono::duration<double>(samples.back().first -
                                                 samples.front().first)
                       .count();
  if (seconds <= 0)
    return 0;
  return (samples.back().second - samples.front().second) / seconds;
}

ProgressReporter::ProgressReporter(std::ostream &out, std::mutex &outputMutex,
                                   bool terminal, int64_t target,
                                   StepSource readStep,
                                   std::chrono::milliseconds interval,
                                   DetailSource readDetail)
    : out(out), outputMutex(outputMutex), terminal(terminal), target(target),
      readStep(std::move(readStep)), interval(interval),
      readDetail(std::move(readDetail)) {}

ProgressReporter::~ProgressReporter() { stop(); }

void ProgressReporter::start() {
  poller = std::thread([this] { run(); });
}

void ProgressReporter::stop() {
  {
    std::lock_guard<std::mutex> lock(stateMutex);
    if (stopping && !poller.joinable())
      return;
    stopping = true;
  }
  wake.notify_all();
  if (poller.joinable())
    poller.join();
  std::lock_guard<std::mutex> lock(outputMutex);
  if (terminal && barShown) {
    out << "\n";
    out.flush();
    barShown = false;
  }
}

void ProgressReporter::hideLocked() {
  if (terminal && barShown)
    out << "\r\033[K";
}

void ProgressReporter::showLocked() {
  if (terminal && step >= 0) {
    out << formatProgressBar(step, target, meter.rate(), 30, detail);
    out.flush();
    barShown = true;
  }
}

void ProgressReporter::update(int64_t newStep, Clock::time_point now,
                              const std::string &newDetail) {
  std::lock_guard<std::mutex> lock(outputMutex);
  step = newStep;
  detail = newDetail;
  meter.add(now, newStep);
  if (terminal) {
    hideLocked();
    showLocked();
    return;
  }
  int tenth = static_cast<int>(fraction(step, target) * 10);
  if (tenth > lastTenth) {
    lastTenth = tenth;
    out << formatProgressLine(step, target, meter.rate(), detail) << std::endl;
  }
}

void ProgressReporter::run() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(stateMutex);
      if (wake.wait_for(lock, interval, [this] { return stopping; }))
        return;
    }
    std::optional<int64_t> current = readStep();
    if (current)
      update(*current, Clock::now(), readDetail ? readDetail() : "");
  }
}

std::unique_ptr<ProgressReporter>
makeLocalProgress(const std::string &psAddress,
                  rpc::ClientOptions clientOptions, int64_t target,
                  int64_t epochs, std::mutex &outputMutex) {
  clientOptions.callTimeout = std::chrono::milliseconds(1000);
  // Only the polling thread touches the client. After a failed call (the
  // PS is not listening yet) the next poll uses a fresh channel: a channel
  // whose connection failed waits out its reconnection backoff, which could
  // hide a short run entirely.
  auto client = std::make_shared<std::unique_ptr<rpc::PsClient>>();
  auto readStep = [client, psAddress,
                   clientOptions]() -> std::optional<int64_t> {
    try {
      if (!*client)
        *client = std::make_unique<rpc::PsClient>("/job:ps/task:0", psAddress,
                                                  clientOptions);
      return (*client)->step();
    } catch (const std::exception &) {
      client->reset(); // not up yet, or gone
      return std::nullopt;
    }
  };
  // The epoch of a streamed input, from the data coordinator beside the
  // step (nothing for data in memory: no data set is defined).
  auto coordination =
      std::make_shared<std::unique_ptr<rpc::CoordinationClient>>();
  auto readDetail = [coordination, psAddress, clientOptions,
                     epochs]() -> std::string {
    try {
      if (!*coordination)
        *coordination =
            std::make_unique<rpc::CoordinationClient>(psAddress, clientOptions);
      return formatEpochProgress((*coordination)->dataStats(), epochs);
    } catch (const std::exception &) {
      coordination->reset();
      return "";
    }
  };
  return std::make_unique<ProgressReporter>(
      std::cout, outputMutex, isInteractiveTerminal(STDOUT_FILENO), target,
      readStep, std::chrono::milliseconds(250), readDetail);
}

std::unique_ptr<ProgressReporter>
makeInGraphProgress(std::vector<std::string> taskAddresses,
                    rpc::ClientOptions clientOptions, int64_t target,
                    std::mutex &outputMutex) {
  clientOptions.callTimeout = std::chrono::milliseconds(1000);
  // Only the polling thread touches the clients; a failed call starts over
  // with fresh channels, as the PS poller does.
  struct Poll {
    std::vector<std::unique_ptr<rpc::WorkerClient>> clients;
    /// The task found holding the global step.
    std::optional<size_t> holder;
  };
  auto poll = std::make_shared<Poll>();
  auto readStep = [poll, taskAddresses = std::move(taskAddresses),
                   clientOptions]() -> std::optional<int64_t> {
    try {
      if (poll->clients.empty())
        for (const std::string &address : taskAddresses)
          poll->clients.push_back(std::make_unique<rpc::WorkerClient>(
              "task at " + address, address, clientOptions));
      for (size_t i = 0; i < poll->clients.size(); ++i) {
        if (poll->holder && *poll->holder != i)
          continue;
        VariableStore found = poll->clients[i]->getVariables({"global_step"});
        auto step = found.find("global_step");
        if (step != found.end()) {
          poll->holder = i;
          return static_cast<int64_t>(step->second.scalarAsDouble());
        }
      }
      return std::nullopt; // not registered yet
    } catch (const std::exception &) {
      poll->clients.clear(); // not up yet, or gone
      poll->holder.reset();
      return std::nullopt;
    }
  };
  return std::make_unique<ProgressReporter>(
      std::cout, outputMutex, isInteractiveTerminal(STDOUT_FILENO), target,
      readStep);
}

} // namespace dtf::run
