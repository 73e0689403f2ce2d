//===- Telemetry.h - TensorBoard summaries and traces of a task -*- C++ -*-===//
//
// What a PS or worker task records for people watching a run:
//
// - `--logdir=DIR`: each worker writes TensorBoard event files to
//   DIR/worker_<N> (one run per worker in TensorBoard): every
//   `--save_summaries_steps` local steps its training-batch `loss` and
//   `accuracy`, `global_step/sec` (the global step's rate as this worker
//   sees it) and `examples/sec` (this worker's throughput), at the global
//   step; at the end `validation/loss` and `validation/accuracy` (or, for
//   a model with dtf.auc, `validation/auc` and `validation/log_loss`). Each PS
//   task writes to DIR/ps_<N>, whenever its step reaches a multiple of
//   `--save_summaries_steps` and at the end, `staleness/mean` and
//   `staleness/max` of the pushes it applied since its previous summary
//   (ps::StalenessHistogram): how far behind the gradients were when they
//   landed, over time. The whole histogram is in the PS's stop lines.
// - `--trace=FILE`: a Chrome trace / Perfetto JSON timeline of the task's
//   first `--trace_steps` steps (a worker) or the updates they cause (a
//   PS): one process per task (pid: PS tasks first, then workers), with a
//   track for steps, one for RPCs (pull, push, wait for step) and one for
//   op kernels on a worker, and one for updates and one for their op kernels
//   on a PS. Timestamps are wall-clock microseconds, so that the files of
//   the tasks of a cluster merge into one timeline (`--local` does).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/cluster/ClusterSpec.h"
#include "runtime/exec/Executor.h"
#include "runtime/ps/ParameterServer.h"
#include "runtime/summary/SummaryWriter.h"
#include "runtime/trace/TraceRecorder.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dtf::train {

struct TelemetryOptions {
  /// TensorBoard log directory (empty: no summaries).
  std::string logdir;
  int saveSummariesSteps = 100;
  /// Chrome trace file (empty: no trace).
  std::string traceFile;
  int traceSteps = 5;
};

/// Throws std::invalid_argument naming the flag of a bad option; creates
/// the log directory and checks that the trace file can be written.
void checkTelemetryOptions(const TelemetryOptions &options);

/// The pid of a task in traces: PS tasks 1.., then workers.
int tracePid(const cluster::ClusterSpec &cluster, const cluster::TaskId &task);

/// The --trace timeline of one task, recording while switched on and
/// written once.
class TaskTrace {
public:
  using Clock = trace::TraceRecorder::Clock;

  /// A trace of `task`, or an inactive one when `options` has no trace file.
  TaskTrace(const TelemetryOptions &options,
            const cluster::ClusterSpec &cluster, const cluster::TaskId &task);

  bool active() const { return recorder != nullptr; }
  bool recording() const { return recording_.load(std::memory_order_relaxed); }
  void setRecording(bool on) { recording_.store(on && recorder != nullptr); }

  void nameTrack(int tid, const std::string &name);
  /// Records a span when recording.
  void span(int tid, std::string name, std::string category,
            Clock::time_point begin, Clock::time_point end,
            nlohmann::json args = nlohmann::json::object());
  /// Records every op the observed executor runs, on track `tid`, while
  /// recording.
  exec::OpObserver opObserver(int tid);

  /// Writes the file unless it was written; prints where to stdout, with
  /// `what` ("5 steps") in the message. Throws std::runtime_error.
  void write(const std::string &who, const std::string &what);

private:
  std::string path;
  std::unique_ptr<trace::TraceRecorder> recorder;
  std::atomic<bool> recording_{false};
  bool written = false;
};

/// Measures from construction to destruction and records a span then (when
/// the trace is recording at construction).
class ScopedSpan {
public:
  ScopedSpan(TaskTrace &trace, int tid, std::string name, std::string category,
             nlohmann::json args = nlohmann::json::object());
  ~ScopedSpan();
  ScopedSpan(const ScopedSpan &) = delete;
  ScopedSpan &operator=(const ScopedSpan &) = delete;

private:
  TaskTrace *trace = nullptr;
  int tid = 0;
  std::string name, category;
  nlohmann::json args;
  TaskTrace::Clock::time_point begin;
};

/// A worker's summaries and trace.
class WorkerTelemetry {
public:
  enum Track { StepTrack = 1, RpcTrack = 2, OpTrack = 3 };

  WorkerTelemetry(const TelemetryOptions &options,
                  const cluster::ClusterSpec &cluster,
                  const cluster::TaskId &task, int64_t batchSize);

