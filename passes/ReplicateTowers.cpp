//===- ReplicateTowers.cpp - In-graph data parallelism over towers --------===//
//
// TensorFlow's multi-tower training (cifar10_multi_gpu_train.py) as a
// rewrite of a placed graph: the part of a one-device model that depends on
// the batch is cloned once per tower device, each clone on its rows of the
// batch, and the variables are updated once per step with the towers'
// gradients combined. What does not depend on the batch (constants, the
// optimizer's bookkeeping) is computed once, so the towers differ from the
// original graph only in the rows they see.
//
// The towers are cut from a graph that autodiff built for the whole batch:
// the backward pass's constants (the 1/B of a reduce_mean loss, the seed
// broadcast to the batch's shape) are the whole batch's. Each tower's
// gradient is therefore its rows' share of the whole batch's gradient, and
// the update takes their sum, not TensorFlow's average of tower gradients
// (whose towers each build a loss over B/N rows): N towers apply the update
// one device would, up to the order of float additions.
//
// The pass checks the placement and the batch before changing anything; the
// rewrite keeps the block in a topological order (clones go where their
// original was, slices right after what they slice, sums right before their
// first user), which --dtf-partition relies on.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/Placement.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace dtf::ir {
#define GEN_PASS_DEF_REPLICATETOWERSPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

/// Whether `device` is a PS task, where the variables and the ops touching
/// them live.
static bool isPSDevice(DeviceAttr device) { return device.getJob() == "ps"; }

/// The gradient operand of a fused optimizer update, or null for any other
/// op.
static OpOperand *getGradientOperand(Operation *op) {
  return TypeSwitch<Operation *, OpOperand *>(op)
      .Case<ApplyGradientDescentOp, ApplyMomentumOp, ApplyAdamOp,
            ApplyAdagradOp, ApplyFtrlOp, ApplyRMSPropOp, ApplyCenteredRMSPropOp,
            ApplyAdadeltaOp>([](auto apply) { return &apply.getGradMutable(); })
      .Default([](Operation *) { return nullptr; });
}

/// The values `op` uses: its operands and those its regions take from
/// above.
static llvm::SetVector<Value> getUsedValues(Operation *op) {
  llvm::SetVector<Value> used(op->operand_begin(), op->operand_end());
  getUsedValuesDefinedAbove(op->getRegions(), used);
  return used;
}

namespace {

/// Replicates the model of one function over the tower devices. Holds what
/// the checks found, which the rewrite uses.
class TowerReplicator {
public:
  TowerReplicator(func::FuncOp func, ArrayRef<DeviceAttr> towers)
      : func(func), towers(towers), mappings(towers.size()) {}

  /// Finds the model's device, its tower ops and the placeholders they
  /// split, or fails with an error, changing nothing.
  LogicalResult analyze();
  /// Clones the tower ops, slices the batch and combines what leaves the
  /// towers. Fails when a clone's result types do not follow from its
  /// operands.
  LogicalResult rewrite();

  int64_t getNumClonedOps() const { return numClonedOps; }
  int64_t getNumSummedGradients() const { return numSummedGradients; }

private:
  /// Checks every op's placement and finds the one non-PS device.
  LogicalResult findModelDevice();
  /// Checks that each placeholder can be split evenly over the towers.
  LogicalResult checkBatches();
  /// Fails where a row of a tower op's result depends on other rows of the
  /// batch, which tower replication cannot split.
  LogicalResult checkRowsIndependent();
  /// Maps `value` in each tower to its rows of the batch, a `dtf.slice`
  /// on `device` right after its producer.
  void sliceRows(Value value, DeviceAttr device);
  /// Slices `value`, used by a tower op, when it is a batch-shaped result of
  /// an op computed once.
  void sliceSharedBatch(Value value);
  /// Gives `clone`, tower op `original` cloned with operands of another
  /// batch size, the result types of that batch size.
  LogicalResult setTowerResultTypes(Operation *clone, Operation *original);
  /// What `use`, an operand of `user` (a top-level op that is no tower op)
  /// holding the result of a tower op, takes instead.
  Value getOutsideValue(OpOperand &use, Operation *user);
  /// The sum over the towers of `value`, a tower op's result, times
  /// `scale` unless it is 1, computed on `device` right before `user`
  /// unless it was computed there already.
  Value combine(Value value, double scale, DeviceAttr device,
                Operation *user);
  /// The towers' versions of `value` joined along dimension 0, on `device`
  /// right before `user` unless they were joined there already.
  Value concatenate(Value value, DeviceAttr device, Operation *user);

