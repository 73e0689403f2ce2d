//===- Replicate.cpp - Between-graph replication --------------------------===//
//
// Implements --dtf-replicate: TensorFlow's between-graph replication. The
// placed training function of a module becomes the program every worker
// replica runs (pull the variables, forward and backward pass on its own
// data, push the gradients) and one function per PS task that holds the
// task's variables and applies one update to them (runtime/ABI.md).
//
// The split follows data flow, not the `dtf.device` of each op: placement
// puts the beta-power products and the global-step constant on the worker,
// yet they only compute what a PS task writes, so they go to that task.
//
// - Each op writing a variable (`dtf.assign`, `dtf.assign_add`,
//   `dtf.apply_*`, `dtf.assign_moving_average`) belongs to the PS task of
//   the variable, together with the backward slice of its operands except
//   what the worker pushes (the gradient of a `dtf.apply_*`, the value of a
//   moving average): constants, pure ops and reads of PS state. A read of a
//   variable of another task that gets no gradient (Adam's beta powers) copies
//   that variable and its updates to this task.
// - The worker runs the backward slices of the function's results and of
//   the gradients, with every read of a variable turned into one pull.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Placement.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

namespace dtf::ir {
#define GEN_PASS_DEF_REPLICATEPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

/// The gradient operands of a fused optimizer update: the gradient of a
/// dense update, the ids and rows of a sparse one, the batch's value of a
/// moving average (pushed as a gradient is); empty for any other op.
static SmallVector<OpOperand *, 2> getGradientOperands(Operation *op) {
  return TypeSwitch<Operation *, SmallVector<OpOperand *, 2>>(op)
      .Case<ApplyGradientDescentOp, ApplyMomentumOp, ApplyAdamOp,
            ApplyAdagradOp, ApplyFtrlOp, ApplyRMSPropOp, ApplyCenteredRMSPropOp,
            ApplyAdadeltaOp>([](auto apply) {
        return SmallVector<OpOperand *, 2>{&apply.getGradMutable()};
      })
      .Case<AssignMovingAverageOp>([](AssignMovingAverageOp average) {
        return SmallVector<OpOperand *, 2>{&average.getValueMutable()};
      })
      .Case<SparseApplyGradientDescentOp, SparseApplyAdagradOp,
            SparseApplyAdamOp, SparseApplyFtrlOp>([](auto apply) {
        return SmallVector<OpOperand *, 2>{&apply.getIdsMutable(),
                                           &apply.getRowsMutable()};
      })
      .Default([](Operation *) { return SmallVector<OpOperand *, 2>(); });
}

/// The variable a fused optimizer update updates with its gradient (a
/// moving average with its pushed value).
static VariableOp getUpdatedVariable(Operation *op) {
  return TypeSwitch<Operation *, VariableOp>(op)
      .Case<ApplyGradientDescentOp, ApplyMomentumOp, ApplyAdamOp,
            ApplyAdagradOp, ApplyFtrlOp, ApplyRMSPropOp, ApplyCenteredRMSPropOp,
            ApplyAdadeltaOp, SparseApplyGradientDescentOp, SparseApplyAdagradOp,
            SparseApplyAdamOp, SparseApplyFtrlOp, AssignMovingAverageOp>(
          [](auto apply) {
            return apply.getVar().template getDefiningOp<VariableOp>();
          })
      .Default([](Operation *) { return VariableOp(); });
}

namespace {
/// A variable of the training function and what writes it.
struct Variable {
  VariableOp op;
  /// The PS task holding it.
  int64_t task;
  /// The ops writing it, in program order.
  SmallVector<Operation *> writes;
  /// The `dtf.apply_*` op updating it with a gradient, if any.
  Operation *gradientUpdate = nullptr;

