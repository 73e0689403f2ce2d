//===- AddEvalFunction.cpp - A forward-only copy of a training function ---===//
//
// In-graph training runs one graph for every step; validation needs the same
// graph without its updates. Cloning the placed function and cutting what
// writes variables keeps the training graph's placement (and its towers),
// so that validation runs where training does and partitions the same way.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"

namespace dtf::ir {
#define GEN_PASS_DEF_ADDEVALFUNCTIONPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

/// Whether `op` writes a variable through a resource handle: dtf.assign,
/// dtf.assign_add and the dtf.apply_* updates, found by their effects so
/// that a new update op needs no change here.
static bool writesVariable(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](MemoryEffects::EffectInstance &effect) {
    return isa<MemoryEffects::Write>(effect.getEffect()) && effect.getValue() &&
           isa<ResourceType>(effect.getValue().getType());
  });
}

/// Replaces each dtf.learning_phase of `function` with the constant
/// `training`.
static void fixLearningPhase(func::FuncOp function, bool training) {
  function.walk([&](LearningPhaseOp phase) {
    OpBuilder builder(phase);
    auto type = phase.getOutput().getType();
    Value constant = builder.create<ConstantOp>(
        phase.getLoc(), DenseElementsAttr::get(type, training));
    phase.getOutput().replaceAllUsesWith(constant);
    phase.erase();
  });
}

namespace {

struct AddEvalFunctionPass
    : public dtf::ir::impl::AddEvalFunctionPassBase<AddEvalFunctionPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    func::FuncOp func;
    if (functionName.empty()) {
      // A model is one function: dtf-run compiles whatever it is named.
      auto functions = module.getOps<func::FuncOp>();
      size_t count = std::distance(functions.begin(), functions.end());
      if (count != 1) {
        module.emitError("the module has ")
            << count << " functions; name the training function with "
                        "function=<name>";
        return signalPassFailure();
      }
      func = *functions.begin();
    } else {
      func = symbols.lookup<func::FuncOp>(functionName);
    }
    if (!func || func.isExternal()) {
      module.emitError("no function @")
          << functionName << " to make an evaluation function of";
      return signalPassFailure();
    }
    std::string trainName = func.getSymName().str();
    std::string evalName = trainName + "_eval";
    if (Operation *existing = symbols.lookup(evalName)) {
      existing->emitOpError("is named @")
          << evalName << ", the evaluation function of @" << trainName
          << "; remove or rename it";
      return signalPassFailure();
    }
    WalkResult unexpanded = func.walk([](Operation *op) {
      if (!isa<MinimizeOp, ApplyGradientsOp>(op))
        return WalkResult::advance();
      op->emitOpError("must be expanded before the evaluation function is "
                      "made; run --dtf-autodiff and --dtf-expand-optimizer "
                      "first");
      return WalkResult::interrupt();
    });
    if (unexpanded.wasInterrupted())
      return signalPassFailure();

    func::FuncOp eval = func.clone();
    eval.setSymName(evalName);
    symbols.insert(eval, std::next(Block::iterator(func)));

    eval.walk([&](Operation *op) {
      if (writesVariable(op)) {
        op->erase();
        ++numErasedUpdates;
      }
    });
    // An in-graph job runs each function as it is: the learning phase is
    // known, true in the training function and false in its copy.
    fixLearningPhase(func, true);
    fixLearningPhase(eval, false);
    // In reverse program order an op's users are visited, and erased if
    // dead, before it, so one sweep per block removes whole dead chains:
    // the backward pass, then the reads and variables only it used.
    for (Block &block : eval.getBody())
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
        if (isOpTriviallyDead(&op)) {
          op.erase();
          ++numErasedDeadOps;
        }
  }
};

} // namespace
