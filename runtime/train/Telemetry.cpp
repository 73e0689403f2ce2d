//===- Telemetry.cpp - TensorBoard summaries and traces of a task ---------===//

#include "runtime/train/Telemetry.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace dtf::train {

using json = nlohmann::json;

void checkTelemetryOptions(const TelemetryOptions &options) {
  if (options.saveSummariesSteps < 0)
    throw std::invalid_argument("--save_summaries_steps: must be >= 0, got " +
                                std::to_string(options.saveSummariesSteps));
  if (options.traceSteps < 1)
    throw std::invalid_argument("--trace_steps: must be >= 1, got " +
                                std::to_string(options.traceSteps));
  // Fail now, not after connecting to the cluster or training for a while,
  // when the outputs cannot be written.
  if (!options.logdir.empty()) {
    try {
      summary::makeDirectories(options.logdir);
    } catch (const data::RecordError &error) {
      throw std::invalid_argument(std::string("--logdir: ") + error.what());
    }
  }
  if (!options.traceFile.empty()) {
    std::string probe = options.traceFile + ".tmp";
    std::FILE *file = std::fopen(probe.c_str(), "w");
    if (!file)
      throw std::invalid_argument("--trace: cannot create " + probe + ": " +
                                  std::strerror(errno));
    std::fclose(file);
    std::remove(probe.c_str());
  }
}

int tracePid(const cluster::ClusterSpec &cluster, const cluster::TaskId &task) {
  int numPs = static_cast<int>(cluster.ps().size());
  return 1 + (task.job == cluster::Job::PS ? task.index : numPs + task.index);
}

