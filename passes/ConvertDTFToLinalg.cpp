//===- ConvertDTFToLinalg.cpp - dtf tensor math to linalg -----------------===//
//
// Implements --dtf-convert-to-linalg: every dtf op that is neither state nor
// a library call becomes linalg on tensors with arith/math bodies, computing
// what the CPU kernel of the same name in dtf_runtime computes, so that the
// GPU and the reference interpreter agree.
//
// Iteration spaces put parallel dimensions first and reduced ones last. After
// bufferization, convert-linalg-to-parallel-loops then gives one scf.parallel
// over the result with the reduction as an scf.for inside, which maps to one
// GPU thread per result element.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <limits>

namespace dtf::ir {
#define GEN_PASS_DEF_CONVERTDTFTOLINALGPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

namespace {

using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(loc, b.getFloatAttr(floatType, value));
  return b.create<arith::ConstantOp>(
      loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value add(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::AddFOp>(loc, x, y);
  return b.create<arith::AddIOp>(loc, x, y);
}

/// x > y, ordered for floats (false when either is NaN), signed for ints.
Value greater(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OGT, x, y);
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, x, y);
}

/// C++'s static_cast between element types, as the CPU `cast` kernel does
/// (i1 is C++'s bool).
Value convertScalar(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, from, 0);
    if (fromFloat)
      return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, x, zero);
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (fromFloat && toFloat) {
    if (toFloat.getWidth() > fromFloat.getWidth())
      return b.create<arith::ExtFOp>(loc, to, x);
    return b.create<arith::TruncFOp>(loc, to, x);
  }
  if (fromFloat)
    return b.create<arith::FPToSIOp>(loc, to, x);
  if (toFloat) {
    if (from.isInteger(1))
      return b.create<arith::UIToFPOp>(loc, to, x);
    return b.create<arith::SIToFPOp>(loc, to, x);
  }
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = to.getIntOrFloatBitWidth();
  if (toWidth < fromWidth)
    return b.create<arith::TruncIOp>(loc, to, x);
  if (from.isInteger(1))
    return b.create<arith::ExtUIOp>(loc, to, x);
  return b.create<arith::ExtSIOp>(loc, to, x);
}

//===----------------------------------------------------------------------===//
// Tensor helpers
//===----------------------------------------------------------------------===//

RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

SmallVector<utils::IteratorType> iterators(unsigned parallel,
                                           unsigned reduction = 0) {
  SmallVector<utils::IteratorType> result(parallel,
                                          utils::IteratorType::parallel);
  result.append(reduction, utils::IteratorType::reduction);
  return result;
}

/// Indexing map of an operand of shape `operand` broadcast (NumPy:
/// right-aligned, size-1 dimensions stretched) into an iteration space of
/// shape `result`.
AffineMap broadcastMap(ArrayRef<int64_t> operand, ArrayRef<int64_t> result,
                       MLIRContext *context) {
  SmallVector<AffineExpr> exprs;
  int64_t offset = result.size() - operand.size();
  for (auto [i, size] : llvm::enumerate(operand)) {
    int64_t dim = offset + i;
    exprs.push_back(size == 1 && result[dim] != 1
                        ? getAffineConstantExpr(0, context)
                        : getAffineDimExpr(dim, context));
  }
  return AffineMap::get(result.size(), 0, exprs, context);
}

/// An all-parallel linalg.generic of `resultType` whose element is
/// fn(elements of inputs), the inputs broadcast to the result shape. A
/// scalar is computed as a one-element vector and collapsed, so that even
/// it is a loop, which maps to a GPU thread.
Value elementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                  ValueRange inputs, ScalarFn fn) {
  MLIRContext *context = b.getContext();
  RankedTensorType loopType =
      resultType.getRank() == 0
          ? RankedTensorType::get({1}, resultType.getElementType())
          : resultType;
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(broadcastMap(tensorType(input).getShape(),
                                loopType.getShape(), context));
  maps.push_back(b.getMultiDimIdentityMap(loopType.getRank()));
  Value init = b.create<tensor::EmptyOp>(loc, loopType.getShape(),
                                         loopType.getElementType());
  auto generic = b.create<linalg::GenericOp>(
      loc, loopType, inputs, init, maps, iterators(loopType.getRank()),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        nested.create<linalg::YieldOp>(
            nestedLoc, fn(nested, nestedLoc, args.drop_back()));
      });
  if (loopType == resultType)
    return generic.getResult(0);
  return b.create<tensor::CollapseShapeOp>(
      loc, resultType, generic.getResult(0),
      SmallVector<ReassociationIndices>{});
}

