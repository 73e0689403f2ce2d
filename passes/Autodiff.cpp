//===- Autodiff.cpp - Reverse-mode differentiation of dtf.minimize --------===//
//
// Implements --dtf-autodiff: the `compute_gradients` half of TensorFlow's
// `optimizer.minimize`. Each `dtf.minimize %loss` is replaced, in place, by
// the backward pass of `%loss` and a `dtf.apply_gradients` that pairs every
// trainable variable the loss depends on with its gradient.
//
// The gradient formulas are TensorFlow's (python/ops/math_grad.py, nn_grad.py
// and array_grad.py), so that a graph trained here follows the same
// trajectory as the same graph trained by TensorFlow.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace dtf::ir {
#define GEN_PASS_DEF_AUTODIFFPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Only float tensors carry gradients: integer and boolean values (argmax,
/// equal, casts to integers) cut the backward pass, as TensorFlow's
/// gradients are None for them.
static bool isDifferentiable(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// The trainable variable `read` reads, or null when it reads something else
/// (a non-trainable variable, a resource passed in as an argument).
static VariableOp getTrainableVariable(ReadOp read) {
  auto variable = read.getResource().getDefiningOp<VariableOp>();
  if (!variable || !variable.getTrainable())
    return {};
  return variable;
}

/// The trainable variable `lookup` looks up, or null (a non-trainable
/// table).
static VariableOp getTrainableVariable(EmbeddingLookupOp lookup) {
  auto variable = lookup.getTable().getDefiningOp<VariableOp>();
  if (!variable || !variable.getTrainable())
    return {};
  return variable;
}

/// The ops whose gradient rule is implemented below.
static bool hasGradientRule(Operation *op) {
  return isa<
      ReadOp, EmbeddingLookupOp, ConcatOp, SliceOp, MatMulOp, AddOp, SubOp,
      MulOp, DivOp, DivNoNanOp, MinimumOp, MaximumOp, PowOp, SelectOp,
      BiasAddOp, NegOp, AbsOp, ReluOp, SigmoidOp, SoftmaxOp, LogOp, ExpOp,
      TanhOp, SqrtOp, RsqrtOp, ClipByValueOp, SoftmaxCrossEntropyWithLogitsOp,
      SparseSoftmaxCrossEntropyWithLogitsOp, SigmoidCrossEntropyWithLogitsOp,
      EmbeddingCombineOp, GatherOp, UnsortedSegmentSumOp, ReduceSumOp,
      ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReshapeOp, BroadcastToOp, CastOp,
      Conv2DOp, Conv2DBackpropInputOp, MaxPoolOp, AvgPoolOp, TransposeOp,
      LogSoftmaxOp, TileOp, BatchMatMulOp, ReduceProdOp>(op);
}

/// The operands whose types must be static for the gradient rule of `op` to
/// build its reshapes and broadcasts.
static SmallVector<Value> operandsNeedingStaticShapes(Operation *op) {
  if (isa<AddOp, SubOp, MulOp, DivOp, DivNoNanOp, MinimumOp, MaximumOp, PowOp,
          SelectOp, BroadcastToOp, ReduceSumOp, ReduceMeanOp, ReduceMaxOp,
          ReduceMinOp, GatherOp, ConcatOp, SliceOp, TileOp>(op))
    return llvm::to_vector(op->getOperands());
  // The rows of a sparse gradient are the lookup's gradient reshaped to one
  // row per id.
  if (auto lookup = dyn_cast<EmbeddingLookupOp>(op))
    return {lookup.getIds(), lookup.getOutput()};
  return {};
}

/// Ops whose results take no gradient whatever their operands, as
/// TensorFlow registers None (or no gradient at all) for them: the backward
/// pass stops there.
static bool stopsGradient(Operation *op) {
  return isa<StopGradientOp, FloorOp, SignOp>(op);
}

/// The dimensions `axes` of a reduction of a rank-`rank` tensor reduce,
/// normalized: all of them when `axes` is empty.
static SmallVector<bool> reducedDims(int64_t rank, ArrayRef<int64_t> axes) {
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes)
    reduced[axis < 0 ? axis + rank : axis] = true;
  return reduced;
}

//===----------------------------------------------------------------------===//
// BackwardPass
//===----------------------------------------------------------------------===//

namespace {
/// The backward pass of one `dtf.minimize`.
///
/// `analyze` finds the ops to differentiate: those of the loss's backward
/// slice that lie on a path from a read of a trainable variable to the loss
/// through float values (the "active" values). `emit` then visits them in
/// reverse order, which is a reverse topological order since the graph is
/// one SSA block, so that every use of a value has contributed to its
/// gradient before the gradient is propagated further.
class BackwardPass {
public:
  BackwardPass(MinimizeOp minimize, bool colocateGradientsWithOps)
      : minimize(minimize), rewriter(minimize.getContext()),
        colocateGradientsWithOps(colocateGradientsWithOps) {}

  LogicalResult run() {
    if (failed(analyze()))
      return failure();
    emit();
    return success();
  }

private:
  LogicalResult analyze();
  void emit();

  /// Emits the gradients of `op`'s active operands given `dy`, the gradient
  /// of its (single) result, and accumulates them.
  void differentiate(Operation *op, Value dy);

  /// _MinOrMaxGrad for reduce_max and reduce_min: dy is shared equally by
  /// the elements equal to the result, dx = dy * (x == y) / count(x == y)
  /// over each reduced slice.
  template <typename ReduceOp>
  void differentiateExtremum(ReduceOp reduce, Value dy);

  /// Whether `value` needs a gradient: it depends on a trainable variable and
  /// the loss depends on it, both through float values.
  bool isActive(Value value) const { return active.contains(value); }

  /// Adds `gradient` to the gradient of `value` when `value` needs one.
  void accumulate(Value value, Value gradient);

