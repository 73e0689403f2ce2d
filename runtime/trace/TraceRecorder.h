//===- TraceRecorder.h - Chrome trace / Perfetto JSON timelines -*- C++ -*-===//
//
// Records spans of one process (a PS or worker task) in the Chrome trace
// event format, which chrome://tracing and https://ui.perfetto.dev open:
//
//   {"displayTimeUnit": "ms", "traceEvents": [
//     {"ph": "M", "pid": 3, "name": "process_name", "args": {"name": "worker0"}},
//     {"ph": "M", "pid": 3, "tid": 2, "name": "thread_name", "args": {"name": "ops"}},
//     {"ph": "X", "pid": 3, "tid": 2, "name": "dtf.matmul", "cat": "op",
//      "ts": 1700000000123456.2, "dur": 81.5, "args": {...}}, ...]}
//
// One process (pid) per task, one thread track (tid) per kind of work.
// Timestamps are microseconds since the Unix epoch, so that the files of the
// tasks of one cluster line up when merged (mergeTraceFiles).
//
//===----------------------------------------------------------------------===//

#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace dtf::trace {

/// A trace file that cannot be written or read; the message names it.
class TraceError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class TraceRecorder {
public:
  using Clock = std::chrono::steady_clock;

  /// A recorder for the process `pid` shown as `processName`; processes are
  /// ordered by pid in the viewer.
  TraceRecorder(int pid, std::string processName);

  /// Names the track `tid` of this process; tracks are ordered by tid.
  void nameThread(int tid, const std::string &name);

  /// A complete event ("ph": "X") from `begin` to `end` on track `tid`.
  void addSpan(int tid, std::string name, std::string category,
               Clock::time_point begin, Clock::time_point end,
               nlohmann::json args = nlohmann::json::object());

  /// An instant event ("ph": "i") at `at` on track `tid`.
  void addInstant(int tid, std::string name, std::string category,
                  Clock::time_point at,
                  nlohmann::json args = nlohmann::json::object());

  /// Spans and instants recorded so far (metadata not counted).
  size_t numEvents() const;

  /// Microseconds since the epoch of a steady-clock time.
  double toMicros(Clock::time_point time) const;

  /// The whole trace: metadata, then events in recording order.
  nlohmann::json toJson() const;

  /// Writes toJson() to `path` (through a temporary file renamed into
  /// place, so that a reader never sees half a file). Throws TraceError.
  void writeFile(const std::string &path) const;

  int pid() const { return pid_; }

private:
  int pid_;
  std::string processName;
  /// Epoch microseconds at steadyOrigin.
  double wallOriginMicros;
  Clock::time_point steadyOrigin;

  mutable std::mutex mutex;
  std::vector<nlohmann::json> metadata;
  std::vector<nlohmann::json> events;
};

/// Reads a trace file written by writeFile (or any JSON object with a
/// "traceEvents" array). Throws TraceError naming the file.
nlohmann::json readTraceFile(const std::string &path);

/// Writes one trace holding the events of every input, in order; returns
/// how many events (metadata included) it holds. Throws TraceError.
size_t mergeTraceFiles(const std::vector<std::string> &inputs,
                       const std::string &output);

} // namespace dtf::trace
