//===- SavedModelExport.cpp - A dtf model's inference graph for serving ---===//
//
// One walk back from the outputs marks the ops the inference graph needs,
// seeing through each dtf.select whose condition is known (the learning
// phase is false at inference), so that the training branch and what only
// it uses (dropout's random masks) are never visited. The marked ops are
// then written in program order, each as the TensorFlow node of the same
// computation (a lookup or a combine of embeddings as a few nodes, which
// treat the padding id -1 as DTF does, and the row of each id of a served
// dynamic table as a LowerBound over its sorted ids); the attributes
// TensorFlow takes as Const inputs (axes, shapes, bounds) become Const
// nodes beside it.
//
//===----------------------------------------------------------------------===//

#include "translate/graphdef/SavedModelExport.h"

#include "dialects/dtf/IR/DTFDialect.h"
#include "dialects/dtf/IR/DTFOps.h"

#include "saved_model.pb.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/text_format.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;
using namespace dtf::ir;

namespace dtf::translate {

FailureOr<func::FuncOp> modelFunction(ModuleOp model) {
  auto functions = model.getOps<func::FuncOp>();
  size_t count = std::distance(functions.begin(), functions.end());
  if (count != 1)
    return model.emitError("a model to export has one function; this one has ")
           << count;
  return *functions.begin();
}

/// The name of `op`'s location when it has one (the importer's TensorFlow
/// node name), else empty.
static StringRef locationName(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().strref();
  return {};
}

/// The logits of the model's loss (see findInferenceOutputs).
static FailureOr<Value> findLogits(func::FuncOp function) {
  SmallVector<Value> losses;
  SmallVector<Value> softmaxInputs;
  function.walk([&](Operation *op) {
    if (auto loss = dyn_cast<SoftmaxCrossEntropyWithLogitsOp>(op))
      losses.push_back(loss.getLogits());
    else if (auto loss = dyn_cast<SparseSoftmaxCrossEntropyWithLogitsOp>(op))
      losses.push_back(loss.getLogits());
    else if (auto loss = dyn_cast<SigmoidCrossEntropyWithLogitsOp>(op))
      losses.push_back(loss.getLogits());
    else if (auto softmax = dyn_cast<SoftmaxOp>(op))
      softmaxInputs.push_back(softmax.getInput());
  });
  for (ArrayRef<Value> candidates : {ArrayRef(losses), ArrayRef(softmaxInputs)})
    if (!candidates.empty()) {
      if (llvm::all_equal(candidates))
        return candidates.front();
      return function.emitError("'logits' is ambiguous: the model has ")
             << candidates.size()
             << " cross entropies or softmaxes of different logits; name the "
                "output with --outputs";
    }
  return function.emitError(
      "the model has no cross entropy with logits and no softmax to take "
      "'logits' from; name the outputs with --outputs (result:K, or an op's "
      "location name)");
}

FailureOr<std::vector<InferenceOutput>>
findInferenceOutputs(func::FuncOp function, ArrayRef<std::string> names) {
  std::vector<std::string> wanted(names.begin(), names.end());
  if (wanted.empty())
    wanted.push_back("logits");
  std::vector<InferenceOutput> outputs;
  llvm::StringSet<> keys;
  for (const std::string &name : wanted) {
    InferenceOutput output;
    StringRef text(name);
    if (text == "logits") {
      FailureOr<Value> logits = findLogits(function);
      if (failed(logits))
        return failure();
      output = {name, *logits};
    } else if (text.consume_front("result:")) {
      auto results = function.front().getTerminator()->getOperands();
      unsigned index = 0;
      if (text.getAsInteger(10, index) || index >= results.size())
        return function.emitError("output '")
               << name << "': the function has " << results.size()
               << " results (result:0 to result:" << results.size() - 1 << ")";
      output = {"result_" + std::to_string(index), results[index]};
    } else {
      StringRef node = StringRef(name);
      node.consume_back(":0");
      Operation *found = nullptr;
      function.walk([&](Operation *op) {
        if (!found && op->getNumResults() > 0 && locationName(op) == node)
          found = op;
      });
      if (!found)
        return function.emitError("output '")
               << name
               << "' is neither 'logits', 'result:K' nor the location name "
                  "of an op of the model";
      output = {node.str(), found->getResult(0)};
    }
    if (!keys.insert(output.key).second)
      return function.emitError("output '") << name << "' is named twice";
    outputs.push_back(std::move(output));
  }
  return outputs;
}

namespace {

/// TensorFlow's DataType of an element type; nullopt for one DTF does not
/// export.
std::optional<saved_model::DataType> dataTypeOf(Type elementType) {
  if (elementType.isF32())
    return saved_model::DT_FLOAT;
  if (elementType.isF64())
    return saved_model::DT_DOUBLE;
  if (elementType.isInteger(1))
    return saved_model::DT_BOOL;
  if (elementType.isSignlessInteger(32))
    return saved_model::DT_INT32;
  if (elementType.isSignlessInteger(64))
    return saved_model::DT_INT64;
  return std::nullopt;
}

/// Every element of `type` `value`, as a float or an integer element holds
/// it.
DenseElementsAttr splat(ShapedType type, double value) {
  Type element = type.getElementType();
  if (isa<FloatType>(element))
    return DenseElementsAttr::get(type, FloatAttr::get(element, value));
  return DenseElementsAttr::get(
      type, IntegerAttr::get(element, static_cast<int64_t>(value)));
}

/// `type`'s shape, a dynamic dimension -1 as TensorFlow writes an unknown
/// one.
saved_model::TensorShapeProto shapeOf(RankedTensorType type) {
  saved_model::TensorShapeProto shape;
  for (int64_t size : type.getShape())
    shape.add_dim()->set_size(ShapedType::isDynamic(size) ? -1 : size);
  return shape;
}

/// The bytes of `attr`'s elements as TensorFlow's tensor_content holds
/// them: little-endian, row-major, a bool one byte.
std::string contentOf(DenseElementsAttr attr) {
  std::string bytes;
  Type element = attr.getElementType();
  auto append = [&](auto value) {
    char raw[sizeof(value)];
    std::memcpy(raw, &value, sizeof(value));
    bytes.append(raw, sizeof(value));
  };
  if (element.isF32())
    for (float value : attr.getValues<float>())
      append(value);
  else if (element.isF64())
    for (double value : attr.getValues<double>())
      append(value);
  else if (element.isInteger(1))
    for (bool value : attr.getValues<bool>())
      append(static_cast<uint8_t>(value));
  else if (element.isSignlessInteger(32))
    for (int32_t value : attr.getValues<int32_t>())
      append(value);
  else
    for (int64_t value : attr.getValues<int64_t>())
      append(value);
  return bytes;
}

/// The condition of a dtf.select when it is known at inference: the
/// learning phase (false) or a constant.
std::optional<bool> knownCondition(Value condition) {
  Operation *def = condition.getDefiningOp();
  if (isa_and_nonnull<LearningPhaseOp>(def))
    return false;
  if (auto constant = dyn_cast_or_null<ConstantOp>(def))
    if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
        dense && dense.isSplat())
      return dense.getSplatValue<bool>();
  return std::nullopt;
}

/// The value `value` is at inference: through each dtf.select of a known
/// condition to the branch it takes.
Value atInference(Value value) {
  while (auto select = value.getDefiningOp<SelectOp>()) {
    std::optional<bool> condition = knownCondition(select.getCondition());
    if (!condition)
      break;
    Value taken = *condition ? select.getOnTrue() : select.getOnFalse();
    if (taken.getType() != select.getType())
      break; // a branch that broadcasts: the select stays
    value = taken;
  }
  return value;
}

/// The ops `outputs` need at inference, seen through known selects; a read
/// needs its variable's value, not the variable op.
FailureOr<llvm::DenseSet<Operation *>>
neededAtInference(func::FuncOp function, ArrayRef<InferenceOutput> outputs) {
  llvm::DenseSet<Operation *> needed;
  SmallVector<Value> pending;
  for (const InferenceOutput &output : outputs)
    pending.push_back(atInference(output.value));
  while (!pending.empty()) {
    Value value = pending.pop_back_val();
    Operation *op = value.getDefiningOp();
    if (!op)
      return function.emitError(
          "an output depends on a function argument; a model's inputs are "
          "dtf.placeholder ops");
    // A table a lookup reads is a Const of its value, as a read's variable.
    if (isa<VariableOp>(op) || !needed.insert(op).second || isa<ReadOp>(op))
      continue;
    for (Value operand : op->getOperands())
      pending.push_back(atInference(operand));
  }
  return needed;
}

/// TensorFlow's op of a dtf op that is one node of the same operands and
/// a `T` attribute (the operand's dtype), or empty.
StringRef elementwiseOpName(Operation *op) {
  return llvm::StringSwitch<StringRef>(op->getName().getStringRef())
      .Case("dtf.add", "AddV2")
      .Case("dtf.sub", "Sub")
      .Case("dtf.mul", "Mul")
      .Case("dtf.div", "RealDiv")
      .Case("dtf.div_no_nan", "DivNoNan")
      .Case("dtf.minimum", "Minimum")
      .Case("dtf.maximum", "Maximum")
      .Case("dtf.pow", "Pow")
      .Case("dtf.equal", "Equal")
      .Case("dtf.not_equal", "NotEqual")
      .Case("dtf.greater", "Greater")
      .Case("dtf.greater_equal", "GreaterEqual")
      .Case("dtf.less", "Less")
      .Case("dtf.less_equal", "LessEqual")
      .Case("dtf.neg", "Neg")
      .Case("dtf.relu", "Relu")
      .Case("dtf.log", "Log")
      .Case("dtf.exp", "Exp")
      .Case("dtf.tanh", "Tanh")
      .Case("dtf.sigmoid", "Sigmoid")
      .Case("dtf.sqrt", "Sqrt")
      .Case("dtf.rsqrt", "Rsqrt")
      .Case("dtf.floor", "Floor")
      .Case("dtf.abs", "Abs")
      .Case("dtf.sign", "Sign")
      .Case("dtf.softmax", "Softmax")
      .Case("dtf.stop_gradient", "StopGradient")
      .Case("dtf.bias_add", "BiasAdd")
      .Case("dtf.select", "SelectV2")
      .Default("");
}

/// TensorFlow's logical ops, which take no `T`.
StringRef logicalOpName(Operation *op) {
  return llvm::StringSwitch<StringRef>(op->getName().getStringRef())
      .Case("dtf.logical_and", "LogicalAnd")
      .Case("dtf.logical_or", "LogicalOr")
      .Case("dtf.logical_not", "LogicalNot")
      .Default("");
}

/// Builds the GraphDef and the signature of one inference graph.
class GraphBuilder {
public:
  GraphBuilder(func::FuncOp function, saved_model::MetaGraphDef &metaGraph)
      : function(function), metaGraph(metaGraph),
        graph(*metaGraph.mutable_graph_def()) {}

