//===- PsProgram.h - A PS function as a PS task's update program -*- C++
//-*-===//
//
// The compiler-aware half of a PS task: the PS function `@ps_<N>` of a
// replicated module (passes/Replicate.cpp), read once for its signature
// (variables, dtf.gradients, arguments) and run by the Executor for each
// update, as a worker runs its step. runtime/ps/ParameterServer.h holds the
// state machine that calls it and knows no MLIR.
//
// A dtf.variable with #dtf.dynamic_table is a dynamic table of the
// signature, with the variables colocated with it of its `?` type as its
// slots; initializeRows gives their rows per id from each variable's
// initializer (runtime/core/Initializers.h's row forms).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/exec/Executor.h"
#include "runtime/ps/ParameterServer.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <memory>

namespace dtf::exec {

class PsProgram final : public ps::UpdateProgram {
public:
  /// Reads the signature of `function`, which must outlive the program.
  /// `executorOptions` runs the updates (threads; dtf-run's --trace
  /// observes every op of every update). Throws std::invalid_argument,
  /// naming the task, for a function whose variables or dtf.gradients the
  /// runtime cannot hold.
  explicit PsProgram(mlir::func::FuncOp function,
                     ExecutorOptions executorOptions = {});
  ~PsProgram() override;

  const ps::ProgramSignature &signature() const override { return signature_; }
  void initialize(VariableStore &values) override;
  void apply(VariableStore &values, std::vector<Tensor> arguments,
             const ps::UpdateContext &context) override;
  Tensor initializeRows(const std::string &variable,
                        const Tensor &ids) const override;

private:
  mlir::func::FuncOp function;
  ExecutorOptions executorOptions;
  ps::ProgramSignature signature_;
  /// The dynamic tables and their slots, by name.
  std::map<std::string, dtf::ir::VariableOp> dynamicVariables;
  /// Prepared at the first update, for the store it updates (the task's
  /// own, which it keeps across restores).
  std::unique_ptr<Executor> executor;
  VariableStore *executorStore = nullptr;
};

} // namespace dtf::exec