  func::FuncOp func;
  ArrayRef<DeviceAttr> towers;
  /// The device D every op that is not on a PS task is on.
  DeviceAttr model;
  /// The ops on D that depend on the batch, in program order.
  llvm::SetVector<Operation *> towerOps;
  /// The other ops on D but the placeholders, computed once.
  llvm::SetVector<Operation *> sharedOps;
  /// The placeholders on D that feed tower ops.
  SmallVector<PlaceholderOp> batches;
  /// Their sizes along dimension 0.
  SmallVector<int64_t> batchSizes;
  /// Original values to their versions in each tower.
  SmallVector<IRMapping> mappings;
  /// The sums and concatenations built, by value and device.
  DenseMap<std::pair<Value, DeviceAttr>, Value> combined;
  int64_t numClonedOps = 0;
  int64_t numSummedGradients = 0;
};

} // namespace

LogicalResult TowerReplicator::findModelDevice() {
  Operation *firstModelOp = nullptr;
  for (Operation &op : func.getBody().front()) {
    // Results belong to the function; partitioning gives them to the client.
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    if (isa<MinimizeOp, ApplyGradientsOp>(op))
      return op.emitOpError("must be expanded before tower replication; run "
                            "--dtf-autodiff and --dtf-expand-optimizer first");
    DeviceAttr device = getDevice(&op);
    if (!device)
      return op.emitOpError("has no '")
             << DTFDialect::getDeviceAttrName()
             << "'; run --dtf-place-variables first";
    if (isPSDevice(device))
      continue;
    if (!model) {
      model = device;
      firstModelOp = &op;
      continue;
    }
    if (device == model)
      continue;
    InFlightDiagnostic diag =
        op.emitError("the model is already split over devices '")
        << model.getName() << "' and '" << device.getName()
        << "'; --dtf-replicate-towers replicates a model placed on one "
           "device";
    diag.attachNote(firstModelOp->getLoc())
        << "placed on '" << model.getName() << "' here";
    return diag;
  }
  return success();
}

LogicalResult TowerReplicator::analyze() {
  if (failed(findModelDevice()))
    return failure();

  // A tower op uses the batch, directly (a placeholder on D) or through
  // another tower op. Values reaching D through a PS op are not per tower:
  // the PS op took one version of them (see getOutsideValue).
  DenseSet<Value> perTower;
  for (Operation &op : func.getBody().front()) {
    if (!model || getDevice(&op) != model)
      continue;
    if (isa<PlaceholderOp>(op)) {
      perTower.insert(op.getResult(0));
      continue;
    }
    if (llvm::any_of(getUsedValues(&op),
                     [&](Value value) { return perTower.contains(value); })) {
      towerOps.insert(&op);
      perTower.insert(op.result_begin(), op.result_end());
      continue;
    }
    sharedOps.insert(&op);
  }

  Block &body = func.getBody().front();
  for (auto placeholder : body.getOps<PlaceholderOp>()) {
    bool feedsTowers =
        llvm::any_of(placeholder->getUsers(), [&](Operation *user) {
          return towerOps.contains(body.findAncestorOpInBlock(*user));
        });
    if (getDevice(placeholder) == model && feedsTowers)
      batches.push_back(placeholder);
  }
  if (batches.empty())
    return func.emitOpError(
        "has no dtf.placeholder feeding ops outside the PS tasks: there is "
        "no batch to split into towers");
  return checkBatches();
}

LogicalResult TowerReplicator::checkBatches() {
  // One tower takes the whole batch, whatever its shape.
  int64_t numTowers = towers.size();
  if (numTowers == 1)
    return success();
  for (PlaceholderOp placeholder : batches) {
    auto type = cast<RankedTensorType>(placeholder.getType());
    if (type.getRank() == 0)
      return placeholder.emitOpError("'")
             << placeholder.getName()
             << "' is a scalar; towers split the batch of a placeholder "
                "along dimension 0";
    if (type.isDynamicDim(0))
      return placeholder.emitOpError("'")
             << placeholder.getName()
             << "' has a dynamic dimension 0; towers need a static batch "
                "size to split (give it one with --dtf-specialize-batch)";
    if (type.getDimSize(0) % numTowers != 0)
      return placeholder.emitOpError("'")
             << placeholder.getName() << "' has " << type.getDimSize(0)
             << " rows along dimension 0, which " << numTowers
             << " towers cannot split evenly";
    batchSizes.push_back(type.getDimSize(0));
  }
  return checkRowsIndependent();
}

