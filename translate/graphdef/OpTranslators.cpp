//===- OpTranslators.cpp - The dtf ops of each TensorFlow op --------------===//
//
// To import one more TensorFlow op:
//   1. write its translator below, an OpTranslator: it reads the node's
//      inputs with import.operand(index, i) (import.integers or
//      import.scalar where the dtf op takes a Const as an attribute) and its
//      attributes with import.attr(index, "name"), creates its dtf ops with
//      createPinned<OpT>(import, index, ...), which reports operands the
//      op does not take as the node's error, and reports what else DTF
//      cannot compute with import.fail(index);
//   2. add one entry to buildOpTranslatorTable, in the section of its kind:
//      the op's name, its translator (several names may share one) and
//      what its node becomes, which docs/tf-ops.md lists (regenerate it with
//      `dtf-translate --list-graphdef-ops > docs/tf-ops.md`);
//   3. add a node of the op to test/Translate/Inputs/make_graphs.py (or a
//      split-file case of its own) and check its dtf ops and its errors in
//      a lit test beside test/Translate/import-graphdef-ops.mlir.
// A TensorFlow op that is one dtf op on the same one or two operands needs
// the entry alone, with translateUnary<OpT> or translateBinary<OpT>.
//
//===----------------------------------------------------------------------===//

#include "translate/graphdef/OpTranslators.h"

#include "translate/graphdef/EmbeddingLookups.h"
#include "translate/graphdef/ImportContext.h"
#include "translate/graphdef/ShapeFolding.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>
#include <numeric>
#include <set>
#include <string>
#include <utility>

using namespace mlir;
using namespace dtf::ir;

namespace dtf::translate::graphdef {
namespace {

using Results = FailureOr<SmallVector<Value>>;

//===----------------------------------------------------------------------===//
// What translators share
//===----------------------------------------------------------------------===//

/// Creates OpT at node `index`'s location, pinned to its task. Operands OpT
/// does not take are an error about the node: where OpT infers its result
/// types, they are inferred before it is built (its inferring builder ends
/// the process where inference fails), and it is verified once built.
template <typename OpT, typename... Args>
FailureOr<Operation *> createChecked(ImportContext &import, int index,
                                     Args &&...args) {
  OpBuilder &builder = import.getBuilder();
  MLIRContext *context = import.getContext();
  OperationState state(import.locationOf(index), OpT::getOperationName());
  if constexpr (OpT::template hasTrait<InferTypeOpInterface::Trait>()) {
    // The builder of an explicit result type, whose placeholder the
    // inferred types replace.
    OpT::build(builder, state, Type(), std::forward<Args>(args)...);
    state.types.clear();
    if (failed(import.asNodeError(index, [&] {
          return OpT::inferReturnTypes(context, state.location, state.operands,
                                       state.attributes.getDictionary(context),
                                       state.getRawProperties(), state.regions,
                                       state.types);
        })))
      return failure();
  } else {
    OpT::build(builder, state, std::forward<Args>(args)...);
  }
  Operation *created = builder.create(state);
  if (failed(import.asNodeError(
          index,
          [&] { return verify(created, /*verifyRecursively=*/false); })) ||
      failed(import.pin(created, index)))
    return failure();
  return created;
}

/// Creates OpT as createChecked() does: the node's values are its results.
template <typename OpT, typename... Args>
Results createPinned(ImportContext &import, int index, Args &&...args) {
  FailureOr<Operation *> created =
      createChecked<OpT>(import, index, std::forward<Args>(args)...);
  if (failed(created))
    return failure();
  return SmallVector<Value>((*created)->getResults());
}

/// The dtf ops a node decomposes into, built step after step at the node's
/// location and task: once a step fails (its error reported), the steps
/// after it are not built, and the decomposition fails.
class NodeDecomposition {
public:
  NodeDecomposition(ImportContext &import, int index)
      : import(import), index(index) {}

  /// OpT's first result; null once a step has failed.
  template <typename OpT, typename... Args> Value create(Args &&...args) {
    if (failedStep)
      return Value();
    FailureOr<Operation *> op =
        createChecked<OpT>(import, index, std::forward<Args>(args)...);
    if (failed(op)) {
      failedStep = true;
      return Value();
    }
    return (*op)->getResult(0);
  }

  /// A scalar constant of float type `element`.
  Value scalar(Type element, double value) {
    return create<ConstantOp>(DenseElementsAttr::get(
        RankedTensorType::get({}, element),
        ArrayRef<Attribute>{FloatAttr::get(element, value)}));
  }