  /// Reduces `gradient`, the gradient of a broadcast result, to `type`, the
  /// shape of the operand that was broadcast: TensorFlow's
  /// `reshape(reduce_sum(grad, BroadcastGradientArgs(...)), shape)`.
  Value sumToShape(Value gradient, RankedTensorType type, Location loc);

  /// Expands `gradient`, the gradient of a reduction over `axes`, back to
  /// `inputType`: reshape to the keep_dims shape, then broadcast.
  Value unreduce(Value gradient, RankedTensorType inputType,
                 ArrayRef<int64_t> axes, Location loc);

  /// A constant tensor of `type` with every element `value`.
  Value splat(RankedTensorType type, double value, Location loc);

  /// Scales the gradients (dense ones and sparse rows) as
  /// tf.clip_by_global_norm(gradients, clipNorm) does.
  void clipByGlobalNorm(double clipNorm, SmallVector<Value> &grads,
                        SmallVector<Value> &sparseRows, Location loc);

  /// A rank-0 constant `value` of the element type of `like`, which
  /// broadcasts against any shape.
  Value scalar(Value like, double value, Location loc) {
    return splat(
        RankedTensorType::get(
            {}, cast<RankedTensorType>(like.getType()).getElementType()),
        value, loc);
  }

  MinimizeOp minimize;
  IRRewriter rewriter;
  bool colocateGradientsWithOps;

  /// The ops to differentiate, in block order.
  SmallVector<Operation *> ops;
  /// The values that need a gradient.
  DenseSet<Value> active;
  /// The gradient accumulated so far for each active value.
  DenseMap<Value, Value> gradients;
  /// The gradient accumulated so far for each trainable variable.
  llvm::MapVector<Operation *, Value> variableGradients;
  /// The sparse gradient (TensorFlow's IndexedSlices: 1-D ids, one row per
  /// id) accumulated so far for each trainable variable looked up by rows.
  /// Lookups of one table add up by concatenation, as IndexedSlices do.
  llvm::MapVector<Operation *, std::pair<Value, Value>> sparseGradients;
};
} // namespace

LogicalResult BackwardPass::analyze() {
  Block *block = minimize->getBlock();
  Value loss = minimize.getLoss();

  // The backward slice of the loss within its block. Values defined outside
  // the block (arguments, values from enclosing regions) are leaves.
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> worklist = {loss};
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != block || !slice.insert(def))
      continue;
    llvm::append_range(worklist, def->getOperands());
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(def->getRegions(), captured);
    llvm::append_range(worklist, captured);
  }
  SmallVector<Operation *> sorted = slice.takeVector();
  llvm::sort(sorted,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });

  // Forward: the values that depend on a trainable variable through floats.
  DenseSet<Value> varied;
  bool readsTrainable = false;
  Operation *cut = nullptr;
  for (Operation *op : sorted) {
    if (auto read = dyn_cast<ReadOp>(op)) {
      if (getTrainableVariable(read)) {
        readsTrainable = true;
        if (isDifferentiable(read.getType()))
          varied.insert(read.getResult());
      }
      continue;
    }
    if (auto lookup = dyn_cast<EmbeddingLookupOp>(op)) {
      if (getTrainableVariable(lookup)) {
        readsTrainable = true;
        varied.insert(lookup.getOutput());
      }
      continue;
    }
    auto isVaried = [&](Value value) { return varied.contains(value); };
    if (stopsGradient(op)) {
      if (!cut && llvm::any_of(op->getOperands(), isVaried))
        cut = op;
      continue;
    }
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(op->getRegions(), captured);
    if (llvm::none_of(op->getOperands(), isVaried) &&
        llvm::none_of(captured, isVaried))
      continue;
    bool anyResult = false;
    for (Value result : op->getResults()) {
      if (isDifferentiable(result.getType())) {
        varied.insert(result);
        anyResult = true;
      }
    }
    if (!anyResult && !cut)
      cut = op;
  }

  if (!readsTrainable)
    return minimize.emitOpError(
        "loss does not depend on any trainable variable");
  if (!varied.contains(loss)) {
    InFlightDiagnostic diag = minimize.emitOpError(
        "loss depends on trainable variables only through non-differentiable "
        "values");
    if (cut)
      diag.attachNote(cut->getLoc())
          << "the gradient stops at this '" << cut->getName() << "'";
    return diag;
  }

  // Backward: of those, the ones the loss depends on through floats.
  active.insert(loss);
  for (Operation *op : llvm::reverse(sorted)) {
    if (llvm::none_of(op->getResults(),
                      [&](Value result) { return isActive(result); }))
      continue;
    for (Value operand : op->getOperands())
      if (varied.contains(operand))
        active.insert(operand);
    ops.push_back(op);
  }
  std::reverse(ops.begin(), ops.end());

  // Check every op before emitting anything, so that a failure leaves the
  // function as it was.
  for (Operation *op : ops) {
    if (!hasGradientRule(op)) {
      InFlightDiagnostic diag = op->emitOpError(
          "has no gradient rule, but the loss depends on a trainable variable "
          "through it");
      diag.attachNote(minimize.getLoc()) << "differentiating this loss";
      return diag;
    }
    if (auto xent = dyn_cast<SoftmaxCrossEntropyWithLogitsOp>(op);
        xent && isActive(xent.getLabels()))
      return xent.emitOpError(
          "labels depend on a trainable variable, but gradients with respect "
          "to the labels are unsupported");
    if (auto xent = dyn_cast<SigmoidCrossEntropyWithLogitsOp>(op);
        xent && isActive(xent.getLabels()))
      return xent.emitOpError(
          "labels depend on a trainable variable, but gradients with respect "
          "to the labels are unsupported");
    if (auto combine = dyn_cast<EmbeddingCombineOp>(op);
        combine && combine.getWeights() && isActive(combine.getWeights()))
      return combine.emitOpError(
          "weights depend on a trainable variable, but gradients with "
          "respect to the weights are unsupported");
    for (Value operand : operandsNeedingStaticShapes(op)) {
      auto type = cast<RankedTensorType>(operand.getType());
      if (!type.hasStaticShape())
        return op->emitOpError("gradient needs static shapes, got ")
               << type
               << " (a dynamic batch is given its size by "
                  "--dtf-specialize-batch first)";
    }
  }
  // A variable gets either a dense gradient (it is read whole) or a sparse
  // one (it is only looked up by rows): a table whose gradient were both
  // would need a dense table-sized update, which sparse training exists to
  // avoid.
  DenseMap<Operation *, Operation *> denseReadOf;
  for (Operation *op : ops)
    if (auto read = dyn_cast<ReadOp>(op))
      denseReadOf.try_emplace(getTrainableVariable(read), op);
  for (Operation *op : ops) {
    auto lookup = dyn_cast<EmbeddingLookupOp>(op);
    if (!lookup)
      continue;
    VariableOp table = getTrainableVariable(lookup);
    if (Operation *read = denseReadOf.lookup(table)) {
      InFlightDiagnostic diag =
          lookup.emitOpError("looks up rows of '")
          << table.getName()
          << "', which the loss also reads whole: its gradient would be "
             "dense; look up every use of a table by rows";
      diag.attachNote(read->getLoc()) << "read whole here";
      return diag;
    }
  }
  return success();
}

