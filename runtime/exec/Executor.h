//===- Executor.h - Concurrent dataflow execution of a function -*- C++ -*-===//
//
// Runs the ops of a dtf function (one partition of a distributed graph) as a
// dataflow graph on a thread pool: an op becomes ready when its operands are
// computed and the ops it must follow are done, and ready ops run
// concurrently. The function is prepared once into that graph; each run is a
// step.
//
// Besides SSA edges, the graph orders the ops that touch the same variable as
// the program does: a read after an assign (or an optimizer update) sees the
// new value, and an update after a read does not overtake it.
//
// Ops that leave the process are not computed here:
//  - dtf.send / dtf.recv go through the step's Rendezvous (RunOptions);
//  - any other op can be given to an ExternalOpHandler, by op name (the
//    worker's dtf.pull and dtf.push_gradients, which call a PS task).
// Both are asynchronous: a waiting recv or RPC holds no thread, so a step
// cannot starve the pool however many transfers it waits for.
//
// The first error ends the step: it cancels the ops still waiting, skips the
// ops not started, and is thrown by run() as an EvalError naming the op, once
// no op of the step is running any more.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/exec/OpKernels.h"

#include "runtime/core/Cancellation.h"
#include "runtime/core/Rendezvous.h"
#include "runtime/core/ThreadPool.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dtf::exec {

/// One call of an op an ExternalOpHandler computes.
struct ExternalOpCall {
  mlir::Operation *op;
  /// One per operand of `op`: its tensor, or null for a resource handle.
  /// Valid until `done` is called.
  std::vector<const Tensor *> operands;
  int64_t stepId;
  /// Fires when the step is cancelled (another op failed, the deadline
  /// passed, the caller cancelled it); the handler should then finish at
  /// once, with the reason as its error. A callback the handler registers
  /// there must be removed before it calls `done` (the step owns the
  /// manager; a callback holding `done` would keep the step alive).
  CancellationManager *cancellation;
  /// The step's deadline, for the RPCs the handler makes.
  std::optional<Deadline> deadline;
  /// What the handler's beginStep returned for this step (null if nothing);
  /// the step owns it until its end.
  void *stepState = nullptr;
};

/// Reports the end of an external op: its results (one per op result, of
/// the result types) or its error.
using ExternalOpDone =
    std::function<void(std::exception_ptr error, std::vector<Tensor> results)>;

/// Computes ops that leave the process. Implemented by the caller.
class ExternalOpHandler {
public:
  virtual ~ExternalOpHandler();
  /// Starts `call` and calls `done` exactly once, from any thread, possibly
  /// before returning. It runs on a pool thread: blocking there holds that
  /// thread, so a long wait should rather complete `done` from elsewhere.
  virtual void runAsync(const ExternalOpCall &call, ExternalOpDone done) = 0;
  /// Called once at the start of each step that runs an op of this handler,
  /// before any op runs, with the step's function and feeds: a handler that
  /// can do the transfers of all its ops of the step at once (the row pulls
  /// of a worker's step, one request per PS task) starts them here. What it
  /// returns is handed to each call as ExternalOpCall::stepState and
  /// released with the step. It must not throw: an error belongs to the op
  /// that needs the transfer, which reports it when it runs.
  virtual std::shared_ptr<void> beginStep(mlir::func::FuncOp function,
                                          const FeedMap &feeds);
};

/// An ExternalOpHandler running `compute` on the pool thread; what it throws
/// is the op's error.
std::shared_ptr<ExternalOpHandler> makeExternalOpHandler(
    std::function<std::vector<Tensor>(const ExternalOpCall &)> compute);

/// Called after each op a step runs, on the thread that ran it, with the
/// times the op started and ended (for an asynchronous op, a dtf.recv or an
/// external op, when it was started and when its result arrived): the hook
/// of dtf-run's --trace. Must be thread-safe.
using OpObserver =
    std::function<void(mlir::Operation *op,
                       std::chrono::steady_clock::time_point begin,
                       std::chrono::steady_clock::time_point end)>;