  StringRef getName() { return op.getName(); }
  /// Whether its gradient is sparse: ids and rows.
  bool hasSparseGradient() {
    return getGradientOperands(gradientUpdate).size() == 2;
  }
  /// What the worker pushes for this variable: its gradient, or the ids and
  /// rows of its sparse gradient.
  SmallVector<Value, 2> getGradient() {
    SmallVector<Value, 2> values;
    for (OpOperand *operand : getGradientOperands(gradientUpdate))
      values.push_back(operand->get());
    return values;
  }
};

/// The function of one PS task.
struct PSTask {
  /// The variables it holds: its own and those copied to it.
  llvm::SmallPtrSet<Operation *, 16> variables;
  /// The ops of the training function it runs: the updates of its
  /// variables and the ops computing what they write.
  llvm::DenseSet<Operation *> ops;
  /// Its variables that get a gradient, in program order: the function's
  /// `dtf.gradients`.
  SmallVector<Variable *> gradientVariables;
  /// Its variables that get a sparse gradient, in program order: the
  /// function's `dtf.sparse_gradients`.
  SmallVector<Variable *> sparseGradientVariables;
  /// Whether the function updates anything, and so is run by pushes.
  bool hasUpdates = false;
};

/// Replicates one training function.
class Replication {
public:
  Replication(func::FuncOp function, ReplicationAttr replication)
      : function(function), replication(replication) {}

  /// Splits the function's ops between the worker and the PS tasks; fails,
  /// with an error, on what between-graph replication cannot express.
  LogicalResult analyze();

  /// Replaces the training function with `@ps_<task>` and `@worker`.
  void rewrite();

  unsigned getNumPulls() const { return pulled.size(); }
  unsigned getNumCopiedVariables() const { return numCopiedVariables; }
  unsigned getNumPushedGradients() const { return numPushedGradients; }

private:
  LogicalResult collectVariablesAndUpdates();
  LogicalResult collectWrite(Operation *op);
  LogicalResult collectPSTask(int64_t task, PSTask &ps);
  LogicalResult addVariableToPSTask(int64_t task, PSTask &ps,
                                    Variable &variable, Operation *user,
                                    SmallVectorImpl<Operation *> &updates);
  void collectWorker();
  LogicalResult checkEveryOpRuns();

  func::FuncOp buildPSFunction(OpBuilder &builder, int64_t task, PSTask &ps);
  func::FuncOp buildWorkerFunction(OpBuilder &builder);

  Variable &getVariable(Value handle) {
    return variables[variableIndex.lookup(handle.getDefiningOp())];
  }

  func::FuncOp function;
  ReplicationAttr replication;

  /// The variables, in program order, and the index of each op there.
  SmallVector<Variable> variables;
  DenseMap<Operation *, unsigned> variableIndex;
  /// The global step, if any: the scalar integer variable incremented by
  /// `dtf.assign_add`.
  Variable *globalStep = nullptr;
  /// The PS tasks that hold variables, by index.
  std::map<int64_t, PSTask> tasks;
  /// The ops the worker runs.
  llvm::DenseSet<Operation *> workerOps;
  /// The variables the worker pulls.
  llvm::SmallSetVector<Variable *, 16> pulled;