void BackwardPass::emit() {
  Location loc = minimize.getLoc();
  rewriter.setInsertionPoint(minimize);

  // d(loss)/d(loss) = 1, beside the loss when gradients follow their ops,
  // as TensorFlow's gradients() colocates the ones it starts from with the
  // loss.
  Value loss = minimize.getLoss();
  gradients[loss] = splat(cast<RankedTensorType>(loss.getType()), 1.0, loc);
  Operation *lossOp = loss.getDefiningOp();
  if (Attribute device =
          lossOp ? lossOp->getAttr(DTFDialect::getDeviceAttrName())
                 : Attribute();
      colocateGradientsWithOps && device)
    gradients[loss].getDefiningOp()->setAttr(DTFDialect::getDeviceAttrName(),
                                             device);

  for (Operation *op : llvm::reverse(ops)) {
    // Every op here has one result: the rules below are for such ops.
    Value dy = gradients.lookup(op->getResult(0));
    assert(dy && "an active result has received a gradient from its uses");
    // The backward ops are emitted right before the minimize, so the ops
    // of this op's gradient are those between `previous` and it.
    Operation *previous = minimize->getPrevNode();
    differentiate(op, dy);
    Attribute device = op->getAttr(DTFDialect::getDeviceAttrName());
    if (colocateGradientsWithOps && device)
      for (Operation *emitted = previous->getNextNode();
           emitted != minimize.getOperation();
           emitted = emitted->getNextNode())
        emitted->setAttr(DTFDialect::getDeviceAttrName(), device);
  }

  // TensorFlow lists the variables in creation order.
  SmallVector<std::pair<Operation *, Value>> pairs(variableGradients.begin(),
                                                   variableGradients.end());
  llvm::sort(pairs, [](const auto &a, const auto &b) {
    return a.first->isBeforeInBlock(b.first);
  });
  SmallVector<Value> variables, grads;
  for (auto [variable, gradient] : pairs) {
    variables.push_back(variable->getResult(0));
    grads.push_back(gradient);
  }
  SmallVector<std::pair<Operation *, std::pair<Value, Value>>> sparsePairs(
      sparseGradients.begin(), sparseGradients.end());
  llvm::sort(sparsePairs, [](const auto &a, const auto &b) {
    return a.first->isBeforeInBlock(b.first);
  });
  SmallVector<Value> sparseVariables, sparseIds, sparseRows;
  for (auto [variable, gradient] : sparsePairs) {
    sparseVariables.push_back(variable->getResult(0));
    sparseIds.push_back(gradient.first);
    sparseRows.push_back(gradient.second);
  }
  if (FloatAttr clipNorm = minimize.getClipByGlobalNormAttr())
    clipByGlobalNorm(clipNorm.getValueAsDouble(), grads, sparseRows, loc);
  rewriter.replaceOpWithNewOp<ApplyGradientsOp>(
      minimize, minimize.getOptimizer(), variables, grads, sparseVariables,
      sparseIds, sparseRows, minimize.getGlobalStep());
}

void BackwardPass::clipByGlobalNorm(double clipNorm, SmallVector<Value> &grads,
                                    SmallVector<Value> &sparseRows,
                                    Location loc) {
  SmallVector<Value *> all;
  for (Value &gradient : grads)
    all.push_back(&gradient);
  for (Value &rows : sparseRows)
    all.push_back(&rows);
  if (all.empty())
    return;
  // tf.clip_by_global_norm's graph, op for op: global_norm =
  // sqrt(sum_i sum(g_i^2)); scale = clip_norm * min(1 / global_norm,
  // 1 / clip_norm), plus global_norm - global_norm so that a NaN or
  // infinite norm makes every gradient NaN rather than zero. The norm is in
  // the first gradient's element type (TensorFlow requires one for all).
  auto scalarType = RankedTensorType::get(
      {}, cast<RankedTensorType>(all.front()->getType()).getElementType());
  Value total;
  for (Value *gradient : all) {
    Value squares = rewriter.create<MulOp>(loc, *gradient, *gradient);
    auto type = cast<RankedTensorType>(squares.getType());
    auto axes = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    Value sum = axes.empty() ? squares
                             : rewriter
                                   .create<ReduceSumOp>(loc, squares, axes,
                                                        /*keep_dims=*/false)
                                   .getResult();
    if (sum.getType() != scalarType)
      sum = rewriter.create<CastOp>(loc, scalarType, sum);
    total = total ? rewriter.create<AddOp>(loc, total, sum).getResult() : sum;
  }
  Value norm = rewriter.create<SqrtOp>(loc, total);
  Value inverseNorm =
      rewriter.create<DivOp>(loc, splat(scalarType, 1.0, loc), norm);
  Value limited = rewriter.create<MinimumOp>(
      loc, inverseNorm, splat(scalarType, 1.0 / clipNorm, loc));
  Value scale =
      rewriter.create<MulOp>(loc, splat(scalarType, clipNorm, loc), limited);
  scale = rewriter.create<AddOp>(loc, scale,
                                 rewriter.create<SubOp>(loc, norm, norm));
  for (Value *gradient : all) {
    Value factor = scale;
    auto type = cast<RankedTensorType>(gradient->getType());
    if (type.getElementType() != scalarType.getElementType())
      factor = rewriter.create<CastOp>(
          loc, RankedTensorType::get({}, type.getElementType()), scale);
    *gradient = rewriter.create<MulOp>(loc, *gradient, factor);
  }
}