  LogicalResult build(ArrayRef<InferenceOutput> outputs);

private:
  /// A node name not taken yet, from `base` with the characters TensorFlow
  /// refuses in names replaced.
  std::string uniqueName(StringRef base);
  saved_model::NodeDef &addNode(StringRef op, StringRef name);
  /// What the node of `op`'s result is named after: its location name
  /// when it has one, else its TensorFlow op.
  static StringRef baseName(Operation *op, StringRef tfOp);
  /// A Const node of `value` named after `base`; its name.
  std::string addConst(StringRef base, DenseElementsAttr value);
  /// A Const of i64 `value` (a scalar) or `values` (a vector): the axes,
  /// shapes and bounds TensorFlow takes as inputs.
  std::string addIndex(StringRef base, int64_t value);
  std::string addIndices(StringRef base, ArrayRef<int64_t> values);
  /// The tensor `value` is at inference, as a node input.
  std::string input(Value value) {
    return tensorNames.lookup(atInference(value));
  }
  void setType(saved_model::NodeDef &node, StringRef attr, Type type);
  LogicalResult exportOp(Operation *op);
  /// The Const of the value of the variable `resource`, which `user` reads
  /// (refused for a dynamic table or a random value).
  FailureOr<std::string> variableConst(Value resource, Operation *user);
  LogicalResult exportRead(ReadOp read);