/// `value` with the same elements in `type`'s static shape: a collapse to
/// one dimension followed by an expansion, either of which may vanish.
Value reshape(OpBuilder &b, Location loc, Value value, RankedTensorType type) {
  RankedTensorType source = tensorType(value);
  if (source.getShape() == type.getShape())
    return value;
  auto all = [](int64_t rank) {
    ReassociationIndices indices;
    for (int64_t i = 0; i < rank; ++i)
      indices.push_back(i);
    return SmallVector<ReassociationIndices>{indices};
  };
  int64_t count = source.getNumElements();
  auto flat = RankedTensorType::get(
      type.getRank() == 0 ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{count},
      source.getElementType());
  // Rank 0 collapses from and expands to an empty reassociation.
  if (source.getRank() > 1 || (source.getRank() == 1 && type.getRank() == 0))
    value = b.create<tensor::CollapseShapeOp>(
        loc, flat, value,
        type.getRank() == 0 ? SmallVector<ReassociationIndices>{}
                            : all(source.getRank()));
  else if (source.getRank() == 0 && type.getRank() > 0)
    value = b.create<tensor::ExpandShapeOp>(
        loc, RankedTensorType::get({1}, source.getElementType()), value,
        SmallVector<ReassociationIndices>{});
  if (type.getRank() > 1)
    value = b.create<tensor::ExpandShapeOp>(loc, type, value,
                                            all(type.getRank()));
  return value;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The iteration space of a reduction of a tensor over some of its
/// dimensions: the kept dimensions first (parallel), then the reduced ones.
/// When every dimension is reduced, a unit parallel dimension stands in for
/// the kept ones, so that the result is [1] rather than a scalar and still
/// maps to a GPU thread.
struct Reduction {
  Reduction(RankedTensorType input, ArrayRef<int64_t> reducedDims,
            MLIRContext *context) {
    ArrayRef<int64_t> shape = input.getShape();
    SmallVector<bool> reduced(shape.size(), false);
    for (int64_t dim : reducedDims)
      reduced[dim] = true;
    SmallVector<int64_t> kept;
    for (auto [dim, size] : llvm::enumerate(shape))
      if (!reduced[dim]) {
        kept.push_back(dim);
        keptShape.push_back(size);
      }
    numParallel = kept.empty() ? 1 : kept.size();
    numReduced = shape.size() - kept.size();
    if (kept.empty())
      keptShape.push_back(1);

    // Input dimension -> loop: kept ones in order, then reduced ones.
    SmallVector<AffineExpr> inputExprs(shape.size());
    unsigned nextReduced = numParallel;
    unsigned nextKept = 0;
    for (int64_t dim = 0; dim < input.getRank(); ++dim)
      inputExprs[dim] = getAffineDimExpr(
          reduced[dim] ? nextReduced++ : nextKept++, context);
    inputMap = AffineMap::get(numLoops(), 0, inputExprs, context);
    SmallVector<AffineExpr> keptExprs;
    for (unsigned loop = 0; loop < numParallel; ++loop)
      keptExprs.push_back(getAffineDimExpr(loop, context));
    keptMap = AffineMap::get(numLoops(), 0, keptExprs, context);
  }

  unsigned numLoops() const { return numParallel + numReduced; }
  /// The loop of the first reduced dimension.
  unsigned firstReducedLoop() const { return numParallel; }

  /// Map of an operand indexed by the kept dimensions (a row statistic)
  /// from the iteration space of an elementwise op over the input.
  AffineMap keptOperandMap(int64_t inputRank, MLIRContext *context) const {
    if (numReduced == static_cast<unsigned>(inputRank))
      return AffineMap::get(inputRank, 0, getAffineConstantExpr(0, context));
    SmallVector<AffineExpr> exprs;
    for (int64_t dim = 0; dim < inputRank - numReduced; ++dim)
      exprs.push_back(getAffineDimExpr(dim, context));
    return AffineMap::get(inputRank, 0, exprs, context);
  }

  unsigned numParallel;
  unsigned numReduced;
  SmallVector<int64_t> keptShape;
  AffineMap inputMap, keptMap;
};

using ReductionFn = function_ref<SmallVector<Value>(
    OpBuilder &, Location, ValueRange inputs, ValueRange kept,
    ValueRange accumulators)>;

/// A linalg.generic reducing `inputs` (of the reduction's input shape),
/// with `kept` operands indexed by the kept dimensions, into one output per
/// initial value, each of the kept shape.
SmallVector<Value> reduce(OpBuilder &b, Location loc, const Reduction &r,
                          ValueRange inputs, ValueRange kept,
                          ArrayRef<TypedAttr> initialValues, ReductionFn fn) {
  SmallVector<Value> outputs;
  SmallVector<Type> resultTypes;
  for (TypedAttr initial : initialValues) {
    auto type = RankedTensorType::get(r.keptShape, initial.getType());
    Value empty = b.create<tensor::EmptyOp>(loc, r.keptShape, initial.getType());
    Value value = b.create<arith::ConstantOp>(loc, initial);
    outputs.push_back(
        b.create<linalg::FillOp>(loc, value, empty).getResult(0));
    resultTypes.push_back(type);
  }
  SmallVector<Value> operands(inputs);
  operands.append(kept.begin(), kept.end());
  SmallVector<AffineMap> maps(inputs.size(), r.inputMap);
  maps.append(kept.size() + outputs.size(), r.keptMap);
  auto generic = b.create<linalg::GenericOp>(
      loc, resultTypes, operands, outputs, maps,
      iterators(r.numParallel, r.numReduced),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        nested.create<linalg::YieldOp>(
            nestedLoc,
            fn(nested, nestedLoc, args.take_front(inputs.size()),
               args.slice(inputs.size(), kept.size()),
               args.take_back(outputs.size())));
      });
  return generic.getResults();
}