  unsigned numCopiedVariables = 0;
  unsigned numPushedGradients = 0;
};
} // namespace

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

LogicalResult Replication::analyze() {
  if (!function.getBody().hasOneBlock())
    return function.emitOpError("has ")
           << function.getBlocks().size()
           << " blocks; --dtf-replicate expects a single-block training "
              "function";
  if (function.getNumArguments() != 0)
    return function.emitOpError(
        "takes arguments; a replicated training function takes none (the "
        "runtime feeds dtf.placeholder ops by name)");
  for (Value result : function.front().getTerminator()->getOperands())
    if (isa<ResourceType>(result.getType()))
      return function.front().getTerminator()->emitOpError(
          "returns a variable handle; a worker fetches tensors, so "
          "return its dtf.read instead");

  if (failed(collectVariablesAndUpdates()))
    return failure();

  if (llvm::none_of(variables,
                    [](Variable &variable) { return variable.gradientUpdate; }))
    return function.emitOpError(
        "has no gradient update (dtf.apply_*) to replicate; run "
        "--dtf-autodiff and --dtf-expand-optimizer first");
  if (replication.getMode() == ReplicationMode::Sync && !globalStep)
    return function.emitOpError(
        "has no global step, which mode=sync needs to tag pushes and drop "
        "stale gradients: give dtf.minimize a global_step");

  for (Variable &variable : variables)
    tasks[variable.task].variables.insert(variable.op);
  for (auto &[task, ps] : tasks)
    if (failed(collectPSTask(task, ps)))
      return failure();
  collectWorker();
  return checkEveryOpRuns();
}

LogicalResult Replication::collectVariablesAndUpdates() {
  // The variables first, so that the updates can point to them.
  for (auto variable : function.front().getOps<VariableOp>()) {
    DeviceAttr device = getDevice(variable);
    if (!device)
      return variable.emitOpError("variable '")
             << variable.getName()
             << "' is not placed; run --dtf-place-variables first";
    if (device.getJob() != "ps")
      return variable.emitOpError("variable '")
             << variable.getName() << "' is on '" << device.getName()
             << "', not on a PS task: replicas share variables only "
                "through PS tasks";
    variableIndex[variable] = variables.size();
    variables.push_back({variable, device.getTask(), {}, nullptr});
  }

  DeviceAttr workerTask;
  Operation *firstWorkerOp = nullptr;
  for (Operation &op : function.front().without_terminator()) {
    if (DeviceAttr device = getDevice(&op);
        device && device.getJob() == "worker") {
      if (!workerTask) {
        workerTask = device.getTaskDevice();
        firstWorkerOp = &op;
      } else if (device.getTaskDevice() != workerTask) {
        InFlightDiagnostic diag =
            op.emitOpError("is placed on '")
            << device.getName() << "', but other ops are on '"
            << workerTask.getName()
            << "': between-graph replication takes the graph of one worker";
        diag.attachNote(firstWorkerOp->getLoc()) << "placed there";
        return diag;
      }
    }

    if (isa<MinimizeOp, ApplyGradientsOp>(op))
      return op.emitOpError("must be expanded before replication; run "
                            "--dtf-autodiff and --dtf-expand-optimizer first");
    if (isa<PullOp, PushGradientsOp>(op))
      return op.emitOpError("is already the result of replication");
    // A worker pulls a variable, or rows of a table, from the PS task that
    // holds it: a handle that no dtf.variable makes is held by none.
    if (isa<ReadOp, EmbeddingLookupOp>(op)) {
      bool isRead = isa<ReadOp>(op);
      Value handle = isRead ? cast<ReadOp>(op).getResource()
                            : cast<EmbeddingLookupOp>(op).getTable();
      // The function takes no arguments (checked above).
      Operation *source = handle.getDefiningOp();
      assert(source && "a handle of an argument");
      if (!variableIndex.count(source))
        return op.emitOpError(isRead ? "reads a variable" : "looks up a table")
               << " made by '" << source->getName()
               << "', not by a dtf.variable, so no PS task holds it; "
               << (isRead ? "read" : "look up") << " the dtf.variable itself";
    }

    // A random op's only state is its generator, which each worker's runs
    // advance: it is computation of the replica, as pure ops are.
    if (isa<VariableOp, ReadOp, EmbeddingLookupOp, RandomUniformOp>(op) ||
        isMemoryEffectFree(&op))
      continue;
    if (failed(collectWrite(&op)))
      return failure();
  }
  return success();
}

/// Records `op`, which has side effects, as an update of the variables it
/// writes.
LogicalResult Replication::collectWrite(Operation *op) {
  auto unplaceable = [&] {
    return op->emitOpError("has side effects that --dtf-replicate cannot "
                           "place on a worker or a PS task");
  };
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return unplaceable();
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  SmallVector<Variable *> written;
  for (MemoryEffects::EffectInstance &effect : instances) {
    Value handle = effect.getValue();
    if (!handle || !handle.getDefiningOp<VariableOp>() ||
        !isa<MemoryEffects::Read, MemoryEffects::Write>(effect.getEffect()))
      return unplaceable();
    if (isa<MemoryEffects::Write>(effect.getEffect()))
      written.push_back(&getVariable(handle));
  }
  if (written.empty())
    return unplaceable();

  for (Variable *variable : written) {
    if (variable->task != written.front()->task)
      return op->emitOpError("writes '")
             << written.front()->getName() << "' of PS task "
             << written.front()->task << " and '" << variable->getName()
             << "' of PS task " << variable->task
             << ": an update runs on one PS task, so its variables (and "
                "slots) must be placed together";
    if (variable->writes.empty() || variable->writes.back() != op)
      variable->writes.push_back(op);
  }

  if (VariableOp updated = getUpdatedVariable(op)) {
    Variable &variable = getVariable(updated);
    if (variable.gradientUpdate) {
      InFlightDiagnostic diag =
          op->emitOpError("is a second gradient update of '")
          << variable.getName()
          << "'; a replica pushes one gradient per variable";
      diag.attachNote(variable.gradientUpdate->getLoc())
          << "first gradient update";
      return diag;
    }
    variable.gradientUpdate = op;
  }

  if (auto increment = dyn_cast<AssignAddOp>(op)) {
    Variable &variable = getVariable(increment.getResource());
    RankedTensorType type = variable.op.getValueType();
    if (type.getRank() == 0 && type.getElementType().isSignlessInteger()) {
      if (globalStep && globalStep != &variable)
        return op->emitOpError("increments '")
               << variable.getName() << "' like a global step, but '"
               << globalStep->getName()
               << "' is incremented too; replication needs one global step";
      globalStep = &variable;
    }
  }
  return success();
}

LogicalResult Replication::collectPSTask(int64_t task, PSTask &ps) {
  SmallVector<Operation *> updates;
  for (Variable &variable : variables) {
    if (variable.task != task)
      continue;
    llvm::append_range(updates, variable.writes);
    if (variable.gradientUpdate)
      (variable.hasSparseGradient() ? ps.sparseGradientVariables
                                    : ps.gradientVariables)
          .push_back(&variable);
  }

  while (!updates.empty()) {
    Operation *update = updates.pop_back_val();
    if (!ps.ops.insert(update).second)
      continue;
    ps.hasUpdates = true;

    // What the update writes must be computed on the PS task from its own
    // state and constants; only the gradient comes from the worker.
    SmallVector<OpOperand *, 2> gradient = getGradientOperands(update);
    SmallVector<Value> worklist;
    for (OpOperand &operand : update->getOpOperands())
      if (!llvm::is_contained(gradient, &operand))
        worklist.push_back(operand.get());
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      Operation *producer = value.getDefiningOp();
      if (isa<VariableOp>(producer)) {
        if (failed(addVariableToPSTask(task, ps, getVariable(value), update,
                                       updates)))
          return failure();
        continue;
      }
      if (!ps.ops.insert(producer).second)
        continue;
      if (auto placeholder = dyn_cast<PlaceholderOp>(producer)) {
        InFlightDiagnostic diag =
            update->emitOpError("writes a value that depends on the "
                                "placeholder '")
            << placeholder.getName()
            << "', which only workers are fed: worker data reaches PS task "
            << task
            << " only as the gradient of a dtf.apply_* update or the value "
               "of a dtf.assign_moving_average";
        diag.attachNote(placeholder.getLoc()) << "placeholder defined here";
        return diag;
      }
      llvm::append_range(worklist, producer->getOperands());
    }
  }
  return success();
}

