//===- DTFOps.cpp - dtf dialect operations ---------------------------------===//
//
// Shape functions follow TensorFlow's; every shape error names the shapes
// involved so that a user can find the offending op in a large graph.
//
//===----------------------------------------------------------------------===//

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>

using namespace mlir;
using namespace dtf::ir;

/// Whether two dimension sizes can describe the same tensor.
static bool dimsCompatible(int64_t lhs, int64_t rhs) {
  return ShapedType::isDynamic(lhs) || ShapedType::isDynamic(rhs) ||
         lhs == rhs;
}

// When a custom parser infers result types, the attributes written in the
// op's attr-dict are still in the adaptor's dictionary, not yet in its
// properties, and default-valued attributes are not filled in; so shape
// functions read such attributes through these helpers, which look in the
// properties, then in the dictionary, then fall back on the default.
static bool flagOrFalse(BoolAttr flag, DictionaryAttr attributes,
                        StringRef name) {
  if (!flag && attributes)
    flag = attributes.getAs<BoolAttr>(name);
  return flag && flag.getValue();
}
static ArrayRef<int64_t> axesOrAll(DenseI64ArrayAttr axes,
                                   DictionaryAttr attributes, StringRef name) {
  if (!axes && attributes)
    axes = attributes.getAs<DenseI64ArrayAttr>(name);
  return axes ? axes.asArrayRef() : ArrayRef<int64_t>();
}

/// `custom<Padding>`: the bare keyword SAME or VALID.
static ParseResult parsePadding(OpAsmParser &parser, PaddingAttr &padding) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Padding> value = symbolizePadding(keyword);
  if (!value)
    return parser.emitError(loc, "expected padding SAME or VALID, got '")
           << keyword << "'";
  padding = PaddingAttr::get(parser.getContext(), *value);
  return success();
}

static void printPadding(OpAsmPrinter &printer, Operation *,
                         PaddingAttr padding) {
  printer << stringifyPadding(padding.getValue());
}

/// `custom<Combiner>`: the bare keyword sum, mean or sqrtn.
static ParseResult parseCombiner(OpAsmParser &parser, CombinerAttr &combiner) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<Combiner> value = symbolizeCombiner(keyword);
  if (!value)
    return parser.emitError(loc, "expected combiner sum, mean or sqrtn, got '")
           << keyword << "'";
  combiner = CombinerAttr::get(parser.getContext(), *value);
  return success();
}

static void printCombiner(OpAsmPrinter &printer, Operation *,
                          CombinerAttr combiner) {
  printer << stringifyCombiner(combiner.getValue());
}

/// `custom<DeviceName>`: a #dtf.device written as its quoted name, as in
/// `from "/job:worker/task:0"`.
static ParseResult parseDeviceName(OpAsmParser &parser, DeviceAttr &device) {
  SMLoc loc = parser.getCurrentLocation();
  std::string name;
  if (parser.parseString(&name))
    return failure();
  std::string error;
  FailureOr<DeviceAttr> parsed =
      DeviceAttr::parseDeviceName(parser.getContext(), name, error);
  if (failed(parsed))
    return parser.emitError(loc, "invalid device '") << name << "': " << error;
  device = *parsed;
  return success();
}

static void printDeviceName(OpAsmPrinter &printer, Operation *,
                            DeviceAttr device) {
  printer << '"' << device.getName() << '"';
}

/// `axis` counted from the front (negative axes count from the end), or an
/// error naming `type` when it is out of range.
static FailureOr<int64_t> normalizeAxis(std::optional<Location> location,
                                        int64_t axis, RankedTensorType type) {
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank) {
    (void)emitOptionalError(location, "axis ", axis, " is out of range for ",
                            type);
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// VariableOp
//===----------------------------------------------------------------------===//

/// Checks `colocate_with`: it names another variable of the block, and
/// following the chain of targets ends at a variable without one.
static LogicalResult verifyColocation(VariableOp variable) {
  std::optional<StringRef> target = variable.getColocateWith();
  if (!target)
    return success();
  if (*target == variable.getName())
    return variable.emitOpError("variable '")
           << variable.getName() << "' cannot be colocated with itself";
  llvm::StringMap<VariableOp> byName;
  for (auto sibling : variable->getBlock()->getOps<VariableOp>())
    byName.try_emplace(sibling.getName(), sibling);
  if (!byName.count(*target))
    return variable.emitOpError("colocate_with names '")
           << *target << "', but there is no such variable in this block";
  // Placement follows the chain to a variable without `colocate_with`; a
  // cycle would leave the whole chain without a device.
  llvm::SmallPtrSet<Operation *, 8> seen = {variable.getOperation()};
  for (VariableOp next = byName.lookup(*target); next;
       next = next.getColocateWith() ? byName.lookup(*next.getColocateWith())
                                     : VariableOp()) {
    if (!seen.insert(next).second)
      return variable.emitOpError("colocation of '")
             << variable.getName() << "' with '" << *target
             << "' forms a cycle";
  }
  return success();
}

LogicalResult VariableOp::verify() {
  if (failed(verifyColocation(*this)))
    return failure();
  // Only a dynamic table, or a slot that follows one's rows, has a dynamic
  // number of rows.
  if (!getValueType().hasStaticShape() && !isDynamicTable()) {
    VariableOp target = getColocationTarget();
    if (!target || !target.isDynamicTable())
      return emitOpError("variable '")
             << getName() << "' of type " << getValueType()
             << " has a dynamic number of rows, but is neither a "
                "#dtf.dynamic_table nor colocated with one";
  }
  // Its rows exist only for the ids met so far, so there is no whole value
  // to read, assign or push.
  if (!getValueType().hasStaticShape())
    for (Operation *user : getHandle().getUsers())
      if (!isa<EmbeddingLookupOp, ApplyGradientsOp,
               SparseApplyGradientDescentOp, SparseApplyAdagradOp,
               SparseApplyFtrlOp, SparseApplyAdamOp>(user))
        return user->emitOpError("uses dynamic table '")
               << getName()
               << "' whole, but a dynamic table is only looked up and "
                  "updated by rows";
  Type elementType = getValueType().getElementType();
  if (isa<TruncatedNormalInitAttr, RandomNormalInitAttr, RandomUniformInitAttr,
          OrthogonalInitAttr>(getInitializer()) &&
      !isa<FloatType>(elementType))
    return emitOpError("random initializer needs a float variable, got ")
           << getValueType();
  if (isa<OrthogonalInitAttr>(getInitializer()) && getValueType().getRank() < 2)
    return emitOpError("orthogonal initializer needs a variable of rank 2 or "
                       "more (a matrix of rows and columns), got ")
           << getValueType();
  if (auto dense = dyn_cast<DenseInitAttr>(getInitializer());
      dense && dense.getValue().getType() != getValueType())
    return emitOpError("dense_init values of type ")
           << dense.getValue().getType() << " do not match the variable's "
           << getValueType();
  // Variable names identify checkpoint entries and PS state, so a duplicate
  // would silently alias two variables. The later definition is the one at
  // fault, so only the variables before this one are looked at.
  Block *block = (*this)->getBlock();
  for (Operation &sibling :
       llvm::make_range(block->begin(), (*this)->getIterator())) {
    auto other = dyn_cast<VariableOp>(sibling);
    if (other && other.getName() == getName()) {
      InFlightDiagnostic diag = emitOpError("variable name '")
                                << getName()
                                << "' is already used in this block";
      diag.attachNote(other.getLoc()) << "previous definition here";
      return diag;
    }
  }
  return success();
}

VariableOp VariableOp::getColocationTarget() {
  std::optional<StringRef> target = getColocateWith();
  if (!target)
    return {};
  for (Operation &sibling : *(*this)->getBlock())
    if (auto other = dyn_cast<VariableOp>(sibling))
      if (other.getName() == *target)
        return other;
  return {};
}

//===----------------------------------------------------------------------===//
// ReadOp
//===----------------------------------------------------------------------===//

LogicalResult ReadOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto resource = dyn_cast<ResourceType>(adaptor.getResource().getType());
  if (!resource)
    return failure();
  inferred.push_back(resource.getValueType());
  return success();
}