  /// A node `op` of `inputs`.
  saved_model::NodeDef &addNode(StringRef op, StringRef name,
                                ArrayRef<std::string> inputs);
  /// A scalar Const of `element` (a float or an integer type).
  std::string addScalar(StringRef base, Type element, double value);
  /// The bool tensor of where `ids` are not padding (id >= `zeroId`, the
  /// Const 0 of their dtype).
  std::string addValid(StringRef base, Value ids, const std::string &zeroId);
  /// `in` (of `element`s) with `count` dimensions of 1 appended.
  std::string addExpandDims(StringRef base, const std::string &in, Type element,
                            int64_t count);
  /// The node `name`: the rows of `params` at `ids` as dtf.embedding_lookup
  /// and dtf.gather give them, a padding id a zero row.
  void addGather(const std::string &name, const std::string &params, Value ids,
                 RankedTensorType resultType);
  /// The node `name`: `combine`'s result, of `resultType`.
  void addCombine(const std::string &name, EmbeddingCombineOp combine,
                  RankedTensorType resultType);
  /// The node `name`: `rowsOfIds`' result, by a binary search of the keys
  /// (LowerBound).
  LogicalResult addRowsOfIds(const std::string &name, RowsOfIdsOp rowsOfIds);

  /// The [1] i64 tensor of the batch size, made on first use from the
  /// shape of `batchSource`: a dynamic dimension of a shape TensorFlow
  /// takes as an input (tf.zeros' of a batch) is the batch.
  FailureOr<std::string> batchSize(Operation *user);