/// The dimensions `axes` (TensorFlow's: empty means all, negative counts
/// from the end) designate in a tensor of rank `rank`.
SmallVector<int64_t> reducedDims(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> dims;
  if (axes.empty()) {
    for (int64_t dim = 0; dim < rank; ++dim)
      dims.push_back(dim);
    return dims;
  }
  for (int64_t axis : axes)
    dims.push_back(axis < 0 ? axis + rank : axis);
  return dims;
}

TypedAttr floatAttr(Type type, double value) {
  return FloatAttr::get(type, value);
}

/// Sums `input` over `dims` into `resultType` (whose shape is the kept one
/// with or without unit dimensions), dividing by the number of reduced
/// elements when `mean`. Float sums accumulate in f64 and integer sums in
/// their own type, as the CPU kernels do.
Value sum(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> dims,
          bool mean, RankedTensorType resultType) {
  MLIRContext *context = b.getContext();
  RankedTensorType inputType = tensorType(input);
  Type element = inputType.getElementType();
  Type accumulator = isa<FloatType>(element) ? Float64Type::get(context)
                                             : element;
  Reduction r(inputType, dims, context);
  TypedAttr zero = isa<FloatType>(accumulator)
                       ? floatAttr(accumulator, 0.0)
                       : TypedAttr(b.getIntegerAttr(accumulator, 0));
  Value sums = reduce(
      b, loc, r, input, {}, zero,
      [&](OpBuilder &nb, Location nloc, ValueRange in, ValueRange,
          ValueRange acc) -> SmallVector<Value> {
        return {add(nb, nloc, convertScalar(nb, nloc, in[0], accumulator),
                    acc[0])};
      })[0];
  int64_t count = 1;
  for (int64_t dim : dims)
    count *= inputType.getDimSize(dim);
  auto keptType = RankedTensorType::get(r.keptShape, element);
  Value result = elementwise(
      b, loc, keptType, sums,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Value value = args[0];
        if (mean)
          value = nb.create<arith::DivFOp>(
              nloc, value,
              scalarConstant(nb, nloc, accumulator,
                             static_cast<double>(count)));
        return convertScalar(nb, nloc, value, element);
      });
  return reshape(b, loc, result, resultType);
}

/// Statistics of the rows (last dimension) of a float tensor `x`: the
/// maximum and the sum of exp(x - maximum), shaped as the kept dimensions.
struct RowSoftmax {
  Reduction r;
  Value max, sumExp;
};

RowSoftmax rowSoftmax(OpBuilder &b, Location loc, Value x) {
  RankedTensorType type = tensorType(x);
  Type element = type.getElementType();
  RowSoftmax stats{Reduction(type, {type.getRank() - 1}, b.getContext()), {},
                   {}};
  stats.max =
      reduce(b, loc, stats.r, x, {},
             floatAttr(element, -std::numeric_limits<double>::infinity()),
             [](OpBuilder &nb, Location nloc, ValueRange in, ValueRange,
                ValueRange acc) -> SmallVector<Value> {
               return {nb.create<arith::SelectOp>(
                   nloc, greater(nb, nloc, in[0], acc[0]), in[0], acc[0])};
             })[0];
  stats.sumExp =
      reduce(b, loc, stats.r, x, stats.max, floatAttr(element, 0.0),
             [](OpBuilder &nb, Location nloc, ValueRange in, ValueRange kept,
                ValueRange acc) -> SmallVector<Value> {
               Value shifted = nb.create<arith::SubFOp>(nloc, in[0], kept[0]);
               return {nb.create<arith::AddFOp>(
                   nloc, nb.create<math::ExpOp>(nloc, shifted), acc[0])};
             })[0];
  return stats;
}