//===----------------------------------------------------------------------===//
// MatMulOp
//===----------------------------------------------------------------------===//

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto a = dyn_cast<RankedTensorType>(adaptor.getA().getType());
  auto b = dyn_cast<RankedTensorType>(adaptor.getB().getType());
  if (!a || !b || a.getRank() != 2 || b.getRank() != 2)
    return emitOptionalError(location, "expects two 2-D tensors, got ",
                             adaptor.getA().getType(), " and ",
                             adaptor.getB().getType());
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(location, "element types differ: ", a, " and ",
                             b);
  bool transposeA = flagOrFalse(adaptor.getTransposeAAttr(),
                                adaptor.getAttributes(), "transpose_a");
  bool transposeB = flagOrFalse(adaptor.getTransposeBAttr(),
                                adaptor.getAttributes(), "transpose_b");
  int64_t rows = a.getDimSize(transposeA ? 1 : 0);
  int64_t innerA = a.getDimSize(transposeA ? 0 : 1);
  int64_t innerB = b.getDimSize(transposeB ? 1 : 0);
  int64_t cols = b.getDimSize(transposeB ? 0 : 1);
  if (!dimsCompatible(innerA, innerB))
    return emitOptionalError(
        location, "inner dimensions differ: ", a,
        transposeA ? " (transposed)" : "", " and ", b,
        transposeB ? " (transposed)" : "", " multiply ", innerA, " by ",
        innerB);
  inferred.push_back(RankedTensorType::get({rows, cols}, a.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Broadcasting elementwise ops
//===----------------------------------------------------------------------===//

/// The NumPy-broadcast shape of `lhs` and `rhs` with `elementType`, or an
/// error naming both shapes. A null `elementType` keeps the operands'.
static LogicalResult inferBroadcastType(std::optional<Location> location,
                                        Type lhsType, Type rhsType,
                                        Type elementType,
                                        SmallVectorImpl<Type> &inferred) {
  auto lhs = dyn_cast<RankedTensorType>(lhsType);
  auto rhs = dyn_cast<RankedTensorType>(rhsType);
  if (!lhs || !rhs)
    return emitOptionalError(location, "expects ranked tensors, got ", lhsType,
                             " and ", rhsType);
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(location, "element types differ: ", lhs, " and ",
                             rhs);
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(lhs.getShape(), rhs.getShape(),
                                          shape))
    return emitOptionalError(location, "shapes are not broadcast-compatible: ",
                             lhs, " and ", rhs);
  inferred.push_back(RankedTensorType::get(
      shape, elementType ? elementType : lhs.getElementType()));
  return success();
}

#define DTF_BROADCAST_BINARY_INFERENCE(OpClass)                                \
  LogicalResult OpClass::inferReturnTypes(                                     \
      MLIRContext *, std::optional<Location> location, Adaptor adaptor,        \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferBroadcastType(location, adaptor.getLhs().getType(),           \
                              adaptor.getRhs().getType(), Type(), inferred);   \
  }
DTF_BROADCAST_BINARY_INFERENCE(AddOp)
DTF_BROADCAST_BINARY_INFERENCE(SubOp)
DTF_BROADCAST_BINARY_INFERENCE(MulOp)
DTF_BROADCAST_BINARY_INFERENCE(DivOp)
DTF_BROADCAST_BINARY_INFERENCE(DivNoNanOp)
DTF_BROADCAST_BINARY_INFERENCE(MinimumOp)
DTF_BROADCAST_BINARY_INFERENCE(MaximumOp)
DTF_BROADCAST_BINARY_INFERENCE(PowOp)
DTF_BROADCAST_BINARY_INFERENCE(LogicalAndOp)
DTF_BROADCAST_BINARY_INFERENCE(LogicalOrOp)
#undef DTF_BROADCAST_BINARY_INFERENCE

#define DTF_COMPARE_INFERENCE(OpClass)                                         \
  LogicalResult OpClass::inferReturnTypes(                                     \
      MLIRContext *context, std::optional<Location> location, Adaptor adaptor, \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferBroadcastType(location, adaptor.getLhs().getType(),            \
                              adaptor.getRhs().getType(),                      \
                              IntegerType::get(context, 1), inferred);         \
  }
DTF_COMPARE_INFERENCE(EqualOp)
DTF_COMPARE_INFERENCE(NotEqualOp)
DTF_COMPARE_INFERENCE(GreaterOp)
DTF_COMPARE_INFERENCE(GreaterEqualOp)
DTF_COMPARE_INFERENCE(LessOp)
DTF_COMPARE_INFERENCE(LessEqualOp)
#undef DTF_COMPARE_INFERENCE

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  Type onTrue = adaptor.getOnTrue().getType();
  SmallVector<Type, 1> values;
  if (failed(inferBroadcastType(
          location, onTrue, adaptor.getOnFalse().getType(), Type(), values)))
    return failure();
  auto condition = dyn_cast<RankedTensorType>(adaptor.getCondition().getType());
  if (!condition)
    return emitOptionalError(location, "expects a ranked condition, got ",
                             adaptor.getCondition().getType());
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(
          condition.getShape(), cast<ShapedType>(values[0]).getShape(), shape))
    return emitOptionalError(location,
                             "condition is not broadcast-compatible with the "
                             "values: ",
                             condition, " and ", values[0]);
  inferred.push_back(RankedTensorType::get(
      shape, cast<RankedTensorType>(onTrue).getElementType()));
  return success();
}

LogicalResult BiasAddOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  auto bias = dyn_cast<RankedTensorType>(adaptor.getBias().getType());
  if (!input || !bias || input.getRank() < 1 || bias.getRank() != 1)
    return emitOptionalError(location,
                             "expects an input of rank >= 1 and a 1-D bias, "
                             "got ",
                             adaptor.getInput().getType(), " and ",
                             adaptor.getBias().getType());
  if (input.getElementType() != bias.getElementType())
    return emitOptionalError(location, "element types differ: ", input,
                             " and ", bias);
  if (!dimsCompatible(input.getShape().back(), bias.getDimSize(0)))
    return emitOptionalError(location, "bias ", bias,
                             " does not match the last dimension of ", input);
  inferred.push_back(input);
  return success();
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  if (getInput().getType().getRank() < 1)
    return emitOpError("expects a tensor of rank >= 1, got ")
           << getInput().getType();
  return success();
}