LogicalResult TowerReplicator::checkRowsIndependent() {
  auto isBatchShaped = [&](Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && type.getRank() > 0 && !type.isDynamicDim(0) &&
           llvm::is_contained(batchSizes, type.getDimSize(0));
  };
  for (Operation &reduction : func.getBody().front()) {
    Operation *op = &reduction;
    if (!towerOps.contains(op) ||
        !isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(
            op) ||
        !isBatchShaped(op->getOperand(0)))
      continue;
    ArrayRef<int64_t> axes = op->getAttrOfType<DenseI64ArrayAttr>("axes");
    if (!axes.empty() && !llvm::is_contained(axes, 0))
      continue;
    // A reduction over the rows is the loss's or a metric's, unless its
    // result goes back into rows: then each row depends on all the others.
    for (Operation *user : op->getUsers()) {
      if (!towerOps.contains(user) ||
          llvm::none_of(user->getResults(), isBatchShaped))
        continue;
      InFlightDiagnostic diag =
          op->emitOpError("reduces over the rows of the batch, and a row of ")
          << "its user's result depends on it (as batch normalization's "
             "statistics do): a tower's rows would depend on the other "
             "towers' rows, so --dtf-replicate-towers cannot split the batch; "
             "replicate between graphs instead";
      diag.attachNote(user->getLoc()) << "used here for every row";
      return diag;
    }
  }
  return success();
}

void TowerReplicator::sliceRows(Value value, DeviceAttr device) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t numTowers = towers.size();
  int64_t rows = type.getDimSize(0) / numTowers;
  SmallVector<int64_t> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    sizes.push_back(dim == 0                  ? rows
                    : type.isDynamicDim(dim) ? -1
                                             : type.getDimSize(dim));
  OpBuilder builder(value.getContext());
  builder.setInsertionPointAfterValue(value);
  for (int64_t tower = 0; tower < numTowers; ++tower) {
    SmallVector<int64_t> offsets(type.getRank(), 0);
    offsets[0] = tower * rows;
    auto slice =
        builder.create<SliceOp>(value.getLoc(), value, offsets, sizes);
    setDevice(slice, device);
    mappings[tower].map(value, slice.getOutput());
  }
}

void TowerReplicator::sliceSharedBatch(Value value) {
  Operation *producer = value.getDefiningOp();
  if (!producer || !sharedOps.contains(producer) ||
      mappings.front().contains(value))
    return;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() == 0 || type.isDynamicDim(0) ||
      !llvm::is_contained(batchSizes, type.getDimSize(0)))
    return;
  sliceRows(value, towers.front());
}

