//===- ExecutorWorker.h - A worker task's graphs on the Executor -*- C++
//-*-===//
//
// The compiler-aware half of a worker task (runtime/core/Worker.h): parses
// the modules registered with it, prepares each registered function for the
// concurrent Executor on one thread pool shared by all of them, and runs
// their steps. Variables live here, shared by the task's graphs.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/exec/Executor.h"

#include "runtime/core/Worker.h"

#include "mlir/IR/MLIRContext.h"

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

namespace dtf::exec {

struct ExecutorWorkerOptions {
  /// This task, e.g. "/job:worker/task:0", for messages.
  std::string taskName;
  /// Threads running the ops of all graphs; 0: one per hardware thread.
  size_t numThreads = 0;
  /// Runs each step's ops in the thread of its runStep call instead
  /// (ExecutorOptions::runInCallerThread); numThreads is then unused.
  bool runInCallerThread = false;
  /// Sees every op of every graph (ExecutorOptions::opObserver).
  OpObserver opObserver;
  EvalOptions eval;
  /// Handlers of ops that leave the process (dtf.pull, ...), by op name.
  std::map<std::string, std::shared_ptr<ExternalOpHandler>> externalOps;
};

class ExecutorWorker final : public Worker {
public:
  explicit ExecutorWorker(ExecutorWorkerOptions options);
  ~ExecutorWorker() override;

  void registerGraphs(const std::string &module,
                      const std::vector<std::string> &functions) override;
  std::vector<Tensor> runStep(const std::string &graph, FeedMap feeds,
                              std::vector<Tensor> arguments,
                              const StepOptions &options) override;
  VariableStore snapshotVariables() override;
  std::vector<std::string> assignVariables(VariableStore values) override;

private:
  struct Graph;

  std::shared_ptr<Graph> findGraph(const std::string &name);

  ExecutorWorkerOptions options;
  /// Parses the registered modules; MLIR's uniquing is thread-safe.
  mlir::MLIRContext context;
  std::shared_ptr<ThreadPool> pool;

  /// Serializes registrations, whose parse diagnostics go through the
  /// shared context.
  std::mutex registerMutex;
  std::mutex graphsMutex;
  std::map<std::string, std::shared_ptr<Graph>> graphs;

  /// Steps hold it shared; registering (which may add variables) exclusive.
  std::shared_mutex variablesMutex;
  VariableStore variables;
};

} // namespace dtf::exec