LogicalResult ClipByValueOp::verify() {
  double min = getMin().convertToDouble();
  double max = getMax().convertToDouble();
  if (!(min <= max))
    return emitOpError("min ") << min << " is greater than max " << max;
  return success();
}

LogicalResult SoftmaxCrossEntropyWithLogitsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto logits = dyn_cast<RankedTensorType>(adaptor.getLogits().getType());
  auto labels = dyn_cast<RankedTensorType>(adaptor.getLabels().getType());
  if (!logits || !labels || logits.getRank() != 2 || labels.getRank() != 2)
    return emitOptionalError(location,
                             "expects 2-D logits and labels, got ",
                             adaptor.getLogits().getType(), " and ",
                             adaptor.getLabels().getType());
  if (logits.getElementType() != labels.getElementType() ||
      !dimsCompatible(logits.getDimSize(0), labels.getDimSize(0)) ||
      !dimsCompatible(logits.getDimSize(1), labels.getDimSize(1)))
    return emitOptionalError(location, "logits ", logits,
                             " and labels ", labels, " differ");
  inferred.push_back(
      RankedTensorType::get({logits.getDimSize(0)}, logits.getElementType()));
  return success();
}

LogicalResult SparseSoftmaxCrossEntropyWithLogitsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto logits = dyn_cast<RankedTensorType>(adaptor.getLogits().getType());
  auto labels = dyn_cast<RankedTensorType>(adaptor.getLabels().getType());
  if (!logits || !labels || logits.getRank() != 2 || labels.getRank() != 1)
    return emitOptionalError(location,
                             "expects 2-D logits and 1-D class ids, got ",
                             adaptor.getLogits().getType(), " and ",
                             adaptor.getLabels().getType());
  if (!dimsCompatible(logits.getDimSize(0), labels.getDimSize(0)))
    return emitOptionalError(location, "logits ", logits, " and class ids ",
                             labels, " hold different numbers of examples");
  inferred.push_back(
      RankedTensorType::get({logits.getDimSize(0)}, logits.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// The result type of reducing `input` over `axes` (all when empty).
static LogicalResult inferReduceType(std::optional<Location> location,
                                     Type inputType, ArrayRef<int64_t> axes,
                                     bool keepDims,
                                     SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(inputType);
  if (!input)
    return emitOptionalError(location, "expects a ranked tensor, got ",
                             inputType);
  int64_t rank = input.getRank();
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes) {
    FailureOr<int64_t> normalizedAxis = normalizeAxis(location, axis, input);
    if (failed(normalizedAxis))
      return failure();
    int64_t normalized = *normalizedAxis;
    if (reduced[normalized])
      return emitOptionalError(location, "axis ", axis,
                               " is reduced twice in ", input);
    reduced[normalized] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (!reduced[dim])
      shape.push_back(input.getDimSize(dim));
    else if (keepDims)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

#define DTF_REDUCE_INFERENCE(OpClass)                                          \
  LogicalResult OpClass::inferReturnTypes(                                     \
      MLIRContext *, std::optional<Location> location, Adaptor adaptor,        \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferReduceType(                                                    \
        location, adaptor.getInput().getType(),                                \
        axesOrAll(adaptor.getAxesAttr(), adaptor.getAttributes(), "axes"),     \
        flagOrFalse(adaptor.getKeepDimsAttr(), adaptor.getAttributes(),        \
                    "keep_dims"),                                              \
        inferred);                                                             \
  }
DTF_REDUCE_INFERENCE(ReduceSumOp)
DTF_REDUCE_INFERENCE(ReduceMeanOp)
DTF_REDUCE_INFERENCE(ReduceMaxOp)
DTF_REDUCE_INFERENCE(ReduceMinOp)
#undef DTF_REDUCE_INFERENCE

//===----------------------------------------------------------------------===//
// Shape manipulation and casts
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto input = getInput().getType();
  auto output = getOutput().getType();
  if (input.getElementType() != output.getElementType())
    return emitOpError("element types differ: ")
           << input << " and " << output;
  if (input.hasStaticShape() && output.hasStaticShape() &&
      input.getNumElements() != output.getNumElements())
    return emitOpError("cannot reshape ")
           << input << " (" << input.getNumElements() << " elements) to "
           << output << " (" << output.getNumElements() << " elements)";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getOutput().getType())
    return getInput();
  return {};
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(location, "expects at least one input");
  if (!adaptor.getAxisAttr())
    return emitOptionalError(location, "expects an axis");
  auto first = dyn_cast<RankedTensorType>(inputs.front().getType());
  if (!first || first.getRank() < 1)
    return emitOptionalError(location, "expects tensors of rank >= 1, got ",
                             inputs.front().getType());
  int64_t rank = first.getRank();
  FailureOr<int64_t> normalized =
      normalizeAxis(location, adaptor.getAxis(), first);
  if (failed(normalized))
    return failure();
  int64_t axis = *normalized;

  SmallVector<int64_t> shape(first.getShape());
  for (auto [index, input] : llvm::enumerate(inputs.drop_front())) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type || type.getRank() != rank ||
        type.getElementType() != first.getElementType())
      return emitOptionalError(location, "input #", index + 1, " ",
                               input.getType(), " differs in rank or ",
                               "element type from input #0 ", first);
    for (int64_t dim = 0; dim < rank; ++dim) {
      int64_t size = type.getDimSize(dim);
      if (dim == axis) {
        shape[dim] =
            ShapedType::isDynamic(shape[dim]) || ShapedType::isDynamic(size)
                ? ShapedType::kDynamic
                : shape[dim] + size;
      } else if (!dimsCompatible(shape[dim], size)) {
        return emitOptionalError(
            location, "input #", index + 1, " ", type,
            " differs from input #0 ", first, " in dimension ", dim,
            ", which is not the concatenation axis ", axis);
      } else if (ShapedType::isDynamic(shape[dim])) {
        shape[dim] = size;
      }
    }
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 &&
      getInputs().front().getType() == getOutput().getType())
    return getInputs().front();
  return {};
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return emitOptionalError(location, "expects a ranked tensor, got ",
                             adaptor.getInput().getType());
  if (!adaptor.getOffsetsAttr() || !adaptor.getSizesAttr())
    return emitOptionalError(location, "expects offsets and sizes");
  ArrayRef<int64_t> offsets = adaptor.getOffsets();
  ArrayRef<int64_t> sizes = adaptor.getSizes();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(offsets.size()) != rank ||
      static_cast<int64_t>(sizes.size()) != rank)
    return emitOptionalError(
        location, "expects ", rank, " offsets and sizes for ", input, ", got ",
        offsets.size(), " offsets and ", sizes.size(), " sizes");
  SmallVector<int64_t> shape;
  for (int64_t dim = 0; dim < rank; ++dim) {
    int64_t offset = offsets[dim], size = sizes[dim];
    int64_t extent = input.getDimSize(dim);
    if (offset < 0 || size < -1)
      return emitOptionalError(location, "dimension ", dim, ": offset ", offset,
                               " and size ", size,
                               " must be >= 0 (size -1 means to the end)");
    if (ShapedType::isDynamic(extent)) {
      shape.push_back(size == -1 ? ShapedType::kDynamic : size);
      continue;
    }
    if (size == -1)
      size = extent - offset;
    if (offset + size > extent || size < 0)
      return emitOptionalError(location, "dimension ", dim, ": slice [", offset,
                               ", ", offset + std::max<int64_t>(size, 0),
                               ") exceeds the size ", extent, " of ", input);
    shape.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getInput().getType() == getOutput().getType() &&
      getInput().getType().hasStaticShape() &&
      llvm::all_of(getOffsets(), [](int64_t offset) { return offset == 0; }))
    return getInput();
  return {};
}

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input || input.getRank() < 1)
    return emitOptionalError(location, "expects a tensor of rank >= 1, got ",
                             adaptor.getInput().getType());
  FailureOr<int64_t> axis = normalizeAxis(location, adaptor.getAxis(), input);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(input.getShape());
  shape.erase(shape.begin() + *axis);
  inferred.push_back(
      RankedTensorType::get(shape, IntegerType::get(context, 64)));
  return success();
}