/// exp(x - max) * (1 / sum), the softmax of x from its row statistics.
Value softmaxElement(OpBuilder &b, Location loc, Value x, Value max,
                     Value sumExp) {
  Value one = scalarConstant(b, loc, x.getType(), 1.0);
  Value shifted = b.create<arith::SubFOp>(loc, x, max);
  return b.create<arith::MulFOp>(loc, b.create<math::ExpOp>(loc, shifted),
                                 b.create<arith::DivFOp>(loc, one, sumExp));
}

/// An all-parallel generic over the shape of `x` whose operands are
/// `full` (of x's shape) and `rows` (row statistics of `r`).
Value overRows(OpBuilder &b, Location loc, const Reduction &r,
               RankedTensorType resultType, ValueRange full, ValueRange rows,
               ScalarFn fn) {
  MLIRContext *context = b.getContext();
  int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps(full.size(), b.getMultiDimIdentityMap(rank));
  maps.append(rows.size(), r.keptOperandMap(rank, context));
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<Value> operands(full);
  operands.append(rows.begin(), rows.end());
  Value init = b.create<tensor::EmptyOp>(loc, resultType.getShape(),
                                         resultType.getElementType());
  return b
      .create<linalg::GenericOp>(
          loc, resultType, operands, init, maps, iterators(rank),
          [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
            nested.create<linalg::YieldOp>(
                nestedLoc, fn(nested, nestedLoc, args.drop_back()));
          })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// Elementwise ops whose scalar computation depends only on the operands.
template <typename Op>
struct ElementwisePattern : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using OpAdaptor = typename Op::Adaptor;

  /// The scalar computation of `op` on its operands' elements.
  static Value compute(Op op, OpBuilder &b, Location loc, ValueRange args);

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    rewriter.replaceOp(
        op, elementwise(rewriter, op.getLoc(), resultType,
                        adaptor.getOperands(),
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return compute(op, b, loc, args);
                        }));
    return success();
  }
};

#define DTF_BINARY(Op, FloatOp, IntOp)                                         \
  template <>                                                                  \
  Value ElementwisePattern<Op>::compute(Op, OpBuilder &b, Location loc,        \
                                        ValueRange args) {                     \
    if (isa<FloatType>(args[0].getType()))                                     \
      return b.create<FloatOp>(loc, args[0], args[1]);                         \
    return b.create<IntOp>(loc, args[0], args[1]);                             \
  }
DTF_BINARY(AddOp, arith::AddFOp, arith::AddIOp)
DTF_BINARY(SubOp, arith::SubFOp, arith::SubIOp)
DTF_BINARY(MulOp, arith::MulFOp, arith::MulIOp)
DTF_BINARY(DivOp, arith::DivFOp, arith::DivSIOp)
DTF_BINARY(BiasAddOp, arith::AddFOp, arith::AddIOp)

DTF_BINARY(MinimumOp, arith::MinimumFOp, arith::MinSIOp)
DTF_BINARY(MaximumOp, arith::MaximumFOp, arith::MaxSIOp)
#undef DTF_BINARY

template <>
Value ElementwisePattern<PowOp>::compute(PowOp, OpBuilder &b, Location loc,
                                         ValueRange args) {
  return b.create<math::PowFOp>(loc, args[0], args[1]);
}

template <>
Value ElementwisePattern<DivNoNanOp>::compute(DivNoNanOp, OpBuilder &b,
                                              Location loc, ValueRange args) {
  Value zero = scalarConstant(b, loc, args[0].getType(), 0);
  Value isZero =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OEQ, args[1], zero);
  return b.create<arith::SelectOp>(
      loc, isZero, zero, b.create<arith::DivFOp>(loc, args[0], args[1]));
}

// Ordered float predicates are false on NaN, as the CPU kernels' C++
// comparisons; NotEqual is the unordered one, true on NaN.
#define DTF_COMPARE(Op, FloatPredicate, IntPredicate)                          \
  template <>                                                                  \
  Value ElementwisePattern<Op>::compute(Op, OpBuilder &b, Location loc,        \
                                        ValueRange args) {                     \
    if (isa<FloatType>(args[0].getType()))                                     \
      return b.create<arith::CmpFOp>(                                          \
          loc, arith::CmpFPredicate::FloatPredicate, args[0], args[1]);        \
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::IntPredicate,    \
                                   args[0], args[1]);                          \
  }