  func::FuncOp function;
  saved_model::MetaGraphDef &metaGraph;
  saved_model::GraphDef &graph;
  llvm::StringSet<> names;
  llvm::DenseMap<Value, std::string> tensorNames;
  /// The first placeholder of a dynamic batch, and the node of its size.
  std::string batchSource;
  Type batchSourceType;
  std::string batchNode;
  /// The Const of each variable read, by variable.
  llvm::DenseMap<Operation *, std::string> variableConsts;
};

std::string GraphBuilder::uniqueName(StringRef base) {
  std::string name;
  for (char c : base)
    name += (isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
             c == '-' || c == '/')
                ? c
                : '_';
  if (name.empty() || name[0] == '_' || name[0] == '-' || name[0] == '/')
    name = "n" + name;
  std::string unique = name;
  for (int suffix = 1; !names.insert(unique).second; ++suffix)
    unique = name + "_" + std::to_string(suffix);
  return unique;
}

saved_model::NodeDef &GraphBuilder::addNode(StringRef op, StringRef name) {
  saved_model::NodeDef &node = *graph.add_node();
  node.set_name(name.str());
  node.set_op(op.str());
  return node;
}

StringRef GraphBuilder::baseName(Operation *op, StringRef tfOp) {
  StringRef name = locationName(op);
  return name.empty() ? tfOp : name;
}

void GraphBuilder::setType(saved_model::NodeDef &node, StringRef attr,
                           Type type) {
  Type element = getElementTypeOrSelf(type);
  (*node.mutable_attr())[attr.str()].set_type(*dataTypeOf(element));
}

std::string GraphBuilder::addConst(StringRef base, DenseElementsAttr value) {
  std::string name = uniqueName(base);
  saved_model::NodeDef &node = addNode("Const", name);
  auto type = cast<RankedTensorType>(value.getType());
  setType(node, "dtype", type);
  saved_model::TensorProto &tensor =
      *(*node.mutable_attr())["value"].mutable_tensor();
  tensor.set_dtype(*dataTypeOf(type.getElementType()));
  *tensor.mutable_tensor_shape() = shapeOf(type);
  tensor.set_tensor_content(contentOf(value));
  return name;
}

std::string GraphBuilder::addIndex(StringRef base, int64_t value) {
  auto type =
      RankedTensorType::get({}, IntegerType::get(function.getContext(), 64));
  return addConst(base, DenseElementsAttr::get(type, value));
}

std::string GraphBuilder::addIndices(StringRef base, ArrayRef<int64_t> values) {
  auto type =
      RankedTensorType::get({static_cast<int64_t>(values.size())},
                            IntegerType::get(function.getContext(), 64));
  return addConst(base, DenseElementsAttr::get(type, values));
}

FailureOr<std::string> GraphBuilder::batchSize(Operation *user) {
  if (!batchNode.empty())
    return batchNode;
  if (batchSource.empty())
    return user->emitOpError("has a dynamic dimension, and no placeholder "
                             "of the inference graph has a dynamic batch to "
                             "take its size from");
  std::string shape = uniqueName("batch_size/Shape");
  saved_model::NodeDef &shapeNode = addNode("Shape", shape);
  shapeNode.add_input(batchSource);
  setType(shapeNode, "T", batchSourceType);
  (*shapeNode.mutable_attr())["out_type"].set_type(saved_model::DT_INT64);
  std::string begin = addIndices("batch_size/begin", {0});
  std::string end = addIndices("batch_size/end", {1});
  std::string strides = addIndices("batch_size/strides", {1});
  batchNode = uniqueName("batch_size");
  saved_model::NodeDef &slice = addNode("StridedSlice", batchNode);
  for (const std::string &input : {shape, begin, end, strides})
    slice.add_input(input);
  (*slice.mutable_attr())["T"].set_type(saved_model::DT_INT64);
  (*slice.mutable_attr())["Index"].set_type(saved_model::DT_INT64);
  return batchNode;
}

FailureOr<std::string> GraphBuilder::variableConst(Value resource,
                                                   Operation *user) {
  auto variable = resource.getDefiningOp<VariableOp>();
  if (!variable)
    return user->emitOpError("reads a variable that is not a dtf.variable of "
                             "the function; it cannot be exported");
  auto [it, inserted] = variableConsts.try_emplace(variable, "");
  if (inserted) {
    RankedTensorType type = variable.getValueType();
    // A dynamic table has rows only once a checkpoint gives them, which
    // makes it a fixed table (DynamicTableServing.h).
    if (variable.isDynamicTable() || !type.hasStaticShape())
      return user->emitOpError("reads the dynamic table '")
             << variable.getName()
             << "', which has no rows before training: export a trained "
                "model, whose dynamic tables a checkpoint gives their rows "
                "(dtf-run --export_saved_model=DIR --logdir=LOGDIR)";
    Attribute init = variable.getInitializer();
    DenseElementsAttr value;
    if (auto dense = dyn_cast<DenseInitAttr>(init))
      value = dense.getValue();
    else if (isa<ZerosInitAttr>(init))
      value = splat(type, 0.0);
    else if (auto constant = dyn_cast<ConstantInitAttr>(init))
      value = splat(type, constant.getValue().convertToDouble());
    else
      return user->emitOpError("reads variable '")
             << variable.getName() << "', whose value is random (" << init
             << "): export a trained model, whose variables hold a "
                "checkpoint's values (dtf-run --export_saved_model=DIR "
                "--logdir=LOGDIR)";
    it->second = addConst(variable.getName(), value);
  }
  return it->second;
}

LogicalResult GraphBuilder::exportRead(ReadOp read) {
  FailureOr<std::string> value = variableConst(read.getResource(), read);
  if (failed(value))
    return failure();
  tensorNames[read.getValue()] = *value;
  return success();
}

saved_model::NodeDef &GraphBuilder::addNode(StringRef op, StringRef name,
                                            ArrayRef<std::string> inputs) {
  saved_model::NodeDef &node = addNode(op, name);
  for (const std::string &in : inputs)
    node.add_input(in);
  return node;
}

std::string GraphBuilder::addScalar(StringRef base, Type element,
                                    double value) {
  return addConst(base, splat(RankedTensorType::get({}, element), value));
}

std::string GraphBuilder::addValid(StringRef base, Value ids,
                                   const std::string &zeroId) {
  std::string valid = uniqueName(base.str() + "/valid");
  setType(addNode("GreaterEqual", valid, {input(ids), zeroId}), "T",
          ids.getType());
  return valid;
}

std::string GraphBuilder::addExpandDims(StringRef base, const std::string &in,
                                        Type element, int64_t count) {
  std::string expanded = in;
  for (int64_t i = 0; i < count; ++i) {
    std::string dim = addIndex(base.str() + "/dim", -1);
    std::string name = uniqueName(base);
    saved_model::NodeDef &node = addNode("ExpandDims", name, {expanded, dim});
    setType(node, "T", element);
    (*node.mutable_attr())["Tdim"].set_type(saved_model::DT_INT64);
    expanded = name;
  }
  return expanded;
}

void GraphBuilder::addGather(const std::string &name, const std::string &params,
                             Value ids, RankedTensorType resultType) {
  // GatherV2 refuses a negative id, which DTF reads as padding: gather at
  // max(id, 0), then select a zero row where the id is negative.
  Type idType = getElementTypeOrSelf(ids.getType());
  std::string zeroId = addScalar(name + "/zero_id", idType, 0);
  std::string valid = addValid(name, ids, zeroId);
  std::string safe = uniqueName(name + "/safe_ids");
  setType(addNode("Maximum", safe, {input(ids), zeroId}), "T", idType);
  std::string rows = uniqueName(name + "/GatherV2");
  saved_model::NodeDef &gather =
      addNode("GatherV2", rows, {params, safe, addIndex(name + "/axis", 0)});
  setType(gather, "Tparams", resultType);
  setType(gather, "Tindices", idType);
  (*gather.mutable_attr())["Taxis"].set_type(saved_model::DT_INT64);
  (*gather.mutable_attr())["batch_dims"].set_i(0);
  int64_t idRank = cast<RankedTensorType>(ids.getType()).getRank();
  std::string mask = addExpandDims(name + "/valid_row", valid,
                                   IntegerType::get(function.getContext(), 1),
                                   resultType.getRank() - idRank);
  std::string zero = addScalar(name + "/zero", resultType.getElementType(), 0);
  setType(addNode("SelectV2", name, {mask, rows, zero}), "T", resultType);
}

void GraphBuilder::addCombine(const std::string &name,
                              EmbeddingCombineOp combine,
                              RankedTensorType resultType) {
  Type element = resultType.getElementType();
  Type boolType = IntegerType::get(function.getContext(), 1);
  auto attr = [](saved_model::NodeDef &node,
                 StringRef key) -> saved_model::AttrValue & {
    return (*node.mutable_attr())[key.str()];
  };
  auto binary = [&](StringRef op, StringRef base, const std::string &lhs,
                    const std::string &rhs, Type type) {
    std::string result = uniqueName(name + "/" + base.str());
    setType(addNode(op, result, {lhs, rhs}), "T", type);
    return result;
  };
  auto select = [&](StringRef base, const std::string &condition,
                    const std::string &onTrue, const std::string &onFalse) {
    std::string result = uniqueName(name + "/" + base.str());
    setType(addNode("SelectV2", result, {condition, onTrue, onFalse}), "T",
            element);
    return result;
  };
  // A reduction over the slots (axis 1) named `result`; `type` is its T,
  // none for Any.
  auto reduce = [&](StringRef op, const std::string &result,
                    const std::string &in, bool keepDims, Type type) {
    saved_model::NodeDef &node =
        addNode(op, result, {in, addIndex(result + "/reduction_indices", 1)});
    if (type)
      setType(node, "T", type);
    attr(node, "Tidx").set_type(saved_model::DT_INT64);
    attr(node, "keep_dims").set_b(keepDims);
    return result;
  };

  // The padding slots (id -1) are left out by selecting zeros there, not by
  // multiplying by 0, so that whatever a padding slot's row or weight holds
  // never reaches the sum, as DTF skips those slots.
  Value ids = combine.getIds();
  std::string valid = addValid(
      name, ids,
      addScalar(name + "/zero_id", getElementTypeOrSelf(ids.getType()), 0));
  std::string validRow = addExpandDims(name + "/valid_row", valid, boolType, 1);
  std::string zero = addScalar(name + "/zero", element, 0);
  std::string rows = input(combine.getRows());
  std::string weights;
  if (Value given = combine.getWeights()) {
    weights = select("weights", valid, input(given), zero);
    rows = binary("Mul", "weighted", rows,
                  addExpandDims(name + "/weight_row", weights, element, 1),
                  element);
  } else if (combine.getCombiner() != Combiner::sum) {
    weights = uniqueName(name + "/weights");
    saved_model::NodeDef &cast = addNode("Cast", weights, {valid});
    setType(cast, "SrcT", boolType);
    setType(cast, "DstT", element);
    attr(cast, "Truncate").set_b(false);
  }
  std::string masked = select("masked", validRow, rows, zero);
  if (combine.getCombiner() == Combiner::sum) {
    reduce("Sum", name, masked, /*keepDims=*/false, element);
    return;
  }
  std::string total = reduce("Sum", uniqueName(name + "/total"), masked,
                             /*keepDims=*/false, element);
  std::string divisor;
  if (combine.getCombiner() == Combiner::mean) {
    divisor = reduce("Sum", uniqueName(name + "/sum_weights"), weights,
                     /*keepDims=*/true, element);
  } else {
    std::string squares = binary("Mul", "squares", weights, weights, element);
    std::string sum = reduce("Sum", uniqueName(name + "/sum_squares"), squares,
                             /*keepDims=*/true, element);
    divisor = uniqueName(name + "/sqrt");
    setType(addNode("Sqrt", divisor, {sum}), "T", element);
  }
  // An example without ids is a zero row: its total (zero) is divided by 1.
  // DivNoNan would give that too, but also a zero row where the weights of
  // the ids sum to 0, which DTF divides by.
  std::string any = reduce("Any", uniqueName(name + "/any"), valid,
                           /*keepDims=*/true, Type());
  divisor =
      select("divisor", any, divisor, addScalar(name + "/one", element, 1));
  setType(addNode("RealDiv", name, {total, divisor}), "T", element);
}

LogicalResult GraphBuilder::addRowsOfIds(const std::string &name,
                                         RowsOfIdsOp rowsOfIds) {
  Type i64 = IntegerType::get(function.getContext(), 64);
  auto keysType = cast<RankedTensorType>(rowsOfIds.getKeys().getType());
  if (keysType.isDynamicDim(0))
    return rowsOfIds.emitOpError("has keys of unknown size ")
           << keysType << "; the SavedModel needs their count";
  int64_t count = keysType.getDimSize(0);
  std::string ids = input(rowsOfIds.getIds());
  auto node = [&](StringRef op, StringRef base,
                  ArrayRef<std::string> inputs) -> saved_model::NodeDef & {
    return addNode(op, uniqueName(name + "/" + base.str()), inputs);
  };
  auto typed = [&](saved_model::NodeDef &node) -> std::string {
    setType(node, "T", i64);
    return node.name();
  };
  std::string padding = typed(
      node("Less", "padding", {ids, addScalar(name + "/zero_id", i64, 0)}));
  std::string found;
  if (count == 0) {
    // A table that created no row: every id reads the default row, 0.
    found = addScalar(name + "/default_row", i64, 0);
  } else {
    // LowerBound searches each row of a [batch, N] of sorted values: the
    // keys as one row, the ids flattened into one row of values.
    std::string keys = input(rowsOfIds.getKeys());
    saved_model::NodeDef &sortedKeys =
        node("Reshape", "sorted_keys",
             {keys, addIndices(name + "/sorted_keys/shape", {1, count})});
    (*sortedKeys.mutable_attr())["Tshape"].set_type(saved_model::DT_INT64);
    saved_model::NodeDef &flatIds =
        node("Reshape", "flat_ids",
             {ids, addIndices(name + "/flat_ids/shape", {1, -1})});
    (*flatIds.mutable_attr())["Tshape"].set_type(saved_model::DT_INT64);
    saved_model::NodeDef &lowerBound =
        node("LowerBound", "LowerBound", {typed(sortedKeys), typed(flatIds)});
    (*lowerBound.mutable_attr())["out_type"].set_type(saved_model::DT_INT64);
    saved_model::NodeDef &idsShape = node("Shape", "ids_shape", {ids});
    (*idsShape.mutable_attr())["out_type"].set_type(saved_model::DT_INT64);
    saved_model::NodeDef &positions =
        node("Reshape", "positions", {typed(lowerBound), typed(idsShape)});
    (*positions.mutable_attr())["Tshape"].set_type(saved_model::DT_INT64);
    // An id past the last key has the position N, which GatherV2 refuses;
    // clamped to N - 1 it meets the last key, which is not the id either.
    std::string clamped =
        typed(node("Minimum", "clamped_positions",
                   {typed(positions),
                    addScalar(name + "/last_position", i64, count - 1)}));
    saved_model::NodeDef &keyAt = node(
        "GatherV2", "key_at", {keys, clamped, addIndex(name + "/axis", 0)});
    setType(keyAt, "Tparams", i64);
    setType(keyAt, "Tindices", i64);
    (*keyAt.mutable_attr())["Taxis"].set_type(saved_model::DT_INT64);
    (*keyAt.mutable_attr())["batch_dims"].set_i(0);
    std::string held = typed(node("Equal", "held", {keyAt.name(), ids}));
    found = typed(node("SelectV2", "found",
                       {held, positions.name(),
                        addScalar(name + "/default_row", i64, count)}));
  }
  setType(addNode("SelectV2", name,
                  {padding, addScalar(name + "/padding_row", i64, -1), found}),
          "T", i64);
  return success();
}

LogicalResult GraphBuilder::exportOp(Operation *op) {
  for (Type type : op->getResultTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !dataTypeOf(tensor.getElementType()))
      return op->emitOpError("has a result of type ")
             << type << ", which has no TensorFlow dtype here";
  }
  if (auto read = dyn_cast<ReadOp>(op))
    return exportRead(read);
  if (auto placeholder = dyn_cast<PlaceholderOp>(op)) {
    std::string name = uniqueName(placeholder.getName());
    if (batchSource.empty() && placeholder.getType().getRank() > 0 &&
        placeholder.getType().isDynamicDim(0)) {
      batchSource = name;
      batchSourceType = placeholder.getType();
    }
    saved_model::NodeDef &node = addNode("Placeholder", name);
    setType(node, "dtype", placeholder.getType());
    *(*node.mutable_attr())["shape"].mutable_shape() =
        shapeOf(placeholder.getType());
    tensorNames[placeholder.getOutput()] = name;
    saved_model::TensorInfo &info =
        (*metaGraph.mutable_signature_def())["serving_default"]
            .mutable_inputs()
            ->
            operator[](placeholder.getName().str());
    info.set_name(name + ":0");
    info.set_dtype(*dataTypeOf(placeholder.getType().getElementType()));
    *info.mutable_tensor_shape() = shapeOf(placeholder.getType());
    return success();
  }
  if (isa<LearningPhaseOp>(op)) {
    // Only a condition the select did not see through reads it.
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    tensorNames[op->getResult(0)] = addConst(
        baseName(op, "learning_phase"), DenseElementsAttr::get(type, false));
    return success();
  }
  if (auto constant = dyn_cast<ConstantOp>(op)) {
    auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (!value)
      return op->emitOpError("holds a constant that is not dense elements");
    tensorNames[constant.getOutput()] = addConst(baseName(op, "Const"), value);
    return success();
  }