LogicalResult CastOp::verify() {
  auto input = getInput().getType();
  auto output = getOutput().getType();
  if (input.getRank() != output.getRank() ||
      !llvm::all_of(llvm::zip(input.getShape(), output.getShape()),
                    [](auto dims) {
                      return dimsCompatible(std::get<0>(dims),
                                            std::get<1>(dims));
                    }))
    return emitOpError("cannot change the shape: ")
           << input << " to " << output;
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// "[a, b, c, d]", how the window diagnostics name an attribute's value.
static std::string windowString(ArrayRef<int64_t> window) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(window, os);
  os << "]";
  return text;
}

/// Checks a TensorFlow NHWC window attribute: [1, h, w, 1] with h, w > 0.
static LogicalResult verifyWindow(std::optional<Location> location,
                                  StringRef name, ArrayRef<int64_t> window) {
  if (window.size() != 4 || window[0] != 1 || window[3] != 1 || window[1] < 1 ||
      window[2] < 1)
    return emitOptionalError(location, name, " must be [1, h, w, 1] with h, w ",
                             ">= 1 (NHWC), got ", windowString(window));
  return success();
}

/// TensorFlow's output size of a window op along one spatial dimension.
static int64_t windowOutputSize(int64_t input, int64_t window, int64_t stride,
                                Padding padding) {
  if (ShapedType::isDynamic(input) ||
      (padding == Padding::VALID && ShapedType::isDynamic(window)))
    return ShapedType::kDynamic;
  if (padding == Padding::SAME)
    return llvm::divideCeil(input, stride);
  return input < window ? 0 : llvm::divideCeil(input - window + 1, stride);
}

/// The NHWC output type of a window op, or an error when the window does
/// not fit with VALID padding.
static LogicalResult inferWindowType(std::optional<Location> location,
                                     RankedTensorType input, int64_t windowH,
                                     int64_t windowW, int64_t channels,
                                     ArrayRef<int64_t> strides,
                                     Padding padding,
                                     SmallVectorImpl<Type> &inferred) {
  int64_t height = windowOutputSize(input.getDimSize(1), windowH, strides[1],
                                    padding);
  int64_t width = windowOutputSize(input.getDimSize(2), windowW, strides[2],
                                   padding);
  // With SAME padding, an empty input gives an empty output, as in TF.
  if (padding == Padding::VALID && (height == 0 || width == 0))
    return emitOptionalError(location, "window ", windowH, "x", windowW,
                             " does not fit in ", input,
                             " with VALID padding");
  inferred.push_back(RankedTensorType::get(
      {input.getDimSize(0), height, width, channels},
      input.getElementType()));
  return success();
}

/// Checks a convolution's dilations: [1, dh, dw, 1] with dh, dw >= 1, as
/// TensorFlow's Conv2D takes them, and not with strides > 1, as
/// tf.nn.convolution and Keras's Conv2D require (the kernels would compute
/// both; the rule is TensorFlow's documented one). The backprop ops follow
/// it too, so that the gradient of each of the three ops is one of them.
static LogicalResult verifyDilations(std::optional<Location> location,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> dilations) {
  if (dilations.size() != 4)
    return emitOptionalError(location,
                             "dilations must have 4 elements [1, h, w, 1] "
                             "(NHWC), got ",
                             windowString(dilations));
  if (dilations[0] != 1 || dilations[3] != 1)
    return emitOptionalError(location,
                             "dilations of the batch and channel dimensions "
                             "must be 1, got ",
                             windowString(dilations));
  if (dilations[1] < 1 || dilations[2] < 1)
    return emitOptionalError(location, "dilations must be >= 1, got ",
                             windowString(dilations));
  if ((strides[1] > 1 || strides[2] > 1) &&
      (dilations[1] > 1 || dilations[2] > 1))
    return emitOptionalError(
        location, "strides ", windowString(strides), " and dilations ",
        windowString(dilations),
        ": a convolution is strided or dilated, not both (as "
        "tf.nn.convolution and Keras require)");
  return success();
}

/// The number of cells a filter of `size` taps spans when they are
/// `dilation` apart.
static int64_t dilatedSize(int64_t size, int64_t dilation) {
  if (ShapedType::isDynamic(size))
    return size;
  return (size - 1) * dilation + 1;
}

/// The conv2d shape function on types, shared with the backprop verifiers.
/// Absent `dilations` are all 1.
static LogicalResult inferConv2DType(std::optional<Location> location,
                                     Type inputType, Type filterType,
                                     ArrayRef<int64_t> strides, Padding padding,
                                     std::optional<ArrayRef<int64_t>> dilations,
                                     SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(inputType);
  auto filter = dyn_cast<RankedTensorType>(filterType);
  if (!input || !filter || input.getRank() != 4 || filter.getRank() != 4)
    return emitOptionalError(location,
                             "expects a 4-D NHWC input and a 4-D HWIO filter, "
                             "got ",
                             inputType, " and ", filterType);
  if (input.getElementType() != filter.getElementType())
    return emitOptionalError(location, "element types differ: ", input,
                             " and ", filter);
  if (!dimsCompatible(input.getDimSize(3), filter.getDimSize(2)))
    return emitOptionalError(location, "input ", input, " has ",
                             input.getDimSize(3), " channels but filter ",
                             filter, " expects ", filter.getDimSize(2));
  if (failed(verifyWindow(location, "strides", strides)))
    return failure();
  int64_t dilationH = 1, dilationW = 1;
  if (dilations) {
    if (failed(verifyDilations(location, strides, *dilations)))
      return failure();
    dilationH = (*dilations)[1];
    dilationW = (*dilations)[2];
  }
  return inferWindowType(location, input,
                         dilatedSize(filter.getDimSize(0), dilationH),
                         dilatedSize(filter.getDimSize(1), dilationW),
                         filter.getDimSize(3), strides, padding, inferred);
}

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  if (!adaptor.getStridesAttr() || !adaptor.getPaddingAttr())
    return emitOptionalError(location, "expects strides and padding");
  return inferConv2DType(location, adaptor.getInput().getType(),
                         adaptor.getFilter().getType(), adaptor.getStrides(),
                         adaptor.getPadding(), adaptor.getDilations(),
                         inferred);
}