DTF_COMPARE(EqualOp, OEQ, eq)
DTF_COMPARE(NotEqualOp, UNE, ne)
DTF_COMPARE(GreaterOp, OGT, sgt)
DTF_COMPARE(GreaterEqualOp, OGE, sge)
DTF_COMPARE(LessOp, OLT, slt)
DTF_COMPARE(LessEqualOp, OLE, sle)
#undef DTF_COMPARE

template <>
Value ElementwisePattern<LogicalAndOp>::compute(LogicalAndOp, OpBuilder &b,
                                                Location loc, ValueRange args) {
  return b.create<arith::AndIOp>(loc, args[0], args[1]);
}

template <>
Value ElementwisePattern<LogicalOrOp>::compute(LogicalOrOp, OpBuilder &b,
                                               Location loc, ValueRange args) {
  return b.create<arith::OrIOp>(loc, args[0], args[1]);
}

template <>
Value ElementwisePattern<LogicalNotOp>::compute(LogicalNotOp, OpBuilder &b,
                                                Location loc, ValueRange args) {
  return b.create<arith::XOrIOp>(loc, args[0],
                                 scalarConstant(b, loc, args[0].getType(), 1));
}

template <>
Value ElementwisePattern<SelectOp>::compute(SelectOp, OpBuilder &b,
                                            Location loc, ValueRange args) {
  return b.create<arith::SelectOp>(loc, args[0], args[1], args[2]);
}

template <>
Value ElementwisePattern<AbsOp>::compute(AbsOp, OpBuilder &b, Location loc,
                                         ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return b.create<math::AbsFOp>(loc, args[0]);
  return b.create<math::AbsIOp>(loc, args[0]);
}

template <>
Value ElementwisePattern<SignOp>::compute(SignOp, OpBuilder &b, Location loc,
                                          ValueRange args) {
  // (x > 0) - (x < 0): 0 for both zeros; NaN stays NaN, as on the CPU.
  Type type = args[0].getType();
  Value zero = scalarConstant(b, loc, type, 0);
  Value positive =
      b.create<arith::SelectOp>(loc, greater(b, loc, args[0], zero),
                                scalarConstant(b, loc, type, 1), zero);
  Value sign =
      b.create<arith::SelectOp>(loc, greater(b, loc, zero, args[0]),
                                scalarConstant(b, loc, type, -1), positive);
  if (!isa<FloatType>(type))
    return sign;
  Value isNaN =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, args[0], args[0]);
  return b.create<arith::SelectOp>(loc, isNaN, args[0], sign);
}

template <>
Value ElementwisePattern<StopGradientOp>::compute(StopGradientOp, OpBuilder &,
                                                  Location, ValueRange args) {
  return args[0];
}

#define DTF_MATH_UNARY(Op, MathOp)                                             \
  template <>                                                                  \
  Value ElementwisePattern<Op>::compute(Op, OpBuilder &b, Location loc,        \
                                        ValueRange args) {                     \
    return b.create<MathOp>(loc, args[0]);                                     \
  }
DTF_MATH_UNARY(ExpOp, math::ExpOp)
DTF_MATH_UNARY(TanhOp, math::TanhOp)
DTF_MATH_UNARY(SqrtOp, math::SqrtOp)
DTF_MATH_UNARY(RsqrtOp, math::RsqrtOp)
DTF_MATH_UNARY(FloorOp, math::FloorOp)
#undef DTF_MATH_UNARY

template <>
Value ElementwisePattern<NegOp>::compute(NegOp, OpBuilder &b, Location loc,
                                         ValueRange args) {
  if (isa<FloatType>(args[0].getType()))
    return b.create<arith::NegFOp>(loc, args[0]);
  return b.create<arith::SubIOp>(
      loc, scalarConstant(b, loc, args[0].getType(), 0), args[0]);
}

template <>
Value ElementwisePattern<ReluOp>::compute(ReluOp, OpBuilder &b, Location loc,
                                          ValueRange args) {
  // x > 0 ? x : 0, so that NaN gives 0 as on the CPU.
  Value zero = scalarConstant(b, loc, args[0].getType(), 0);
  return b.create<arith::SelectOp>(loc, greater(b, loc, args[0], zero),
                                   args[0], zero);
}

template <>
Value ElementwisePattern<ReluGradOp>::compute(ReluGradOp, OpBuilder &b,
                                              Location loc, ValueRange args) {
  Value zero = scalarConstant(b, loc, args[0].getType(), 0);
  return b.create<arith::SelectOp>(loc, greater(b, loc, args[1], zero),
                                   args[0], zero);
}

template <>
Value ElementwisePattern<LogOp>::compute(LogOp, OpBuilder &b, Location loc,
                                         ValueRange args) {
  return b.create<math::LogOp>(loc, args[0]);
}