/// The result types of `clone`, a copy of `original` whose operands have
/// another batch size, or failure when they do not follow from the
/// operands.
static FailureOr<SmallVector<Type>> getTowerResultTypes(Operation *clone,
                                                        Operation *original) {
  SmallVector<Type> types;
  if (clone->hasTrait<OpTrait::SameOperandsAndResultType>()) {
    types.assign(clone->getNumResults(), clone->getOperand(0).getType());
    return types;
  }
  if (auto infer = dyn_cast<InferTypeOpInterface>(clone)) {
    if (failed(infer.inferReturnTypes(
            clone->getContext(), clone->getLoc(), clone->getOperands(),
            clone->getRawDictionaryAttrs(), clone->getPropertiesStorage(),
            clone->getRegions(), types)))
      return failure();
    return types;
  }
  // The ops whose result type is written out rather than inferred.
  auto typeOf = [](Value value) {
    return cast<RankedTensorType>(value.getType());
  };
  RankedTensorType before = typeOf(original->getResult(0));
  SmallVector<int64_t> shape(before.getShape());
  bool known =
      TypeSwitch<Operation *, bool>(clone)
          .Case([&](CastOp cast) {
            shape.assign(typeOf(cast.getInput()).getShape().begin(),
                         typeOf(cast.getInput()).getShape().end());
            return true;
          })
          .Case([&](ReshapeOp reshape) {
            // Batch-major: dimension 0 takes the change in size.
            RankedTensorType oldInput = typeOf(original->getOperand(0));
            RankedTensorType newInput = typeOf(reshape.getInput());
            if (!oldInput.hasStaticShape() || !newInput.hasStaticShape() ||
                before.getRank() == 0 || before.isDynamicDim(0))
              return false;
            int64_t scaled = before.getDimSize(0) * newInput.getNumElements();
            if (scaled % oldInput.getNumElements() != 0)
              return false;
            shape[0] = scaled / oldInput.getNumElements();
            return true;
          })
          .Case([&](BroadcastToOp broadcast) {
            // Dimensions the input had already keep the input's new size.
            RankedTensorType oldInput = typeOf(original->getOperand(0));
            RankedTensorType newInput = typeOf(broadcast.getInput());
            int64_t leading = before.getRank() - oldInput.getRank();
            for (int64_t dim = 0; dim < oldInput.getRank(); ++dim)
              if (oldInput.getDimSize(dim) == before.getDimSize(leading + dim))
                shape[leading + dim] = newInput.getDimSize(dim);
            return true;
          })
          .Case([&](Conv2DBackpropInputOp backprop) {
            // The input's gradient has as many images as dy.
            shape[0] = typeOf(backprop.getDy()).getDimSize(0);
            return true;
          })
          .Case([](Conv2DBackpropFilterOp) { return true; })
          .Case([&](MaxPoolGradOp grad) {
            shape.assign(typeOf(grad.getInput()).getShape().begin(),
                         typeOf(grad.getInput()).getShape().end());
            return true;
          })
          .Default([](Operation *) { return false; });
  if (!known)
    return failure();
  types.push_back(RankedTensorType::get(shape, before.getElementType()));
  return types;
}

LogicalResult TowerReplicator::setTowerResultTypes(Operation *clone,
                                                   Operation *original) {
  // Ops that see no sliced operand keep their types; with one tower, all.
  if (llvm::equal(clone->getOperandTypes(), original->getOperandTypes()))
    return success();
  FailureOr<SmallVector<Type>> types = getTowerResultTypes(clone, original);
  if (failed(types))
    return original->emitOpError(
        "cannot be replicated into towers: its result type for a part of "
        "the batch does not follow from its operands' types");
  for (auto [result, type] : llvm::zip(clone->getResults(), *types))
    result.setType(type);
  return success();
}

Value TowerReplicator::combine(Value value, double scale, DeviceAttr device,
                               Operation *user) {
  // One tower's version is the value itself, so that one tower computes
  // exactly what the unreplicated graph did.
  if (towers.size() == 1)
    return mappings.front().lookup(value);
  auto [it, isNew] = combined.try_emplace({value, device});
  if (!isNew)
    return it->second;

  OpBuilder builder(user);
  Location loc = value.getLoc();
  auto placed = [&](Operation *op) {
    setDevice(op, device);
    return op->getResult(0);
  };
  Value sum = mappings.front().lookup(value);
  for (const IRMapping &mapping : llvm::drop_begin(mappings))
    sum = placed(builder.create<AddOp>(loc, sum, mapping.lookup(value)));
  if (scale != 1.0) {
    Type elementType = cast<RankedTensorType>(sum.getType()).getElementType();
    Value factor = placed(builder.create<ConstantOp>(
        loc, DenseElementsAttr::get(RankedTensorType::get({}, elementType),
                                    FloatAttr::get(elementType, scale))));
    sum = placed(builder.create<MulOp>(loc, sum, factor));
  }
  it->second = sum;
  return sum;
}

Value TowerReplicator::concatenate(Value value, DeviceAttr device,
                                   Operation *user) {
  auto [it, isNew] = combined.try_emplace({value, device});
  if (!isNew)
    return it->second;
  SmallVector<Value> parts;
  for (const IRMapping &mapping : mappings)
    parts.push_back(mapping.lookup(value));
  OpBuilder builder(user);
  auto concat = builder.create<ConcatOp>(value.getLoc(), parts, /*axis=*/0);
  setDevice(concat, device);
  it->second = concat.getOutput();
  return it->second;
}