/// The result type of max_pool and avg_pool: their input pooled over the
/// windows their attributes describe.
template <typename Adaptor>
static LogicalResult inferPoolType(std::optional<Location> location,
                                   Adaptor adaptor,
                                   SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input || input.getRank() != 4)
    return emitOptionalError(location, "expects a 4-D NHWC input, got ",
                             adaptor.getInput().getType());
  if (!adaptor.getKsizeAttr() || !adaptor.getStridesAttr() ||
      !adaptor.getPaddingAttr())
    return emitOptionalError(location, "expects ksize, strides and padding");
  if (failed(verifyWindow(location, "ksize", adaptor.getKsize())) ||
      failed(verifyWindow(location, "strides", adaptor.getStrides())))
    return failure();
  return inferWindowType(location, input, adaptor.getKsize()[1],
                         adaptor.getKsize()[2], input.getDimSize(3),
                         adaptor.getStrides(), adaptor.getPadding(), inferred);
}

LogicalResult MaxPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferPoolType(location, adaptor, inferred);
}

LogicalResult AvgPoolOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferPoolType(location, adaptor, inferred);
}

//===----------------------------------------------------------------------===//
// Layer math of TF1 models: transpose, log_softmax, one_hot, tile,
// batch_matmul, reduce_prod
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return emitOptionalError(location, "expects a ranked tensor, got ",
                             adaptor.getInput().getType());
  if (!adaptor.getPermutationAttr())
    return emitOptionalError(location, "expects a permutation");
  ArrayRef<int64_t> permutation = adaptor.getPermutation();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(permutation.size()) != rank)
    return emitOptionalError(location, "permutation of ", permutation.size(),
                             " dimensions for ", input, " of rank ", rank);
  SmallVector<bool> named(rank, false);
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= rank)
      return emitOptionalError(location, "permutation names dimension ", dim,
                               ", out of range for ", input);
    if (named[dim])
      return emitOptionalError(location, "permutation names dimension ", dim,
                               " twice");
    named[dim] = true;
    shape.push_back(input.getDimSize(dim));
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult LogSoftmaxOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> location,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input || input.getRank() < 1)
    return emitOptionalError(location, "expects a tensor of rank >= 1, got ",
                             adaptor.getInput().getType());
  inferred.push_back(input);
  return success();
}

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto indices = dyn_cast<RankedTensorType>(adaptor.getIndices().getType());
  if (!indices)
    return emitOptionalError(location, "expects ranked indices, got ",
                             adaptor.getIndices().getType());
  if (!adaptor.getDepthAttr() || !adaptor.getElementTypeAttr())
    return emitOptionalError(location, "expects a depth and an element type");
  int64_t depth = adaptor.getDepth();
  if (depth < 0)
    return emitOptionalError(location, "depth must be >= 0, got ", depth);
  SmallVector<int64_t> shape(indices.getShape());
  shape.push_back(depth);
  inferred.push_back(RankedTensorType::get(shape, adaptor.getElementType()));
  return success();
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto input = dyn_cast<RankedTensorType>(adaptor.getInput().getType());
  if (!input)
    return emitOptionalError(location, "expects a ranked tensor, got ",
                             adaptor.getInput().getType());
  if (!adaptor.getMultiplesAttr())
    return emitOptionalError(location, "expects multiples");
  ArrayRef<int64_t> multiples = adaptor.getMultiples();
  if (static_cast<int64_t>(multiples.size()) != input.getRank())
    return emitOptionalError(location, "expects one multiple per dimension of ",
                             input, ", got ", multiples.size());
  SmallVector<int64_t> shape;
  for (auto [dim, multiple] : llvm::enumerate(multiples)) {
    if (multiple < 0)
      return emitOptionalError(location, "multiple ", multiple,
                               " of dimension ", dim, " is negative");
    int64_t size = input.getDimSize(dim);
    shape.push_back(ShapedType::isDynamic(size) ? size : size * multiple);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult BatchMatMulOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> location,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getX().getType());
  auto y = dyn_cast<RankedTensorType>(adaptor.getY().getType());
  if (!x || !y || x.getRank() < 3 || y.getRank() < 3)
    return emitOptionalError(location, "expects two tensors of rank >= 3, got ",
                             adaptor.getX().getType(), " and ",
                             adaptor.getY().getType());
  if (x.getElementType() != y.getElementType())
    return emitOptionalError(location, "element types differ: ", x, " and ", y);
  bool adjX =
      flagOrFalse(adaptor.getAdjXAttr(), adaptor.getAttributes(), "adj_x");
  bool adjY =
      flagOrFalse(adaptor.getAdjYAttr(), adaptor.getAttributes(), "adj_y");
  int64_t xRank = x.getRank(), yRank = y.getRank();
  int64_t rows = x.getDimSize(xRank - (adjX ? 1 : 2));
  int64_t innerX = x.getDimSize(xRank - (adjX ? 2 : 1));
  int64_t innerY = y.getDimSize(yRank - (adjY ? 1 : 2));
  int64_t cols = y.getDimSize(yRank - (adjY ? 2 : 1));
  if (!dimsCompatible(innerX, innerY))
    return emitOptionalError(location, "inner dimensions differ: ", x,
                             adjX ? " (adjoint)" : "", " and ", y,
                             adjY ? " (adjoint)" : "", " multiply ", innerX,
                             " by ", innerY);
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(x.getShape().drop_back(2),
                                          y.getShape().drop_back(2), shape))
    return emitOptionalError(
        location, "batch dimensions are not broadcast-compatible: ", x, " and ",
        y);
  shape.push_back(rows);
  shape.push_back(cols);
  inferred.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult ReduceProdOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> location,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  return inferReduceType(
      location, adaptor.getInput().getType(),
      axesOrAll(adaptor.getAxesAttr(), adaptor.getAttributes(), "axes"),
      flagOrFalse(adaptor.getKeepDimsAttr(), adaptor.getAttributes(),
                  "keep_dims"),
      inferred);
}

LogicalResult ReduceProdGradOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  SmallVector<Type, 1> reduced;
  Type input = adaptor.getInput().getType();
  if (failed(inferReduceType(
          location, input,
          axesOrAll(adaptor.getAxesAttr(), adaptor.getAttributes(), "axes"),
          flagOrFalse(adaptor.getKeepDimsAttr(), adaptor.getAttributes(),
                      "keep_dims"),
          reduced)))
    return failure();
  auto expected = cast<RankedTensorType>(reduced.front());
  auto dy = dyn_cast<RankedTensorType>(adaptor.getDy().getType());
  if (!dy || dy.getElementType() != expected.getElementType() ||
      dy.getRank() != expected.getRank() ||
      !llvm::all_of(
          llvm::zip(dy.getShape(), expected.getShape()), [](auto dims) {
            return dimsCompatible(std::get<0>(dims), std::get<1>(dims));
          }))
    return emitOptionalError(location, "reduce_prod of ", input, " gives ",
                             expected, ", but dy is ",
                             adaptor.getDy().getType());
  inferred.push_back(input);
  return success();
}