void BackwardPass::accumulate(Value value, Value gradient) {
  if (!isActive(value))
    return;
  auto [it, inserted] = gradients.try_emplace(value, gradient);
  if (!inserted)
    it->second =
        rewriter.create<AddOp>(minimize.getLoc(), it->second, gradient);
}

Value BackwardPass::splat(RankedTensorType type, double value, Location loc) {
  auto attr = DenseElementsAttr::get(
      type, FloatAttr::get(type.getElementType(), value));
  return rewriter.create<ConstantOp>(loc, attr);
}

Value BackwardPass::sumToShape(Value gradient, RankedTensorType type,
                               Location loc) {
  auto gradientType = cast<RankedTensorType>(gradient.getType());
  if (gradientType == type)
    return gradient;
  // Broadcasting aligns shapes at the trailing dimension: the operand was
  // broadcast along the leading dimensions it lacks and along its size-1
  // dimensions that the result does not have as size 1.
  int64_t leading = gradientType.getRank() - type.getRank();
  SmallVector<int64_t> axes;
  for (int64_t dim = 0; dim < gradientType.getRank(); ++dim)
    if (dim < leading || (type.getDimSize(dim - leading) == 1 &&
                          gradientType.getDimSize(dim) != 1))
      axes.push_back(dim);
  Value sum = gradient;
  if (!axes.empty())
    sum = rewriter.create<ReduceSumOp>(loc, gradient, axes,
                                       /*keep_dims=*/true);
  if (sum.getType() != type)
    sum = rewriter.create<ReshapeOp>(loc, type, sum);
  return sum;
}

Value BackwardPass::unreduce(Value gradient, RankedTensorType inputType,
                             ArrayRef<int64_t> axes, Location loc) {
  SmallVector<int64_t> keptShape(inputType.getShape());
  for (auto [dim, reduced] :
       llvm::enumerate(reducedDims(inputType.getRank(), axes)))
    if (reduced)
      keptShape[dim] = 1;
  auto keptType =
      RankedTensorType::get(keptShape, inputType.getElementType());
  if (gradient.getType() != keptType)
    gradient = rewriter.create<ReshapeOp>(loc, keptType, gradient);
  if (keptType != inputType)
    gradient = rewriter.create<BroadcastToOp>(loc, inputType, gradient);
  return gradient;
}

template <typename ReduceOp>
void BackwardPass::differentiateExtremum(ReduceOp reduce, Value dy) {
  Value x = reduce.getInput();
  if (!isActive(x))
    return;
  Location loc = reduce.getLoc();
  auto inputType = cast<RankedTensorType>(x.getType());
  ArrayRef<int64_t> axes = reduce.getAxes();
  Value y = unreduce(reduce.getOutput(), inputType, axes, loc);
  Value chosen = rewriter.create<CastOp>(loc, inputType,
                                         rewriter.create<EqualOp>(loc, y, x));
  Value count = unreduce(
      rewriter.create<ReduceSumOp>(loc, chosen, axes, /*keep_dims=*/true),
      inputType, axes, loc);
  Value share = rewriter.create<DivOp>(loc, chosen, count);
  accumulate(x, rewriter.create<MulOp>(loc, share,
                                       unreduce(dy, inputType, axes, loc)));
}

