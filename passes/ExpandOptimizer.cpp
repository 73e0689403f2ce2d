//===- ExpandOptimizer.cpp - Optimizer updates from dtf.apply_gradients ---===//
//
// Implements --dtf-expand-optimizer: the `apply_gradients` half of
// TensorFlow's `optimizer.minimize`. Each `dtf.apply_gradients` becomes the
// optimizer's fused update ops, with the slot and non-slot variables the
// optimizer keeps (momentum accumulators, Adam's moments and beta powers)
// created as ordinary `dtf.variable`s, named as TensorFlow names them so that
// checkpoints and placement see the same state TensorFlow would have.
//
// A variable may name an optimizer of its own (`dtf.optimizer` on its
// `dtf.variable`), as DNNLinearCombinedClassifier trains its linear part
// with FTRL and its DNN with Adagrad in one train op: such variables are
// split off into an apply_gradients of their optimizer first.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

namespace dtf::ir {
#define GEN_PASS_DEF_EXPANDOPTIMIZERPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

/// Copies the `dtf.device` of `from`, if any, to `to`. TensorFlow colocates
/// slots with their variable and each update with the variable it writes; a
/// graph placed before this pass keeps that placement.
static void colocate(Operation *to, Operation *from) {
  if (!from)
    return;
  if (Attribute device = from->getAttr(DTFDialect::getDeviceAttrName()))
    to->setAttr(DTFDialect::getDeviceAttrName(), device);
}

namespace {
/// What the expansions of the apply_gradients ops of one function share.
struct FunctionState {
  /// Variable names in use in the function.
  llvm::StringSet<> names;
  /// The last variable created next to each variable, after which the next
  /// one goes, so that the variables an optimizer adds stay in creation
  /// order.
  DenseMap<Operation *, Operation *> lastCreatedNextTo;
};

/// Expands one `dtf.apply_gradients`.
class OptimizerExpansion {
public:
  OptimizerExpansion(ApplyGradientsOp apply, FunctionState &state)
      : apply(apply), rewriter(apply.getContext()), state(state) {}

  LogicalResult run();

private:
  void expandSGD(SGDAttr sgd);
  void expandMomentum(MomentumAttr momentum);
  void expandAdam(AdamAttr adam);
  void expandAdagrad(AdagradAttr adagrad);
  void expandFtrl(FtrlAttr ftrl);
  void expandRMSProp(RMSPropAttr rmsprop);
  void expandAdadelta(AdadeltaAttr adadelta);

  /// Creates a non-trainable variable of `valueType`, colocated with
  /// `anchor`, right after `anchor` and the variables already created next
  /// to it. `name` is made unique as TensorFlow's graph does: the second
  /// "w/Adam" becomes "w/Adam_1".
  VariableOp createVariableNextTo(VariableOp anchor, StringRef name,
                                  RankedTensorType valueType,
                                  Attribute initializer);

  /// A zero-initialized slot of `variable`: TensorFlow's `_zeros_slot`.
  VariableOp createSlot(VariableOp variable, StringRef slotName) {
    return createVariableNextTo(variable,
                                (variable.getName() + "/" + slotName).str(),
                                variable.getValueType(),
                                ZerosInitAttr::get(apply.getContext()));
  }

  /// A constant tensor of `type` with every element `value`.
  Value splat(RankedTensorType type, Attribute value);

  /// `variable = read(variable) * factor`, colocated with the variable.
  void scaleVariable(VariableOp variable, const APFloat &factor);

  VariableOp getVariable(unsigned index) {
    return apply.getVariables()[index].getDefiningOp<VariableOp>();
  }
  VariableOp getSparseVariable(unsigned index) {
    return apply.getSparseVariables()[index].getDefiningOp<VariableOp>();
  }