//===----------------------------------------------------------------------===//
// MinimizeOp
//===----------------------------------------------------------------------===//

/// The global step, when given, must hold a scalar integer.
static LogicalResult verifyGlobalStep(Operation *op, Value globalStep) {
  if (!globalStep)
    return success();
  RankedTensorType step =
      cast<ResourceType>(globalStep.getType()).getValueType();
  if (step.getRank() != 0 || !step.getElementType().isSignlessInteger())
    return op->emitOpError("global step must hold a scalar integer, got ")
           << step;
  return success();
}

LogicalResult MinimizeOp::verify() {
  if (FloatAttr clip = getClipByGlobalNormAttr()) {
    double clipNorm = clip.getValueAsDouble();
    if (!(clipNorm > 0.0) || !std::isfinite(clipNorm))
      return emitOpError() << "clip_by_global_norm must be positive and "
                              "finite, got "
                           << clipNorm;
  }
  return verifyGlobalStep(*this, getGlobalStep());
}

/// Checks that `ids` (1-D) and `rows` are the ids and rows of a sparse
/// gradient of a variable holding `valueType`: one row per id, each row of
/// the variable's shape after its first dimension and element type.
static LogicalResult verifySparseRows(Operation *op, const Twine &what,
                                      RankedTensorType valueType, Type idsType,
                                      Type rowsType) {
  auto ids = cast<RankedTensorType>(idsType);
  auto rows = cast<RankedTensorType>(rowsType);
  if (valueType.getRank() < 1)
    return op->emitOpError() << what << " updates rows of a scalar variable ("
                             << valueType << ")";
  if (ids.getRank() != 1)
    return op->emitOpError()
           << what << " has ids " << ids << "; sparse ids are 1-D";
  if (rows.getElementType() != valueType.getElementType() ||
      rows.getRank() != valueType.getRank() ||
      !dimsCompatible(rows.getDimSize(0), ids.getDimSize(0)) ||
      rows.getShape().drop_front() != valueType.getShape().drop_front())
    return op->emitOpError()
           << what << " has rows " << rows << " for " << ids
           << " of a variable holding " << valueType
           << "; expected one row of the variable's shape after its first "
              "dimension per id";
  return success();
}

LogicalResult ApplyGradientsOp::verify() {
  if (getVariables().size() != getGradients().size())
    return emitOpError("has ")
           << getVariables().size() << " variables but "
           << getGradients().size() << " gradients";
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(getVariables(), getGradients()))) {
    auto [variable, gradient] = pair;
    RankedTensorType valueType =
        cast<ResourceType>(variable.getType()).getValueType();
    if (valueType != gradient.getType())
      return emitOpError("gradient #")
             << index << " has type " << gradient.getType()
             << " but its variable holds " << valueType;
  }
  size_t numSparse = getSparseVariables().size();
  if (getSparseIds().size() != numSparse || getSparseRows().size() != numSparse)
    return emitOpError("has ")
           << numSparse << " sparse variables but " << getSparseIds().size()
           << " ids and " << getSparseRows().size() << " rows";
  llvm::SmallPtrSet<Value, 8> dense(getVariables().begin(),
                                    getVariables().end());
  for (unsigned index = 0; index < numSparse; ++index) {
    Value variable = getSparseVariables()[index];
    if (dense.contains(variable))
      return emitOpError("sparse variable #")
             << index << " also has a dense gradient";
    if (failed(verifySparseRows(
            *this, "sparse gradient #" + Twine(index),
            cast<ResourceType>(variable.getType()).getValueType(),
            getSparseIds()[index].getType(), getSparseRows()[index].getType())))
      return failure();
  }
  return verifyGlobalStep(*this, getGlobalStep());
}

//===----------------------------------------------------------------------===//
// Embeddings
//===----------------------------------------------------------------------===//

/// The shape of `ids` followed by the dimensions of `table` after the first.
static LogicalResult inferGatherType(std::optional<Location> location,
                                     Type tableType, Type idsType,
                                     SmallVectorImpl<Type> &inferred) {
  auto table = dyn_cast<RankedTensorType>(tableType);
  auto ids = dyn_cast<RankedTensorType>(idsType);
  if (!table || !ids)
    return failure();
  if (table.getRank() < 1)
    return emitOptionalError(location, "looks up rows of a scalar (", table,
                             ")");
  SmallVector<int64_t> shape(ids.getShape());
  llvm::append_range(shape, table.getShape().drop_front());
  inferred.push_back(RankedTensorType::get(shape, table.getElementType()));
  return success();
}

LogicalResult EmbeddingLookupOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto resource = dyn_cast<ResourceType>(adaptor.getTable().getType());
  if (!resource)
    return failure();
  return inferGatherType(location, resource.getValueType(),
                         adaptor.getIds().getType(), inferred);
}

LogicalResult DivideByIdCountOp::verify() {
  RankedTensorType rows = getRows().getType();
  int64_t numIds = getIds().getType().getDimSize(0);
  if (rows.getRank() < 1)
    return emitOpError("rows ") << rows << " have no rows to divide";
  if (!ShapedType::isDynamic(numIds) && !rows.isDynamicDim(0) &&
      rows.getDimSize(0) != numIds)
    return emitOpError("has ")
           << rows.getDimSize(0) << " rows but " << numIds << " ids";
  return success();
}

LogicalResult RowsOfIdsOp::verify() {
  RankedTensorType ids = getIds().getType();
  RankedTensorType rows = getRows().getType();
  if (rows.getShape() != ids.getShape())
    return emitOpError("result ")
           << rows << " does not have the shape of ids " << ids;
  // Rows are found by binary search: keys out of order would miss ids.
  auto constant = getKeys().getDefiningOp<ConstantOp>();
  if (!constant)
    return success();
  auto keys = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!keys)
    return success();
  auto values = keys.getValues<int64_t>();
  for (int64_t i = 1, size = keys.getNumElements(); i < size; ++i)
    if (values[i] <= values[i - 1])
      return emitOpError("keys are not sorted ascending and distinct: key ")
             << values[i] << " at position " << i << " follows "
             << values[i - 1];
  return success();
}

/// Checks that a variable of `valueType` is the shard `shard` says, when
/// it says one.
static LogicalResult verifyShardRows(Operation *op, RowShardAttr shard,
                                     RankedTensorType valueType) {
  // A shard of a dynamic table holds whichever of its ids were met.
  if (!shard || valueType.getRank() < 1 || valueType.isDynamicDim(0))
    return success();
  if (valueType.getDimSize(0) != shard.getShardRows())
    return op->emitOpError("variable of ")
           << valueType.getDimSize(0) << " rows is not shard "
           << shard.getShard() << " of " << shard.getNumShards() << " of "
           << shard.getRows() << " rows, which holds " << shard.getShardRows();
  return success();
}

