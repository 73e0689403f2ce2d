//===- InputLog.cpp - What a worker's streamed input did ------------------===//

#include "runtime/train/InputLog.h"

#include <cstdio>
#include <iostream>

namespace dtf::train {

InputRates::InputRates(const data::StreamingInput &input)
    : input(input), last(input.stats()), lastTime(Clock::now()) {}

std::vector<std::pair<std::string, double>> InputRates::sample() {
  data::StreamingStats now = input.stats();
  Clock::time_point time = Clock::now();
  double seconds = std::chrono::duration<double>(time - lastTime).count();
  std::vector<std::pair<std::string, double>> values;
  if (seconds > 0) {
    values.push_back(
        {"input/records_per_sec",
         static_cast<double>(now.records - last.records) / seconds});
    values.push_back(
        {"input/mb_per_sec",
         static_cast<double>(now.bytes - last.bytes) / 1e6 / seconds});
    values.push_back({"input/wait_fraction",
                      (now.waitSeconds - last.waitSeconds) / seconds});
  }
  values.push_back(
      {"input/buffered_examples", static_cast<double>(now.bufferedExamples)});
  values.push_back({"input/units_read", static_cast<double>(now.units)});
  last = now;
  lastTime = time;
  return values;
}

void InputLogHook::afterStep(const StepRecord &step) {
  if (every <= 0 || step.localStep % every != 0)
    return;
  data::StreamingStats stats = input.stats();
  std::vector<std::pair<std::string, double>> values = rates.sample();
  auto value = [&](const char *name) {
    for (const auto &[key, figure] : values)
      if (key == name)
        return figure;
    return 0.0;
  };
  std::printf("Worker %d: input: %.0f records/s, %.1f MB/s, buffer %lld of "
              "%lld examples, waited for input %.0f%% of the last %d steps' "
              "time, %lld units read\n",
              index, value("input/records_per_sec"), value("input/mb_per_sec"),
              static_cast<long long>(stats.bufferedExamples),
              static_cast<long long>(stats.bufferCapacity),
              100.0 * value("input/wait_fraction"), every,
              static_cast<long long>(stats.units));
  std::fflush(stdout);
}

void printInputTotals(int workerIndex, const data::StreamingInput &input,
                      std::ostream &out) {
  data::StreamingStats stats = input.stats();
  char waited[32];
  std::snprintf(waited, sizeof waited, "%.2f", stats.waitSeconds);
  out << "Worker " << workerIndex << ": input: " << stats.records
      << " records (" << stats.bytes << " bytes) read in " << stats.units
      << " units, " << stats.skippedRecords << " bad records skipped, waited "
      << waited << " s for input, " << stats.droppedAtEnd
      << " examples left over at the end" << std::endl;
}

} // namespace dtf::train