struct ExecutorOptions {
  EvalOptions eval;
  /// The threads that run ops; several executors may share one pool.
  /// Created with `numThreads` threads when null.
  std::shared_ptr<ThreadPool> threadPool;
  /// 0 means one per hardware thread.
  size_t numThreads = 0;
  /// Runs every op of a step in the thread that calls run(), with no pool,
  /// as TensorFlow does for a negative inter_op_parallelism_threads: no
  /// hand-off to another thread, for steps that are a chain of ops or that
  /// are run one at a time (a PS task's updates). Asynchronous ops
  /// (dtf.recv, external ops) still complete elsewhere; the caller runs
  /// what they make ready. A deadline is checked between ops.
  bool runInCallerThread = false;
  /// Handlers of the ops without a CPU kernel, by op name ("dtf.pull").
  std::map<std::string, std::shared_ptr<ExternalOpHandler>> externalOps;
  /// Called on the thread about to run each op, before it runs: tests use
  /// it to hold an op back. Must be thread-safe.
  std::function<void(mlir::Operation *op)> beforeOp;
  /// Sees every op after it ran; empty (the default) costs nothing.
  OpObserver opObserver;
};

/// One step's settings.
struct RunOptions {
  /// Identifies the step to the rendezvous and external ops.
  int64_t stepId = 0;
  /// Where dtf.send and dtf.recv meet; required when the function has any.
  Rendezvous *rendezvous = nullptr;
  /// The step fails with DeadlineExceeded, naming the ops still running,
  /// when it is not done by then.
  std::optional<Deadline> deadline;
  /// Cancelling it cancels the step (e.g. the RPC that asked for it).
  CancellationManager *cancellation = nullptr;
  /// The learning phase (dtf.learning_phase): true for a training step,
  /// false for evaluation.
  bool training = false;
  /// The global step of the optimizer updates' learning-rate schedules
  /// (KernelContext::globalStep).
  std::optional<int64_t> globalStep = std::nullopt;
  /// The samples of the stateful random ops (KernelContext::randomStream).
  uint64_t randomStream = 0;
  /// KernelContext::stalenessLearningRateScale.
  double stalenessLearningRateScale = 1.0;
};

class Executor {
public:
  /// Prepares `function` (a single block), which must outlive the executor,
  /// as must `variables`. Throws EvalError when an op can run neither on a
  /// kernel nor through a handler.
  Executor(mlir::func::FuncOp function, VariableStore &variables,
           ExecutorOptions options = {});
  ~Executor();
  Executor(const Executor &) = delete;
  Executor &operator=(const Executor &) = delete;

  /// Runs every op of the function as one step and returns its results.
  /// `arguments` has one tensor per function argument.
  ///
  /// Steps may run concurrently; steps that update the same variables
  /// concurrently race, as TensorFlow's do without use_locking.
  std::vector<Tensor> run(const FeedMap &feeds,
                          std::vector<Tensor> arguments = {},
                          const RunOptions &options = {});

  /// Returns the values of `fetches` (values of the function's body),
  /// running only the ops they depend on, as Interpreter::runAndFetch does.
  /// `arguments` may be empty when the fetches do not depend on them.
  std::vector<Tensor> runAndFetch(const FeedMap &feeds,
                                  llvm::ArrayRef<mlir::Value> fetches,
                                  std::vector<Tensor> arguments = {},
                                  const RunOptions &options = {});

  mlir::func::FuncOp function() const;
  /// Null when the steps run in the caller's thread.
  ThreadPool *threadPool() const;

  struct Graph;
  struct Plan;
  class Step;

private:
  std::shared_ptr<const Plan> planFor(llvm::ArrayRef<mlir::Value> fetches);
  std::vector<Tensor> execute(const Plan &plan, const FeedMap &feeds,
                              std::vector<Tensor> arguments,
                              const RunOptions &options);

  std::unique_ptr<Graph> graph_;
  VariableStore &variables_;
  ExecutorOptions options_;
};

} // namespace dtf::exec