LogicalResult EmbeddingLookupOp::verify() {
  return verifyShardRows(
      *this, getShardAttr(),
      cast<ResourceType>(getTable().getType()).getValueType());
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferGatherType(location, adaptor.getParams().getType(),
                         adaptor.getIds().getType(), inferred);
}

/// Checks the operands of embedding_combine(_grad): `rows` [B, L, D...]
/// looked up at `ids` [B, L], with `weights` [B, L] when present.
static LogicalResult verifyCombineOperands(std::optional<Location> location,
                                           RankedTensorType rows,
                                           RankedTensorType ids,
                                           Value weights) {
  if (rows.getRank() < 3 ||
      !dimsCompatible(rows.getDimSize(0), ids.getDimSize(0)) ||
      !dimsCompatible(rows.getDimSize(1), ids.getDimSize(1)))
    return emitOptionalError(location, "rows ", rows,
                             " are not the rows looked up at ids ", ids,
                             " (expected [batch, slots, width...])");
  if (weights) {
    auto weightsType = cast<RankedTensorType>(weights.getType());
    if (weightsType.getShape() != ids.getShape() ||
        weightsType.getElementType() != rows.getElementType())
      return emitOptionalError(location, "weights ", weightsType,
                               " do not match ids ", ids, " and rows ", rows);
  }
  return success();
}

LogicalResult EmbeddingCombineOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto rows = dyn_cast<RankedTensorType>(adaptor.getRows().getType());
  auto ids = dyn_cast<RankedTensorType>(adaptor.getIds().getType());
  if (!rows || !ids)
    return failure();
  if (failed(verifyCombineOperands(location, rows, ids, adaptor.getWeights())))
    return failure();
  SmallVector<int64_t> shape(rows.getShape());
  shape.erase(shape.begin() + 1);
  inferred.push_back(RankedTensorType::get(shape, rows.getElementType()));
  return success();
}

LogicalResult EmbeddingCombineGradOp::verify() {
  RankedTensorType output = getOutput().getType();
  if (failed(verifyCombineOperands(getLoc(), output, getIds().getType(),
                                   getWeights())))
    return failure();
  SmallVector<int64_t> dyShape(output.getShape());
  dyShape.erase(dyShape.begin() + 1);
  if (getDy().getType() !=
      RankedTensorType::get(dyShape, output.getElementType()))
    return emitOpError("dy ") << getDy().getType()
                              << " is not the gradient of combining " << output;
  return success();
}

LogicalResult UnsortedSegmentSumOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto data = dyn_cast<RankedTensorType>(adaptor.getData().getType());
  auto ids = dyn_cast<RankedTensorType>(adaptor.getSegmentIds().getType());
  if (!data || !ids)
    return failure();
  if (data.getRank() < 1 ||
      !dimsCompatible(data.getDimSize(0), ids.getDimSize(0)))
    return emitOptionalError(location, "data ", data,
                             " needs one row per segment id of ", ids);
  SmallVector<int64_t> shape(data.getShape());
  shape[0] = adaptor.getNumSegments();
  inferred.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Moving averages
//===----------------------------------------------------------------------===//

LogicalResult AssignMovingAverageOp::verify() {
  double decay = getDecay().convertToDouble();
  if (!(decay >= 0.0 && decay <= 1.0))
    return emitOpError("decay must be in [0, 1], got ") << decay;
  // An optimizer would update the variable too, with a second push.
  if (auto variable = getVar().getDefiningOp<VariableOp>();
      variable && variable.getTrainable())
    return emitOpError("updates the trainable variable '")
           << variable.getName()
           << "'; a moving average is of a variable no optimizer trains";
  return success();
}

//===----------------------------------------------------------------------===//
// Sparse updates
//===----------------------------------------------------------------------===//

template <typename SparseApplyOp>
static LogicalResult verifySparseApply(SparseApplyOp op) {
  RankedTensorType valueType =
      cast<ResourceType>(op.getVar().getType()).getValueType();
  if (failed(verifySparseRows(op, "update", valueType, op.getIds().getType(),
                              op.getRows().getType())))
    return failure();
  return verifyShardRows(op, op.getShardAttr(), valueType);
}

LogicalResult SparseApplyGradientDescentOp::verify() {
  return verifySparseApply(*this);
}
LogicalResult SparseApplyAdagradOp::verify() {
  return verifySparseApply(*this);
}
LogicalResult SparseApplyAdamOp::verify() { return verifySparseApply(*this); }
LogicalResult SparseApplyFtrlOp::verify() { return verifySparseApply(*this); }

//===----------------------------------------------------------------------===//
// Gradient ops
//===----------------------------------------------------------------------===//

/// The result type of a cross-entropy gradient op, its logits' type, once
/// `dloss` matches the loss that `LossOp` infers from the logits and labels.
template <typename LossOp, typename GradAdaptor>
static LogicalResult inferCrossEntropyGradType(MLIRContext *context,
                                               std::optional<Location> location,
                                               GradAdaptor adaptor,
                                               SmallVectorImpl<Type> &inferred) {
  SmallVector<Type> lossType;
  if (failed(LossOp::inferReturnTypes(
          context, location,
          typename LossOp::Adaptor(
              ValueRange{adaptor.getLogits(), adaptor.getLabels()}),
          lossType)))
    return failure();
  if (lossType.front() != adaptor.getDloss().getType())
    return emitOptionalError(location, "dloss ", adaptor.getDloss().getType(),
                             " does not match the loss ", lossType.front(),
                             " of logits ", adaptor.getLogits().getType());
  inferred.push_back(adaptor.getLogits().getType());
  return success();
}

LogicalResult SoftmaxCrossEntropyWithLogitsGradOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  return inferCrossEntropyGradType<SoftmaxCrossEntropyWithLogitsOp>(
      context, location, adaptor, inferred);
}

LogicalResult SparseSoftmaxCrossEntropyWithLogitsGradOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  return inferCrossEntropyGradType<SparseSoftmaxCrossEntropyWithLogitsOp>(
      context, location, adaptor, inferred);
}

LogicalResult BiasAddGradOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> location,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &inferred) {
  auto dy = dyn_cast<RankedTensorType>(adaptor.getDy().getType());
  if (!dy || dy.getRank() < 1)
    return emitOptionalError(location, "expects a tensor of rank >= 1, got ",
                             adaptor.getDy().getType());
  inferred.push_back(
      RankedTensorType::get({dy.getShape().back()}, dy.getElementType()));
  return success();
}

LogicalResult BroadcastToOp::verify() {
  auto input = getInput().getType();
  auto output = getOutput().getType();
  SmallVector<int64_t> shape;
  if (input.getElementType() != output.getElementType() ||
      input.getRank() > output.getRank() ||
      !OpTrait::util::getBroadcastedShape(input.getShape(), output.getShape(),
                                          shape) ||
      ArrayRef<int64_t>(shape) != output.getShape())
    return emitOpError("cannot broadcast ") << input << " to " << output;
  return success();
}

OpFoldResult BroadcastToOp::fold(FoldAdaptor) {
  if (getInput().getType() == getOutput().getType())
    return getInput();
  return {};
}