  /// For the executor of the worker's step.
  exec::OpObserver opObserver() { return trace.opObserver(OpTrack); }
  /// A span on the RPC track ("pull", "push", "wait for step").
  ScopedSpan rpc(std::string name, nlohmann::json args = nlohmann::json::object()) {
    return ScopedSpan(trace, RpcTrack, std::move(name), "rpc", std::move(args));
  }
  /// The span of the step's run of @worker.
  ScopedSpan compute() {
    return ScopedSpan(trace, StepTrack, "run @worker", "compute");
  }

  /// Before local step `localStep` (0, 1, ...): starts tracing it if it is
  /// one of the first --trace_steps.
  void beginStep(int64_t localStep);
  /// After a step: records it, writes the summaries when due, and the
  /// trace after its last traced step. `localSteps` counts this step.
  /// `fetched` starts with the model's `numResults` results (loss,
  /// accuracy).
  void endStep(int64_t localSteps, int64_t globalStep,
               const std::vector<Tensor> &fetched, size_t numResults);
  /// More scalars for each summary (e.g. the streamed input's rates,
  /// InputLog.h), asked for when one is written.
  void addScalars(
      std::function<std::vector<std::pair<std::string, double>>()> source) {
    extraScalars.push_back(std::move(source));
  }
  /// After the training loop, which may end within a step: stops tracing.
  void endTraining() { trace.setRecording(false); }
  /// After training: the validation results by name, as the scalars
  /// `validation/<name>`.
  void validation(int64_t globalStep,
                  const std::vector<std::pair<std::string, double>> &values);
  /// Writes what is pending (a trace of fewer steps than asked for).
  void finish();

private:
  TelemetryOptions options;
  int index;
  int64_t batchSize;
  TaskTrace trace;
  std::unique_ptr<summary::SummaryWriter> writer;

  std::vector<std::function<std::vector<std::pair<std::string, double>>()>>
      extraScalars;
  TaskTrace::Clock::time_point stepBegin;
  int64_t tracedSteps = 0;
  // The previous summary, for the rates.
  bool started = false;
  TaskTrace::Clock::time_point lastTime;
  int64_t lastLocalSteps = 0;
  int64_t lastGlobalStep = 0;
};

/// A PS task's trace (its first updates and their ops) and summaries (the
/// staleness of its updates).
class PsTelemetry {
public:
  enum Track { UpdateTrack = 1, OpTrack = 2 };

  /// Traces the first `updatesToTrace` updates.
  PsTelemetry(const TelemetryOptions &options,
              const cluster::ClusterSpec &cluster, const cluster::TaskId &task,
              int64_t updatesToTrace);

  /// Sets the hooks of the task (`onApplied`, `onPushApplied`) and of its
  /// update program (the executor's op observer).
  void attach(ps::Options &task, exec::OpObserver &opObserver);
  /// After the task stopped updating: writes the trace if it was not
  /// written yet and the summary of the updates since the last one.
  void finish();

private:
  /// Writes the staleness summary of `window` at `step` and empties it;
  /// reports a failure on stderr and writes no more (it runs in a push's
  /// thread, which must not fail for it).
  void writeStaleness(int64_t step);
  /// Writes each dynamic table's rows, rows created per second since the
  /// last such summary and ids held back by its min-count filter, as
  /// "dynamic_table/<name>/..."; reports a failure as writeStaleness does.
  void writeDynamicTables(int64_t step,
                          const std::vector<ps::DynamicTableStats> &tables);

  int index;
  int64_t updatesToTrace;
  int saveSummariesSteps;
  TaskTrace trace;
  std::unique_ptr<summary::SummaryWriter> writer;
  // Touched by the task's hooks, under its mutex, and by finish() once the
  // task has stopped.
  /// Updates traced.
  int64_t updates = 0;
  /// The step the last update reached; -1 before any.
  int64_t lastStep = -1;
  /// The staleness of the pushes applied since the last summary.
  ps::StalenessHistogram window;
  /// Each dynamic table's createdRows at the last summary, by name.
  std::map<std::string, int64_t> createdAtLastSummary;
  /// When the last dynamic-table summary was written.
  std::optional<TaskTrace::Clock::time_point> lastTableSummary;
};

/// --local with --trace=FILE: the directory of the tasks' own trace files,
/// FILE.parts, created (throws std::runtime_error naming --trace).
std::string makeTracePartsDir(const std::string &traceFile);

/// Merges `<partsDir>/<task>.json` of `tasks` (those that exist) into
/// `traceFile`, removes the parts and says so on stdout. Throws
/// std::runtime_error naming --trace.
void mergeTaskTraces(const std::string &traceFile, const std::string &partsDir,
                     const std::vector<std::string> &tasks);

} // namespace dtf::train