  Value result = op->getResult(0);
  auto resultType = cast<RankedTensorType>(result.getType());
  SmallVector<std::string> inputs;
  for (Value operand : op->getOperands())
    inputs.push_back(input(operand));
  // The node's name, taken before the Consts of its inputs are named
  // after it.
  std::string nodeName;
  auto reserve = [&](StringRef tfOp) -> const std::string & {
    if (nodeName.empty())
      nodeName = uniqueName(baseName(op, tfOp));
    return nodeName;
  };
  auto add = [&](StringRef tfOp) -> saved_model::NodeDef & {
    std::string name = reserve(tfOp);
    tensorNames[result] = name;
    saved_model::NodeDef &node = addNode(tfOp, name);
    for (const std::string &in : inputs)
      node.add_input(in);
    return node;
  };
  auto attr = [](saved_model::NodeDef &node,
                 StringRef name) -> saved_model::AttrValue & {
    return (*node.mutable_attr())[name.str()];
  };
  auto setList = [&](saved_model::NodeDef &node, StringRef name,
                     ArrayRef<int64_t> values) {
    auto *list = attr(node, name).mutable_list();
    for (int64_t value : values)
      list->add_i(value);
  };
  auto base = [&](StringRef tfOp, StringRef suffix) {
    return reserve(tfOp) + "/" + suffix.str();
  };