  ApplyGradientsOp apply;
  IRRewriter rewriter;
  FunctionState &state;
};
} // namespace

LogicalResult OptimizerExpansion::run() {
  Attribute optimizer = apply.getOptimizer();
  if (apply.getVariables().empty() && apply.getSparseVariables().empty())
    return apply.emitOpError("has no variables to update");
  // Slots hang off their variable, so the stateful optimizers need each
  // variable to be a dtf.variable of this function.
  if (!isa<SGDAttr>(optimizer)) {
    for (auto [index, variable] : llvm::enumerate(apply.getVariables()))
      if (!getVariable(index))
        return apply.emitOpError("variable #")
               << index << " is not defined by a dtf.variable, so "
               << optimizer << " cannot create its slots";
    for (auto [index, variable] : llvm::enumerate(apply.getSparseVariables()))
      if (!getSparseVariable(index))
        return apply.emitOpError("sparse variable #")
               << index << " is not defined by a dtf.variable, so " << optimizer
               << " cannot create its slots";
  }
  // TensorFlow's MomentumOptimizer does update IndexedSlices, but through a
  // kernel DTF does not have yet; refuse rather than densify the table.
  if (isa<MomentumAttr, RMSPropAttr, AdadeltaAttr>(optimizer) &&
      !apply.getSparseVariables().empty())
    return apply.emitOpError("updates '")
           << getSparseVariable(0).getName() << "' by rows, which "
           << (isa<MomentumAttr>(optimizer)  ? "momentum"
               : isa<RMSPropAttr>(optimizer) ? "RMSProp"
                                             : "Adadelta")
           << " cannot do yet; use #dtf.adagrad, #dtf.adam (lazy on rows) or "
              "#dtf.sgd for embedding tables";
  rewriter.setInsertionPoint(apply);
  if (auto sgd = dyn_cast<SGDAttr>(optimizer))
    expandSGD(sgd);
  else if (auto momentum = dyn_cast<MomentumAttr>(optimizer))
    expandMomentum(momentum);
  else if (auto adagrad = dyn_cast<AdagradAttr>(optimizer))
    expandAdagrad(adagrad);
  else if (auto ftrl = dyn_cast<FtrlAttr>(optimizer))
    expandFtrl(ftrl);
  else if (auto rmsprop = dyn_cast<RMSPropAttr>(optimizer))
    expandRMSProp(rmsprop);
  else if (auto adadelta = dyn_cast<AdadeltaAttr>(optimizer))
    expandAdadelta(adadelta);
  else
    expandAdam(cast<AdamAttr>(optimizer));

  // The global step counts applied updates, so it is incremented last,
  // exactly once.
  if (Value step = apply.getGlobalStep()) {
    RankedTensorType stepType = cast<ResourceType>(step.getType()).getValueType();
    Value one =
        splat(stepType, IntegerAttr::get(stepType.getElementType(), 1));
    auto increment = rewriter.create<AssignAddOp>(apply.getLoc(), step, one);
    colocate(increment, step.getDefiningOp());
  }
  rewriter.eraseOp(apply);
  return success();
}

VariableOp OptimizerExpansion::createVariableNextTo(VariableOp anchor,
                                                   StringRef name,
                                                   RankedTensorType valueType,
                                                   Attribute initializer) {
  std::string unique = name.str();
  for (unsigned suffix = 1; state.names.contains(unique); ++suffix)
    unique = (name + "_" + Twine(suffix)).str();
  state.names.insert(unique);

  OpBuilder::InsertionGuard guard(rewriter);
  Operation *&last = state.lastCreatedNextTo[anchor];
  rewriter.setInsertionPointAfter(last ? last : anchor.getOperation());
  // TensorFlow creates slots under colocate_with(var) (`loc:@var`), so that
  // placement keeps them beside their variable, whatever device it gets.
  auto variable = rewriter.create<VariableOp>(
      anchor.getLoc(), ResourceType::get(apply.getContext(), valueType), unique,
      initializer, /*trainable=*/false,
      rewriter.getStringAttr(anchor.getName()));
  colocate(variable, anchor);
  last = variable;
  return variable;
}

Value OptimizerExpansion::splat(RankedTensorType type, Attribute value) {
  return rewriter.create<ConstantOp>(apply.getLoc(),
                                     DenseElementsAttr::get(type, value));
}

void OptimizerExpansion::scaleVariable(VariableOp variable,
                                       const APFloat &factor) {
  Location loc = apply.getLoc();
  RankedTensorType type = variable.getValueType();
  Value value = rewriter.create<ReadOp>(loc, variable);
  Value scale = splat(
      type, FloatAttr::get(type.getElementType(), factor.convertToDouble()));
  Value product = rewriter.create<MulOp>(loc, value, scale);
  auto assign = rewriter.create<AssignOp>(loc, variable, product);
  for (Operation *op : {value.getDefiningOp(), product.getDefiningOp(),
                        assign.getOperation()})
    colocate(op, variable);
}

void OptimizerExpansion::expandSGD(SGDAttr sgd) {
  for (auto [variable, gradient] :
       llvm::zip(apply.getVariables(), apply.getGradients())) {
    auto update = rewriter.create<ApplyGradientDescentOp>(
        apply.getLoc(), variable, gradient, sgd.getLearningRate(),
        sgd.getSchedule());
    colocate(update, variable.getDefiningOp());
  }
  for (auto [variable, ids, rows] :
       llvm::zip(apply.getSparseVariables(), apply.getSparseIds(),
                 apply.getSparseRows())) {
    auto update = rewriter.create<SparseApplyGradientDescentOp>(
        apply.getLoc(), variable, ids, rows, sgd.getLearningRate(),
        /*shard=*/nullptr, sgd.getSchedule());
    colocate(update, variable.getDefiningOp());
  }
}

void OptimizerExpansion::expandRMSProp(RMSPropAttr rmsprop) {
  // TensorFlow 1's RMSPropOptimizer._create_slots, in its order: "rms"
  // (var/RMSProp) filled with ones, "mg" (centered only) and "momentum" of
  // zeros, which the graph names var/RMSProp_1 and var/RMSProp_2.
  MLIRContext *context = apply.getContext();
  for (auto [index, gradient] : llvm::enumerate(apply.getGradients())) {
    VariableOp variable = getVariable(index);
    VariableOp ms = createVariableNextTo(
        variable, (variable.getName() + "/RMSProp").str(),
        variable.getValueType(), ConstantInitAttr::get(context, APFloat(1.0)));
    Operation *update;
    if (rmsprop.getCentered()) {
      VariableOp mg = createSlot(variable, "RMSProp");
      VariableOp mom = createSlot(variable, "RMSProp");
      update = rewriter.create<ApplyCenteredRMSPropOp>(
          apply.getLoc(), variable, mg, ms, mom, gradient,
          rmsprop.getLearningRate(), rmsprop.getDecay(), rmsprop.getMomentum(),
          rmsprop.getEpsilon(), rmsprop.getSchedule());
    } else {
      VariableOp mom = createSlot(variable, "RMSProp");
      update = rewriter.create<ApplyRMSPropOp>(
          apply.getLoc(), variable, ms, mom, gradient,
          rmsprop.getLearningRate(), rmsprop.getDecay(), rmsprop.getMomentum(),
          rmsprop.getEpsilon(), rmsprop.getSchedule());
    }
    colocate(update, variable);
  }
}

void OptimizerExpansion::expandAdadelta(AdadeltaAttr adadelta) {
  // AdadeltaOptimizer._create_slots: "accum" and "accum_update" of zeros,
  // which the graph names var/Adadelta and var/Adadelta_1.
  for (auto [index, gradient] : llvm::enumerate(apply.getGradients())) {
    VariableOp variable = getVariable(index);
    VariableOp accum = createSlot(variable, "Adadelta");
    VariableOp accumUpdate = createSlot(variable, "Adadelta");
    auto update = rewriter.create<ApplyAdadeltaOp>(
        apply.getLoc(), variable, accum, accumUpdate, gradient,
        adadelta.getLearningRate(), adadelta.getRho(), adadelta.getEpsilon(),
        adadelta.getSchedule());
    colocate(update, variable);
  }
}

void OptimizerExpansion::expandFtrl(FtrlAttr ftrl) {
  // FtrlOptimizer._create_slots: "accum" (named var/Ftrl) filled with
  // initial_accumulator_value and "linear" (var/Ftrl_1) of zeros.
  auto createSlots = [&](VariableOp variable) {
    VariableOp accum = createVariableNextTo(
        variable, (variable.getName() + "/Ftrl").str(), variable.getValueType(),
        ConstantInitAttr::get(apply.getContext(),
                              ftrl.getInitialAccumulatorValue()));
    VariableOp linear = createSlot(variable, "Ftrl");
    return std::make_pair(accum, linear);
  };
  for (auto [index, gradient] : llvm::enumerate(apply.getGradients())) {
    VariableOp variable = getVariable(index);
    auto [accum, linear] = createSlots(variable);
    auto update = rewriter.create<ApplyFtrlOp>(
        apply.getLoc(), variable, accum, linear, gradient,
        ftrl.getLearningRate(), ftrl.getLearningRatePower(), ftrl.getL1(),
        ftrl.getL2(), ftrl.getL2Shrinkage(), ftrl.getSchedule());
    colocate(update, variable);
  }
  for (auto [index, ids, rows] :
       llvm::enumerate(apply.getSparseIds(), apply.getSparseRows())) {
    VariableOp variable = getSparseVariable(index);
    auto [accum, linear] = createSlots(variable);
    auto update = rewriter.create<SparseApplyFtrlOp>(
        apply.getLoc(), variable, accum, linear, ids, rows,
        ftrl.getLearningRate(), ftrl.getLearningRatePower(), ftrl.getL1(),
        ftrl.getL2(), ftrl.getL2Shrinkage(), /*shard=*/nullptr,
        ftrl.getSchedule());
    colocate(update, variable);
  }
}

void OptimizerExpansion::expandAdagrad(AdagradAttr adagrad) {
  // AdagradOptimizer._create_slots: one accumulator per variable, named
  // "Adagrad", filled with initial_accumulator_value.
  auto createAccumulator = [&](VariableOp variable) {
    return createVariableNextTo(
        variable, (variable.getName() + "/Adagrad").str(),
        variable.getValueType(),
        ConstantInitAttr::get(apply.getContext(),
                              adagrad.getInitialAccumulatorValue()));
  };
  for (auto [index, gradient] : llvm::enumerate(apply.getGradients())) {
    VariableOp variable = getVariable(index);
    auto update = rewriter.create<ApplyAdagradOp>(
        apply.getLoc(), variable, createAccumulator(variable), gradient,
        adagrad.getLearningRate(), adagrad.getSchedule());
    colocate(update, variable);
  }
  for (auto [index, ids, rows] :
       llvm::enumerate(apply.getSparseIds(), apply.getSparseRows())) {
    VariableOp variable = getSparseVariable(index);
    auto update = rewriter.create<SparseApplyAdagradOp>(
        apply.getLoc(), variable, createAccumulator(variable), ids, rows,
        adagrad.getLearningRate(), /*shard=*/nullptr, adagrad.getSchedule());
    colocate(update, variable);
  }
}

void OptimizerExpansion::expandMomentum(MomentumAttr momentum) {
  for (auto [index, gradient] : llvm::enumerate(apply.getGradients())) {
    VariableOp variable = getVariable(index);
    VariableOp accum = createSlot(variable, "Momentum");
    auto update = rewriter.create<ApplyMomentumOp>(
        apply.getLoc(), variable, accum, gradient, momentum.getLearningRate(),
        momentum.getMomentum(), momentum.getUseNesterov(),
        momentum.getSchedule());
    colocate(update, variable);
  }
}

void OptimizerExpansion::expandAdam(AdamAttr adam) {
  Location loc = apply.getLoc();
  unsigned numVariables = apply.getVariables().size();
  unsigned numSparse = apply.getSparseVariables().size();
  // TensorFlow's AdamOptimizer._create_slots: m and v for each variable...
  SmallVector<std::pair<VariableOp, VariableOp>> slots, sparseSlots;
  SmallVector<VariableOp> all;
  for (unsigned index = 0; index < numVariables; ++index)
    all.push_back(getVariable(index));
  for (unsigned index = 0; index < numSparse; ++index)
    all.push_back(getSparseVariable(index));
  for (auto [index, variable] : llvm::enumerate(all)) {
    VariableOp m = createSlot(variable, "Adam");
    VariableOp v = createSlot(variable, "Adam");
    (index < numVariables ? slots : sparseSlots).push_back({m, v});
  }
  // ...and beta1^t and beta2^t, on the device of the variable whose name
  // sorts first so that every worker agrees on where they live.
  VariableOp first;
  for (VariableOp variable : all)
    if (!first || variable.getName() < first.getName())
      first = variable;
  auto powerType = RankedTensorType::get(
      {}, first.getValueType().getElementType());
  MLIRContext *context = apply.getContext();
  VariableOp beta1Power =
      createVariableNextTo(first, "beta1_power", powerType,
                           ConstantInitAttr::get(context, adam.getBeta1()));
  VariableOp beta2Power =
      createVariableNextTo(first, "beta2_power", powerType,
                           ConstantInitAttr::get(context, adam.getBeta2()));

  // Every update uses the powers of this step.
  auto beta1Value = rewriter.create<ReadOp>(loc, beta1Power);
  auto beta2Value = rewriter.create<ReadOp>(loc, beta2Power);
  colocate(beta1Value, beta1Power);
  colocate(beta2Value, beta2Power);

  for (auto [index, gradient] : llvm::enumerate(apply.getGradients())) {
    VariableOp variable = getVariable(index);
    auto [m, v] = slots[index];
    auto update = rewriter.create<ApplyAdamOp>(
        loc, variable, m, v, beta1Value, beta2Value, gradient,
        adam.getLearningRate(), adam.getBeta1(), adam.getBeta2(),
        adam.getEpsilon(), adam.getSchedule());
    colocate(update, variable);
  }
  // Tables looked up by rows get LazyAdamOptimizer's update: the moments of
  // the rows a step does not touch stay as they are.
  for (auto [index, ids, rows] :
       llvm::enumerate(apply.getSparseIds(), apply.getSparseRows())) {
    VariableOp variable = getSparseVariable(index);
    auto [m, v] = sparseSlots[index];
    auto update = rewriter.create<SparseApplyAdamOp>(
        loc, variable, m, v, beta1Value, beta2Value, ids, rows,
        adam.getLearningRate(), adam.getBeta1(), adam.getBeta2(),
        adam.getEpsilon(), /*shard=*/nullptr, adam.getSchedule());
    colocate(update, variable);
  }

  // AdamOptimizer._finish: advance the powers once all variables are
  // updated.
  scaleVariable(beta1Power, adam.getBeta1());
  scaleVariable(beta2Power, adam.getBeta2());
}

/// Splits `apply` into one apply_gradients per optimizer: the variables
/// whose dtf.variable names an optimizer of its own go to an apply of that
/// optimizer, the others stay with `apply`'s, in the order the variables
/// come. The global step goes to the last apply alone, so that it is still
/// incremented once, after every update of the step.
static SmallVector<ApplyGradientsOp>
splitByVariableOptimizer(ApplyGradientsOp apply) {
  struct Group {
    SmallVector<Value> variables, gradients, sparseVariables, sparseIds,
        sparseRows;
  };
  auto optimizerOf = [&](Value variable) -> Attribute {
    if (auto op = variable.getDefiningOp<VariableOp>())
      if (Attribute own = op->getAttr(DTFDialect::getOptimizerAttrName()))
        return own;
    return apply.getOptimizer();
  };
  llvm::MapVector<Attribute, Group> groups;
  for (auto [variable, gradient] :
       llvm::zip(apply.getVariables(), apply.getGradients())) {
    Group &group = groups[optimizerOf(variable)];
    group.variables.push_back(variable);
    group.gradients.push_back(gradient);
  }
  for (auto [variable, ids, rows] :
       llvm::zip(apply.getSparseVariables(), apply.getSparseIds(),
                 apply.getSparseRows())) {
    Group &group = groups[optimizerOf(variable)];
    group.sparseVariables.push_back(variable);
    group.sparseIds.push_back(ids);
    group.sparseRows.push_back(rows);
  }
  if (groups.size() <= 1 &&
      (groups.empty() || groups.front().first == apply.getOptimizer()))
    return {apply};
  OpBuilder builder(apply);
  SmallVector<ApplyGradientsOp> split;
  for (auto [index, entry] : llvm::enumerate(groups)) {
    auto &[optimizer, group] = entry;
    Value globalStep =
        index + 1 == groups.size() ? apply.getGlobalStep() : Value();
    split.push_back(builder.create<ApplyGradientsOp>(
        apply.getLoc(), optimizer, group.variables, group.gradients,
        group.sparseVariables, group.sparseIds, group.sparseRows, globalStep));
  }
  apply.erase();
  return split;
}

//===----------------------------------------------------------------------===//
// ExpandOptimizerPass
//===----------------------------------------------------------------------===//

namespace {
struct ExpandOptimizerPass
    : dtf::ir::impl::ExpandOptimizerPassBase<ExpandOptimizerPass> {
  void runOnOperation() override {
    FunctionState state;
    SmallVector<ApplyGradientsOp> applies;
    getOperation().walk([&](Operation *op) {
      if (auto variable = dyn_cast<VariableOp>(op))
        state.names.insert(variable.getName());
      else if (auto apply = dyn_cast<ApplyGradientsOp>(op))
        applies.push_back(apply);
    });
    for (ApplyGradientsOp apply : applies)
      for (ApplyGradientsOp split : splitByVariableOptimizer(apply))
        if (failed(OptimizerExpansion(split, state).run()))
          return signalPassFailure();
  }
};
} // namespace