template <>
Value ElementwisePattern<ClipByValueOp>::compute(ClipByValueOp op,
                                                 OpBuilder &b, Location loc,
                                                 ValueRange args) {
  // std::min(std::max(x, lo), hi), NaN included.
  Type type = args[0].getType();
  Value lo = scalarConstant(b, loc, type, op.getMin().convertToDouble());
  Value hi = scalarConstant(b, loc, type, op.getMax().convertToDouble());
  Value below = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT,
                                        args[0], lo);
  Value raised = b.create<arith::SelectOp>(loc, below, lo, args[0]);
  Value above =
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLT, hi, raised);
  return b.create<arith::SelectOp>(loc, above, hi, raised);
}

template <>
Value ElementwisePattern<ClipByValueGradOp>::compute(ClipByValueGradOp op,
                                                     OpBuilder &b,
                                                     Location loc,
                                                     ValueRange args) {
  Type type = args[0].getType();
  Value lo = scalarConstant(b, loc, type, op.getMin().convertToDouble());
  Value hi = scalarConstant(b, loc, type, op.getMax().convertToDouble());
  Value inside = b.create<arith::AndIOp>(
      loc,
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLE, lo, args[1]),
      b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::OLE, args[1], hi));
  return b.create<arith::SelectOp>(loc, inside, args[0],
                                   scalarConstant(b, loc, type, 0));
}

template <>
Value ElementwisePattern<CastOp>::compute(CastOp op, OpBuilder &b, Location loc,
                                          ValueRange args) {
  return convertScalar(b, loc, args[0],
                       getElementTypeOrSelf(op.getOutput().getType()));
}

template <>
Value ElementwisePattern<BroadcastToOp>::compute(BroadcastToOp, OpBuilder &,
                                                 Location, ValueRange args) {
  return args[0];
}

struct ConstantPattern : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, cast<TypedAttr>(op.getValue()));
    return success();
  }
};

struct ReshapePattern : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, reshape(rewriter, op.getLoc(), adaptor.getInput(),
                                   tensorType(op.getOutput())));
    return success();
  }
};

template <typename Op>
struct SumPattern : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using OpAdaptor = typename Op::Adaptor;
  static constexpr bool isMean = std::is_same_v<Op, ReduceMeanOp>;

  LogicalResult
  matchAndRewrite(Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value input = adaptor.getInput();
    rewriter.replaceOp(
        op, sum(rewriter, op.getLoc(), input,
                reducedDims(op.getAxes(), tensorType(input).getRank()),
                isMean, tensorType(op.getOutput())));
    return success();
  }
};

struct BiasAddGradPattern : OpConversionPattern<BiasAddGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BiasAddGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t rank = tensorType(adaptor.getDy()).getRank();
    SmallVector<int64_t> dims;
    for (int64_t dim = 0; dim + 1 < rank; ++dim)
      dims.push_back(dim);
    rewriter.replaceOp(op, sum(rewriter, op.getLoc(), adaptor.getDy(), dims,
                               /*mean=*/false, tensorType(op.getOutput())));
    return success();
  }
};

struct ArgMaxPattern : OpConversionPattern<ArgMaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ArgMaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    RankedTensorType type = tensorType(input);
    int64_t axis = op.getAxisAttr().getValue().getSExtValue();
    if (axis < 0)
      axis += type.getRank();
    Reduction r(type, {axis}, getContext());
    Type element = type.getElementType();
    TypedAttr anyValue = isa<FloatType>(element)
                             ? floatAttr(element, 0.0)
                             : TypedAttr(rewriter.getIntegerAttr(element, 0));
    unsigned axisLoop = r.firstReducedLoop();
    // The first element of the axis is taken unconditionally, a later one
    // when strictly greater: the first maximum wins, as on the CPU.
    SmallVector<Value> results = reduce(
        rewriter, loc, r, input, {},
        {anyValue, rewriter.getI64IntegerAttr(0)},
        [&](OpBuilder &b, Location nloc, ValueRange in, ValueRange,
            ValueRange acc) -> SmallVector<Value> {
          Value k = b.create<linalg::IndexOp>(nloc, axisLoop);
          Value first = b.create<arith::CmpIOp>(
              nloc, arith::CmpIPredicate::eq, k,
              b.create<arith::ConstantIndexOp>(nloc, 0));
          Value take = b.create<arith::OrIOp>(
              nloc, first, greater(b, nloc, in[0], acc[0]));
          Value index =
              b.create<arith::IndexCastOp>(nloc, b.getI64Type(), k);
          return {b.create<arith::SelectOp>(nloc, take, in[0], acc[0]),
                  b.create<arith::SelectOp>(nloc, take, index, acc[1])};
        });
    rewriter.replaceOp(
        op, reshape(rewriter, loc, results[1], tensorType(op.getOutput())));
    return success();
  }
};

