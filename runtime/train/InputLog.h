//===- InputLog.h - What a worker's streamed input did --------------------===//
//
// The figures of data::StreamingInput (Streaming.h) where a user looks: a
// line every --log_every steps (records and bytes read per second, the
// shuffle buffer's fill, the time the steps waited for input: whether
// training is input-bound), TensorBoard scalars under input/, and a line
// at the end of training.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/train/TrainingLoop.h"

#include "runtime/data/Streaming.h"

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace dtf::train {

/// A streamed input between two looks at its stats.
struct InputFigures {
  /// The time between the looks; the rates are 0 when it is 0.
  double seconds = 0;
  double recordsPerSecond = 0;
  double megabytesPerSecond = 0;
  /// The share of the time nextBatch() waited for examples.
  double waitFraction = 0;
  int64_t bufferedExamples = 0;
  int64_t bufferCapacity = 0;
  int64_t unitsRead = 0;

  /// As TensorBoard scalars under input/ (no rates without a time).
  std::vector<std::pair<std::string, double>> scalars() const;
};

/// Rates of a streamed input between two looks at its stats.
class InputRates {
public:
  explicit InputRates(const data::StreamingInput &input);
  /// Since the previous call (or construction).
  InputFigures sample();

private:
  using Clock = std::chrono::steady_clock;
  const data::StreamingInput &input;
  data::StreamingStats last;
  Clock::time_point lastTime;
};

/// "Worker N: input: R records/s, B MB/s, buffer F of C examples, waited
/// W s for input over the last K steps (P% of the time), U units read"
/// every `every` local steps.
class InputLogHook final : public TrainingHook {
public:
  InputLogHook(int workerIndex, int every, const data::StreamingInput &input)
      : index(workerIndex), every(every), rates(input) {}
  void afterStep(const StepRecord &step) override;

private:
  int index;
  int every;
  InputRates rates;
};

/// The line at the end of training: "Worker N: input: R records (B bytes)
/// read in U units, S bad records skipped, waited W s for input, X
/// examples left over at the end".
void printInputTotals(int workerIndex, const data::StreamingInput &input,
                      std::ostream &out);

} // namespace dtf::train
