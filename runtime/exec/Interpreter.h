//===- Interpreter.h - Reference evaluation of dtf functions ----*- C++ -*-===//
//
// Runs a dtf function op by op, in program order, on the CPU kernels of
// dtf_runtime (through OpKernels.h, which the concurrent Executor shares). It
// is the reference the compiler's passes and the Executor are checked
// against; tasks run their steps on the Executor.
//
// Errors (a missing feed, a kernel rejecting its operands) are thrown as
// EvalError with the op's location and name in the message.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/exec/OpKernels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>
#include <vector>

namespace dtf::exec {

/// Evaluates a function op by op in program order.
class Interpreter {
public:
  Interpreter(VariableStore &variables, EvalOptions options = {})
      : variables(variables), options(options) {}

  /// Sets the learning phase of the runs that follow (dtf.learning_phase;
  /// false, evaluation, until set).
  void setTraining(bool isTraining) { training = isTraining; }
  /// Sets the global step at which the runs that follow evaluate optimizer
  /// updates' learning-rate schedules (none until set: such an update
  /// fails).
  void setGlobalStep(std::optional<int64_t> step) { globalStep = step; }

  /// Runs `function` with `feeds` and its `arguments` (one per function
  /// argument) and returns its results. Variable updates are applied to the
  /// store.
  std::vector<Tensor> run(mlir::func::FuncOp function, const FeedMap &feeds,
                          std::vector<Tensor> arguments = {});

  /// Returns the values of `fetches` (SSA values of the function's body),
  /// evaluating only the ops they depend on, as TensorFlow's Session.run
  /// does: variable updates off that path do not run.
  std::vector<Tensor> runAndFetch(mlir::func::FuncOp function,
                                  const FeedMap &feeds,
                                  llvm::ArrayRef<mlir::Value> fetches);


private:
  /// Evaluates the ops of `function` in program order; only those in
  /// `needed` when it is given.
  void evaluate(mlir::func::FuncOp function, const FeedMap &feeds,
                std::vector<Tensor> arguments,
                const llvm::DenseSet<mlir::Operation *> *needed);
  void evaluateOp(mlir::Operation *op, const FeedMap &feeds);
  const Tensor &lookup(mlir::Value value) const;

  VariableStore &variables;
  EvalOptions options;
  bool training = false;
  std::optional<int64_t> globalStep = std::nullopt;
  llvm::DenseMap<mlir::Value, Tensor> values;
  std::vector<Tensor> results;
};

} // namespace dtf::exec
