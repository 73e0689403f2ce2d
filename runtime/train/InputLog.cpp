//===- InputLog.cpp - What a worker's streamed input did ------------------===//

#include "runtime/train/InputLog.h"

#include <cstdio>
#include <iostream>

namespace dtf::train {

InputRates::InputRates(const data::StreamingInput &input)
    : input(input), last(input.stats()), lastTime(Clock::now()) {}

InputFigures InputRates::sample() {
  data::StreamingStats now = input.stats();
  Clock::time_point time = Clock::now();
  double seconds = std::chrono::duration<double>(time - lastTime).count();
  InputFigures figures;
  figures.seconds = seconds;
  if (seconds > 0) {
    figures.recordsPerSecond =
        static_cast<double>(now.records - last.records) / seconds;
    figures.megabytesPerSecond =
        static_cast<double>(now.bytes - last.bytes) / 1e6 / seconds;
    figures.waitFraction = (now.waitSeconds - last.waitSeconds) / seconds;
  }
  figures.bufferedExamples = now.bufferedExamples;
  figures.bufferCapacity = now.bufferCapacity;
  figures.unitsRead = now.units;
  last = now;
  lastTime = time;
  return figures;
}

std::vector<std::pair<std::string, double>> InputFigures::scalars() const {
  std::vector<std::pair<std::string, double>> values;
  if (seconds > 0)
    values = {{"input/records_per_sec", recordsPerSecond},
              {"input/mb_per_sec", megabytesPerSecond},
              {"input/wait_fraction", waitFraction}};
  values.push_back(
      {"input/buffered_examples", static_cast<double>(bufferedExamples)});
  values.push_back({"input/units_read", static_cast<double>(unitsRead)});
  return values;
}

void InputLogHook::afterStep(const StepRecord &step) {
  if (every <= 0 || step.localStep % every != 0)
    return;
  InputFigures figures = rates.sample();
  std::printf("Worker %d: input: %.0f records/s, %.1f MB/s, buffer %lld of "
              "%lld examples, waited for input %.0f%% of the last %d steps' "
              "time, %lld units read\n",
              index, figures.recordsPerSecond, figures.megabytesPerSecond,
              static_cast<long long>(figures.bufferedExamples),
              static_cast<long long>(figures.bufferCapacity),
              100.0 * figures.waitFraction, every,
              static_cast<long long>(figures.unitsRead));
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
