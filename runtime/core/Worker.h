//===- Worker.h - What a worker task does with its graphs -------*- C++ -*-===//
//
// The interface between a worker task's transport and its execution, as
// TensorFlow's worker.h stands between grpc_worker_service.cc and its
// executors: runtime/rpc/WorkerService.h translates RPCs into these calls
// and knows nothing of graphs; runtime/exec/ExecutorWorker.h implements
// them by parsing dtf modules and running their functions on the
// concurrent Executor. Failures are dtf::Error with the code the caller
// sees.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Cancellation.h"
#include "runtime/core/Rendezvous.h"
#include "runtime/core/Tensor.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dtf {

class Worker {
public:
  /// One step's settings.
  struct StepOptions {
    /// Identifies the step to the rendezvous.
    int64_t stepId = 0;
    /// Where the step's sends and recvs meet.
    Rendezvous *rendezvous = nullptr;
    Deadline deadline;
    /// Cancelling it cancels the step.
    CancellationManager *cancellation = nullptr;
  };

  virtual ~Worker() = default;

  /// Registers the functions named `functions` of the module whose text is
  /// `module`, each as a graph of that name (replacing one registered
  /// before), and initializes the variables they hold. Throws
  /// Error(InvalidArgument) for a module that does not parse or lacks a
  /// function, naming it.
  virtual void registerGraphs(const std::string &module,
                              const std::vector<std::string> &functions) = 0;

  /// Runs one step of the graph `graph` with `arguments` (one per function
  /// argument) and `feeds` (by placeholder name); returns its results.
  /// Throws Error(NotFound) for a graph not registered.
  virtual std::vector<Tensor> runStep(const std::string &graph,
                                      std::map<std::string, Tensor> feeds,
                                      std::vector<Tensor> arguments,
                                      const StepOptions &options) = 0;

  /// A copy of the task's variables.
  virtual VariableStore snapshotVariables() = 0;

  /// Sets the variables of the task that `values` names, between steps;
  /// returns their names. Names the task does not hold are ignored. Throws
  /// Error(InvalidArgument), changing nothing, when a value's dtype or
  /// shape is not its variable's.
  virtual std::vector<std::string> assignVariables(VariableStore values) = 0;
};

} // namespace dtf