/// "1 step", "5 steps".
static std::string count(int64_t n, const std::string &noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

static std::string taskLabel(const cluster::TaskId &task) {
  return (task.job == cluster::Job::PS ? "ps" : "worker") +
         std::to_string(task.index);
}

//===----------------------------------------------------------------------===//
// TaskTrace
//===----------------------------------------------------------------------===//

TaskTrace::TaskTrace(const TelemetryOptions &options,
                     const cluster::ClusterSpec &cluster,
                     const cluster::TaskId &task)
    : path(options.traceFile) {
  if (path.empty())
    return;
  recorder = std::make_unique<trace::TraceRecorder>(
      tracePid(cluster, task), taskLabel(task) + " (" + task.deviceName() +
                                   ", " + cluster.address(task).str() + ")");
}

void TaskTrace::nameTrack(int tid, const std::string &name) {
  if (recorder)
    recorder->nameThread(tid, name);
}

void TaskTrace::span(int tid, std::string name, std::string category,
                     Clock::time_point begin, Clock::time_point end,
                     json args) {
  if (recording())
    recorder->addSpan(tid, std::move(name), std::move(category), begin, end,
                      std::move(args));
}

/// "file.mlir:12:8" of an op, or "" when it has no file location.
static std::string describeLocation(mlir::Location loc) {
  if (auto file = mlir::dyn_cast<mlir::FileLineColLoc>(loc)) {
    llvm::StringRef name = file.getFilename().getValue();
    size_t slash = name.rfind('/');
    if (slash != llvm::StringRef::npos)
      name = name.substr(slash + 1);
    return (name + ":" + llvm::Twine(file.getLine()) + ":" +
            llvm::Twine(file.getColumn()))
        .str();
  }
  if (auto fused = mlir::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location inner : fused.getLocations()) {
      std::string text = describeLocation(inner);
      if (!text.empty())
        return text;
    }
  if (auto named = mlir::dyn_cast<mlir::NameLoc>(loc))
    return describeLocation(named.getChildLoc());
  return "";
}

exec::OpObserver TaskTrace::opObserver(int tid) {
  if (!recorder)
    return nullptr;
  // The executor runs independent ops on several threads at once, and
  // spans on one track must nest: each thread gets a track of its own,
  // `tid` for the first, tid * 100 + k for the (k+1)-th.
  struct ThreadTracks {
    std::mutex mutex;
    std::map<std::thread::id, int> tids;
  };
  auto tracks = std::make_shared<ThreadTracks>();
  auto trackOfThisThread = [this, tid, tracks] {
    std::lock_guard<std::mutex> lock(tracks->mutex);
    auto [it, inserted] = tracks->tids.try_emplace(
        std::this_thread::get_id(),
        tracks->tids.empty() ? tid
                             : tid * 100 + static_cast<int>(
                                               tracks->tids.size()));
    if (inserted && it->second != tid)
      nameTrack(it->second, "op kernels (thread " +
                                std::to_string(tracks->tids.size()) + ")");
    return it->second;
  };
  return [this, trackOfThisThread](mlir::Operation *op,
                                   Clock::time_point begin,
                                   Clock::time_point end) {
    if (!recording())
      return;
    int track = trackOfThisThread();
    std::string name = op->getName().getStringRef().str();
    json args = json::object();
    std::string loc = describeLocation(op->getLoc());
    if (!loc.empty())
      args["loc"] = loc;
    if (op->getNumResults() > 0) {
      std::string type;
      llvm::raw_string_ostream(type) << op->getResult(0).getType();
      args["type"] = type;
    }
    if (auto tensorName = op->getAttrOfType<mlir::StringAttr>("tensor_name"))
      args["tensor_name"] = tensorName.str();
    else if (auto varName = op->getAttrOfType<mlir::StringAttr>("name"))
      args["name"] = varName.str();
    bool transfer = name == "dtf.send" || name == "dtf.recv";
    recorder->addSpan(track, std::move(name), transfer ? "transfer" : "op",
                      begin, end, std::move(args));
  };
}

void TaskTrace::write(const std::string &who, const std::string &what) {
  if (!recorder || written)
    return;
  written = true;
  recording_ = false;
  try {
    recorder->writeFile(path);
  } catch (const trace::TraceError &error) {
    throw std::runtime_error(std::string("--trace: ") + error.what());
  }
  std::cout << who << ": wrote the trace of " << what << " ("
            << recorder->numEvents() << " events) to " << path << std::endl;
}

ScopedSpan::ScopedSpan(TaskTrace &trace, int tid, std::string name,
                       std::string category, json args) {
  if (!trace.recording())
    return;
  this->trace = &trace;
  this->tid = tid;
  this->name = std::move(name);
  this->category = std::move(category);
  this->args = std::move(args);
  begin = TaskTrace::Clock::now();
}

ScopedSpan::~ScopedSpan() {
  if (trace)
    trace->span(tid, std::move(name), std::move(category), begin,
                TaskTrace::Clock::now(), std::move(args));
}

//===----------------------------------------------------------------------===//
// WorkerTelemetry
//===----------------------------------------------------------------------===//

WorkerTelemetry::WorkerTelemetry(const TelemetryOptions &options,
                                 const cluster::ClusterSpec &cluster,
                                 const cluster::TaskId &task,
                                 int64_t batchSize)
    : options(options), index(task.index), batchSize(batchSize),
      trace(options, cluster, task) {
  trace.nameTrack(StepTrack, "steps");
  trace.nameTrack(RpcTrack, "rpc: pull, push, wait for step");
  trace.nameTrack(OpTrack, "op kernels");
  if (!options.logdir.empty()) {
    try {
      writer = std::make_unique<summary::SummaryWriter>(
          options.logdir + "/worker_" + std::to_string(task.index));
    } catch (const data::RecordError &error) {
      throw std::runtime_error(std::string("--logdir: ") + error.what());
    }
  }
}

void WorkerTelemetry::beginStep(int64_t localStep) {
  stepBegin = TaskTrace::Clock::now();
  if (!started) {
    started = true;
    lastTime = stepBegin;
  }
  trace.setRecording(localStep < options.traceSteps);
}

void WorkerTelemetry::endStep(int64_t localSteps, int64_t globalStep,
                              const std::vector<Tensor> &fetched,
                              size_t numResults) {
  TaskTrace::Clock::time_point now = TaskTrace::Clock::now();
  double loss = numResults > 0 ? fetched.at(0).scalarAsDouble() : 0.0;
  // The second result is the batch's accuracy when it is a scalar; a
  // model may return other tensors (predictions for its AUC) instead.
  std::optional<double> accuracy;
  if (numResults > 1 && fetched.at(1).numElements() == 1)
    accuracy = fetched.at(1).scalarAsDouble();
  if (trace.recording()) {
    trace.span(StepTrack, "step " + std::to_string(localSteps - 1), "step",
               stepBegin, now,
               {{"global_step", globalStep}, {"loss", loss}});
    if (++tracedSteps == options.traceSteps)
      trace.write("Worker " + std::to_string(index),
                  count(tracedSteps, "step"));
  }
  trace.setRecording(false);

  if (!writer || options.saveSummariesSteps <= 0 ||
      localSteps % options.saveSummariesSteps != 0)
    return;
  double seconds = std::chrono::duration<double>(now - lastTime).count();
  std::vector<std::pair<std::string, double>> values = {{"loss", loss}};
  if (accuracy)
    values.push_back({"accuracy", *accuracy});
  if (seconds > 0) {
    values.push_back(
        {"global_step/sec", (globalStep - lastGlobalStep) / seconds});
    values.push_back(
        {"examples/sec", (localSteps - lastLocalSteps) * batchSize / seconds});
  }
  for (const auto &source : extraScalars)
    for (auto &value : source())
      values.push_back(std::move(value));
  writer->addScalars(globalStep, values);
  writer->flush();
  lastTime = now;
  lastLocalSteps = localSteps;
  lastGlobalStep = globalStep;
}

void WorkerTelemetry::validation(
    int64_t globalStep,
    const std::vector<std::pair<std::string, double>> &values) {
  if (!writer)
    return;
  std::vector<std::pair<std::string, double>> tagged;
  for (const auto &[name, value] : values)
    tagged.emplace_back("validation/" + name, value);
  writer->addScalars(globalStep, tagged);
  writer->flush();
}

void WorkerTelemetry::finish() {
  trace.write("Worker " + std::to_string(index),
              count(tracedSteps, "step"));
  if (writer)
    writer->flush();
}

//===----------------------------------------------------------------------===//
// PsTelemetry
//===----------------------------------------------------------------------===//

PsTelemetry::PsTelemetry(const TelemetryOptions &options,
                         const cluster::ClusterSpec &cluster,
                         const cluster::TaskId &task, int64_t updatesToTrace)
    : index(task.index), updatesToTrace(updatesToTrace),
      saveSummariesSteps(options.saveSummariesSteps),
      trace(options, cluster, task) {
  trace.nameTrack(UpdateTrack, "updates (apply)");
  trace.nameTrack(OpTrack, "op kernels");
  trace.setRecording(updatesToTrace > 0);
  if (!options.logdir.empty()) {
    try {
      writer = std::make_unique<summary::SummaryWriter>(
          options.logdir + "/ps_" + std::to_string(task.index));
    } catch (const data::RecordError &error) {
      throw std::runtime_error(std::string("--logdir: ") + error.what());
    }
  }
}

void PsTelemetry::attach(ps::Options &task, exec::OpObserver &opObserver) {
  if (trace.active())
    opObserver = trace.opObserver(OpTrack);
  if (!trace.active() && !writer)
    return;
  if (writer)
    task.onPushApplied = [this](int64_t staleness) {
      if (writer)
        window.add(staleness);
    };
  if (writer)
    task.onUpdateStats = [this](int64_t step, const ps::UpdateStats &stats) {
      if (writer && saveSummariesSteps > 0 && step % saveSummariesSteps == 0)
        writeDynamicTables(step, stats.dynamicTables);
    };
  task.onApplied = [this](int64_t step, TaskTrace::Clock::time_point begin,
                          TaskTrace::Clock::time_point end) {
    lastStep = step;
    if (writer && saveSummariesSteps > 0 && step % saveSummariesSteps == 0)
      writeStaleness(step);
    if (!trace.recording())
      return;
    trace.span(UpdateTrack, "apply", "update", begin, end,
               {{"step", step}, {"update", updates}});
    if (++updates < updatesToTrace)
      return;
    // Called from a gRPC handler: report, do not throw.
    try {
      trace.write("PS task " + std::to_string(index),
                  count(updates, "update"));
    } catch (const std::exception &error) {
      std::cerr << "PS task " << index << ": " << error.what() << std::endl;
    }
  };
}

void PsTelemetry::writeStaleness(int64_t step) {
  if (window.pushes == 0)
    return;
  try {
    writer->addScalars(step,
                       {{"staleness/mean", window.mean()},
                        {"staleness/max", static_cast<double>(window.max)}});
    writer->flush();
  } catch (const data::RecordError &error) {
    std::cerr << "PS task " << index << ": --logdir: " << error.what()
              << "; no more summaries" << std::endl;
    writer.reset();
  }
  window.clear();
}

void PsTelemetry::writeDynamicTables(
    int64_t step, const std::vector<ps::DynamicTableStats> &tables) {
  if (tables.empty())
    return;
  auto now = TaskTrace::Clock::now();
  double seconds =
      lastTableSummary
          ? std::chrono::duration<double>(now - *lastTableSummary).count()
          : 0.0;
  std::vector<std::pair<std::string, double>> scalars;
  for (const ps::DynamicTableStats &table : tables) {
    std::string prefix = "dynamic_table/" + table.name + "/";
    int64_t created = table.createdRows - createdAtLastSummary[table.name];
    createdAtLastSummary[table.name] = table.createdRows;
    scalars.push_back({prefix + "rows", static_cast<double>(table.rows)});
    if (seconds > 0)
      scalars.push_back({prefix + "rows_created_per_sec",
                         static_cast<double>(created) / seconds});
    scalars.push_back(
        {prefix + "ids_held_back", static_cast<double>(table.pendingIds)});
  }
  lastTableSummary = now;
  try {
    writer->addScalars(step, scalars);
    writer->flush();
  } catch (const data::RecordError &error) {
    std::cerr << "PS task " << index << ": --logdir: " << error.what()
              << "; no more summaries" << std::endl;
    writer.reset();
  }
}

void PsTelemetry::finish() {
  trace.write("PS task " + std::to_string(index),
              count(updates, "update"));
  if (writer)
    writeStaleness(lastStep);
}

//===----------------------------------------------------------------------===//
// --local
//===----------------------------------------------------------------------===//

std::string makeTracePartsDir(const std::string &traceFile) {
  std::string dir = traceFile + ".parts";
  try {
    summary::makeDirectories(dir);
  } catch (const data::RecordError &error) {
    throw std::runtime_error(std::string("--trace: ") + error.what());
  }
  return dir;
}

void mergeTaskTraces(const std::string &traceFile, const std::string &partsDir,
                     const std::vector<std::string> &tasks) {
  std::vector<std::string> parts;
  std::string missing;
  for (const std::string &task : tasks) {
    std::string part = partsDir + "/" + task + ".json";
    if (::access(part.c_str(), R_OK) == 0)
      parts.push_back(part);
    else
      missing += (missing.empty() ? "" : ", ") + task;
  }
  size_t events;
  try {
    events = trace::mergeTraceFiles(parts, traceFile);
  } catch (const trace::TraceError &error) {
    throw std::runtime_error(std::string("--trace: ") + error.what());
  }
  for (const std::string &part : parts)
    std::remove(part.c_str());
  ::rmdir(partsDir.c_str());
  std::cout << "local cluster: wrote the trace of " << parts.size()
            << " tasks (" << events << " events) to " << traceFile;
  if (!missing.empty())
    std::cout << "; no trace from " << missing;
  std::cout << std::endl;
}

} // namespace dtf::train