Value TowerReplicator::getOutsideValue(OpOperand &use, Operation *user) {
  Value value = use.get();
  bool isResult = user->hasTrait<OpTrait::IsTerminator>();
  // A value with a row per example (predictions, logits) is the towers'
  // rows put back together.
  if (mappings.front().lookup(value).getType() != value.getType())
    return concatenate(value, isResult ? towers.front() : getDevice(user),
                       user);
  if (isResult) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (type && isa<FloatType>(type.getElementType()))
      return combine(value, 1.0 / towers.size(), towers.front(), user);
  } else if (getGradientOperand(user) == &use) {
    if (towers.size() > 1)
      ++numSummedGradients;
    return combine(value, 1.0, getDevice(user), user);
  }
  // Anything else the towers compute and an op outside them uses (a value
  // of the batch's statistics assigned to a variable, an integer result) is
  // taken from tower 0, as TensorFlow's multi-tower scripts take the update
  // ops of one tower.
  return mappings.front().lookup(value);
}

LogicalResult TowerReplicator::rewrite() {
  // Sliced where the batch is fed, so that each tower's device receives its
  // rows only.
  if (towers.size() > 1)
    for (PlaceholderOp placeholder : batches)
      sliceRows(placeholder.getOutput(), model);

  Block &body = func.getBody().front();
  OpBuilder builder(func.getContext());
  for (Operation &op : body) {
    if (towerOps.contains(&op)) {
      if (towers.size() > 1)
        for (Value value : getUsedValues(&op))
          sliceSharedBatch(value);
      builder.setInsertionPoint(&op);
      for (auto [device, mapping] : llvm::zip(towers, mappings)) {
        Operation *clone = builder.clone(op, mapping);
        if (failed(setTowerResultTypes(clone, &op)))
          return failure();
        setDevice(clone, device);
        ++numClonedOps;
      }
      continue;
    }
    // Outside the towers: rewire the uses of tower ops in program order, so
    // that a sum built before its first user dominates the later ones.
    op.walk([&](Operation *nested) {
      for (OpOperand &use : nested->getOpOperands()) {
        Operation *producer = use.get().getDefiningOp();
        if (producer && towerOps.contains(producer))
          use.set(getOutsideValue(use, &op));
      }
    });
  }

  // Computed once, by the first tower's device.
  for (Operation *op : sharedOps)
    setDevice(op, towers.front());

  // Users first: a tower op is used by later tower ops only now.
  for (Operation *op : llvm::reverse(towerOps))
    op->erase();
  return success();
}

namespace {

struct ReplicateTowersPass
    : public dtf::ir::impl::ReplicateTowersPassBase<ReplicateTowersPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Parses `devices` into `towers`, checking them against `cluster`.
  LogicalResult parseTowers(ModuleOp module, ClusterAttr cluster,
                            SmallVectorImpl<DeviceAttr> &towers);
};

} // namespace

LogicalResult
ReplicateTowersPass::parseTowers(ModuleOp module, ClusterAttr cluster,
                                 SmallVectorImpl<DeviceAttr> &towers) {
  if (devices.empty())
    return module.emitError(
        "--dtf-replicate-towers needs the device of each tower: give "
        "devices=<device>,<device>,...");
  for (const std::string &name : devices) {
    FailureOr<DeviceAttr> device =
        parseDeviceOption(module, cluster, "tower device", name);
    if (failed(device))
      return failure();
    // Ops on PS tasks are the variables' side of the graph: a tower there
    // would be taken for it.
    if (isPSDevice(*device))
      return module.emitError("tower device '")
             << name << "' is a PS task; towers run outside the PS job";
    if (llvm::is_contained(towers, *device))
      return module.emitError("tower device '") << name << "' is given twice";
    towers.push_back(*device);
  }
  return success();
}

void ReplicateTowersPass::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<DeviceAttr> towers;
  if (failed(parseTowers(module, getCluster(module), towers)))
    return signalPassFailure();

  auto functions = llvm::to_vector(module.getOps<func::FuncOp>());
  if (functions.size() != 1) {
    module.emitError("--dtf-replicate-towers replicates the model of one "
                     "function; the module has ")
        << functions.size() << " functions";
    return signalPassFailure();
  }
  func::FuncOp func = functions.front();
  if (!func.getBody().hasOneBlock()) {
    func.emitOpError("has ")
        << func.getBody().getBlocks().size()
        << " blocks; tower replication needs a single-block function";
    return signalPassFailure();
  }

  TowerReplicator replicator(func, towers);
  if (failed(replicator.analyze()))
    return signalPassFailure();
  if (failed(replicator.rewrite()))
    return signalPassFailure();
  numTowers = towers.size();
  numClonedOps = replicator.getNumClonedOps();
  numSummedGradients = replicator.getNumSummedGradients();
}