  if (StringRef tfOp = elementwiseOpName(op); !tfOp.empty()) {
    // A select's T is its values', a comparison's its operands'.
    Type operand = op->getOperand(isa<SelectOp>(op) ? 1 : 0).getType();
    saved_model::NodeDef &node = add(tfOp);
    setType(node, "T", operand);
    if (isa<BiasAddOp>(op))
      attr(node, "data_format").set_s("NHWC");
    return success();
  }
  if (StringRef tfOp = logicalOpName(op); !tfOp.empty()) {
    add(tfOp);
    return success();
  }
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<MatMulOp>([&](MatMulOp matmul) {
        saved_model::NodeDef &node = add("MatMul");
        setType(node, "T", resultType);
        attr(node, "transpose_a").set_b(matmul.getTransposeA());
        attr(node, "transpose_b").set_b(matmul.getTransposeB());
        return success();
      })
      .Case<ClipByValueOp>([&](ClipByValueOp clip) {
        Type element = resultType.getElementType();
        inputs.push_back(addScalar(base("ClipByValue", "clip_value_min"),
                                   element, clip.getMin().convertToDouble()));
        inputs.push_back(addScalar(base("ClipByValue", "clip_value_max"),
                                   element, clip.getMax().convertToDouble()));
        setType(add("ClipByValue"), "T", resultType);
        return success();
      })
      .Case<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp>(
          [&](auto reduce) {
            auto inputType =
                cast<RankedTensorType>(reduce.getInput().getType());
            SmallVector<int64_t> axes(reduce.getAxes());
            if (axes.empty())
              for (int64_t axis = 0; axis < inputType.getRank(); ++axis)
                axes.push_back(axis);
            StringRef tfOp = isa<ReduceSumOp>(op)    ? "Sum"
                             : isa<ReduceMeanOp>(op) ? "Mean"
                             : isa<ReduceMaxOp>(op)  ? "Max"
                                                     : "Min";
            inputs.push_back(addIndices(base(tfOp, "reduction_indices"), axes));
            saved_model::NodeDef &node = add(tfOp);
            setType(node, "T", inputType);
            attr(node, "Tidx").set_type(saved_model::DT_INT64);
            attr(node, "keep_dims").set_b(reduce.getKeepDims());
            return success();
          })
      .Case<ReshapeOp>([&](ReshapeOp reshape) -> LogicalResult {
        if (resultType.getNumDynamicDims() > 1)
          return reshape.emitOpError("has more than one dynamic dimension in ")
                 << resultType << "; TensorFlow's Reshape infers one";
        SmallVector<int64_t> shape;
        for (int64_t size : resultType.getShape())
          shape.push_back(ShapedType::isDynamic(size) ? -1 : size);
        inputs.push_back(addIndices(base("Reshape", "shape"), shape));
        saved_model::NodeDef &node = add("Reshape");
        setType(node, "T", resultType);
        attr(node, "Tshape").set_type(saved_model::DT_INT64);
        return success();
      })
      .Case<BroadcastToOp>([&](BroadcastToOp) -> LogicalResult {
        // The shape, each dynamic dimension the batch's size.
        SmallVector<std::string> pieces;
        SmallVector<int64_t> staticRun;
        auto endRun = [&] {
          if (!staticRun.empty())
            pieces.push_back(
                addIndices(base("BroadcastTo", "dims"), staticRun));
          staticRun.clear();
        };
        for (int64_t size : resultType.getShape()) {
          if (!ShapedType::isDynamic(size)) {
            staticRun.push_back(size);
            continue;
          }
          endRun();
          FailureOr<std::string> batch = batchSize(op);
          if (failed(batch))
            return failure();
          pieces.push_back(*batch);
        }
        endRun();
        if (pieces.size() == 1) {
          inputs.push_back(pieces.front());
        } else if (pieces.empty()) {
          inputs.push_back(addIndices(base("BroadcastTo", "shape"), {}));
        } else {
          pieces.push_back(addIndex(base("BroadcastTo", "axis"), 0));
          std::string shape = uniqueName(base("BroadcastTo", "shape"));
          saved_model::NodeDef &concat = addNode("ConcatV2", shape);
          for (const std::string &piece : pieces)
            concat.add_input(piece);
          attr(concat, "N").set_i(static_cast<int64_t>(pieces.size()) - 1);
          attr(concat, "T").set_type(saved_model::DT_INT64);
          attr(concat, "Tidx").set_type(saved_model::DT_INT64);
          inputs.push_back(shape);
        }
        saved_model::NodeDef &node = add("BroadcastTo");
        setType(node, "T", resultType);
        attr(node, "Tidx").set_type(saved_model::DT_INT64);
        return success();
      })
      .Case<ConcatOp>([&](ConcatOp concat) {
        inputs.push_back(addIndex(base("ConcatV2", "axis"), concat.getAxis()));
        saved_model::NodeDef &node = add("ConcatV2");
        setType(node, "T", resultType);
        attr(node, "N").set_i(concat.getInputs().size());
        attr(node, "Tidx").set_type(saved_model::DT_INT64);
        return success();
      })
      .Case<SliceOp>([&](SliceOp slice) {
        inputs.push_back(
            addIndices(base("Slice", "begin"), slice.getOffsets()));
        inputs.push_back(addIndices(base("Slice", "size"), slice.getSizes()));
        saved_model::NodeDef &node = add("Slice");
        setType(node, "T", resultType);
        attr(node, "Index").set_type(saved_model::DT_INT64);
        return success();
      })
      .Case<ArgMaxOp>([&](ArgMaxOp argmax) {
        inputs.push_back(
            addIndex(base("ArgMax", "dimension"), argmax.getAxis()));
        saved_model::NodeDef &node = add("ArgMax");
        setType(node, "T", argmax.getInput().getType());
        attr(node, "Tidx").set_type(saved_model::DT_INT64);
        attr(node, "output_type").set_type(saved_model::DT_INT64);
        return success();
      })
      .Case<CastOp>([&](CastOp cast) {
        saved_model::NodeDef &node = add("Cast");
        setType(node, "SrcT", cast.getInput().getType());
        setType(node, "DstT", resultType);
        attr(node, "Truncate").set_b(false);
        return success();
      })
      .Case<Conv2DOp>([&](Conv2DOp conv) {
        saved_model::NodeDef &node = add("Conv2D");
        setType(node, "T", resultType);
        setList(node, "strides", conv.getStrides());
        attr(node, "padding").set_s(stringifyPadding(conv.getPadding()).str());
        attr(node, "data_format").set_s("NHWC");
        setList(node, "dilations",
                conv.getDilations().value_or(ArrayRef<int64_t>{1, 1, 1, 1}));
        return success();
      })
      .Case<MaxPoolOp, AvgPoolOp>([&](auto pool) {
        saved_model::NodeDef &node =
            add(isa<MaxPoolOp>(op) ? "MaxPool" : "AvgPool");
        setType(node, "T", resultType);
        setList(node, "ksize", pool.getKsize());
        setList(node, "strides", pool.getStrides());
        attr(node, "padding").set_s(stringifyPadding(pool.getPadding()).str());
        attr(node, "data_format").set_s("NHWC");
        return success();
      })
      .Case<EmbeddingLookupOp>([&](EmbeddingLookupOp lookup) {
        FailureOr<std::string> table = variableConst(lookup.getTable(), lookup);
        if (failed(table))
          return failure();
        tensorNames[result] = reserve("embedding_lookup");
        addGather(nodeName, *table, lookup.getIds(), resultType);
        return success();
      })
      .Case<GatherOp>([&](GatherOp gather) {
        tensorNames[result] = reserve("Gather");
        addGather(nodeName, inputs.front(), gather.getIds(), resultType);
        return success();
      })
      .Case<EmbeddingCombineOp>([&](EmbeddingCombineOp combine) {
        tensorNames[result] = reserve("embedding_combine");
        addCombine(nodeName, combine, resultType);
        return success();
      })
      .Case<RowsOfIdsOp>([&](RowsOfIdsOp rowsOfIds) {
        tensorNames[result] = reserve("rows_of_ids");
        return addRowsOfIds(nodeName, rowsOfIds);
      })
      .Default([&](Operation *unsupported) {
        return unsupported->emitOpError(
            "cannot be exported to a TensorFlow graph for serving: the "
            "SavedModel exporter has no TensorFlow op for it");
      });
}