void BackwardPass::differentiate(Operation *op, Value dy) {
  Location loc = op->getLoc();
  auto typeOf = [](Value value) {
    return cast<RankedTensorType>(value.getType());
  };
  // Builds the gradient of `operand` only when it needs one, so that no dead
  // op is emitted for placeholders, constants or non-trainable state.
  auto propagate = [&](Value operand, llvm::function_ref<Value()> gradient) {
    if (isActive(operand))
      accumulate(operand, gradient());
  };
  auto identity = [&] { return dy; };

  llvm::TypeSwitch<Operation *>(op)
      .Case([&](ReadOp read) {
        // A variable read several times gets the sum of the reads' gradients.
        Operation *variable = getTrainableVariable(read);
        auto [it, inserted] = variableGradients.insert({variable, dy});
        if (!inserted)
          it->second =
              rewriter.create<AddOp>(minimize.getLoc(), it->second, dy);
      })
      .Case([&](EmbeddingLookupOp lookup) {
        // _GatherGrad: IndexedSlices(values = dy reshaped to one row per id,
        // indices = the ids flattened), kept sparse. Ids become i64, so that
        // lookups by i32 and i64 ids of one table concatenate.
        RankedTensorType idsType = typeOf(lookup.getIds());
        RankedTensorType outputType = typeOf(lookup.getOutput());
        int64_t count = idsType.getNumElements();
        Value ids = lookup.getIds();
        if (!idsType.getElementType().isInteger(64))
          ids = rewriter.create<CastOp>(
              loc,
              RankedTensorType::get(idsType.getShape(), rewriter.getI64Type()),
              ids);
        auto flatIds = RankedTensorType::get({count}, rewriter.getI64Type());
        if (idsType.getRank() != 1)
          ids = rewriter.create<ReshapeOp>(loc, flatIds, ids);
        SmallVector<int64_t> rowsShape = {count};
        llvm::append_range(rowsShape,
                           outputType.getShape().drop_front(idsType.getRank()));
        Value rows = dy;
        if (idsType.getRank() != 1)
          rows = rewriter.create<ReshapeOp>(
              loc,
              RankedTensorType::get(rowsShape, outputType.getElementType()),
              dy);
        Operation *variable = getTrainableVariable(lookup);
        auto [it, inserted] =
            sparseGradients.insert({variable, std::make_pair(ids, rows)});
        if (!inserted) {
          Location minimizeLoc = minimize.getLoc();
          it->second.first = rewriter.create<ConcatOp>(
              minimizeLoc, ValueRange{it->second.first, ids}, 0);
          it->second.second = rewriter.create<ConcatOp>(
              minimizeLoc, ValueRange{it->second.second, rows}, 0);
        }
      })
      .Case([&](MatMulOp matmul) {
        // _MatMulGrad: for c = op(a) op(b), each gradient is a product of dy
        // and the other operand, transposed so that the shapes line up.
        Value a = matmul.getA(), b = matmul.getB();
        bool ta = matmul.getTransposeA(), tb = matmul.getTransposeB();
        auto mm = [&](Value x, Value y, bool tx, bool ty) -> Value {
          return rewriter.create<MatMulOp>(loc, x, y, tx, ty);
        };
        propagate(a, [&] {
          // da = dy op(b)^T, or its transpose when a was transposed.
          return ta ? mm(b, dy, tb, true) : mm(dy, b, false, !tb);
        });
        propagate(b, [&] {
          // db = op(a)^T dy, or its transpose when b was transposed.
          return tb ? mm(dy, a, true, ta) : mm(a, dy, !ta, false);
        });
      })
      .Case([&](AddOp add) {
        propagate(add.getLhs(),
                  [&] { return sumToShape(dy, typeOf(add.getLhs()), loc); });
        propagate(add.getRhs(),
                  [&] { return sumToShape(dy, typeOf(add.getRhs()), loc); });
      })
      .Case([&](SubOp sub) {
        propagate(sub.getLhs(),
                  [&] { return sumToShape(dy, typeOf(sub.getLhs()), loc); });
        propagate(sub.getRhs(), [&]() -> Value {
          return rewriter.create<NegOp>(
              loc, sumToShape(dy, typeOf(sub.getRhs()), loc));
        });
      })
      .Case([&](MulOp mul) {
        Value x = mul.getLhs(), y = mul.getRhs();
        propagate(x, [&] {
          return sumToShape(rewriter.create<MulOp>(loc, dy, y), typeOf(x),
                            loc);
        });
        propagate(y, [&] {
          return sumToShape(rewriter.create<MulOp>(loc, x, dy), typeOf(y),
                            loc);
        });
      })
      .Case([&](DivOp div) {
        // _RealDivGrad: dx = dy / y and dy_ = dy * ((-x / y) / y).
        Value x = div.getLhs(), y = div.getRhs();
        propagate(x, [&] {
          return sumToShape(rewriter.create<DivOp>(loc, dy, y), typeOf(x),
                            loc);
        });
        propagate(y, [&] {
          Value negX = rewriter.create<NegOp>(loc, x);
          Value quotient = rewriter.create<DivOp>(loc, negX, y);
          quotient = rewriter.create<DivOp>(loc, quotient, y);
          return sumToShape(rewriter.create<MulOp>(loc, dy, quotient),
                            typeOf(y), loc);
        });
      })
      .Case([&](DivNoNanOp div) {
        // _DivNoNanGrad: dx = div_no_nan(dy, y) and
        // dy_ = dy * div_no_nan(div_no_nan(-x, y), y), so that a zero
        // divisor gives zero gradients, never NaN.
        Value x = div.getLhs(), y = div.getRhs();
        propagate(x, [&] {
          return sumToShape(rewriter.create<DivNoNanOp>(loc, dy, y), typeOf(x),
                            loc);
        });
        propagate(y, [&] {
          Value negX = rewriter.create<NegOp>(loc, x);
          Value quotient = rewriter.create<DivNoNanOp>(loc, negX, y);
          quotient = rewriter.create<DivNoNanOp>(loc, quotient, y);
          return sumToShape(rewriter.create<MulOp>(loc, dy, quotient),
                            typeOf(y), loc);
        });
      })
      .Case<MinimumOp, MaximumOp>([&](Operation *minMax) {
        // _MaximumMinimumGrad: dy goes to x where x wins, ties included
        // (x >= y for maximum, x <= y for minimum), and to y elsewhere.
        Value x = minMax->getOperand(0), y = minMax->getOperand(1);
        Value xWins =
            isa<MaximumOp>(minMax)
                ? rewriter.create<GreaterEqualOp>(loc, x, y).getResult()
                : rewriter.create<LessEqualOp>(loc, x, y).getResult();
        Value zero = scalar(dy, 0.0, loc);
        propagate(x, [&] {
          return sumToShape(rewriter.create<SelectOp>(loc, xWins, dy, zero),
                            typeOf(x), loc);
        });
        propagate(y, [&] {
          return sumToShape(rewriter.create<SelectOp>(loc, xWins, zero, dy),
                            typeOf(y), loc);
        });
      })
      .Case([&](PowOp pow) {
        // _PowGrad: dx = dy * y * x^(y - 1); dy_ = dy * x^y * log(x) where
        // x > 0 and 0 elsewhere, as TensorFlow takes it for real x.
        Value x = pow.getLhs(), y = pow.getRhs();
        propagate(x, [&] {
          Value yMinusOne = rewriter.create<SubOp>(loc, y, scalar(y, 1.0, loc));
          Value power = rewriter.create<PowOp>(loc, x, yMinusOne);
          Value product = rewriter.create<MulOp>(
              loc, dy, rewriter.create<MulOp>(loc, y, power));
          return sumToShape(product, typeOf(x), loc);
        });
        propagate(y, [&] {
          Value zero = scalar(x, 0.0, loc);
          Value positive = rewriter.create<GreaterOp>(loc, x, zero);
          Value logX = rewriter.create<SelectOp>(
              loc, positive, rewriter.create<LogOp>(loc, x), zero);
          Value product = rewriter.create<MulOp>(
              loc, dy, rewriter.create<MulOp>(loc, pow.getOutput(), logX));
          return sumToShape(product, typeOf(y), loc);
        });
      })
      .Case([&](SelectOp select) {
        // _SelectGradV2: each value gets dy where it was chosen and zeros
        // elsewhere, summed back to its own (broadcast) shape; the
        // condition is boolean and takes none.
        Value zero = scalar(dy, 0.0, loc);
        Value condition = select.getCondition();
        propagate(select.getOnTrue(), [&] {
          return sumToShape(rewriter.create<SelectOp>(loc, condition, dy, zero),
                            typeOf(select.getOnTrue()), loc);
        });
        propagate(select.getOnFalse(), [&] {
          return sumToShape(rewriter.create<SelectOp>(loc, condition, zero, dy),
                            typeOf(select.getOnFalse()), loc);
        });
      })
      .Case([&](BiasAddOp biasAdd) {
        propagate(biasAdd.getInput(), identity);
        propagate(biasAdd.getBias(), [&]() -> Value {
          return rewriter.create<BiasAddGradOp>(loc, dy);
        });
      })
      .Case([&](NegOp neg) {
        propagate(neg.getInput(),
                  [&]() -> Value { return rewriter.create<NegOp>(loc, dy); });
      })
      .Case([&](AbsOp abs) {
        propagate(abs.getInput(), [&]() -> Value {
          return rewriter.create<MulOp>(
              loc, dy, rewriter.create<SignOp>(loc, abs.getInput()));
        });
      })
      .Case([&](ExpOp exp) {
        // From the output: dy * e^x.
        propagate(exp.getInput(), [&]() -> Value {
          return rewriter.create<MulOp>(loc, dy, exp.getOutput());
        });
      })
      .Case([&](TanhOp tanh) {
        // _TanhGrad, from the output y: dy * (1 - y^2).
        propagate(tanh.getInput(), [&]() -> Value {
          Value y = tanh.getOutput();
          Value one = scalar(y, 1.0, loc);
          Value square = rewriter.create<MulOp>(loc, y, y);
          Value oneMinusSquare = rewriter.create<SubOp>(loc, one, square);
          return rewriter.create<MulOp>(loc, dy, oneMinusSquare);
        });
      })
      .Case([&](SqrtOp sqrt) {
        // _SqrtGrad, from the output y: dy * 0.5 / y.
        propagate(sqrt.getInput(), [&]() -> Value {
          Value y = sqrt.getOutput();
          Value half = rewriter.create<MulOp>(loc, dy, scalar(y, 0.5, loc));
          return rewriter.create<DivOp>(loc, half, y);
        });
      })
      .Case([&](RsqrtOp rsqrt) {
        // _RsqrtGrad, from the output y: dy * -0.5 * y^3.
        propagate(rsqrt.getInput(), [&]() -> Value {
          Value y = rsqrt.getOutput();
          Value cube =
              rewriter.create<MulOp>(loc, y, rewriter.create<MulOp>(loc, y, y));
          Value scaled =
              rewriter.create<MulOp>(loc, cube, scalar(y, -0.5, loc));
          return rewriter.create<MulOp>(loc, dy, scaled);
        });
      })
      .Case([&](ReluOp relu) {
        // The mask x > 0 is taken from the relu's input.
        propagate(relu.getInput(), [&]() -> Value {
          return rewriter.create<ReluGradOp>(loc, dy, relu.getInput());
        });
      })
      .Case([&](ConcatOp concat) {
        // _ConcatGradHelper: each input gets its slice of dy along the axis.
        auto outputType = typeOf(concat.getOutput());
        int64_t axis = concat.getAxis();
        if (axis < 0)
          axis += outputType.getRank();
        int64_t offset = 0;
        for (Value input : concat.getInputs()) {
          RankedTensorType inputType = typeOf(input);
          propagate(input, [&]() -> Value {
            SmallVector<int64_t> offsets(inputType.getRank(), 0);
            offsets[axis] = offset;
            return rewriter.create<SliceOp>(
                loc, dy, offsets, SmallVector<int64_t>(inputType.getShape()));
          });
          offset += inputType.getDimSize(axis);
        }
      })
      .Case([&](SliceOp slice) {
        // _SliceGrad: dy padded with zeros back to the input's shape, one
        // dimension at a time (zeros before the box, dy, zeros after it).
        RankedTensorType inputType = typeOf(slice.getInput());
        propagate(slice.getInput(), [&]() -> Value {
          Value padded = dy;
          for (int64_t dim = 0; dim < inputType.getRank(); ++dim) {
            auto type = typeOf(padded);
            int64_t before = slice.getOffsets()[dim];
            int64_t after =
                inputType.getDimSize(dim) - before - type.getDimSize(dim);
            SmallVector<Value> parts;
            auto zeros = [&](int64_t size) {
              SmallVector<int64_t> shape(type.getShape());
              shape[dim] = size;
              return splat(type.clone(shape), 0.0, loc);
            };
            if (before > 0)
              parts.push_back(zeros(before));
            parts.push_back(padded);
            if (after > 0)
              parts.push_back(zeros(after));
            if (parts.size() > 1)
              padded = rewriter.create<ConcatOp>(loc, parts, dim);
          }
          return padded;
        });
      })
      .Case([&](SigmoidOp sigmoid) {
        // _SigmoidGrad: from the output y, dy * y * (1 - y).
        propagate(sigmoid.getInput(), [&]() -> Value {
          return rewriter.create<SigmoidGradOp>(loc, sigmoid.getOutput(), dy);
        });
      })
      .Case([&](SigmoidCrossEntropyWithLogitsOp xent) {
        // analyze() rejected active labels, so only the logits remain.
        propagate(xent.getLogits(), [&]() -> Value {
          return rewriter.create<SigmoidCrossEntropyWithLogitsGradOp>(
              loc, dy, xent.getLogits(), xent.getLabels());
        });
      })
      .Case([&](EmbeddingCombineOp combine) {
        // analyze() rejected active weights, so only the rows remain.
        propagate(combine.getRows(), [&]() -> Value {
          return rewriter.create<EmbeddingCombineGradOp>(
              loc, typeOf(combine.getRows()), combine.getCombinerAttr(), dy,
              combine.getIds(), combine.getWeights());
        });
      })
      .Case([&](GatherOp gather) {
        // The dense form of _GatherGrad, for a gathered value that is not a
        // variable: the rows summed back into the rows they came from.
        propagate(gather.getParams(), [&]() -> Value {
          RankedTensorType params = typeOf(gather.getParams());
          RankedTensorType idsType = typeOf(gather.getIds());
          int64_t count = idsType.getNumElements();
          Value ids = rewriter.create<ReshapeOp>(
              loc, RankedTensorType::get({count}, idsType.getElementType()),
              gather.getIds());
          SmallVector<int64_t> rowsShape = {count};
          llvm::append_range(rowsShape, params.getShape().drop_front());
          Value rows = rewriter.create<ReshapeOp>(
              loc, RankedTensorType::get(rowsShape, params.getElementType()),
              dy);
          return rewriter.create<UnsortedSegmentSumOp>(loc, rows, ids,
                                                       params.getDimSize(0));
        });
      })
      .Case([&](UnsortedSegmentSumOp segmentSum) {
        // _UnsortedSegmentSumGrad: each row takes its segment's gradient
        // (dropped rows, of negative ids, take zeros).
        propagate(segmentSum.getData(), [&]() -> Value {
          return rewriter.create<GatherOp>(loc, dy, segmentSum.getSegmentIds());
        });
      })
      .Case([&](SoftmaxOp softmax) {
        // (dy - sum(dy * y, -1)) * y needs the softmax's output y.
        propagate(softmax.getInput(), [&]() -> Value {
          return rewriter.create<SoftmaxGradOp>(loc, dy, softmax.getOutput());
        });
      })
      .Case([&](LogOp log) {
        propagate(log.getInput(), [&]() -> Value {
          return rewriter.create<DivOp>(loc, dy, log.getInput());
        });
      })
      .Case([&](ClipByValueOp clip) {
        // TensorFlow clips with minimum and maximum, whose gradients go to x
        // on ties: dy passes where min <= x <= max.
        propagate(clip.getInput(), [&]() -> Value {
          return rewriter.create<ClipByValueGradOp>(
              loc, dy, clip.getInput(), clip.getMinAttr(), clip.getMaxAttr());
        });
      })
      .Case([&](SoftmaxCrossEntropyWithLogitsOp xent) {
        // analyze() rejected active labels, so only the logits remain.
        propagate(xent.getLogits(), [&]() -> Value {
          return rewriter.create<SoftmaxCrossEntropyWithLogitsGradOp>(
              loc, dy, xent.getLogits(), xent.getLabels());
        });
      })
      .Case([&](SparseSoftmaxCrossEntropyWithLogitsOp xent) {
        // Class ids are integers: only the logits have a gradient.
        propagate(xent.getLogits(), [&]() -> Value {
          return rewriter.create<SparseSoftmaxCrossEntropyWithLogitsGradOp>(
              loc, dy, xent.getLogits(), xent.getLabels());
        });
      })
      .Case([&](ReduceSumOp sum) {
        propagate(sum.getInput(), [&] {
          return unreduce(dy, typeOf(sum.getInput()), sum.getAxes(), loc);
        });
      })
      .Case([&](ReduceMeanOp mean) {
        // The sum's gradient scaled by 1/N, N the number of input elements
        // each output element averages.
        propagate(mean.getInput(), [&]() -> Value {
          RankedTensorType inputType = typeOf(mean.getInput());
          int64_t count = 1;
          for (auto [dim, reduced] : llvm::enumerate(
                   reducedDims(inputType.getRank(), mean.getAxes())))
            if (reduced)
              count *= inputType.getDimSize(dim);
          Value gradient = unreduce(dy, inputType, mean.getAxes(), loc);
          Value scale =
              splat(RankedTensorType::get({}, inputType.getElementType()),
                    1.0 / static_cast<double>(count), loc);
          return rewriter.create<MulOp>(loc, gradient, scale);
        });
      })
      .Case([&](ReduceMaxOp max) { differentiateExtremum(max, dy); })
      .Case([&](ReduceMinOp min) { differentiateExtremum(min, dy); })
      .Case([&](ReshapeOp reshape) {
        propagate(reshape.getInput(), [&]() -> Value {
          return rewriter.create<ReshapeOp>(loc, typeOf(reshape.getInput()),
                                            dy);
        });
      })
      .Case([&](BroadcastToOp broadcast) {
        propagate(broadcast.getInput(), [&] {
          return sumToShape(dy, typeOf(broadcast.getInput()), loc);
        });
      })
      .Case([&](CastOp castOp) {
        // Both sides are active, so this casts between float types: cast the
        // gradient back.
        propagate(castOp.getInput(), [&]() -> Value {
          return rewriter.create<CastOp>(loc, typeOf(castOp.getInput()), dy);
        });
      })
      .Case([&](Conv2DOp conv) {
        propagate(conv.getInput(), [&]() -> Value {
          return rewriter.create<Conv2DBackpropInputOp>(
              loc, typeOf(conv.getInput()), conv.getFilter(), dy,
              conv.getStridesAttr(), conv.getPaddingAttr(),
              conv.getDilationsAttr());
        });
        propagate(conv.getFilter(), [&]() -> Value {
          return rewriter.create<Conv2DBackpropFilterOp>(
              loc, typeOf(conv.getFilter()), conv.getInput(), dy,
              conv.getStridesAttr(), conv.getPaddingAttr(),
              conv.getDilationsAttr());
        });
      })
      .Case([&](Conv2DBackpropInputOp transpose) {
        // _Conv2DBackpropInputGrad (tf.nn.conv2d_transpose): the
        // convolution it transposes, of the output's gradient, and that
        // convolution's filter gradient, with the value transposed as dy.
        propagate(transpose.getDy(), [&]() -> Value {
          return rewriter.create<Conv2DOp>(
              loc, dy, transpose.getFilter(), transpose.getStridesAttr(),
              transpose.getPaddingAttr(), transpose.getDilationsAttr());
        });
        propagate(transpose.getFilter(), [&]() -> Value {
          return rewriter.create<Conv2DBackpropFilterOp>(
              loc, typeOf(transpose.getFilter()), dy, transpose.getDy(),
              transpose.getStridesAttr(), transpose.getPaddingAttr(),
              transpose.getDilationsAttr());
        });
      })
      .Case([&](MaxPoolOp pool) {
        propagate(pool.getInput(), [&]() -> Value {
          return rewriter.create<MaxPoolGradOp>(
              loc, typeOf(pool.getInput()), pool.getInput(), pool.getOutput(),
              dy, pool.getKsizeAttr(), pool.getStridesAttr(),
              pool.getPaddingAttr());
        });
      })
      .Case([&](AvgPoolOp pool) {
        // _AvgPoolGrad: each window's dy shared by its input cells.
        propagate(pool.getInput(), [&]() -> Value {
          return rewriter.create<AvgPoolGradOp>(
              loc, typeOf(pool.getInput()), dy, pool.getKsizeAttr(),
              pool.getStridesAttr(), pool.getPaddingAttr());
        });
      })
      .Case([&](TransposeOp transpose) {
        // _TransposeGrad: dy permuted back by the inverse permutation.
        propagate(transpose.getInput(), [&]() -> Value {
          ArrayRef<int64_t> permutation = transpose.getPermutation();
          SmallVector<int64_t> inverse(permutation.size());
          for (auto [dim, from] : llvm::enumerate(permutation))
            inverse[from] = dim;
          return rewriter.create<TransposeOp>(loc, dy, inverse);
        });
      })
      .Case([&](LogSoftmaxOp logSoftmax) {
        // _LogSoftmaxGrad: dy - sum(dy, -1) * softmax, the softmax being
        // exp of the op's output.
        propagate(logSoftmax.getInput(), [&]() -> Value {
          int64_t last = typeOf(dy).getRank() - 1;
          Value sum = rewriter.create<ReduceSumOp>(
              loc, dy, ArrayRef<int64_t>{last}, /*keep_dims=*/true);
          Value softmax = rewriter.create<ExpOp>(loc, logSoftmax.getOutput());
          return rewriter.create<SubOp>(
              loc, dy, rewriter.create<MulOp>(loc, sum, softmax));
        });
      })
      .Case([&](TileOp tile) {
        // _TileGrad: dy reshaped to [m0, d0, m1, d1, ...] and summed over
        // the copies, the dimensions m_i.
        propagate(tile.getInput(), [&]() -> Value {
          RankedTensorType inputType = typeOf(tile.getInput());
          if (inputType.getRank() == 0)
            return dy;
          SmallVector<int64_t> split, copies;
          for (auto [dim, multiple] : llvm::enumerate(tile.getMultiples())) {
            copies.push_back(split.size());
            split.push_back(multiple);
            split.push_back(inputType.getDimSize(dim));
          }
          Value grouped = rewriter.create<ReshapeOp>(
              loc, RankedTensorType::get(split, inputType.getElementType()),
              dy);
          return rewriter.create<ReduceSumOp>(loc, grouped, copies,
                                              /*keep_dims=*/false);
        });
      })
      .Case([&](BatchMatMulOp matmul) {
        // _BatchMatMulV2Grad: _MatMulGrad's products over the batch, each
        // summed over the batch dimensions its operand was broadcast along.
        Value x = matmul.getX(), y = matmul.getY();
        bool adjX = matmul.getAdjX(), adjY = matmul.getAdjY();
        auto mm = [&](Value lhs, Value rhs, bool adjLhs, bool adjRhs) -> Value {
          return rewriter.create<BatchMatMulOp>(loc, lhs, rhs, adjLhs, adjRhs);
        };
        propagate(x, [&] {
          Value gradient =
              adjX ? mm(y, dy, adjY, true) : mm(dy, y, false, !adjY);
          return sumToShape(gradient, typeOf(x), loc);
        });
        propagate(y, [&] {
          Value gradient =
              adjY ? mm(dy, x, true, adjX) : mm(x, dy, !adjX, false);
          return sumToShape(gradient, typeOf(y), loc);
        });
      })
      .Case([&](ReduceProdOp prod) {
        // _ProdGrad: dy times the product of the other elements of each
        // slice, exact where the slice holds zeros.
        propagate(prod.getInput(), [&]() -> Value {
          return rewriter.create<ReduceProdGradOp>(
              loc, prod.getInput(), dy, prod.getAxes(), prod.getKeepDims());
        });
      })
      .Default([](Operation *) {
        llvm_unreachable("analyze() checked that every op has a rule");
      });
}

//===----------------------------------------------------------------------===//
// AutodiffPass
//===----------------------------------------------------------------------===//

namespace {
struct AutodiffPass : dtf::ir::impl::AutodiffPassBase<AutodiffPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<MinimizeOp> minimizes;
    getOperation().walk(
        [&](MinimizeOp minimize) { minimizes.push_back(minimize); });
    for (MinimizeOp minimize : minimizes)
      if (failed(BackwardPass(minimize, colocateGradientsWithOps).run()))
        return signalPassFailure();
  }
};
} // namespace
