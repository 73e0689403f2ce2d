//===- SummaryWriter.h - TensorBoard event files ----------------*- C++ -*-===//
//
// What tf.summary.FileWriter does for scalars: a new events file
// `events.out.tfevents.<seconds>.<hostname>.<pid>` in a log directory,
// starting with the event {file_version: "brain.Event:2"}, then one Event
// per write holding a Summary of scalar values (simple_value) at a global
// step. TensorBoard shows each directory of event files as one run.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/data/Records.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dtf::tensorboard {
class Event;
} // namespace dtf::tensorboard

namespace dtf::summary {

// Event files are TFRecord files (runtime/data/Records.h).
using data::RecordError;
using data::RecordWriter;


/// The version string of the first event of every file.
inline constexpr const char *kFileVersion = "brain.Event:2";

/// Seconds since the epoch, as Event.wall_time.
double wallTime();

/// `events.out.tfevents.<seconds>.<hostname>.<pid>`.
std::string eventFileName(double wallTime);

/// Creates `dir` and its parents; throws RecordError naming it on failure.
void makeDirectories(const std::string &dir);

class SummaryWriter {
public:
  /// Creates `logdir` if needed and a new events file in it.
  explicit SummaryWriter(const std::string &logdir);
  ~SummaryWriter();

  /// Writes one event with the scalars `values` (tag, value) at `step`.
  void addScalars(int64_t step,
                  const std::vector<std::pair<std::string, double>> &values);
  void addScalar(int64_t step, const std::string &tag, double value) {
    addScalars(step, {{tag, value}});
  }
  /// Writes `event` as it is.
  void write(const tensorboard::Event &event);
  void flush() { records.flush(); }

  const std::string &path() const { return records.path(); }

private:
  RecordWriter records;
};

} // namespace dtf::summary