LogicalResult GraphBuilder::build(ArrayRef<InferenceOutput> outputs) {
  FailureOr<llvm::DenseSet<Operation *>> needed =
      neededAtInference(function, outputs);
  if (failed(needed))
    return failure();
  saved_model::SignatureDef &signature =
      (*metaGraph.mutable_signature_def())["serving_default"];
  signature.set_method_name("tensorflow/serving/predict");
  // The placeholders first: a dynamic batch size is read from the first
  // of them whose batch is dynamic.
  for (auto placeholder : function.getOps<PlaceholderOp>())
    if (needed->contains(placeholder) && failed(exportOp(placeholder)))
      return failure();
  for (Operation &op : function.front())
    if (needed->contains(&op) && !isa<PlaceholderOp>(op) &&
        failed(exportOp(&op)))
      return failure();
  for (const InferenceOutput &output : outputs) {
    Value value = atInference(output.value);
    auto type = cast<RankedTensorType>(value.getType());
    saved_model::TensorInfo &info = (*signature.mutable_outputs())[output.key];
    info.set_name(tensorNames.lookup(value) + ":0");
    info.set_dtype(*dataTypeOf(type.getElementType()));
    *info.mutable_tensor_shape() = shapeOf(type);
  }
  // The producer of the GraphDefs TensorFlow 2.21 writes (examples/tf):
  // every op here is older than it.
  graph.mutable_versions()->set_producer(2474);
  metaGraph.mutable_meta_info_def()->add_tags("serve");
  return success();
}