/// Checks that `dy` has the type of conv2d(input, filter): how the backprop
/// ops tie the types of the three tensors together.
static LogicalResult
verifyConvGradientTypes(Operation *op, Type input, Type filter, Type dy,
                        ArrayRef<int64_t> strides, Padding padding,
                        std::optional<ArrayRef<int64_t>> dilations) {
  SmallVector<Type> forward;
  // Diagnostics of the forward shape function name the shapes at fault.
  if (failed(inferConv2DType(op->getLoc(), input, filter, strides, padding,
                             dilations, forward)))
    return failure();
  if (forward.front() != dy)
    return op->emitOpError("conv2d of ")
           << input << " with filter " << filter << " gives "
           << forward.front() << ", but dy is " << dy;
  return success();
}

LogicalResult Conv2DBackpropInputOp::verify() {
  return verifyConvGradientTypes(*this, getOutput().getType(),
                                 getFilter().getType(), getDy().getType(),
                                 getStrides(), getPadding(), getDilations());
}

LogicalResult Conv2DBackpropFilterOp::verify() {
  return verifyConvGradientTypes(*this, getInput().getType(),
                                 getOutput().getType(), getDy().getType(),
                                 getStrides(), getPadding(), getDilations());
}

/// Checks that `dy` has the type `pool` (max_pool or avg_pool) gives for
/// its window over `input`: how a pooling gradient ties its types.
static LogicalResult
verifyPoolGradient(Operation *op, StringRef pool, RankedTensorType input,
                   RankedTensorType dy, ArrayRef<int64_t> ksize,
                   ArrayRef<int64_t> strides, Padding padding) {
  SmallVector<Type> forward;
  if (failed(verifyWindow(op->getLoc(), "ksize", ksize)) ||
      failed(verifyWindow(op->getLoc(), "strides", strides)))
    return failure();
  if (failed(inferWindowType(op->getLoc(), input, ksize[1], ksize[2],
                             input.getDimSize(3), strides, padding, forward)))
    return failure();
  if (forward.front() != dy)
    return op->emitOpError() << pool << " of " << input << " gives "
                             << forward.front() << ", but dy is " << dy;
  return success();
}

LogicalResult MaxPoolGradOp::verify() {
  return verifyPoolGradient(*this, "max_pool", getInput().getType(),
                            getDy().getType(), getKsize(), getStrides(),
                            getPadding());
}

LogicalResult AvgPoolGradOp::verify() {
  return verifyPoolGradient(*this, "avg_pool", getOutput().getType(),
                            getDy().getType(), getKsize(), getStrides(),
                            getPadding());
}

//===----------------------------------------------------------------------===//
// SendOp and RecvOp
//===----------------------------------------------------------------------===//

/// Shared checks of a transfer: two distinct devices of the cluster, a
/// tensor name, and, when the op is placed, placement on its own end.
static LogicalResult verifyTransfer(Operation *op, StringRef tensorName,
                                    DeviceAttr sendDevice,
                                    DeviceAttr recvDevice, DeviceAttr self,
                                    StringRef selfRole) {
  if (tensorName.empty())
    return op->emitOpError("needs a non-empty tensor name");
  if (sendDevice == recvDevice)
    return op->emitOpError("sends from '")
           << sendDevice.getName()
           << "' to itself: a transfer needs two distinct devices";
  if (failed(verifyDeviceInCluster(op, sendDevice)) ||
      failed(verifyDeviceInCluster(op, recvDevice)))
    return failure();
  auto placed = op->getAttrOfType<DeviceAttr>(DTFDialect::getDeviceAttrName());
  if (placed && placed != self)
    return op->emitOpError("is placed on '")
           << placed.getName() << "' but its " << selfRole << " is '"
           << self.getName() << "'";
  return success();
}

LogicalResult SendOp::verify() {
  return verifyTransfer(*this, getTensorName(), getSendDevice(),
                        getRecvDevice(), getSendDevice(), "send_device");
}

LogicalResult RecvOp::verify() {
  return verifyTransfer(*this, getTensorName(), getSendDevice(),
                        getRecvDevice(), getRecvDevice(), "recv_device");
}

//===----------------------------------------------------------------------===//
// PullOp and PushGradientsOp
//===----------------------------------------------------------------------===//

/// Checks that `device` names a PS task of the cluster (a whole task: the
/// runtime addresses PS tasks, not their devices).
static LogicalResult verifyPSTask(Operation *op, DeviceAttr device) {
  if (device.getJob() != "ps" || device.hasDevicePart())
    return op->emitOpError("expects a PS task '/job:ps/task:N', got '")
           << device.getName() << "'";
  return verifyDeviceInCluster(op, device);
}

LogicalResult PullOp::verify() {
  if (getName().empty())
    return emitOpError("expects a variable name");
  if (!getValue().getType().hasStaticShape())
    return emitOpError("variable '")
           << getName() << "' must have a static shape, got "
           << getValue().getType();
  return verifyPSTask(*this, getDevice());
}

LogicalResult PullRowsOp::verify() {
  if (getName().empty())
    return emitOpError("expects a variable name");
  RankedTensorType ids = getIds().getType();
  RankedTensorType rows = getRows().getType();
  if (rows.getRank() <= ids.getRank() ||
      rows.getShape().take_front(ids.getRank()) != ids.getShape())
    return emitOpError("rows ")
           << rows << " do not start with the shape of ids " << ids;
  return verifyPSTask(*this, getDevice());
}

LogicalResult PushGradientsOp::verify() {
  ArrayAttr names = getNames();
  if (names.size() != getGradients().size())
    return emitOpError("has ")
           << getGradients().size() << " gradients but " << names.size()
           << " names";
  ArrayAttr sparseNames = getSparseNames();
  if (sparseNames.size() != getSparseIds().size() ||
      sparseNames.size() != getSparseRows().size())
    return emitOpError("has ") << getSparseIds().size() << " sparse ids and "
                               << getSparseRows().size() << " sparse rows but "
                               << sparseNames.size() << " sparse names";
  llvm::StringSet<> seen;
  for (ArrayAttr list : {names, sparseNames})
    for (StringRef name : list.getAsValueRange<StringAttr>())
      if (!seen.insert(name).second)
        return emitOpError("pushes two gradients of '") << name << "'";
  if (ArrayAttr shards = getSparseShardsAttr()) {
    if (shards.size() != sparseNames.size())
      return emitOpError("has ") << shards.size() << " sparse shards but "
                                 << sparseNames.size() << " sparse names";
    if (!llvm::all_of(shards, llvm::IsaPred<RowShardAttr, UnitAttr>))
      return emitOpError("sparse_shards must list #dtf.row_shard or unit");
  }
  for (auto [ids, rows] : llvm::zip(getSparseIds(), getSparseRows())) {
    auto rowsType = cast<RankedTensorType>(rows.getType());
    if (rowsType.getRank() < 2 ||
        !dimsCompatible(rowsType.getDimSize(0),
                        cast<RankedTensorType>(ids.getType()).getDimSize(0)))
      return emitOpError("sparse rows ")
             << rowsType << " are not one row per id of " << ids.getType();
  }
  return verifyPSTask(*this, getDevice());
}

#define GET_OP_CLASSES
#include "dialects/dtf/IR/DTFOps.cpp.inc"