/// Makes `variable`, used by `user` of PS task `task`, a variable of that
/// task: a copy, with its updates, when it lives on another task.
LogicalResult
Replication::addVariableToPSTask(int64_t task, PSTask &ps, Variable &variable,
                                 Operation *user,
                                 SmallVectorImpl<Operation *> &updates) {
  if (!ps.variables.insert(variable.op).second)
    return success();
  if (variable.gradientUpdate) {
    InFlightDiagnostic diag =
        user->emitOpError("on PS task ")
        << task << " needs '" << variable.getName() << "' of PS task "
        << variable.task
        << ", which gets gradients there; only state without gradients "
           "(such as Adam's beta powers) can be copied to another PS task";
    diag.attachNote(variable.op.getLoc()) << "variable defined here";
    return diag;
  }
  ++numCopiedVariables;
  llvm::append_range(updates, variable.writes);
  return success();
}

void Replication::collectWorker() {
  SmallVector<Value> worklist(function.front().getTerminator()->getOperands());
  for (Variable &variable : variables)
    if (variable.gradientUpdate)
      llvm::append_range(worklist, variable.getGradient());
  while (!worklist.empty()) {
    Operation *producer = worklist.pop_back_val().getDefiningOp();
    if (!workerOps.insert(producer).second)
      continue;
    if (auto read = dyn_cast<ReadOp>(producer)) {
      pulled.insert(&getVariable(read.getResource()));
      continue;
    }
    // A lookup pulls the rows of its ids only: the table stays on its task.
    if (auto lookup = dyn_cast<EmbeddingLookupOp>(producer)) {
      worklist.push_back(lookup.getIds());
      continue;
    }
    llvm::append_range(worklist, producer->getOperands());
  }
  if (globalStep)
    pulled.insert(globalStep);
}

