//===- PsProgram.h - A PS function as a PS task's update program -*- C++
//-*-===//
//
// The compiler-aware half of a PS task: the PS function `@ps_<N>` of a
// replicated module (passes/Replicate.cpp), read once for its signature
// (variables, dtf.gradients, arguments) and run with the reference
// interpreter for each update. runtime/ps/ParameterServer.h holds the state
// machine that calls it and knows no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_RUNTIME_EXEC_PSPROGRAM_H
#define DTF_RUNTIME_EXEC_PSPROGRAM_H

#include "runtime/exec/Interpreter.h"
#include "runtime/ps/ParameterServer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace dtf::exec {

class PsProgram final : public ps::UpdateProgram {
public:
  /// Reads the signature of `function`, which must outlive the program.
  /// `opObserver` (optional; dtf-run's --trace) sees every op of every
  /// update. Throws std::invalid_argument, naming the task, for a function
  /// whose variables or dtf.gradients the runtime cannot hold.
  explicit PsProgram(mlir::func::FuncOp function, OpObserver opObserver = {});

  const ps::ProgramSignature &signature() const override { return signature_; }
  void initialize(VariableStore &values) override;
  void apply(VariableStore &values, std::vector<Tensor> arguments) override;

private:
  mlir::func::FuncOp function;
  OpObserver opObserver;
  ps::ProgramSignature signature_;
};

} // namespace dtf::exec

#endif // DTF_RUNTIME_EXEC_PSPROGRAM_H