struct SoftmaxPattern : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    RowSoftmax stats = rowSoftmax(rewriter, loc, x);
    rewriter.replaceOp(
        op, overRows(rewriter, loc, stats.r, tensorType(x), x,
                     {stats.max, stats.sumExp},
                     [](OpBuilder &b, Location nloc, ValueRange args) {
                       return softmaxElement(b, nloc, args[0], args[1],
                                             args[2]);
                     }));
    return success();
  }
};

struct SoftmaxGradPattern : OpConversionPattern<SoftmaxGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value dy = adaptor.getDy();
    Value y = adaptor.getSoftmax();
    RankedTensorType type = tensorType(y);
    Reduction r(type, {type.getRank() - 1}, getContext());
    // (dy - sum(dy * y, last axis)) * y
    Value dot =
        reduce(rewriter, loc, r, {dy, y}, {},
               floatAttr(type.getElementType(), 0.0),
               [](OpBuilder &b, Location nloc, ValueRange in, ValueRange,
                  ValueRange acc) -> SmallVector<Value> {
                 return {b.create<arith::AddFOp>(
                     nloc, b.create<arith::MulFOp>(nloc, in[0], in[1]),
                     acc[0])};
               })[0];
    rewriter.replaceOp(
        op, overRows(rewriter, loc, r, type, {dy, y}, dot,
                     [](OpBuilder &b, Location nloc, ValueRange args) {
                       return b.create<arith::MulFOp>(
                           nloc,
                           b.create<arith::SubFOp>(nloc, args[0], args[2]),
                           args[1]);
                     }));
    return success();
  }
};

struct SoftmaxCrossEntropyPattern
    : OpConversionPattern<SoftmaxCrossEntropyWithLogitsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxCrossEntropyWithLogitsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value logits = adaptor.getLogits();
    Value labels = adaptor.getLabels();
    RowSoftmax stats = rowSoftmax(rewriter, loc, logits);
    // sum(labels * (logsumexp - logits)), logsumexp = max + log(sum exp).
    Value loss =
        reduce(rewriter, loc, stats.r, {labels, logits},
               {stats.max, stats.sumExp},
               floatAttr(tensorType(logits).getElementType(), 0.0),
               [](OpBuilder &b, Location nloc, ValueRange in, ValueRange kept,
                  ValueRange acc) -> SmallVector<Value> {
                 Value logSumExp = b.create<arith::AddFOp>(
                     nloc, kept[0], b.create<math::LogOp>(nloc, kept[1]));
                 Value term = b.create<arith::MulFOp>(
                     nloc, in[0],
                     b.create<arith::SubFOp>(nloc, logSumExp, in[1]));
                 return {b.create<arith::AddFOp>(nloc, term, acc[0])};
               })[0];
    rewriter.replaceOp(op, loss);
    return success();
  }
};

struct SoftmaxCrossEntropyGradPattern
    : OpConversionPattern<SoftmaxCrossEntropyWithLogitsGradOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxCrossEntropyWithLogitsGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value logits = adaptor.getLogits();
    RowSoftmax stats = rowSoftmax(rewriter, loc, logits);
    // dloss * (softmax(logits) - labels)
    rewriter.replaceOp(
        op, overRows(rewriter, loc, stats.r, tensorType(logits),
                     {logits, adaptor.getLabels()},
                     {adaptor.getDloss(), stats.max, stats.sumExp},
                     [](OpBuilder &b, Location nloc, ValueRange args) {
                       Value softmax =
                           softmaxElement(b, nloc, args[0], args[3], args[4]);
                       return b.create<arith::MulFOp>(
                           nloc, args[2],
                           b.create<arith::SubFOp>(nloc, softmax, args[1]));
                     }));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The ops this pass lowers, with the element types each accepts.
enum class Elements { Any, Numeric, Float };

std::optional<Elements> supportedElements(Operation *op) {
  if (isa<ConstantOp, ReshapeOp, BroadcastToOp, CastOp, EqualOp, NotEqualOp,
          LogicalAndOp, LogicalOrOp, LogicalNotOp, SelectOp, StopGradientOp>(
          op))
    return Elements::Any;
  if (isa<AddOp, SubOp, MulOp, DivOp, MinimumOp, MaximumOp, GreaterOp,
          GreaterEqualOp, LessOp, LessEqualOp, NegOp, AbsOp, SignOp, ReluOp,
          ReluGradOp, BiasAddOp, BiasAddGradOp, ReduceSumOp, ArgMaxOp>(op))
    return Elements::Numeric;
  if (isa<LogOp, ExpOp, TanhOp, SqrtOp, RsqrtOp, FloorOp, PowOp, DivNoNanOp,
          ClipByValueOp, ClipByValueGradOp, ReduceMeanOp, SoftmaxOp,
          SoftmaxGradOp, SoftmaxCrossEntropyWithLogitsOp,
          SoftmaxCrossEntropyWithLogitsGradOp>(op))
    return Elements::Float;
  return std::nullopt;
}