LogicalResult Replication::checkEveryOpRuns() {
  for (Operation &op : function.front().without_terminator()) {
    if (isa<VariableOp>(op) || workerOps.contains(&op) ||
        llvm::any_of(
            tasks, [&](auto &entry) { return entry.second.ops.contains(&op); }))
      continue;
    return op.emitOpError(
        "is neither on the worker's path (to the results and the "
        "gradients) nor on a PS task's (to a variable update), so no "
        "replica would run it");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Rewrite
//===----------------------------------------------------------------------===//

/// Clones `op` with `mapping` at `builder`'s insertion point, without its
/// placement: the functions are placed as a whole.
static Operation *cloneUnplaced(OpBuilder &builder, Operation &op,
                                IRMapping &mapping) {
  Operation *clone = builder.clone(op, mapping);
  clone->removeAttr(DTFDialect::getDeviceAttrName());
  return clone;
}

func::FuncOp Replication::buildPSFunction(OpBuilder &builder, int64_t task,
                                          PSTask &ps) {
  MLIRContext *context = function.getContext();
  Location loc = function.getLoc();
  int64_t numGroups = replication.getNumGradientGroups();
  int64_t numGradients = ps.gradientVariables.size();
  int64_t numSparse = ps.sparseGradientVariables.size();
  // Each group of arguments: the dense gradients, then the ids and rows of
  // each sparse one. A push carries the distinct ids of its batch, so their
  // number is dynamic.
  int64_t groupSize = numGradients + 2 * numSparse;

  SmallVector<Type> argumentTypes;
  SmallVector<StringRef> names, sparseNames;
  for (Variable *variable : ps.gradientVariables)
    names.push_back(variable->getName());
  for (Variable *variable : ps.sparseGradientVariables)
    sparseNames.push_back(variable->getName());
  for (int64_t group = 0; group < numGroups; ++group) {
    for (Variable *variable : ps.gradientVariables)
      argumentTypes.push_back(variable->op.getValueType());
    for (Variable *variable : ps.sparseGradientVariables) {
      RankedTensorType valueType = variable->op.getValueType();
      SmallVector<int64_t> rowsShape(valueType.getShape());
      rowsShape[0] = ShapedType::kDynamic;
      argumentTypes.push_back(RankedTensorType::get(
          {ShapedType::kDynamic}, IntegerType::get(context, 64)));
      argumentTypes.push_back(
          RankedTensorType::get(rowsShape, valueType.getElementType()));
    }
  }

  auto psFunction = builder.create<func::FuncOp>(
      loc, ("ps_" + Twine(task)).str(),
      FunctionType::get(context, argumentTypes, {}));
  psFunction->setAttr(DTFDialect::getDeviceAttrName(),
                      getPSDevice(context, task));
  psFunction->setAttr(DTFDialect::getGradientsAttrName(),
                      builder.getStrArrayAttr(names));
  if (numSparse > 0)
    psFunction->setAttr(DTFDialect::getSparseGradientsAttrName(),
                        builder.getStrArrayAttr(sparseNames));
  Block *entry = psFunction.addEntryBlock();
  OpBuilder body = OpBuilder::atBlockBegin(entry);
  IRMapping mapping;

  // The state the task holds, in program order. A copy of state colocated
  // with a variable of another task (the beta powers) is colocated with
  // nothing here.
  llvm::StringSet<> held;
  for (Variable &variable : variables)
    if (ps.variables.contains(variable.op))
      held.insert(variable.getName());
  for (Variable &variable : variables) {
    if (!ps.variables.contains(variable.op))
      continue;
    auto copy = cast<VariableOp>(cloneUnplaced(body, *variable.op, mapping));
    std::optional<StringRef> target = copy.getColocateWith();
    if (target && !held.contains(*target))
      copy.removeColocateWithAttr();
  }

  // The gradient of each variable: one replica's in async mode, the average
  // of the aggregated replicas' in sync mode.
  DenseMap<Operation *, Value> gradients;
  DenseMap<Type, Value> scales;
  // The scalar 1/N of a sync update's average, one per element type.
  auto averageScale = [&](VariableOp variable) {
    Type elementType = variable.getValueType().getElementType();
    Value &scale = scales[elementType];
    if (!scale)
      scale = body.create<ConstantOp>(
          loc,
          DenseElementsAttr::get(RankedTensorType::get({}, elementType),
                                 FloatAttr::get(elementType, 1.0 / numGroups)));
    return scale;
  };
  for (auto [index, variable] : llvm::enumerate(ps.gradientVariables)) {
    Location updateLoc = variable->gradientUpdate->getLoc();
    Value gradient = entry->getArgument(index);
    for (int64_t group = 1; group < numGroups; ++group)
      gradient = body.create<AddOp>(
          updateLoc, gradient, entry->getArgument(group * groupSize + index));
    if (numGroups > 1)
      gradient =
          body.create<MulOp>(updateLoc, gradient, averageScale(variable->op));
    gradients[variable->op] = gradient;
  }
  // The sparse gradients of the replicas of a sync update add up as
  // IndexedSlices do, by concatenation, and are averaged per id over the
  // replicas that touched it, as SparseConditionalAccumulator averages them
  // (element-wise, not over all N: a rare id is not shrunk by the replicas
  // that never saw it); the update sums the rows of equal ids.
  DenseMap<Operation *, std::pair<Value, Value>> sparseGradients;
  for (auto [index, variable] : llvm::enumerate(ps.sparseGradientVariables)) {
    Location updateLoc = variable->gradientUpdate->getLoc();
    SmallVector<Value> ids, rows;
    for (int64_t group = 0; group < numGroups; ++group) {
      int64_t first = group * groupSize + numGradients + 2 * index;
      ids.push_back(entry->getArgument(first));
      rows.push_back(entry->getArgument(first + 1));
    }
    int64_t first = numGradients + 2 * index;
    Value allIds = entry->getArgument(first);
    Value allRows = entry->getArgument(first + 1);
    if (numGroups > 1) {
      allIds = body.create<ConcatOp>(updateLoc, ids, 0);
      allRows = body.create<ConcatOp>(updateLoc, rows, 0);
      allRows = body.create<DivideByIdCountOp>(updateLoc, allRows, allIds);
    }
    sparseGradients[variable->op] = {allIds, allRows};
  }

  // The updates, and what they write, in program order.
  for (Operation &op : function.front().without_terminator()) {
    if (isa<VariableOp>(op) || !ps.ops.contains(&op))
      continue;
    SmallVector<OpOperand *, 2> gradient = getGradientOperands(&op);
    if (gradient.size() == 1) {
      mapping.map(gradient[0]->get(),
                  gradients.lookup(getUpdatedVariable(&op)));
    } else if (gradient.size() == 2) {
      auto [ids, rows] = sparseGradients.lookup(getUpdatedVariable(&op));
      mapping.map(gradient[0]->get(), ids);
      mapping.map(gradient[1]->get(), rows);
      // The worker sends a shard the rows of its own ids, at their rows
      // within it (the push's sparse_shards): here they are local rows.
      Operation *update = cloneUnplaced(body, op, mapping);
      update->removeAttr("shard");
      continue;
    }
    cloneUnplaced(body, op, mapping);
  }
  body.create<func::ReturnOp>(loc);
  return psFunction;
}

func::FuncOp Replication::buildWorkerFunction(OpBuilder &builder) {
  MLIRContext *context = function.getContext();
  Location loc = function.getLoc();
  auto worker =
      builder.create<func::FuncOp>(loc, "worker", function.getFunctionType());
  // The metrics of the model's results stay the worker's.
  if (Attribute auc = function->getAttr(DTFDialect::getAucAttrName()))
    worker->setAttr(DTFDialect::getAucAttrName(), auc);
  Block *entry = worker.addEntryBlock();
  OpBuilder body = OpBuilder::atBlockBegin(entry);

  // One pull per variable, at the start of the step, in program order.
  DenseMap<Variable *, Value> pulls;
  for (Variable &variable : variables)
    if (pulled.contains(&variable))
      pulls[&variable] = body.create<PullOp>(
          variable.op.getLoc(), variable.op.getValueType(), variable.getName(),
          getPSDevice(context, variable.task));
  Value step;
  if (globalStep) {
    step = pulls.lookup(globalStep);
  } else {
    auto stepType = RankedTensorType::get({}, body.getI64Type());
    step = body.create<ConstantOp>(
        loc, DenseElementsAttr::get(stepType, body.getI64IntegerAttr(0)));
  }

  // The forward and backward pass.
  IRMapping mapping;
  for (Operation &op : function.front().without_terminator()) {
    if (!workerOps.contains(&op))
      continue;
    if (auto read = dyn_cast<ReadOp>(op)) {
      mapping.map(read.getValue(),
                  pulls.lookup(&getVariable(read.getResource())));
      continue;
    }
    if (auto lookup = dyn_cast<EmbeddingLookupOp>(op)) {
      Variable &table = getVariable(lookup.getTable());
      auto pullRows = body.create<PullRowsOp>(
          lookup.getLoc(), lookup.getType(), table.getName(),
          getPSDevice(context, table.task), mapping.lookup(lookup.getIds()),
          lookup.getShardAttr(),
          // A dynamic table takes any non-negative id.
          table.op.isDynamicTable()
              ? IntegerAttr()
              : body.getI64IntegerAttr(
                    lookup.getShard() ? lookup.getShardAttr().getRows()
                                      : table.op.getValueType().getDimSize(0)));
      mapping.map(lookup.getOutput(), pullRows.getRows());
      continue;
    }
    cloneUnplaced(body, op, mapping);
  }

  // One push per PS task that updates anything, even without gradients:
  // it still advances the task (e.g. the global step).
  for (auto &[task, ps] : tasks) {
    if (!ps.hasUpdates)
      continue;
    SmallVector<Value> gradients, sparseIds, sparseRows;
    SmallVector<StringRef> names, sparseNames;
    SmallVector<Attribute> sparseShards;
    bool anyShard = false;
    for (Variable *variable : ps.gradientVariables) {
      gradients.push_back(mapping.lookup(variable->getGradient().front()));
      names.push_back(variable->getName());
    }
    for (Variable *variable : ps.sparseGradientVariables) {
      SmallVector<Value, 2> gradient = variable->getGradient();
      sparseIds.push_back(mapping.lookup(gradient[0]));
      sparseRows.push_back(mapping.lookup(gradient[1]));
      sparseNames.push_back(variable->getName());
      Attribute shard = variable->gradientUpdate->getAttr("shard");
      anyShard = anyShard || shard;
      sparseShards.push_back(shard ? shard : body.getUnitAttr());
    }
    numPushedGradients += gradients.size() + sparseIds.size();
    body.create<PushGradientsOp>(
        loc, getPSDevice(context, task), step, gradients, sparseIds, sparseRows,
        body.getStrArrayAttr(names), body.getStrArrayAttr(sparseNames),
        anyShard ? body.getArrayAttr(sparseShards) : ArrayAttr());
  }

  SmallVector<Value> results;
  for (Value result : function.front().getTerminator()->getOperands())
    results.push_back(mapping.lookup(result));
  body.create<func::ReturnOp>(loc, results);
  return worker;
}

void Replication::rewrite() {
  OpBuilder builder(function);
  for (auto &[task, ps] : tasks)
    buildPSFunction(builder, task, ps);
  buildWorkerFunction(builder);
  function.erase();
}

//===----------------------------------------------------------------------===//
// ReplicatePass
//===----------------------------------------------------------------------===//

namespace {
struct ReplicatePass : dtf::ir::impl::ReplicatePassBase<ReplicatePass> {
  using ReplicatePassBase::ReplicatePassBase;

  void runOnOperation() override;

  /// The replication the options ask for in `cluster`, or an error.
  FailureOr<ReplicationAttr> getReplication(ClusterAttr cluster);
};
} // namespace

FailureOr<ReplicationAttr> ReplicatePass::getReplication(ClusterAttr cluster) {
  ModuleOp module = getOperation();
  int64_t numWorkers = cluster.getNumTasks("worker");
  // 0, given or not, is the documented default (so that a pipeline that
  // passes its own options on, --dtf-training-pipeline, keeps it).
  int64_t toAggregate =
      replicasToAggregate != 0 ? int64_t(replicasToAggregate) : numWorkers;
  int64_t total = totalReplicas != 0 ? int64_t(totalReplicas) : toAggregate;
  if (toAggregate < 1)
    return module.emitError("replicas-to-aggregate must be at least 1, got ")
           << toAggregate;
  if (toAggregate > total)
    return module.emitError("replicas-to-aggregate (")
           << toAggregate << ") exceeds total-replicas (" << total << ")";
  // Every worker pushes once per step and then waits for the step to pass.
  if (mode == ReplicationMode::Sync && toAggregate > numWorkers)
    return module.emitError("replicas-to-aggregate (")
           << toAggregate << ") exceeds the " << numWorkers
           << " worker tasks of the cluster: no step could gather that many "
              "gradients";
  return ReplicationAttr::get(module.getContext(), mode, toAggregate, total);
}

void ReplicatePass::runOnOperation() {
  ModuleOp module = getOperation();
  if (module->hasAttr(DTFDialect::getReplicationAttrName())) {
    module.emitError("the module is already replicated ('")
        << DTFDialect::getReplicationAttrName() << "' is set)";
    return signalPassFailure();
  }
  ClusterAttr cluster = getCluster(module);
  if (!cluster) {
    module.emitError("--dtf-replicate needs the module attribute '")
        << DTFDialect::getClusterAttrName()
        << "' naming the PS and worker tasks";
    return signalPassFailure();
  }
  if (cluster.getNumTasks("ps") == 0) {
    module.emitError("the cluster has no PS task to hold the variables");
    return signalPassFailure();
  }
  FailureOr<ReplicationAttr> replication = getReplication(cluster);
  if (failed(replication))
    return signalPassFailure();

  auto functions = llvm::to_vector(module.getOps<func::FuncOp>());
  if (functions.size() != 1) {
    InFlightDiagnostic diag =
        module.emitError("--dtf-replicate expects one training function, "
                         "found ")
        << functions.size();
    for (func::FuncOp function : functions)
      diag.attachNote(function.getLoc())
          << "function '" << function.getSymName() << "'";
    return signalPassFailure();
  }

  Replication replicator(functions.front(), *replication);
  if (failed(replicator.analyze()))
    return signalPassFailure();
  replicator.rewrite();
  module->setAttr(DTFDialect::getReplicationAttrName(), *replication);

  numPulls = replicator.getNumPulls();
  numPushedGradients = replicator.getNumPushedGradients();
  numCopiedVariables = replicator.getNumCopiedVariables();
}
