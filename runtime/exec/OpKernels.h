//===- OpKernels.h - The CPU kernel of each dtf op --------------*- C++ -*-===//
//
// The single place that maps a dtf op to its dtf_runtime kernel. Both the
// sequential reference Interpreter and the concurrent Executor evaluate ops
// through it: they differ only in how they order ops and where they keep the
// values.
//
// A kernel is looked up once per op (findKernel) and then called with the
// tensors of the op's operands; variables are reached through a resolver the
// caller provides, so that the same kernel serves a PS task's variable store
// and a test's. Errors (a missing feed, a kernel rejecting its operands) are
// thrown as EvalError with the op's location and name in the message.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/Sparse.h"
#include "runtime/core/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dtf::ir {
class VariableOp;
} // namespace dtf::ir

namespace dtf::exec {

/// An evaluation failure, with the location and name of the op at fault.
/// Its code says what kind of failure it is (InvalidArgument by default).
class EvalError : public ::dtf::Error {
public:
  explicit EvalError(const std::string &message)
      : Error(ErrorCode::InvalidArgument, message) {}
  EvalError(ErrorCode code, const std::string &message)
      : Error(code, message) {}
};

struct EvalOptions {
  /// Evaluate every float tensor in f64, whatever its declared element type.
  /// Finite-difference checks need the precision; f32 results are unchanged
  /// otherwise.
  bool promoteToF64 = false;
};

using ::dtf::FeedMap;
using ::dtf::VariableStore;

/// The runtime dtype of an MLIR element type (f32, f64, i1, i32, i64).
DType toDType(mlir::Type elementType, const EvalOptions &options);

/// The runtime shape of a ranked tensor type.
Shape toShape(mlir::Type tensorType);

/// A tensor holding the elements of a dense attribute.
Tensor fromElementsAttr(mlir::ElementsAttr attr, const EvalOptions &options);

/// The partition of the table a #dtf.row_shard `rowShard` is a shard of.
kernels::RowPartition toRowPartition(mlir::Attribute rowShard);

/// `ids` of a whole table as the rows of the shard `rowShard` (a
/// #dtf.row_shard) names: kernels::shard_local_ids.
Tensor shardLocalIds(mlir::Attribute rowShard, const Tensor &ids);

/// A variable's initial value, from its initializer attribute.
Tensor initialValue(dtf::ir::VariableOp variable, const EvalOptions &options);

/// Sets every variable of `function` that `store` does not hold yet to its
/// initial value (what the chief worker does before training).
void initializeVariables(mlir::func::FuncOp function, VariableStore &store,
                         const EvalOptions &options);

/// "loc: 'dtf.op'", the prefix of every error about `op`.
std::string describeOp(mlir::Operation *op);

/// Throws EvalError unless `tensor` has the dtype and shape `type` (a ranked
/// tensor type) evaluates to; `what` names the value ("argument #0",
/// "result #1") after the op's description.
void checkTensorType(mlir::Operation *op, const std::string &what,
                     mlir::Type type, const Tensor &tensor,
                     const EvalOptions &options);

/// Whether `value` is a variable handle (!dtf.resource) rather than a tensor.
bool isResource(mlir::Value value);

/// The dtf.variable op that defines `handle`. Throws EvalError when the
/// resource comes from elsewhere (a function argument).
dtf::ir::VariableOp variableOf(mlir::Value handle);

/// The tensor `store` holds for the variable `handle` names. Throws
/// EvalError(FailedPrecondition) when the variable is not initialized.
Tensor &lookupVariable(VariableStore &store, mlir::Value handle);

/// The tensor of the variable a handle names. Throws EvalError when there is
/// none (an uninitialized variable).
using VariableResolver = std::function<Tensor &(mlir::Value handle)>;

/// What a kernel needs besides its operands.
struct KernelContext {
  const EvalOptions &options;
  /// Read by dtf.placeholder.
  const FeedMap &feeds;
  /// Resolves the op's resource operands.
  VariableResolver variable;
  /// The learning phase dtf.learning_phase reads: whether the run trains.
  bool training = false;
  /// The global step at which an optimizer update's learning-rate schedule
  /// is evaluated; nullopt where the run has none (an update with a
  /// schedule then fails).
  std::optional<int64_t> globalStep = std::nullopt;
  /// Which samples the stateful random ops (dtf.random_uniform) draw in
  /// this run: runs with different streams draw independent samples.
  uint64_t randomStream = 0;
  /// Multiplies the learning rate of the dense optimizer updates with
  /// momentum (dtf.apply_momentum, dtf.apply_adam, RMSProp with momentum;
  /// not SGD, Adagrad, Adadelta, FTRL, nor the sparse updates of embedding
  /// rows): a PS task's staleness-dependent learning rate
  /// (ps::UpdateContext).
  double stalenessLearningRateScale = 1.0;
};

/// One call of a kernel.
class KernelCall {
public:
  /// `operands` has one entry per operand of `op`: its tensor, or null for a
  /// resource handle. `results` has one entry per result of `op`.
  KernelCall(mlir::Operation *op, llvm::ArrayRef<const Tensor *> operands,
             llvm::MutableArrayRef<Tensor> results,
             const KernelContext &context)
      : op_(op), operands_(operands), results_(results), context_(context) {}

  mlir::Operation *op() const { return op_; }
  const KernelContext &context() const { return context_; }
  const EvalOptions &options() const { return context_.options; }
  /// The tensor of operand `index`.
  const Tensor &in(unsigned index) const;
  /// The variable operand `index` names.
  Tensor &variable(unsigned index) const;
  /// Sets result `index`.
  void set(Tensor tensor, unsigned index = 0) const;

private:
  mlir::Operation *op_;
  llvm::ArrayRef<const Tensor *> operands_;
  llvm::MutableArrayRef<Tensor> results_;
  const KernelContext &context_;
};

/// Computes an op's results from its operands.
using OpKernel = std::function<void(const KernelCall &call)>;

/// The CPU kernel of `op`, or null when it has none: ops the caller handles
/// itself (func.return, ops that leave the process) or cannot run. The
/// pointer stays valid for the life of the process.
const OpKernel *findKernel(mlir::Operation *op);

/// The error for an op without a kernel, saying why it has none.
EvalError noKernelError(mlir::Operation *op);

/// Runs `kernel` (findKernel(op)) on `call`. Any exception it throws is
/// rethrown as EvalError naming the op, with the code of the original.
void evaluateOp(const OpKernel &kernel, const KernelCall &call);

/// Looks up the kernel of `op` and runs it; returns the op's results.
std::vector<Tensor> evaluateOp(mlir::Operation *op,
                               llvm::ArrayRef<const Tensor *> operands,
                               const KernelContext &context);

} // namespace dtf::exec
