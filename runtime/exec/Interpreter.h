//===- Interpreter.h - Reference evaluation of dtf functions ----*- C++ -*-===//
//
// Runs a dtf function op by op on the CPU kernels of dtf_runtime. It is the
// reference the compiler's passes are checked against (gradient checks), and
// the single place that maps a dtf op to its kernel, which the distributed
// executor reuses for every op it schedules.
//
// Errors (a missing feed, a kernel rejecting its operands) are thrown as
// EvalError with the op's location and name in the message.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_RUNTIME_EXEC_INTERPRETER_H
#define DTF_RUNTIME_EXEC_INTERPRETER_H

#include "dtf/runtime/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <chrono>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlir::dtf {
class VariableOp;
} // namespace mlir::dtf

namespace dtf::exec {

/// An evaluation failure, with the location and name of the op at fault.
class EvalError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct EvalOptions {
  /// Evaluate every float tensor in f64, whatever its declared element type.
  /// Finite-difference checks need the precision; f32 results are unchanged
  /// otherwise.
  bool promoteToF64 = false;
};

/// The value of every variable, by name: the state a PS task holds.
using VariableStore = std::map<std::string, Tensor>;

/// Tensors fed to placeholders, by placeholder name.
using FeedMap = std::map<std::string, Tensor>;

/// The runtime dtype of an MLIR element type (f32, f64, i1, i32, i64).
DType toDType(mlir::Type elementType, const EvalOptions &options);

/// The runtime shape of a ranked tensor type.
Shape toShape(mlir::Type tensorType);

/// A tensor holding the elements of a dense attribute.
Tensor fromElementsAttr(mlir::ElementsAttr attr, const EvalOptions &options);

/// A variable's initial value, from its initializer attribute.
Tensor initialValue(mlir::dtf::VariableOp variable, const EvalOptions &options);

/// Sets every variable of `function` that `store` does not hold yet to its
/// initial value (what the chief worker does before training).
void initializeVariables(mlir::func::FuncOp function, VariableStore &store,
                         const EvalOptions &options);

/// Called after each op an Interpreter evaluates, with the times the op
/// started and ended: a hook for tracing kernels (tools/dtf-run's --trace).
using OpObserver =
    std::function<void(mlir::Operation *op,
                       std::chrono::steady_clock::time_point begin,
                       std::chrono::steady_clock::time_point end)>;

/// Evaluates a function op by op in program order.
class Interpreter {
public:
  Interpreter(VariableStore &variables, EvalOptions options = {})
      : variables(variables), options(options) {}

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

  /// Calls `observer` after every op evaluated from now on; an empty one
  /// (the default) turns observation off and costs nothing.
  void setOpObserver(OpObserver observer) { opObserver = std::move(observer); }

private:
  /// Evaluates the ops of `function` in program order; only those in
  /// `needed` when it is given.
  void evaluate(mlir::func::FuncOp function, const FeedMap &feeds,
                std::vector<Tensor> arguments,
                const llvm::DenseSet<mlir::Operation *> *needed);
  void evaluateOp(mlir::Operation *op, const FeedMap &feeds);
  const Tensor &lookup(mlir::Value value) const;
  Tensor &variable(mlir::Value handle);

  VariableStore &variables;
  EvalOptions options;
  llvm::DenseMap<mlir::Value, Tensor> values;
  std::vector<Tensor> results;
  OpObserver opObserver;
};

} // namespace dtf::exec

#endif // DTF_RUNTIME_EXEC_INTERPRETER_H