  bool hasFailed() const { return failedStep; }

private:
  ImportContext &import;
  int index;
  bool failedStep = false;
};

/// A window attribute (strides, ksize): one integer per NHWC dimension.
FailureOr<SmallVector<int64_t>> window(ImportContext &import, int index,
                                       const char *name) {
  const tensorflow::AttrValue *list = import.attr(index, name);
  if (!list || list->list().i_size() != 4) {
    import.fail(index) << "needs a '" << name << "' of 4 integers";
    return failure();
  }
  return SmallVector<int64_t>(list->list().i().begin(), list->list().i().end());
}

FailureOr<Padding> padding(ImportContext &import, int index) {
  const tensorflow::AttrValue *value = import.attr(index, "padding");
  if (value && value->s() == "SAME")
    return Padding::SAME;
  if (value && value->s() == "VALID")
    return Padding::VALID;
  import.fail(index) << "padding must be SAME or VALID";
  return failure();
}

LogicalResult requireNHWC(ImportContext &import, int index) {
  const tensorflow::AttrValue *format = import.attr(index, "data_format");
  if (format && !format->s().empty() && format->s() != "NHWC") {
    import.fail(index) << "data_format " << format->s()
                       << " is not NHWC, the layout of DTF's kernels";
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Translators
//===----------------------------------------------------------------------===//

/// A TensorFlow op of one operand that is the dtf op OpT.
template <typename OpT>
Results translateUnary(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  if (failed(x))
    return failure();
  return createPinned<OpT>(import, index, *x);
}

/// A TensorFlow op of two operands that is the dtf op OpT.
template <typename OpT>
Results translateBinary(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0), y = import.operand(index, 1);
  if (failed(x) || failed(y))
    return failure();
  return createPinned<OpT>(import, index, *x, *y);
}

Results translateVariable(ImportContext &import, int index) {
  // A shard is no variable of the module: only the lookups of the whole
  // table address it.
  if (std::optional<std::pair<VariableOp, int>> shard = import.shardOf(index)) {
    import.fail(index) << "is shard " << shard->second
                       << " of the partitioned table '"
                       << shard->first.getName()
                       << "', which DTF imports only as looked up by "
                          "tf.nn.embedding_lookup or embedding_lookup_sparse";
    return failure();
  }
  // Its value is the handle of its dtf.variable, which the importer declares
  // (declareVariable) before it translates any value: every variable a value
  // reaches through its inputs, control inputs aside.
  VariableOp variable = import.variable(index);
  assert(variable && "a variable reached through values is declared");
  return SmallVector<Value>{variable.getHandle()};
}

Results translateIdentity(ImportContext &import, int index) {
  FailureOr<int> source = import.inputNode(index, 0);
  if (failed(source))
    return failure();
  // A reference variable's value is read through its Identity.
  if (VariableOp variable = import.variable(*source))
    return createPinned<ReadOp>(import, index, variable.getHandle());
  FailureOr<Value> x = import.operand(index, 0);
  if (failed(x))
    return failure();
  return SmallVector<Value>{*x};
}

/// AddN: tf.add_n, the sum of its N inputs (tf.losses' total loss and the
/// regularization losses' sum), a chain of dtf.add; of one input, that
/// input.
Results translateAddN(ImportContext &import, int index) {
  const tensorflow::AttrValue *count = import.attr(index, "N");
  if (!count || count->i() < 1) {
    import.fail(index) << "needs an 'N' of at least 1";
    return failure();
  }
  FailureOr<Value> sum = import.operand(index, 0);
  if (failed(sum))
    return failure();
  for (int64_t k = 1; k < count->i(); ++k) {
    FailureOr<Value> term = import.operand(index, static_cast<int>(k));
    if (failed(term))
      return failure();
    FailureOr<Operation *> added =
        createChecked<AddOp>(import, index, *sum, *term);
    if (failed(added))
      return failure();
    sum = (*added)->getResult(0);
  }
  return SmallVector<Value>{*sum};
}

/// Square: x * x, whose gradient DTF's autodiff derives from the product's.
Results translateSquare(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  if (failed(x))
    return failure();
  return createPinned<MulOp>(import, index, *x, *x);
}

/// L2Loss (tf.nn.l2_loss, the weight decay of L2 regularization): half the
/// sum of the squares, sum(x * x) * 0.5 of dtf ops, whose gradient (x)
/// autodiff derives.
Results translateL2Loss(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (!isa<FloatType>(type.getElementType())) {
    import.fail(index) << "takes " << type << "; l2_loss is of floats";
    return failure();
  }
  FailureOr<Operation *> square = createChecked<MulOp>(import, index, *x, *x);
  if (failed(square))
    return failure();
  SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  FailureOr<Operation *> sum = createChecked<ReduceSumOp>(
      import, index, (*square)->getResult(0), axes, false);
  if (failed(sum))
    return failure();
  auto scalar = RankedTensorType::get({}, type.getElementType());
  FailureOr<Operation *> half = createChecked<ConstantOp>(
      import, index,
      DenseElementsAttr::get(scalar, ArrayRef<Attribute>{FloatAttr::get(
                                         type.getElementType(), 0.5)}));
  if (failed(half))
    return failure();
  return createPinned<MulOp>(import, index, (*sum)->getResult(0),
                             (*half)->getResult(0));
}

Results translateReadVariableOp(ImportContext &import, int index) {
  FailureOr<int> source = import.throughIdentities(index, 0);
  if (failed(source))
    return failure();
  VariableOp variable = import.variable(*source);
  if (!variable) {
    import.fail(index) << "reads '" << import.node(*source).name()
                       << "', which is not a variable";
    return failure();
  }
  return SmallVector<Value>{import.getBuilder().create<ReadOp>(
      import.locationOf(index), variable.getHandle())};
}

Results translatePlaceholder(ImportContext &import, int index) {
  FailureOr<RankedTensorType> type = import.tensorType(index, "dtype", "shape");
  if (failed(type))
    return failure();
  OpBuilder &builder = import.getBuilder();
  return createPinned<PlaceholderOp>(
      import, index, *type, builder.getStringAttr(import.node(index).name()));
}

/// PlaceholderWithDefault: a TF1 script's `training` flag,
/// tf.compat.v1.placeholder_with_default(False, []) that the training loop
/// feeds True, is the learning phase. Another default is a value the
/// script feeds in training only (a keep probability), which DTF, feeding
/// only data, cannot tell from its default: an error saying so.
Results translatePlaceholderWithDefault(ImportContext &import, int index) {
  FailureOr<RankedTensorType> type = import.tensorType(index, "dtype", "shape");
  if (failed(type))
    return failure();
  if (type->getRank() != 0 || !type->getElementType().isInteger(1)) {
    import.fail(index) << "is a placeholder with a default of type " << *type
                       << "; DTF imports a boolean scalar one (the training "
                          "flag of dropout and batch normalization) as the "
                          "learning phase, and no other";
    return failure();
  }
  return createPinned<LearningPhaseOp>(import, index, *type);
}

Results translateConst(ImportContext &import, int index) {
  FailureOr<DenseElementsAttr> values = import.constant(index);
  if (failed(values))
    return failure();
  return createPinned<ConstantOp>(import, index, *values);
}

Results translateMatMul(ImportContext &import, int index) {
  FailureOr<Value> a = import.operand(index, 0), b = import.operand(index, 1);
  if (failed(a) || failed(b))
    return failure();
  const tensorflow::AttrValue *ta = import.attr(index, "transpose_a");
  const tensorflow::AttrValue *tb = import.attr(index, "transpose_b");
  return createPinned<MatMulOp>(import, index, *a, *b, ta && ta->b(),
                                tb && tb->b());
}

Results translateBiasAdd(ImportContext &import, int index) {
  if (failed(requireNHWC(import, index)))
    return failure();
  return translateBinary<BiasAddOp>(import, index);
}

/// tf.clip_by_value(t, lo, hi) of node `index`: `clipped` is the node whose
/// input 0 is t, `highNode` the node whose input `highInput` is hi, and
/// input 1 of `index` is lo.
Results clipByValue(ImportContext &import, int index, int clipped, int highNode,
                    int highInput) {
  FailureOr<Value> x = import.operand(clipped, 0);
  FailureOr<double> low = import.scalar(index, 1);
  FailureOr<double> high = import.scalar(highNode, highInput);
  if (failed(x) || failed(low) || failed(high))
    return failure();
  OpBuilder &builder = import.getBuilder();
  return createPinned<ClipByValueOp>(import, index, *x,
                                     builder.getF64FloatAttr(*low),
                                     builder.getF64FloatAttr(*high));
}

Results translateClipByValue(ImportContext &import, int index) {
  return clipByValue(import, index, index, index, 2);
}

/// Whether node `index` is a Const of one element.
bool isScalarConst(ImportContext &import, int index) {
  if (import.node(index).op() != "Const")
    return false;
  const tensorflow::AttrValue *value = import.attr(index, "value");
  if (!value)
    return false;
  int64_t elements = 1;
  for (const auto &dim : value->tensor().tensor_shape().dim())
    elements *= dim.size();
  return elements == 1;
}

/// Maximum: tf.clip_by_value's other form, Maximum(Minimum(t, hi), lo) with
/// constant bounds, is one dtf.clip_by_value; any other Maximum is
/// dtf.maximum.
Results translateMaximum(ImportContext &import, int index) {
  FailureOr<int> minimum = import.throughIdentities(index, 0),
                 low = import.throughIdentities(index, 1);
  if (failed(minimum) || failed(low))
    return failure();
  if (import.node(*minimum).op() == "Minimum" && isScalarConst(import, *low)) {
    FailureOr<int> high = import.throughIdentities(*minimum, 1);
    if (failed(high))
      return failure();
    if (isScalarConst(import, *high))
      return clipByValue(import, index, *minimum, *minimum, 1);
  }
  return translateBinary<MaximumOp>(import, index);
}

//===----------------------------------------------------------------------===//
// tf.cond (TensorFlow 1's Switch and Merge), if-converted
//
// tf.compat.v1.cond(pred, true_fn, false_fn) routes each tensor a branch
// uses through a Switch(tensor, pred), whose output 1 feeds the true
// branch and output 0 the false one, and joins each result in a
// Merge(false result, true result). A branch's constants hang on the
// branch's pivot by a control input (^cond/switch_t). DTF computes both
// branches and selects by the predicate: the branches of the conds TF1
// models build (dropout and batch normalization on a `training` flag,
// tf.where-like schedules) have no side effects, so this is the same
// program; a value the other branch computes from the unselected data (a
// NaN, say) is discarded by the select, forward and backward.
//===----------------------------------------------------------------------===//

/// Switch: both outputs are the data; Merge chooses between the branches.
Results translateSwitch(ImportContext &import, int index) {
  FailureOr<Value> data = import.operand(index, 0);
  if (failed(data))
    return failure();
  return SmallVector<Value>{*data, *data};
}

/// A branch of a tf.cond: the Switch that enters it and that Switch's
/// output, 0 for the false branch and 1 for the true one.
struct CondBranch {
  int switchNode;
  int output;
};

/// The branch input `input` of Merge `merge` is computed in: that of the
/// nearest Switch it depends on through data and control inputs, breadth
/// first.
FailureOr<CondBranch> condBranchOf(ImportContext &import, int merge,
                                   int input) {
  std::vector<int> queue;
  std::set<int> seen;
  FailureOr<InputRef> first = import.dataInput(merge, input);
  if (failed(first))
    return failure();
  FailureOr<int> start = import.lookup(merge, first->node);
  if (failed(start))
    return failure();
  if (import.node(*start).op() == "Switch")
    return CondBranch{*start, first->output};
  queue.push_back(*start);
  seen.insert(*start);
  for (size_t next = 0; next < queue.size(); ++next) {
    int node = queue[next];
    for (const std::string &entry : import.node(node).input()) {
      InputRef ref = parseInput(entry);
      std::optional<int> source = import.findNode(ref.node);
      if (!source)
        continue;
      if (import.node(*source).op() == "Switch")
        return CondBranch{*source, ref.output};
      // The Merge of an enclosing cond is outside this one.
      if (import.node(*source).op() != "Merge" && seen.insert(*source).second)
        queue.push_back(*source);
    }
  }
  import.fail(merge) << "input " << input
                     << " depends on no Switch: DTF imports Merge as the "
                        "join of tf.compat.v1.cond's branches";
  return failure();
}

/// Merge: the join of a tf.cond, a dtf.select on the cond's predicate of
/// the true branch's value (the input that depends on a Switch's output 1)
/// and the false branch's.
Results translateMerge(ImportContext &import, int index) {
  if (import.node(index).input_size() != 2) {
    import.fail(index) << "joins " << import.node(index).input_size()
                       << " values; DTF imports the Merge of tf.cond's two "
                          "branches";
    return failure();
  }
  FailureOr<CondBranch> a = condBranchOf(import, index, 0),
                        b = condBranchOf(import, index, 1);
  if (failed(a) || failed(b))
    return failure();
  if (a->output == b->output) {
    import.fail(index) << "joins two values of the "
                       << (a->output ? "true" : "false")
                       << " branch of a tf.cond";
    return failure();
  }
  FailureOr<int> predicateA = import.throughIdentities(a->switchNode, 1),
                 predicateB = import.throughIdentities(b->switchNode, 1);
  if (failed(predicateA) || failed(predicateB))
    return failure();
  if (*predicateA != *predicateB) {
    import.fail(index) << "joins branches of conds on different predicates, '"
                       << import.node(*predicateA).name() << "' and '"
                       << import.node(*predicateB).name() << "'";
    return failure();
  }
  int trueInput = a->output == 1 ? 0 : 1;
  FailureOr<Value> predicate = import.operand(a->switchNode, 1),
                   onTrue = import.operand(index, trueInput),
                   onFalse = import.operand(index, 1 - trueInput);
  if (failed(predicate) || failed(onTrue) || failed(onFalse))
    return failure();
  FailureOr<Operation *> select =
      createChecked<SelectOp>(import, index, *predicate, *onTrue, *onFalse);
  if (failed(select))
    return failure();
  // Output 1, value_index, says which input arrived: DTF has no use for it.
  return SmallVector<Value>{(*select)->getResult(0), Value()};
}

/// Select (tf.compat.v1.where) and SelectV2 (tf.where): dtf.select. Select
/// takes a condition of the values' shape or, unlike SelectV2's
/// broadcasting, a vector choosing whole rows: that one is reshaped to
/// [N, 1, ...] so that it broadcasts along the rows.
Results translateSelect(ImportContext &import, int index) {
  FailureOr<Value> condition = import.operand(index, 0),
                   onTrue = import.operand(index, 1),
                   onFalse = import.operand(index, 2);
  if (failed(condition) || failed(onTrue) || failed(onFalse))
    return failure();
  auto conditionType = cast<RankedTensorType>(condition->getType());
  auto valueType = cast<RankedTensorType>(onTrue->getType());
  if (import.node(index).op() == "Select" && conditionType.getRank() == 1 &&
      valueType.getRank() > 1) {
    SmallVector<int64_t> rows(valueType.getRank(), 1);
    rows[0] = conditionType.getDimSize(0);
    FailureOr<Operation *> reshaped = createChecked<ReshapeOp>(
        import, index,
        RankedTensorType::get(rows, conditionType.getElementType()),
        *condition);
    if (failed(reshaped))
      return failure();
    condition = (*reshaped)->getResult(0);
  }
  return createPinned<SelectOp>(import, index, *condition, *onTrue, *onFalse);
}

template <typename OpT>
Results translateCrossEntropy(ImportContext &import, int index) {
  FailureOr<Value> logits = import.operand(index, 0),
                   labels = import.operand(index, 1);
  if (failed(logits) || failed(labels))
    return failure();
  FailureOr<Operation *> loss =
      createChecked<OpT>(import, index, *logits, *labels);
  if (failed(loss))
    return failure();
  // Output 1, the backprop TensorFlow computes with the loss, is left to
  // DTF's autodiff.
  return SmallVector<Value>{(*loss)->getResult(0), Value()};
}

/// tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), which
/// TensorFlow computes as Add(Sub(Select(x >= 0, x, 0), Mul(x, z)),
/// Log1p(Exp(Select(x >= 0, -x, x)))); any other Add is an elementwise sum.
Results translateAdd(ImportContext &import, int index) {
  FailureOr<int> difference = import.throughIdentities(index, 0),
                 softplus = import.throughIdentities(index, 1);
  if (failed(difference) || failed(softplus))
    return failure();
  if (import.node(*difference).op() != "Sub" ||
      import.node(*softplus).op() != "Log1p")
    return translateBinary<AddOp>(import, index);
  FailureOr<int> product = import.throughIdentities(*difference, 1),
                 exponential = import.throughIdentities(*softplus, 0);
  if (failed(product) || failed(exponential))
    return failure();
  if (import.node(*product).op() != "Mul" ||
      import.node(*exponential).op() != "Exp") {
    import.fail(index) << "adds a Log1p to a difference as "
                          "tf.nn.sigmoid_cross_entropy_with_logits does, "
                          "but not of Mul(logits, labels) and "
                          "Log1p(Exp(...))";
    return failure();
  }
  FailureOr<Value> logits = import.operand(*product, 0),
                   labels = import.operand(*product, 1);
  if (failed(logits) || failed(labels))
    return failure();
  return createPinned<SigmoidCrossEntropyWithLogitsOp>(import, index, *logits,
                                                       *labels);
}

/// GatherV2 on axis 0 and ResourceGather: tf.nn.embedding_lookup (or
/// tf.gather) of rows. Rows of a variable are a dtf.embedding_lookup, whose
/// gradient stays sparse; rows of any other value a dtf.gather.
Results translateGather(ImportContext &import, int index) {
  if (import.node(index).op() == "GatherV2") {
    FailureOr<SmallVector<int64_t>> axis = import.integers(index, 2);
    if (failed(axis))
      return failure();
    const tensorflow::AttrValue *batchDims = import.attr(index, "batch_dims");
    if (*axis != SmallVector<int64_t>{0} || (batchDims && batchDims->i())) {
      import.fail(index) << "gathers on another axis than 0 or with "
                            "batch_dims; DTF gathers rows";
      return failure();
    }
  }
  FailureOr<int> source = import.throughIdentities(index, 0);
  FailureOr<Value> ids = import.operand(index, 1);
  if (failed(source) || failed(ids))
    return failure();
  if (VariableOp table = import.variable(*source))
    return createPinned<EmbeddingLookupOp>(import, index, table.getHandle(),
                                           *ids, RowShardAttr());
  FailureOr<Value> params = import.operand(index, 0);
  if (failed(params))
    return failure();
  return createPinned<GatherOp>(import, index, *params, *ids);
}

/// The DynamicStitch of tf.nn.embedding_lookup on a partitioned table: one
/// dtf.embedding_lookup of the whole table, at the ids before the lookup
/// flattened them (the Reshape that follows gives the rows their shape
/// again, which it then leaves as they are).
Results translateDynamicStitch(ImportContext &import, int index) {
  FailureOr<PartitionedLookup> lookup =
      recognizePartitionedLookup(import, index);
  if (failed(lookup))
    return failure();
  int ids = lookup->ids, output = lookup->idsOutput;
  if (import.node(ids).op() == "Reshape") {
    FailureOr<SmallVector<int64_t>> shape = import.integers(ids, 1);
    if (failed(shape))
      return failure();
    if (*shape == SmallVector<int64_t>{-1}) {
      FailureOr<InputRef> unflattened = import.dataInput(ids, 0);
      if (failed(unflattened))
        return failure();
      FailureOr<int> node = import.lookup(ids, unflattened->node);
      if (failed(node))
        return failure();
      ids = *node;
      output = unflattened->output;
    }
  }
  FailureOr<Value> idsValue = import.resolve(ids, output);
  if (failed(idsValue))
    return failure();
  return createPinned<EmbeddingLookupOp>(
      import, index, lookup->table.getHandle(), *idsValue, RowShardAttr());
}

/// The last op of tf.nn.embedding_lookup_sparse (SparseSegmentSum, Mean or
/// SqrtN; SegmentSum or DivNoNan with weights): dtf.embedding_combine of the
/// rows dtf.embedding_lookup reads at the padded ids.
Results translateEmbeddingLookupSparse(ImportContext &import, int index) {
  FailureOr<SparseLookup> lookup = recognizeSparseLookup(import, index);
  if (failed(lookup))
    return failure();
  FailureOr<Value> ids = paddedSparseInput(import, lookup->ids);
  if (failed(ids))
    return failure();
  Value weights;
  if (lookup->weights) {
    FailureOr<Value> padded = paddedSparseInput(import, *lookup->weights);
    if (failed(padded))
      return failure();
    weights = *padded;
  }
  FailureOr<Operation *> rows = createChecked<EmbeddingLookupOp>(
      import, index, lookup->table.getHandle(), *ids, RowShardAttr());
  if (failed(rows))
    return failure();
  return createPinned<EmbeddingCombineOp>(
      import, index, CombinerAttr::get(import.getContext(), lookup->combiner),
      (*rows)->getResult(0), *ids, weights);
}

/// DivNoNan: the combiner of a weighted tf.nn.embedding_lookup_sparse when
/// it divides a SegmentSum, an elementwise dtf.div_no_nan otherwise
/// (tf.losses' weighted means, tf.math.divide_no_nan).
Results translateDivNoNan(ImportContext &import, int index) {
  FailureOr<int> numerator = import.throughIdentities(index, 0);
  if (failed(numerator))
    return failure();
  if (import.node(*numerator).op() == "SegmentSum")
    return translateEmbeddingLookupSparse(import, index);
  return translateBinary<DivNoNanOp>(import, index);
}

Results translateConcat(ImportContext &import, int index) {
  int count = import.node(index).input_size();
  const tensorflow::AttrValue *n = import.attr(index, "N");
  if (n)
    count = int(n->i());
  FailureOr<SmallVector<int64_t>> axis = import.integers(index, count);
  if (failed(axis))
    return failure();
  if (axis->size() != 1) {
    import.fail(index) << "takes one axis";
    return failure();
  }
  SmallVector<Value> inputs;
  for (int input = 0; input < count; ++input) {
    FailureOr<Value> value = import.operand(index, input);
    if (failed(value))
      return failure();
    inputs.push_back(*value);
  }
  return createPinned<ConcatOp>(
      import, index, ValueRange(inputs),
      import.getBuilder().getI64IntegerAttr(axis->front()));
}

/// `x` under the shape `dims` of the same elements, a dtf.reshape: at most
/// one dimension dynamic, which the reshape infers when it runs. None where
/// the shape is x's: TensorFlow's functions reshape to the shape a tensor
/// has already (flattening the outer dimensions of a matrix).
Results reshapeTo(ImportContext &import, int index, Value x,
                  ArrayRef<int64_t> dims) {
  if (llvm::count_if(dims, ShapedType::isDynamic) > 1) {
    import.fail(index) << "would leave more than one dimension of unknown "
                          "size, which DTF's reshape cannot infer";
    return failure();
  }
  auto input = cast<RankedTensorType>(x.getType());
  auto type = RankedTensorType::get(dims, input.getElementType());
  if (type == input)
    return SmallVector<Value>{x};
  return createPinned<ReshapeOp>(import, index, type, x);
}

/// SquaredDifference (tf.losses.mean_squared_error's): (x - y) * (x - y),
/// whose gradient DTF's autodiff derives from sub and mul.
Results translateSquaredDifference(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0), y = import.operand(index, 1);
  if (failed(x) || failed(y))
    return failure();
  FailureOr<Operation *> difference =
      createChecked<SubOp>(import, index, *x, *y);
  if (failed(difference))
    return failure();
  Value d = (*difference)->getResult(0);
  return createPinned<MulOp>(import, index, d, d);
}

/// Fill (tf.fill, and so tf.ones_like and the zero states of RNN cells): the
/// scalar broadcast to the shape of input 0, computed before running. A
/// dimension it leaves unknown is the batch, which --dtf-specialize-batch
/// fixes.
Results translateFill(ImportContext &import, int index) {
  FailureOr<SmallVector<int64_t>> shape = foldShape(import, index, 0);
  FailureOr<Value> value = import.operand(index, 1);
  if (failed(shape) || failed(value))
    return failure();
  auto scalar = cast<RankedTensorType>(value->getType());
  if (scalar.getRank() != 0) {
    import.fail(index) << "fills with " << scalar << ", not a scalar";
    return failure();
  }
  return createPinned<BroadcastToOp>(
      import, index, RankedTensorType::get(*shape, scalar.getElementType()),
      *value);
}

/// StridedSlice of a shape known at import (`tf.shape(x)[-1]`, the number
/// of classes that softmax_cross_entropy's label smoothing divides by): the
/// dtf.constant of the dimensions it takes. A slice of another tensor is an
/// error about its input 0.
Results translateStridedSlice(ImportContext &import, int index) {
  FailureOr<SmallVector<int64_t>> dimensions = foldStridedSlice(import, index);
  if (failed(dimensions))
    return failure();
  const tensorflow::AttrValue *dtype = import.attr(index, "T");
  if (!dtype) {
    import.fail(index) << "has no 'T' attribute";
    return failure();
  }
  FailureOr<Type> element = import.elementType(index, dtype->type());
  if (failed(element))
    return failure();
  if (!element->isSignlessInteger()) {
    import.fail(index) << "slices a shape of " << *element
                       << ", not of integers";
    return failure();
  }
  if (llvm::any_of(*dimensions, ShapedType::isDynamic)) {
    import.fail(index) << "takes a dimension of unknown size as a value; DTF "
                          "computes it at import, from a static shape";
    return failure();
  }
  const tensorflow::AttrValue *shrink = import.attr(index, "shrink_axis_mask");
  SmallVector<int64_t> shape;
  if (!(shrink && shrink->i() & 1))
    shape.push_back(int64_t(dimensions->size()));
  SmallVector<APInt> values;
  for (int64_t dimension : *dimensions)
    values.emplace_back(element->getIntOrFloatBitWidth(), dimension,
                        /*isSigned=*/true);
  return createPinned<ConstantOp>(
      import, index,
      DenseElementsAttr::get(RankedTensorType::get(shape, *element), values));
}

/// RandomUniform drawn at every step (tf.nn.dropout's mask, of the shape of
/// its input): a dtf.random_uniform of the shape folded at import, whose
/// unknown dimension is the batch. A variable's initializer is not
/// translated here: its RandomUniform becomes the variable's
/// #dtf.random_uniform.
Results translateRandomUniform(ImportContext &import, int index) {
  FailureOr<SmallVector<int64_t>> shape = foldShape(import, index, 0);
  const tensorflow::AttrValue *dtype = import.attr(index, "dtype");
  if (failed(shape) || !dtype)
    return failure();
  FailureOr<Type> element = import.elementType(index, dtype->type());
  if (failed(element))
    return failure();
  if (!isa<FloatType>(*element)) {
    import.fail(index) << "samples " << *element << ", not floats";
    return failure();
  }
  return createPinned<RandomUniformOp>(import, index,
                                       RankedTensorType::get(*shape, *element),
                                       import.randomSeed(index));
}

/// The normalized `axis` of a rank-`rank` value, or an error about node
/// `index`.
FailureOr<int64_t> axisOf(ImportContext &import, int index, int64_t axis,
                          int64_t rank) {
  if (axis < -rank || axis >= rank) {
    import.fail(index) << "axis " << axis << " is out of range for rank "
                       << rank;
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

/// Pieces of `x` along `axis` of the sizes `sizes`: one dtf.slice each.
Results slicesAlong(ImportContext &import, int index, Value x, int64_t axis,
                    ArrayRef<int64_t> sizes) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<Value> pieces;
  int64_t offset = 0;
  for (int64_t size : sizes) {
    SmallVector<int64_t> offsets(type.getRank(), 0), extents(type.getShape());
    offsets[axis] = offset;
    extents[axis] = size;
    for (int64_t &extent : extents)
      if (ShapedType::isDynamic(extent))
        extent = -1;
    FailureOr<Operation *> slice =
        createChecked<SliceOp>(import, index, x, offsets, extents);
    if (failed(slice))
      return failure();
    pieces.push_back((*slice)->getResult(0));
    offset += size;
  }
  return pieces;
}

/// Split (tf.split into equal parts; the gates of an LSTM cell) and SplitV
/// (tf.split with sizes): a dtf.slice per output.
Results translateSplit(ImportContext &import, int index) {
  bool sized = import.node(index).op() == "SplitV";
  FailureOr<Value> x = import.operand(index, sized ? 0 : 1);
  FailureOr<SmallVector<int64_t>> axes = import.integers(index, sized ? 2 : 0);
  if (failed(x) || failed(axes))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (axes->size() != 1) {
    import.fail(index) << "takes one axis";
    return failure();
  }
  FailureOr<int64_t> axis =
      axisOf(import, index, axes->front(), type.getRank());
  if (failed(axis))
    return failure();
  int64_t length = type.getDimSize(*axis);
  if (ShapedType::isDynamic(length)) {
    import.fail(index) << "splits a dimension of unknown size";
    return failure();
  }
  SmallVector<int64_t> sizes;
  if (sized) {
    FailureOr<SmallVector<int64_t>> given = import.integers(index, 1);
    if (failed(given))
      return failure();
    sizes = *given;
    // One size may be -1: what the others leave.
    int64_t known = 0, unknown = 0;
    for (int64_t size : sizes)
      size < 0 ? ++unknown : known += size;
    for (int64_t &size : sizes)
      if (size < 0 && unknown == 1)
        size = length - known;
    if (unknown > 1 || llvm::any_of(sizes, [](int64_t s) { return s < 0; }) ||
        std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != length) {
      import.fail(index) << "sizes do not add up to the dimension's " << length;
      return failure();
    }
  } else {
    const tensorflow::AttrValue *count = import.attr(index, "num_split");
    if (!count || count->i() <= 0 || length % count->i() != 0) {
      import.fail(index) << "cannot split a dimension of " << length << " into "
                         << (count ? count->i() : 0) << " equal parts";
      return failure();
    }
    sizes.assign(count->i(), length / count->i());
  }
  return slicesAlong(import, index, *x, *axis, sizes);
}

/// Unpack (tf.unstack, the time steps of static_rnn): the slices of size 1
/// along the axis, each without it.
Results translateUnpack(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  const tensorflow::AttrValue *axisAttr = import.attr(index, "axis");
  FailureOr<int64_t> axis =
      axisOf(import, index, axisAttr ? axisAttr->i() : 0, type.getRank());
  if (failed(axis))
    return failure();
  int64_t count = type.getDimSize(*axis);
  if (ShapedType::isDynamic(count)) {
    import.fail(index) << "unstacks a dimension of unknown size";
    return failure();
  }
  Results pieces =
      slicesAlong(import, index, *x, *axis, SmallVector<int64_t>(count, 1));
  if (failed(pieces))
    return failure();
  SmallVector<int64_t> dims(type.getShape());
  dims.erase(dims.begin() + *axis);
  for (Value &piece : *pieces) {
    Results reshaped = reshapeTo(import, index, piece, dims);
    if (failed(reshaped))
      return failure();
    piece = reshaped->front();
  }
  return pieces;
}

/// Pack (tf.stack): each value with a dimension of 1 inserted at the axis,
/// then joined along it.
Results translatePack(ImportContext &import, int index) {
  int count = import.node(index).input_size();
  const tensorflow::AttrValue *n = import.attr(index, "N");
  if (n)
    count = int(n->i());
  const tensorflow::AttrValue *axisAttr = import.attr(index, "axis");
  SmallVector<Value> pieces;
  int64_t axis = 0;
  for (int input = 0; input < count; ++input) {
    FailureOr<Value> value = import.operand(index, input);
    if (failed(value))
      return failure();
    auto type = cast<RankedTensorType>(value->getType());
    FailureOr<int64_t> normalized =
        axisOf(import, index, axisAttr ? axisAttr->i() : 0, type.getRank() + 1);
    if (failed(normalized))
      return failure();
    axis = *normalized;
    SmallVector<int64_t> dims(type.getShape());
    dims.insert(dims.begin() + axis, 1);
    Results reshaped = reshapeTo(import, index, *value, dims);
    if (failed(reshaped))
      return failure();
    pieces.push_back(reshaped->front());
  }
  return createPinned<ConcatOp>(import, index, ValueRange(pieces),
                                import.getBuilder().getI64IntegerAttr(axis));
}

template <typename OpT>
Results translateReduction(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  // tf.losses reduce over Range(0, Rank(losses)): folded as shapes are.
  FailureOr<SmallVector<int64_t>> axes = foldShape(import, index, 1);
  if (failed(x) || failed(axes))
    return failure();
  const tensorflow::AttrValue *keep = import.attr(index, "keep_dims");
  return createPinned<OpT>(import, index, *x, *axes, keep && keep->b());
}

Results translateReshape(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  if (failed(x))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = foldShape(import, index, 1);
  if (failed(shape))
    return failure();
  auto input = cast<RankedTensorType>(x->getType());
  int64_t known = 1, inferred = -1;
  for (auto [dim, size] : llvm::enumerate(*shape)) {
    if ((size == -1 || ShapedType::isDynamic(size)) && inferred < 0)
      inferred = int64_t(dim);
    else if (size < 0) {
      import.fail(index) << "shape ["
                         << llvm::make_range(shape->begin(), shape->end())
                         << "] has more than one -1 or a negative size";
      return failure();
    } else
      known *= size;
  }
  SmallVector<int64_t> dims(*shape);
  if (inferred >= 0)
    dims[inferred] = input.hasStaticShape() && known > 0
                         ? input.getNumElements() / known
                         : ShapedType::kDynamic;
  return reshapeTo(import, index, *x, dims);
}

/// ExpandDims (tf.expand_dims): a dimension of size 1 inserted at the axis
/// of input 1 (a negative one counts from the end, -1 appending).
Results translateExpandDims(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  FailureOr<SmallVector<int64_t>> axes = import.integers(index, 1);
  if (failed(x) || failed(axes))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  if (axes->size() != 1 || (*axes)[0] < -(rank + 1) || (*axes)[0] > rank) {
    import.fail(index) << "needs one axis in [" << -(rank + 1) << ", " << rank
                       << "] for a tensor of rank " << rank;
    return failure();
  }
  int64_t axis = (*axes)[0] < 0 ? (*axes)[0] + rank + 1 : (*axes)[0];
  SmallVector<int64_t> dims(type.getShape());
  dims.insert(dims.begin() + axis, 1);
  return reshapeTo(import, index, *x, dims);
}

/// Squeeze (tf.squeeze): the dimensions of size 1 its squeeze_dims name
/// removed, or all of them where it names none. A dimension of unknown
/// size is removed only where named (as TensorFlow, which checks that it
/// is 1 when it runs; DTF's reshape checks the element count).
Results translateSqueeze(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  SmallVector<bool> removed(rank, false);
  const tensorflow::AttrValue *named = import.attr(index, "squeeze_dims");
  if (!named || named->list().i_size() == 0) {
    for (int64_t dim = 0; dim < rank; ++dim) {
      if (type.isDynamicDim(dim)) {
        import.fail(index) << "squeezes every dimension of size 1, and "
                              "dimension "
                           << dim
                           << " has an unknown size; name the dimensions "
                              "(squeeze_dims)";
        return failure();
      }
      removed[dim] = type.getDimSize(dim) == 1;
    }
  } else {
    for (int64_t axis : named->list().i()) {
      int64_t dim = axis < 0 ? axis + rank : axis;
      if (dim < 0 || dim >= rank ||
          (!type.isDynamicDim(dim) && type.getDimSize(dim) != 1)) {
        import.fail(index) << "squeezes dimension " << axis << " of " << type
                           << ", which is not one of size 1";
        return failure();
      }
      removed[dim] = true;
    }
  }
  SmallVector<int64_t> dims;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (!removed[dim])
      dims.push_back(type.getDimSize(dim));
  return reshapeTo(import, index, *x, dims);
}

/// A convolution's "dilations" as dtf's attribute: none when TensorFlow's
/// are absent or all 1, so that an undilated convolution reads as before.
FailureOr<DenseI64ArrayAttr> dilationsAttr(ImportContext &import, int index) {
  if (!import.attr(index, "dilations"))
    return DenseI64ArrayAttr();
  FailureOr<SmallVector<int64_t>> dilations =
      window(import, index, "dilations");
  if (failed(dilations))
    return failure();
  if (llvm::all_of(*dilations, [](int64_t d) { return d == 1; }))
    return DenseI64ArrayAttr();
  return import.getBuilder().getDenseI64ArrayAttr(*dilations);
}

Results translateConv2D(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0),
                   filter = import.operand(index, 1);
  FailureOr<SmallVector<int64_t>> strides = window(import, index, "strides");
  FailureOr<Padding> pad = padding(import, index);
  if (failed(x) || failed(filter) || failed(strides) || failed(pad) ||
      failed(requireNHWC(import, index)))
    return failure();
  FailureOr<DenseI64ArrayAttr> dilations = dilationsAttr(import, index);
  if (failed(dilations))
    return failure();
  OpBuilder &builder = import.getBuilder();
  return createPinned<Conv2DOp>(
      import, index, *x, *filter, builder.getDenseI64ArrayAttr(*strides),
      PaddingAttr::get(import.getContext(), *pad), *dilations);
}

/// The padding of a stride-1 convolution whose filter spans `span` cells of
/// `input`, which starts `before` cells before the input and gives `output`
/// cells: SAME or VALID as TensorFlow pads, if it is either.
std::optional<Padding> paddingOf(int64_t input, int64_t span, int64_t before,
                                 int64_t output) {
  if (before == (span - 1) / 2 && output == input)
    return Padding::SAME;
  if (before == 0 && output == input - span + 1)
    return Padding::VALID;
  return std::nullopt;
}

/// BatchToSpaceND(Conv2D(SpaceToBatchND(x, block, paddings), filter), block,
/// crops), how tf.nn.convolution dilates a convolution in a graph (and so
/// tf.compat.v1.layers.conv2d with a dilation_rate and tf.nn.atrous_conv2d):
/// one dilated dtf.conv2d of x, with dilations `block`. Each of the block's
/// grids is convolved VALID, so output cell o reads the padded input's cells
/// o + crop_before + j * block, input cells o + crop_before - pad_before +
/// j * block: that is SAME or VALID padding, whichever the paddings and
/// crops amount to. The Conv2D and SpaceToBatchND nodes are not imported.
Results translateBatchToSpaceND(ImportContext &import, int index) {
  auto refuse = [&]() -> InFlightDiagnostic {
    return import.fail(index)
           << "is imported only as the end of a dilated convolution, "
              "BatchToSpaceND(Conv2D(SpaceToBatchND(x))) as tf.nn.convolution "
              "builds it; ";
  };
  FailureOr<int> conv = import.throughIdentities(index, 0);
  if (failed(conv))
    return failure();
  if (import.node(*conv).op() != "Conv2D") {
    refuse() << "its input is a " << import.node(*conv).op();
    return failure();
  }
  FailureOr<int> toBatch = import.throughIdentities(*conv, 0);
  if (failed(toBatch))
    return failure();
  if (import.node(*toBatch).op() != "SpaceToBatchND") {
    refuse() << "the Conv2D's input is a " << import.node(*toBatch).op();
    return failure();
  }
  FailureOr<SmallVector<int64_t>> block = import.integers(index, 1),
                                  crops = import.integers(index, 2),
                                  toBatchBlock = import.integers(*toBatch, 1),
                                  paddings = import.integers(*toBatch, 2);
  FailureOr<SmallVector<int64_t>> strides = window(import, *conv, "strides");
  FailureOr<Padding> convPadding = padding(import, *conv);
  FailureOr<DenseI64ArrayAttr> convDilations = dilationsAttr(import, *conv);
  if (failed(block) || failed(crops) || failed(toBatchBlock) ||
      failed(paddings) || failed(strides) || failed(convPadding) ||
      failed(convDilations) || failed(requireNHWC(import, *conv)))
    return failure();
  if (block->size() != 2 || *block != *toBatchBlock || crops->size() != 4 ||
      paddings->size() != 4 ||
      llvm::any_of(*block, [](int64_t b) { return b < 1; })) {
    refuse() << "the block shapes must be the same 2 spatial dilations, with "
                "paddings and crops of [2, 2]";
    return failure();
  }
  if (*convPadding != Padding::VALID || *convDilations ||
      llvm::any_of(*strides, [](int64_t s) { return s != 1; })) {
    refuse() << "the Conv2D must be VALID, undilated and of stride 1";
    return failure();
  }
  FailureOr<Value> x = import.operand(*toBatch, 0),
                   filter = import.operand(*conv, 1);
  if (failed(x) || failed(filter))
    return failure();
  auto xType = cast<RankedTensorType>(x->getType());
  auto filterType = cast<RankedTensorType>(filter->getType());
  if (xType.getRank() != 4 || filterType.getRank() != 4 ||
      xType.isDynamicDim(1) || xType.isDynamicDim(2) ||
      filterType.isDynamicDim(0) || filterType.isDynamicDim(1)) {
    refuse() << "the image " << xType << " and filter " << filterType
             << " must have static heights and widths";
    return failure();
  }
  std::optional<Padding> pad[2];
  for (int dim = 0; dim < 2; ++dim) {
    int64_t input = xType.getDimSize(1 + dim);
    int64_t span = (filterType.getDimSize(dim) - 1) * (*block)[dim] + 1;
    int64_t padBefore = (*paddings)[2 * dim],
            padAfter = (*paddings)[2 * dim + 1];
    int64_t cropBefore = (*crops)[2 * dim], cropAfter = (*crops)[2 * dim + 1];
    pad[dim] = paddingOf(input, span, padBefore - cropBefore,
                         input + padBefore + padAfter - (span - 1) -
                             cropBefore - cropAfter);
  }
  // Along a filter dimension of one tap SAME and VALID pad alike (not at
  // all), and paddingOf says SAME: the other dimension decides.
  for (int dim = 0; dim < 2; ++dim)
    if (filterType.getDimSize(dim) == 1 && pad[dim] && pad[1 - dim])
      pad[dim] = pad[1 - dim];
  if (!pad[0] || pad[0] != pad[1]) {
    InFlightDiagnostic diag = refuse();
    diag << "its paddings [";
    llvm::interleaveComma(*paddings, diag);
    diag << "] and crops [";
    llvm::interleaveComma(*crops, diag);
    diag << "] are neither TensorFlow's SAME nor its VALID padding";
    return failure();
  }
  OpBuilder &builder = import.getBuilder();
  SmallVector<int64_t> dilations = {1, (*block)[0], (*block)[1], 1};
  return createPinned<Conv2DOp>(
      import, index, *x, *filter, builder.getDenseI64ArrayAttr({1, 1, 1, 1}),
      PaddingAttr::get(import.getContext(), *pad[0]),
      llvm::all_of(*block, [](int64_t b) { return b == 1; })
          ? DenseI64ArrayAttr()
          : builder.getDenseI64ArrayAttr(dilations));
}

/// Conv2DBackpropInput as a forward op: tf.nn.conv2d_transpose and
/// tf.compat.v1.layers.conv2d_transpose, the gradient of a convolution of
/// `input_sizes` images with the filter, taken of the value. The sizes
/// are folded at import; an unknown batch is the value's.
Results translateConv2DBackpropInput(ImportContext &import, int index) {
  FailureOr<SmallVector<int64_t>> sizes = foldShape(import, index, 0);
  FailureOr<Value> filter = import.operand(index, 1),
                   value = import.operand(index, 2);
  FailureOr<SmallVector<int64_t>> strides = window(import, index, "strides");
  FailureOr<Padding> pad = padding(import, index);
  FailureOr<DenseI64ArrayAttr> dilations = dilationsAttr(import, index);
  if (failed(sizes) || failed(filter) || failed(value) || failed(strides) ||
      failed(pad) || failed(dilations) || failed(requireNHWC(import, index)))
    return failure();
  if (sizes->size() != 4) {
    import.fail(index) << "takes input_sizes of " << sizes->size()
                       << " dimensions; an NHWC image has 4";
    return failure();
  }
  Type element = cast<RankedTensorType>(value->getType()).getElementType();
  OpBuilder &builder = import.getBuilder();
  return createPinned<Conv2DBackpropInputOp>(
      import, index, RankedTensorType::get(*sizes, element), *filter, *value,
      builder.getDenseI64ArrayAttr(*strides),
      PaddingAttr::get(import.getContext(), *pad), *dilations);
}

/// MaxPool and AvgPool (NHWC): dtf.max_pool and dtf.avg_pool.
template <typename OpT>
Results translatePool(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  FailureOr<SmallVector<int64_t>> ksize = window(import, index, "ksize");
  FailureOr<SmallVector<int64_t>> strides = window(import, index, "strides");
  FailureOr<Padding> pad = padding(import, index);
  if (failed(x) || failed(ksize) || failed(strides) || failed(pad) ||
      failed(requireNHWC(import, index)))
    return failure();
  OpBuilder &builder = import.getBuilder();
  return createPinned<OpT>(import, index, *x,
                           builder.getDenseI64ArrayAttr(*ksize),
                           builder.getDenseI64ArrayAttr(*strides),
                           PaddingAttr::get(import.getContext(), *pad));
}

/// FusedBatchNorm, V2 and V3 (NHWC; tf.compat.v1.layers.batch_normalization
/// on images): decomposed into dtf ops, as XLA's BatchNormExpander and
/// torch-mlir's decompositions do, so that --dtf-autodiff derives the
/// gradient FusedBatchNormGrad computes (through the batch's statistics in
/// training) and every backend runs it. y = (x - mean) * rsqrt(variance +
/// epsilon) * scale + offset. In training (is_training), the mean and the
/// biased variance are the batch's over N, H and W, and outputs 1 and 2 the
/// batch's mean and its variance with Bessel's correction n / (n - 1),
/// which the moving averages follow; in inference, inputs 3 and 4
/// normalize and are outputs 1 and 2. The reserve spaces are only
/// FusedBatchNormGrad's.
Results translateFusedBatchNorm(ImportContext &import, int index) {
  if (failed(requireNHWC(import, index)))
    return failure();
  const tensorflow::AttrValue *trainingAttr = import.attr(index, "is_training");
  bool training = !trainingAttr || trainingAttr->b();
  const tensorflow::AttrValue *averageFactor =
      import.attr(index, "exponential_avg_factor");
  if (training && averageFactor && averageFactor->f() != 1.0f) {
    import.fail(index)
        << "keeps its moving averages itself (exponential_avg_factor "
        << averageFactor->f()
        << "); DTF imports the factor 1 of tf.compat.v1.layers, whose "
           "moving averages are the graph's AssignMovingAvg updates";
    return failure();
  }
  const tensorflow::AttrValue *epsilonAttr = import.attr(index, "epsilon");
  // TensorFlow's default epsilon.
  double epsilon = epsilonAttr ? shortestDouble(epsilonAttr->f()) : 1e-4;

  // In training, inputs 3 and 4 are not read (TensorFlow passes the moving
  // averages, or empty tensors).
  SmallVector<Value, 5> inputs;
  for (int input = 0; input < (training ? 3 : 5); ++input) {
    FailureOr<Value> value = import.operand(index, input);
    if (failed(value))
      return failure();
    inputs.push_back(*value);
  }
  Value x = inputs[0], scale = inputs[1], offset = inputs[2];
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  if (type.getRank() != 4 || !isa<FloatType>(element)) {
    import.fail(index) << "normalizes " << type
                       << "; FusedBatchNorm takes a 4-D float tensor (NHWC)";
    return failure();
  }

  NodeDecomposition ops(import, index);
  SmallVector<int64_t> batchAxes = {0, 1, 2};
  Value mean =
      training ? ops.create<ReduceMeanOp>(x, batchAxes, false) : inputs[3];
  Value centered = ops.create<SubOp>(x, mean);
  Value variance, outputVariance;
  if (training) {
    variance = ops.create<ReduceMeanOp>(ops.create<MulOp>(centered, centered),
                                        batchAxes, false);
    // n = N * H * W, whose N is the batch's until --dtf-specialize-batch:
    // the sum of ones of x's shape without its channels.
    SmallVector<int64_t> onesShape(type.getShape());
    onesShape.back() = 1;
    Value one = ops.scalar(element, 1.0);
    Value count = ops.create<ReduceSumOp>(
        ops.create<BroadcastToOp>(RankedTensorType::get(onesShape, element),
                                  one),
        SmallVector<int64_t>{}, false);
    // TensorFlow's kernels correct by n / max(n - 1, 1).
    Value correction = ops.create<DivOp>(
        count, ops.create<MaximumOp>(ops.create<SubOp>(count, one), one));
    outputVariance = ops.create<MulOp>(variance, correction);
  } else {
    variance = inputs[4];
    outputVariance = variance;
  }
  Value shifted = ops.create<AddOp>(variance, ops.scalar(element, epsilon));
  Value factor = ops.create<MulOp>(ops.create<RsqrtOp>(shifted), scale);
  Value y = ops.create<AddOp>(ops.create<MulOp>(centered, factor), offset);
  if (ops.hasFailed())
    return failure();
  // FusedBatchNorm has two reserve spaces, V3 a third.
  SmallVector<Value> outputs = {y, mean, outputVariance, Value(), Value()};
  if (import.node(index).op() == "FusedBatchNormV3")
    outputs.push_back(Value());
  return outputs;
}

Results translateArgMax(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  FailureOr<SmallVector<int64_t>> axis = import.integers(index, 1);
  if (failed(x) || failed(axis))
    return failure();
  const tensorflow::AttrValue *outputType = import.attr(index, "output_type");
  if (outputType && outputType->type() != tensorflow::DT_INT64) {
    import.fail(index) << "output_type must be int64, the type of dtf.argmax";
    return failure();
  }
  if (axis->size() != 1) {
    import.fail(index) << "takes one dimension";
    return failure();
  }
  return createPinned<ArgMaxOp>(import, index, *x, axis->front());
}

Results translateCast(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  const tensorflow::AttrValue *dst = import.attr(index, "DstT");
  if (failed(x))
    return failure();
  if (!dst) {
    import.fail(index) << "has no 'DstT' attribute";
    return failure();
  }
  FailureOr<Type> element = import.elementType(index, dst->type());
  if (failed(element))
    return failure();
  auto input = cast<RankedTensorType>(x->getType());
  return createPinned<CastOp>(import, index, input.clone(*element), *x);
}

//===----------------------------------------------------------------------===//
// Layer math of TF1 models: Transpose, LogSoftmax, OneHot, Tile,
// BatchMatMul, Prod
//===----------------------------------------------------------------------===//

/// Transpose (tf.transpose): dtf.transpose by the Const `perm` of input 1.
Results translateTranspose(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  FailureOr<SmallVector<int64_t>> permutation = import.integers(index, 1);
  if (failed(x) || failed(permutation))
    return failure();
  return createPinned<TransposeOp>(import, index, *x, *permutation);
}

/// OneHot (tf.one_hot) along the last axis: dtf.one_hot of the Const depth,
/// on and off values of inputs 1 to 3.
Results translateOneHot(ImportContext &import, int index) {
  FailureOr<Value> indices = import.operand(index, 0);
  FailureOr<SmallVector<int64_t>> depth = import.integers(index, 1);
  FailureOr<double> onValue = import.scalar(index, 2);
  FailureOr<double> offValue = import.scalar(index, 3);
  const tensorflow::AttrValue *dtype = import.attr(index, "T");
  if (failed(indices) || failed(depth) || failed(onValue) || failed(offValue))
    return failure();
  if (!dtype) {
    import.fail(index) << "has no 'T' attribute";
    return failure();
  }
  FailureOr<Type> element = import.elementType(index, dtype->type());
  if (failed(element))
    return failure();
  if (!isa<FloatType>(*element)) {
    import.fail(index) << "encodes as " << *element
                       << "; DTF's one_hot gives floats";
    return failure();
  }
  auto indicesType = cast<RankedTensorType>(indices->getType());
  const tensorflow::AttrValue *axis = import.attr(index, "axis");
  if (axis && axis->i() != -1 && axis->i() != indicesType.getRank()) {
    import.fail(index) << "encodes along axis " << axis->i()
                       << "; DTF's one_hot encodes along the last";
    return failure();
  }
  if (depth->size() != 1) {
    import.fail(index) << "takes one depth";
    return failure();
  }
  OpBuilder &builder = import.getBuilder();
  return createPinned<OneHotOp>(
      import, index, *indices, builder.getI64IntegerAttr(depth->front()),
      builder.getF64FloatAttr(*onValue), builder.getF64FloatAttr(*offValue),
      TypeAttr::get(*element));
}

/// Tile (tf.tile): dtf.tile by the multiples of input 1, a Const or computed
/// from static shapes.
Results translateTile(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0);
  FailureOr<SmallVector<int64_t>> multiples = foldShape(import, index, 1);
  if (failed(x) || failed(multiples))
    return failure();
  if (llvm::any_of(*multiples, ShapedType::isDynamic)) {
    import.fail(index) << "has multiples computed from a dimension of "
                          "unknown size; DTF's tile takes constant ones";
    return failure();
  }
  return createPinned<TileOp>(import, index, *x, *multiples);
}

/// BatchMatMul and BatchMatMulV2 (tf.linalg.matmul of batches):
/// dtf.batch_matmul; a matrix against a batch is a batch of one, and two
/// matrices are a dtf.matmul.
Results translateBatchMatMul(ImportContext &import, int index) {
  FailureOr<Value> x = import.operand(index, 0), y = import.operand(index, 1);
  if (failed(x) || failed(y))
    return failure();
  const tensorflow::AttrValue *adjX = import.attr(index, "adj_x");
  const tensorflow::AttrValue *adjY = import.attr(index, "adj_y");
  bool adjointX = adjX && adjX->b(), adjointY = adjY && adjY->b();
  auto xType = cast<RankedTensorType>(x->getType());
  auto yType = cast<RankedTensorType>(y->getType());
  if (xType.getRank() < 2 || yType.getRank() < 2) {
    import.fail(index) << "multiplies " << xType << " by " << yType
                       << "; both must have rank >= 2";
    return failure();
  }
  if (xType.getRank() == 2 && yType.getRank() == 2)
    return createPinned<MatMulOp>(import, index, *x, *y, adjointX, adjointY);
  for (Value *matrix : {&*x, &*y}) {
    auto type = cast<RankedTensorType>(matrix->getType());
    if (type.getRank() != 2)
      continue;
    SmallVector<int64_t> batchOfOne = {1};
    llvm::append_range(batchOfOne, type.getShape());
    Results reshaped = reshapeTo(import, index, *matrix, batchOfOne);
    if (failed(reshaped))
      return failure();
    *matrix = reshaped->front();
  }
  return createPinned<BatchMatMulOp>(import, index, *x, *y, adjointX, adjointY);
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

/// What the table knows of a TensorFlow op the importer translates.
struct OpTranslation {
  OpTranslator translator;
  /// The section of docs/tf-ops.md it is listed in.
  StringRef category;
  /// What a node of it becomes, as docs/tf-ops.md says it.
  std::string becomes;
};

struct OpTranslatorTable {
  llvm::StringMap<OpTranslation> byOp;
  /// The categories, in the order of the table's sections.
  SmallVector<StringRef> categories;
};

/// Fills the table one section at a time.
class OpTranslatorTableBuilder {
public:
  explicit OpTranslatorTableBuilder(OpTranslatorTable &table) : table(table) {}

  /// Starts the section of the entries that follow.
  void section(StringRef category) {
    table.categories.push_back(category);
    this->category = category;
  }

  /// Registers `translator` as the translator of TensorFlow op `op`, whose
  /// node becomes `becomes`.
  void add(StringRef op, OpTranslator translator, std::string becomes) {
    OpTranslation translation{translator, category, std::move(becomes)};
    bool inserted = table.byOp.try_emplace(op, std::move(translation)).second;
    assert(inserted && "two translators for one TensorFlow op");
    (void)inserted;
  }

private:
  OpTranslatorTable &table;
  StringRef category;
};

/// The name of dtf op OpT, as docs/tf-ops.md writes it.
template <typename OpT>
std::string dtfOp() {
  return "`" + OpT::getOperationName().str() + "`";
}

OpTranslatorTable buildOpTranslatorTable() {
  OpTranslatorTable table;
  OpTranslatorTableBuilder t(table);

  t.section("Graph inputs and state");
  std::string variable = dtfOp<VariableOp>() +
                         ", initialized as its initial value's assignment "
                         "says: zeros, ones, a constant, an array of "
                         "values, tf.truncated_normal, tf.random_normal, "
                         "tf.random_uniform and the variance-scaling "
                         "initializers built on them (glorot, he, lecun), "
                         "and tf.orthogonal_initializer";
  t.add("VariableV2", translateVariable, variable);
  t.add("Variable", translateVariable, variable);
  t.add("VarHandleOp", translateVariable, variable);
  t.add("Identity", translateIdentity,
        dtfOp<ReadOp>() + " of a reference variable; otherwise its input");
  t.add("Snapshot", translateIdentity,
        dtfOp<ReadOp>() + " of a reference variable; otherwise its input");
  t.add("ReadVariableOp", translateReadVariableOp, dtfOp<ReadOp>());
  t.add("Placeholder", translatePlaceholder, dtfOp<PlaceholderOp>());
  t.add("PlaceholderWithDefault", translatePlaceholderWithDefault,
        dtfOp<LearningPhaseOp>() +
            " for a boolean scalar (the training flag of a TF1 script)");
  t.add("Const", translateConst,
        dtfOp<ConstantOp>() + ", or an attribute where a dtf op takes one "
                              "(axes, shapes, hyper-parameters)");

  t.section("Math");
  t.add("MatMul", translateMatMul, dtfOp<MatMulOp>());
  std::string batchMatMul = dtfOp<BatchMatMulOp>() +
                            " (batch dimensions broadcast; " +
                            dtfOp<MatMulOp>() + " of two matrices)";
  t.add("BatchMatMul", translateBatchMatMul, batchMatMul);
  t.add("BatchMatMulV2", translateBatchMatMul, batchMatMul);
  std::string add = dtfOp<AddOp>() + "; " +
                    dtfOp<SigmoidCrossEntropyWithLogitsOp>() +
                    " where it ends tf.nn.sigmoid_cross_entropy_with_logits";
  t.add("Add", translateAdd, add);
  t.add("AddV2", translateAdd, add);
  t.add("AddN", translateAddN,
        "a chain of " + dtfOp<AddOp>() + " (of one input, that input)");
  t.add("Square", translateSquare, dtfOp<MulOp>() + " of the input by itself");
  t.add("SquaredDifference", translateSquaredDifference,
        dtfOp<SubOp>() + " then " + dtfOp<MulOp>() + " of it by itself");
  t.add("L2Loss", translateL2Loss,
        dtfOp<ReduceSumOp>() + " of the squares, times 0.5");
  t.add("Sub", translateBinary<SubOp>, dtfOp<SubOp>());
  t.add("Mul", translateBinary<MulOp>, dtfOp<MulOp>());
  t.add("RealDiv", translateBinary<DivOp>, dtfOp<DivOp>());
  t.add("DivNoNan", translateDivNoNan,
        dtfOp<DivNoNanOp>() + "; " + dtfOp<EmbeddingCombineOp>() +
            " when it divides a SegmentSum (weighted "
            "tf.nn.embedding_lookup_sparse)");
  t.add("Pow", translateBinary<PowOp>, dtfOp<PowOp>());
  t.add("Minimum", translateBinary<MinimumOp>, dtfOp<MinimumOp>());
  t.add("Maximum", translateMaximum,
        dtfOp<MaximumOp>() + "; " + dtfOp<ClipByValueOp>() +
            " for tf.clip_by_value's Maximum(Minimum(t, max), min) of "
            "constant bounds");
  t.add("Equal", translateBinary<EqualOp>, dtfOp<EqualOp>());
  t.add("NotEqual", translateBinary<NotEqualOp>, dtfOp<NotEqualOp>());
  t.add("Greater", translateBinary<GreaterOp>, dtfOp<GreaterOp>());
  t.add("GreaterEqual", translateBinary<GreaterEqualOp>,
        dtfOp<GreaterEqualOp>());
  t.add("Less", translateBinary<LessOp>, dtfOp<LessOp>());
  t.add("LessEqual", translateBinary<LessEqualOp>, dtfOp<LessEqualOp>());
  t.add("LogicalAnd", translateBinary<LogicalAndOp>, dtfOp<LogicalAndOp>());
  t.add("LogicalOr", translateBinary<LogicalOrOp>, dtfOp<LogicalOrOp>());
  t.add("LogicalNot", translateUnary<LogicalNotOp>, dtfOp<LogicalNotOp>());
  t.add("Select", translateSelect,
        dtfOp<SelectOp>() + " (a vector condition chooses rows)");
  t.add("SelectV2", translateSelect, dtfOp<SelectOp>());
  t.add("Switch", translateSwitch,
        "its input, for both branches of tf.compat.v1.cond");
  t.add("Merge", translateMerge,
        dtfOp<SelectOp>() + " on the predicate of tf.compat.v1.cond's "
                            "branches (both are computed)");
  t.add("BiasAdd", translateBiasAdd, dtfOp<BiasAddOp>() + " (NHWC)");
  t.add("Neg", translateUnary<NegOp>, dtfOp<NegOp>());
  t.add("Abs", translateUnary<AbsOp>, dtfOp<AbsOp>());
  t.add("Sign", translateUnary<SignOp>, dtfOp<SignOp>());
  t.add("Relu", translateUnary<ReluOp>, dtfOp<ReluOp>());
  t.add("Softmax", translateUnary<SoftmaxOp>, dtfOp<SoftmaxOp>());
  t.add("Log", translateUnary<LogOp>, dtfOp<LogOp>());
  t.add("Exp", translateUnary<ExpOp>, dtfOp<ExpOp>());
  t.add("Tanh", translateUnary<TanhOp>, dtfOp<TanhOp>());
  t.add("Sqrt", translateUnary<SqrtOp>, dtfOp<SqrtOp>());
  t.add("Rsqrt", translateUnary<RsqrtOp>, dtfOp<RsqrtOp>());
  t.add("Floor", translateUnary<FloorOp>, dtfOp<FloorOp>());
  t.add("StopGradient", translateUnary<StopGradientOp>,
        dtfOp<StopGradientOp>());
  t.add("ClipByValue", translateClipByValue, dtfOp<ClipByValueOp>());
  t.add("SoftmaxCrossEntropyWithLogits",
        translateCrossEntropy<SoftmaxCrossEntropyWithLogitsOp>,
        dtfOp<SoftmaxCrossEntropyWithLogitsOp>() +
            " (its backprop output is DTF's autodiff)");
  t.add("SparseSoftmaxCrossEntropyWithLogits",
        translateCrossEntropy<SparseSoftmaxCrossEntropyWithLogitsOp>,
        dtfOp<SparseSoftmaxCrossEntropyWithLogitsOp>() +
            " (its backprop output is DTF's autodiff)");
  t.add("Sigmoid", translateUnary<SigmoidOp>, dtfOp<SigmoidOp>());
  t.add("LogSoftmax", translateUnary<LogSoftmaxOp>,
        dtfOp<LogSoftmaxOp>() + " (last axis)");
  t.add("OneHot", translateOneHot,
        dtfOp<OneHotOp>() + " (last axis, constant depth, on and off "
                            "values; float results)");

  t.section("Embedding lookups");
  std::string gather = dtfOp<EmbeddingLookupOp>() + " of a variable's rows, " +
                       dtfOp<GatherOp>() + " of a value's (axis 0)";
  t.add("GatherV2", translateGather, gather);
  t.add("ResourceGather", translateGather, gather);
  std::string stitch = dtfOp<EmbeddingLookupOp>() +
                       " of a partitioned table, as tf.nn.embedding_lookup "
                       "looks it up";
  t.add("DynamicStitch", translateDynamicStitch, stitch);
  t.add("ParallelDynamicStitch", translateDynamicStitch, stitch);
  std::string combine = dtfOp<EmbeddingLookupOp>() + " and " +
                        dtfOp<EmbeddingCombineOp>() +
                        ", as tf.nn.embedding_lookup_sparse combines rows";
  t.add("SparseSegmentSum", translateEmbeddingLookupSparse, combine);
  t.add("SparseSegmentMean", translateEmbeddingLookupSparse, combine);
  t.add("SparseSegmentSqrtN", translateEmbeddingLookupSparse, combine);
  t.add("SegmentSum", translateEmbeddingLookupSparse, combine);

  t.section("Reductions and shapes");
  t.add("Sum", translateReduction<ReduceSumOp>, dtfOp<ReduceSumOp>());
  t.add("Mean", translateReduction<ReduceMeanOp>, dtfOp<ReduceMeanOp>());
  t.add("Max", translateReduction<ReduceMaxOp>, dtfOp<ReduceMaxOp>());
  t.add("Min", translateReduction<ReduceMinOp>, dtfOp<ReduceMinOp>());
  t.add("Prod", translateReduction<ReduceProdOp>, dtfOp<ReduceProdOp>());
  t.add("Reshape", translateReshape,
        dtfOp<ReshapeOp>() + " to the shape folded at import (none where "
                             "the shape stays)");
  t.add("ExpandDims", translateExpandDims,
        dtfOp<ReshapeOp>() + " with a dimension of size 1 inserted");
  t.add("Squeeze", translateSqueeze,
        dtfOp<ReshapeOp>() + " without the dimensions of size 1 it names "
                             "(all, where it names none)");
  t.add("ConcatV2", translateConcat, dtfOp<ConcatOp>());
  t.add("Pack", translatePack,
        dtfOp<ReshapeOp>() + "s joined by a " + dtfOp<ConcatOp>() +
            " (tf.stack)");
  t.add("Unpack", translateUnpack,
        dtfOp<SliceOp>() + " and " + dtfOp<ReshapeOp>() +
            " per output (tf.unstack)");
  t.add("Split", translateSplit, dtfOp<SliceOp>() + " per output");
  t.add("SplitV", translateSplit, dtfOp<SliceOp>() + " per output");
  t.add("Fill", translateFill,
        dtfOp<BroadcastToOp>() + " of the value to a shape computed before "
                                 "running");
  t.add("StridedSlice", translateStridedSlice,
        dtfOp<ConstantOp>() + " of the dimensions it takes from a shape "
                              "known at import (tf.shape(x)[-1])");
  t.add("ArgMax", translateArgMax, dtfOp<ArgMaxOp>() + " (int64)");
  t.add("RandomUniform", translateRandomUniform,
        dtfOp<RandomUniformOp>() + ", new samples at every step (a "
                                   "variable's initializer: its "
                                   "#dtf.random_uniform)");
  t.add("Cast", translateCast, dtfOp<CastOp>());
  t.add("Transpose", translateTranspose,
        dtfOp<TransposeOp>() + " (a constant perm)");
  t.add("Tile", translateTile,
        dtfOp<TileOp>() + " (multiples known at import)");

  t.section("Convolution and pooling");
  t.add("Conv2D", translateConv2D,
        dtfOp<Conv2DOp>() +
            " (NHWC; dilations as tf.nn.atrous_conv2d, not with strides)");
  t.add("BatchToSpaceND", translateBatchToSpaceND,
        dtfOp<Conv2DOp>() +
            " with dilations, where it ends tf.nn.convolution's dilated "
            "convolution (SpaceToBatchND, Conv2D, BatchToSpaceND, as "
            "tf.compat.v1.layers.conv2d with a dilation_rate builds it)");
  t.add("Conv2DBackpropInput", translateConv2DBackpropInput,
        dtfOp<Conv2DBackpropInputOp>() +
            " (tf.nn.conv2d_transpose; NHWC; dilations not with strides)");
  t.add("MaxPool", translatePool<MaxPoolOp>, dtfOp<MaxPoolOp>() + " (NHWC)");
  t.add("AvgPool", translatePool<AvgPoolOp>, dtfOp<AvgPoolOp>() + " (NHWC)");
  std::string batchNorm =
      "decomposed (NHWC): " + dtfOp<ReduceMeanOp>() + "s of the batch's mean "
      "and variance in training, then " + dtfOp<SubOp>() + ", " +
      dtfOp<RsqrtOp>() + ", " + dtfOp<MulOp>() + " and " + dtfOp<AddOp>() +
      "; its moving averages are the train op's " +
      dtfOp<AssignMovingAverageOp>() + " updates";
  t.add("FusedBatchNorm", translateFusedBatchNorm, batchNorm);
  t.add("FusedBatchNormV2", translateFusedBatchNorm, batchNorm);
  t.add("FusedBatchNormV3", translateFusedBatchNorm, batchNorm);
  return table;
}

/// Built once, then only read.
const OpTranslatorTable &opTranslatorTable() {
  static const OpTranslatorTable table = buildOpTranslatorTable();
  return table;
}

} // namespace

OpTranslator findOpTranslator(StringRef op) {
  const llvm::StringMap<OpTranslation> &byOp = opTranslatorTable().byOp;
  auto it = byOp.find(op);
  return it == byOp.end() ? nullptr : it->second.translator;
}

void printOpTranslatorTable(llvm::raw_ostream &os) {
  const OpTranslatorTable &table = opTranslatorTable();
  for (StringRef category : table.categories) {
    SmallVector<StringRef> ops;
    for (const auto &entry : table.byOp)
      if (entry.second.category == category)
        ops.push_back(entry.first());
    llvm::sort(ops);
    os << "\n## " << category << "\n\n"
       << "| TensorFlow op | dtf |\n| --- | --- |\n";
    for (StringRef op : ops)
      os << "| `" << op << "` | " << table.byOp.lookup(op).becomes << " |\n";
  }
}

} // namespace dtf::translate::graphdef