/// The SavedModel of `model`'s inference graph.
FailureOr<saved_model::SavedModel>
buildSavedModel(ModuleOp model, ArrayRef<std::string> names) {
  FailureOr<func::FuncOp> function = modelFunction(model);
  if (failed(function))
    return failure();
  FailureOr<std::vector<InferenceOutput>> outputs =
      findInferenceOutputs(*function, names);
  if (failed(outputs))
    return failure();
  saved_model::SavedModel savedModel;
  savedModel.set_saved_model_schema_version(1);
  GraphBuilder builder(*function, *savedModel.add_meta_graphs());
  if (failed(builder.build(*outputs)))
    return failure();
  return savedModel;
}

} // namespace

FailureOr<std::vector<std::string>>
inferenceInputs(func::FuncOp function, ArrayRef<InferenceOutput> outputs) {
  FailureOr<llvm::DenseSet<Operation *>> needed =
      neededAtInference(function, outputs);
  if (failed(needed))
    return failure();
  std::vector<std::string> names;
  function.walk([&](PlaceholderOp placeholder) {
    if (needed->contains(placeholder))
      names.push_back(placeholder.getName().str());
  });
  return names;
}

LogicalResult exportSavedModel(ModuleOp model, ArrayRef<std::string> outputs,
                               StringRef directory) {
  FailureOr<saved_model::SavedModel> savedModel =
      buildSavedModel(model, outputs);
  if (failed(savedModel))
    return failure();
  llvm::SmallString<256> variables(directory);
  llvm::sys::path::append(variables, "variables");
  if (std::error_code error = llvm::sys::fs::create_directories(variables))
    return model.emitError("cannot create the SavedModel directory ")
           << directory << ": " << error.message();
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, "saved_model.pb");
  std::string temporary = (path + ".tmp").str();
  std::string bytes;
  if (!savedModel->SerializeToString(&bytes))
    return model.emitError("cannot serialize the SavedModel (over 2 GiB?)");
  {
    std::error_code error;
    llvm::raw_fd_ostream file(temporary, error);
    if (error)
      return model.emitError("cannot write ")
             << temporary << ": " << error.message();
    file << bytes;
    file.close();
    if (file.has_error())
      return model.emitError("cannot write ")
             << temporary << ": " << file.error().message();
  }
  // A reader sees the whole file or none.
  if (std::error_code error = llvm::sys::fs::rename(temporary, path))
    return model.emitError("cannot rename ")
           << temporary << " to " << path << ": " << error.message();
  return success();
}

LogicalResult printSavedModel(ModuleOp model, ArrayRef<std::string> outputs,
                              llvm::raw_ostream &os) {
  FailureOr<saved_model::SavedModel> savedModel =
      buildSavedModel(model, outputs);
  if (failed(savedModel))
    return failure();
  std::string text;
  google::protobuf::TextFormat::PrintToString(*savedModel, &text);
  os << text;
  return success();
}

} // namespace dtf::translate