/// Emits an error for a dtf op this pass cannot lower, naming what would.
LogicalResult checkLowerable(Operation *op) {
  std::optional<Elements> elements = supportedElements(op);
  if (!elements) {
    InFlightDiagnostic diag = op->emitOpError("has no linalg lowering");
    if (isa<PlaceholderOp, VariableOp, ReadOp, ApplyGradientsOp, MinimizeOp>(
            op))
      diag << "; run --dtf-lift-graph-inputs first";
    else if (isa<MatMulOp, Conv2DOp, Conv2DBackpropInputOp,
                 Conv2DBackpropFilterOp, MaxPoolOp, MaxPoolGradOp>(op))
      diag << "; run --dtf-convert-to-cuda-calls first";
    else if (isa<AssignOp, AssignAddOp, AssignMovingAverageOp,
                 ApplyGradientDescentOp, ApplyMomentumOp, ApplyAdamOp>(op))
      diag << " (variable updates run on the parameter server)";
    return diag;
  }
  SmallVector<Type> types(op->getOperandTypes());
  llvm::append_range(types, op->getResultTypes());
  for (Type type : types) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      continue;
    if (!tensor.hasStaticShape())
      return op->emitOpError("needs static shapes to run on a GPU, got ")
             << tensor;
    Type element = tensor.getElementType();
    bool ok = isa<FloatType>(element) || element.isSignlessInteger();
    if (*elements == Elements::Float && !isa<FloatType>(element))
      ok = false;
    if (!ok)
      return op->emitOpError("has no GPU lowering for elements of type ")
             << element;
  }
  return success();
}

struct ConvertDTFToLinalgPass
    : public dtf::ir::impl::ConvertDTFToLinalgPassBase<ConvertDTFToLinalgPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    WalkResult checked = function.walk([](Operation *op) {
      if (isa<DTFDialect>(op->getDialect()) && failed(checkLowerable(op)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (checked.wasInterrupted())
      return signalPassFailure();

    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<
        ElementwisePattern<AddOp>, ElementwisePattern<SubOp>,
        ElementwisePattern<MulOp>, ElementwisePattern<DivOp>,
        ElementwisePattern<DivNoNanOp>, ElementwisePattern<MinimumOp>,
        ElementwisePattern<MaximumOp>, ElementwisePattern<PowOp>,
        ElementwisePattern<EqualOp>, ElementwisePattern<NotEqualOp>,
        ElementwisePattern<GreaterOp>, ElementwisePattern<GreaterEqualOp>,
        ElementwisePattern<LessOp>, ElementwisePattern<LessEqualOp>,
        ElementwisePattern<LogicalAndOp>, ElementwisePattern<LogicalOrOp>,
        ElementwisePattern<LogicalNotOp>, ElementwisePattern<SelectOp>,
        ElementwisePattern<AbsOp>, ElementwisePattern<SignOp>,
        ElementwisePattern<StopGradientOp>, ElementwisePattern<ExpOp>,
        ElementwisePattern<TanhOp>, ElementwisePattern<SqrtOp>,
        ElementwisePattern<RsqrtOp>, ElementwisePattern<FloorOp>,
        ElementwisePattern<BiasAddOp>, ElementwisePattern<NegOp>,
        ElementwisePattern<ReluOp>, ElementwisePattern<ReluGradOp>,
        ElementwisePattern<LogOp>, ElementwisePattern<ClipByValueOp>,
        ElementwisePattern<ClipByValueGradOp>, ElementwisePattern<CastOp>,
        ElementwisePattern<BroadcastToOp>, ConstantPattern, ReshapePattern,
        SumPattern<ReduceSumOp>, SumPattern<ReduceMeanOp>, BiasAddGradPattern,
        ArgMaxPattern, SoftmaxPattern, SoftmaxGradPattern,
        SoftmaxCrossEntropyPattern, SoftmaxCrossEntropyGradPattern>(context);

    ConversionTarget target(*context);
    target.addIllegalDialect<DTFDialect>();
    target.addLegalDialect<arith::ArithDialect, bufferization::BufferizationDialect,
                           linalg::LinalgDialect, math::MathDialect,
                           memref::MemRefDialect, tensor::TensorDialect,
                           func::FuncDialect>();
    if (failed(applyPartialConversion(function, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
