//===- LiftGraphInputs.cpp - Graph inputs and outputs as arguments --------===//
//
// Implements --dtf-lift-graph-inputs: a function's feeds and variable reads
// become arguments and the gradients it hands to dtf.apply_gradients become
// results, leaving a pure function of tensors that a device can run. The
// attributes on the new arguments and results tell the runtime what to bind
// to each (runtime/ABI.md, "GPU").
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace dtf::ir {
#define GEN_PASS_DEF_LIFTGRAPHINPUTSPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

static constexpr StringLiteral kFeedAttr = DTFDialect::getFeedAttrName();
static constexpr StringLiteral kVariableAttr =
    DTFDialect::getVariableAttrName();
static constexpr StringLiteral kGradientAttr =
    DTFDialect::getGradientAttrName();
static constexpr StringLiteral kOptimizerAttr =
    DTFDialect::getOptimizerAttrName();

namespace {

/// Lifts the inputs and outputs of one function.
class FunctionLifter {
public:
  explicit FunctionLifter(func::FuncOp function)
      : function(function), builder(function.getContext()) {}

  LogicalResult run();

private:
  /// The argument bound to input `name` of kind `kind` (feed or variable),
  /// appended on first use; fails on `user` if an earlier use of the same
  /// input had another type.
  FailureOr<Value> argumentFor(Operation *user, StringAttr kind,
                               StringAttr name, Type type);
  LogicalResult liftGradients(ApplyGradientsOp apply);

  func::FuncOp function;
  OpBuilder builder;
  /// Arguments added so far, by kind and name.
  llvm::StringMap<BlockArgument> feeds, variables;
};

} // namespace

FailureOr<Value> FunctionLifter::argumentFor(Operation *user, StringAttr kind,
                                             StringAttr name, Type type) {
  auto &known = kind.getValue() == kFeedAttr ? feeds : variables;
  auto it = known.find(name.getValue());
  if (it != known.end()) {
    if (it->second.getType() != type)
      return user->emitOpError("uses ")
             << name << " as " << type << ", but an earlier op as "
             << it->second.getType();
    return Value(it->second);
  }
  unsigned index = function.getNumArguments();
  NamedAttribute attrs[] = {
      builder.getNamedAttr(kind, name),
      builder.getNamedAttr(
          bufferization::BufferizationDialect::kWritableAttrName,
          builder.getBoolAttr(false))};
  (void)function.insertArgument(index, type, builder.getDictionaryAttr(attrs),
                                function.getLoc());
  BlockArgument argument = function.getArgument(index);
  known[name.getValue()] = argument;
  return Value(argument);
}

LogicalResult FunctionLifter::liftGradients(ApplyGradientsOp apply) {
  if (function->hasAttr(kOptimizerAttr))
    return apply.emitOpError(
        "is the second dtf.apply_gradients of the function; a device "
        "function returns the gradients of one optimizer");

  auto returnOp = cast<func::ReturnOp>(function.getBody().front().getTerminator());
  SmallVector<Value> results(returnOp.getOperands());
  SmallVector<Type> resultTypes(function.getResultTypes());
  SmallVector<DictionaryAttr> resultAttrs;
  function.getAllResultAttrs(resultAttrs);
  for (auto [variable, gradient] :
       llvm::zip_equal(apply.getVariables(), apply.getGradients())) {
    auto definition = variable.getDefiningOp<VariableOp>();
    if (!definition)
      return apply.emitOpError(
          "applies a gradient to a variable that is not a dtf.variable of "
          "the function");
    results.push_back(gradient);
    resultTypes.push_back(gradient.getType());
    resultAttrs.push_back(builder.getDictionaryAttr(
        builder.getNamedAttr(kGradientAttr, definition.getNameAttr())));
  }
  builder.setInsertionPoint(returnOp);
  builder.create<func::ReturnOp>(returnOp.getLoc(), results);
  returnOp.erase();
  function.setType(builder.getFunctionType(function.getArgumentTypes(),
                                           resultTypes));
  function.setAllResultAttrs(resultAttrs);
  function->setAttr(kOptimizerAttr, apply.getOptimizerAttr());
  apply.erase();
  return success();
}

LogicalResult FunctionLifter::run() {
  if (function.isExternal())
    return success();

  if (!function.getBody().hasOneBlock())
    return function.emitOpError(
        "has several blocks; a device function is a single block of ops");

  // Collect first, and not the terminator: lifting gradients replaces it.
  SmallVector<Operation *> ops;
  for (Operation &op : function.getBody().front().without_terminator())
    ops.push_back(&op);

  StringAttr feedKind = builder.getStringAttr(kFeedAttr);
  StringAttr variableKind = builder.getStringAttr(kVariableAttr);
  for (Operation *op : ops) {
    if (auto placeholder = dyn_cast<PlaceholderOp>(op)) {
      FailureOr<Value> argument = argumentFor(
          op, feedKind, placeholder.getNameAttr(), placeholder.getType());
      if (failed(argument))
        return failure();
      placeholder.replaceAllUsesWith(*argument);
      placeholder.erase();
    } else if (auto read = dyn_cast<ReadOp>(op)) {
      auto variable = read.getResource().getDefiningOp<VariableOp>();
      if (!variable)
        return read.emitOpError(
            "reads a resource that is not a dtf.variable of the function");
      FailureOr<Value> argument = argumentFor(
          op, variableKind, variable.getNameAttr(), read.getType());
      if (failed(argument))
        return failure();
      read.replaceAllUsesWith(*argument);
      read.erase();
    } else if (auto apply = dyn_cast<ApplyGradientsOp>(op)) {
      if (failed(liftGradients(apply)))
        return failure();
    } else if (isa<MinimizeOp>(op)) {
      return op->emitOpError(
          "must be differentiated (--dtf-autodiff) before its function is "
          "lowered for a device");
    }
  }

  // What still uses a variable updates it; parameter servers do that.
  for (auto variable :
       llvm::make_early_inc_range(function.getOps<VariableOp>())) {
    if (variable->use_empty()) {
      variable.erase();
      continue;
    }
    Operation *user = *variable->getUsers().begin();
    return user->emitOpError("updates variable ")
           << variable.getNameAttr()
           << ", which a device function cannot do: variable updates run on "
              "the parameter server (lower the worker's computation, whose "
              "gradients dtf.apply_gradients lists)";
  }
  return success();
}

namespace {
struct LiftGraphInputsPass
    : public dtf::ir::impl::LiftGraphInputsPassBase<LiftGraphInputsPass> {
  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (failed(FunctionLifter(function).run()))
        return signalPassFailure();
  }
};
} // namespace
