//===- GraphDefImport.cpp - A TF1 GraphDef as a dtf module ----------------===//
//
// The import walks back from the loss and the requested outputs, so only the
// forward graph is translated: whatever the training machinery of the graph
// holds (gradients, slots, initializer assignments, summaries) is never
// reached. Constants are materialized only where an op takes them as a
// tensor; where a dtf op takes an attribute (axes, shapes, clip bounds,
// optimizer hyper-parameters) the Const is read instead.
//
//===----------------------------------------------------------------------===//

#include "translate/graphdef/GraphDefImport.h"

#include "dialects/dtf/IR/DTFDialect.h"
#include "dialects/dtf/IR/DTFOps.h"

#include "graph.pb.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>

using namespace mlir;
using namespace dtf::ir;

namespace dtf::translate {
namespace {

/// One input of a NodeDef: "node", "node:K" or "^node" (control).
struct InputRef {
  std::string node;
  int output = 0;
  bool control = false;
};

InputRef parseInput(const std::string &input) {
  InputRef ref;
  std::string text = input;
  if (!text.empty() && text[0] == '^') {
    ref.control = true;
    text = text.substr(1);
  }
  size_t colon = text.rfind(':');
  unsigned output = 0;
  if (colon != std::string::npos &&
      !StringRef(text).substr(colon + 1).getAsInteger(10, output) &&
      output < (1u << 20)) {
    ref.output = int(output);
    text = text.substr(0, colon);
  }
  ref.node = text;
  return ref;
}

/// The shortest decimal that is `value` in float32, as a double: a script's
/// learning rate of 0.01 reads 0.01, not 0.009999999776482582, the double
/// nearest to float32's 0.01.
double shortestDouble(float value) {
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, double(value));
    if (std::strtof(text, nullptr) == value)
      return std::strtod(text, nullptr);
  }
  return double(value);
}

bool isVariable(const std::string &op) {
  return op == "VariableV2" || op == "Variable" || op == "VarHandleOp";
}

/// The optimizer apply ops DTF recognizes, by the input index of their
/// gradient.
std::optional<int> gradientInputOf(const std::string &op) {
  static const std::map<std::string, int> applies = {
      {"ApplyGradientDescent", 2}, {"ResourceApplyGradientDescent", 2},
      {"ApplyMomentum", 3},        {"ResourceApplyMomentum", 3},
      {"ApplyAdam", 9},            {"ResourceApplyAdam", 9}};
  auto it = applies.find(op);
  if (it == applies.end())
    return std::nullopt;
  return it->second;
}

/// Collects the first error of a text-format parse.
class FirstError : public google::protobuf::io::ErrorCollector {
public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string &message) override {
    if (!error)
      error = {line, column, message};
  }
  struct Error {
    int line;
    int column;
    std::string message;
  };
  std::optional<Error> error;
};

class Importer {
public:
  Importer(const tensorflow::GraphDef &graph, StringRef filename,
           std::vector<Location> nodeLocations, MLIRContext *context,
           const GraphDefImportOptions &options)
      : graph(graph), filename(filename.str()),
        nodeLocations(std::move(nodeLocations)), context(context),
        builder(context), options(options) {}

  OwningOpRef<ModuleOp> run();

private:
  const tensorflow::NodeDef &node(int index) const {
    return graph.node(index);
  }
  Location locationOf(int index) const { return nodeLocations[index]; }
  InFlightDiagnostic fail(int index) {
    return emitError(locationOf(index))
           << "node '" << node(index).name() << "' (" << node(index).op()
           << "): ";
  }
  InFlightDiagnostic failAtFile() {
    return emitError(FileLineColLoc::get(context, filename, 0, 0));
  }

  FailureOr<int> lookup(int user, const std::string &name);
  FailureOr<int> inputNode(int index, int input);
  /// Follows Identity nodes from input `input` of `index`.
  FailureOr<int> throughIdentities(int index, int input);

  LogicalResult findTraining();
  LogicalResult collectNeeded(int root, std::set<int> &needed);

  FailureOr<Type> elementType(int index, tensorflow::DataType dtype);
  FailureOr<RankedTensorType> tensorType(int index, const char *dtypeAttr,
                                         const char *shapeAttr);
  const tensorflow::AttrValue *attr(int index, const char *name);
  FailureOr<DenseElementsAttr> constant(int index);
  FailureOr<SmallVector<int64_t>> integers(int index, int input);
  FailureOr<double> scalar(int index, int input);
  /// The integers that input `input` of `index` holds, where it is computed
  /// from shapes (Shape, Rank, Slice, ConcatV2, Pack, Sub, Add of
  /// constants), as the reshapes of TensorFlow's own Python functions
  /// compute them; kDynamic where a dimension is not known.
  FailureOr<SmallVector<int64_t>> shapeValue(int index, int input);

  FailureOr<Attribute> initializerOf(int variable);
  FailureOr<Attribute> initialValue(int index);
  LogicalResult declareVariable(int index);
  /// The module's dtf.cluster: the tasks the graph's devices name.
  LogicalResult declareCluster(ModuleOp module, const std::set<int> &needed);
  std::optional<DeviceAttr> deviceOf(int index, bool &failed);
  LogicalResult pin(Operation *op, int index);

  FailureOr<Value> value(int user, int input);
  FailureOr<Value> resolve(int index, int output);
  FailureOr<SmallVector<Value>> translate(int index);

  const tensorflow::GraphDef &graph;
  std::string filename;
  std::vector<Location> nodeLocations;
  MLIRContext *context;
  OpBuilder builder;
  const GraphDefImportOptions &options;

  llvm::StringMap<int> byName;
  /// The results of each translated node.
  llvm::DenseMap<int, SmallVector<Value>> results;
  llvm::DenseMap<int, VariableOp> variables;
  std::set<int> visiting;

  // What the optimizer's apply ops say.
  std::string gradientScope;
  std::set<int> trainable;
  Attribute optimizer;
  std::optional<int> lossNode;
  int lossOutput = 0;
  std::optional<int> globalStep;
};

FailureOr<int> Importer::lookup(int user, const std::string &name) {
  auto it = byName.find(name);
  if (it == byName.end()) {
    fail(user) << "input '" << name << "' names no node of the graph";
    return failure();
  }
  return it->second;
}

FailureOr<int> Importer::inputNode(int index, int input) {
  if (input >= node(index).input_size()) {
    fail(index) << "expects at least " << input + 1 << " inputs, has "
                << node(index).input_size();
    return failure();
  }
  return lookup(index, parseInput(node(index).input(input)).node);
}

FailureOr<int> Importer::throughIdentities(int index, int input) {
  FailureOr<int> current = inputNode(index, input);
  while (succeeded(current) && node(*current).op() == "Identity")
    current = inputNode(*current, 0);
  return current;
}

const tensorflow::AttrValue *Importer::attr(int index, const char *name) {
  auto it = node(index).attr().find(name);
  return it == node(index).attr().end() ? nullptr : &it->second;
}

FailureOr<Type> Importer::elementType(int index, tensorflow::DataType dtype) {
  int base = dtype > 100 ? dtype - 100 : dtype; // the _REF types
  switch (base) {
  case tensorflow::DT_FLOAT:
    return Type(builder.getF32Type());
  case tensorflow::DT_DOUBLE:
    return Type(builder.getF64Type());
  case tensorflow::DT_INT32:
    return Type(builder.getI32Type());
  case tensorflow::DT_INT64:
    return Type(builder.getI64Type());
  case tensorflow::DT_BOOL:
    return Type(builder.getI1Type());
  default:
    fail(index) << "dtype "
                << tensorflow::DataType_Name(
                       static_cast<tensorflow::DataType>(dtype))
                << " is not one DTF computes with (float, double, int32, "
                   "int64, bool)";
    return failure();
  }
}

FailureOr<RankedTensorType> Importer::tensorType(int index,
                                                 const char *dtypeAttr,
                                                 const char *shapeAttr) {
  const tensorflow::AttrValue *dtype = attr(index, dtypeAttr);
  const tensorflow::AttrValue *shape = attr(index, shapeAttr);
  if (!dtype || !shape) {
    fail(index) << "has no '" << (dtype ? shapeAttr : dtypeAttr)
                << "' attribute";
    return failure();
  }
  FailureOr<Type> element = elementType(index, dtype->type());
  if (failed(element))
    return failure();
  if (shape->shape().unknown_rank()) {
    fail(index) << "has an unknown rank; DTF needs the rank of every "
                   "placeholder and variable";
    return failure();
  }
  SmallVector<int64_t> dims;
  for (const auto &dim : shape->shape().dim())
    dims.push_back(dim.size() < 0 ? ShapedType::kDynamic : dim.size());
  return RankedTensorType::get(dims, *element);
}

FailureOr<DenseElementsAttr> Importer::constant(int index) {
  if (node(index).op() != "Const") {
    fail(index) << "is not a Const, where DTF needs a constant";
    return failure();
  }
  const tensorflow::AttrValue *value = attr(index, "value");
  if (!value || !value->has_tensor()) {
    fail(index) << "has no 'value' tensor";
    return failure();
  }
  const tensorflow::TensorProto &tensor = value->tensor();
  FailureOr<Type> element = elementType(index, tensor.dtype());
  if (failed(element))
    return failure();
  SmallVector<int64_t> dims;
  for (const auto &dim : tensor.tensor_shape().dim())
    dims.push_back(dim.size());
  auto type = RankedTensorType::get(dims, *element);
  int64_t count = type.getNumElements();
  // The typed fields may hold fewer values than the shape: the last one
  // repeats (none: zeros), as TensorFlow's MakeNdarray reads them.
  auto fill = [&](auto values, auto make) -> DenseElementsAttr {
    using T = typename decltype(values)::value_type;
    std::vector<T> all(count, values.empty() ? T() : values.back());
    for (int64_t i = 0; i < count && i < int64_t(values.size()); ++i)
      all[i] = values[i];
    return make(all);
  };
  const std::string &raw = tensor.tensor_content();
  size_t width = element->isInteger(1) ? 1 : element->getIntOrFloatBitWidth() / 8;
  if (!raw.empty() && raw.size() != size_t(count) * width) {
    fail(index) << "holds " << raw.size() << " bytes of tensor_content for "
                << count << " elements";
    return failure();
  }
  auto fromRaw = [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> values(count);
    std::memcpy(values.data(), raw.data(), raw.size());
    return values;
  };
  if (element->isF32()) {
    auto values = raw.empty() ? std::vector<float>(tensor.float_val().begin(),
                                                   tensor.float_val().end())
                              : fromRaw(float());
    return fill(values, [&](const std::vector<float> &all) {
      return DenseElementsAttr::get(type, ArrayRef<float>(all));
    });
  }
  if (element->isF64()) {
    auto values = raw.empty() ? std::vector<double>(tensor.double_val().begin(),
                                                    tensor.double_val().end())
                              : fromRaw(double());
    return fill(values, [&](const std::vector<double> &all) {
      return DenseElementsAttr::get(type, ArrayRef<double>(all));
    });
  }
  if (element->isInteger(32)) {
    auto values = raw.empty() ? std::vector<int32_t>(tensor.int_val().begin(),
                                                     tensor.int_val().end())
                              : fromRaw(int32_t());
    return fill(values, [&](const std::vector<int32_t> &all) {
      return DenseElementsAttr::get(type, ArrayRef<int32_t>(all));
    });
  }
  if (element->isInteger(64)) {
    auto values = raw.empty()
                      ? std::vector<int64_t>(tensor.int64_val().begin(),
                                             tensor.int64_val().end())
                      : fromRaw(int64_t());
    return fill(values, [&](const std::vector<int64_t> &all) {
      return DenseElementsAttr::get(type, ArrayRef<int64_t>(all));
    });
  }
  std::vector<char> values =
      raw.empty() ? std::vector<char>(tensor.bool_val().begin(),
                                      tensor.bool_val().end())
                  : fromRaw(char());
  return fill(values, [&](const std::vector<char> &all) {
    SmallVector<bool> bools(all.begin(), all.end());
    return DenseElementsAttr::get(type, ArrayRef<bool>(bools));
  });
}

FailureOr<SmallVector<int64_t>> Importer::integers(int index, int input) {
  FailureOr<int> source = throughIdentities(index, input);
  if (failed(source))
    return failure();
  if (node(*source).op() != "Const") {
    fail(index) << "input " << input << " must be a Const (axes, a shape or "
                << "a dimension), got '" << node(*source).name() << "' ("
                << node(*source).op() << ")";
    return failure();
  }
  FailureOr<DenseElementsAttr> values = constant(*source);
  if (failed(values))
    return failure();
  if (!values->getElementType().isInteger(32) &&
      !values->getElementType().isInteger(64)) {
    fail(index) << "input " << input << " must hold integers";
    return failure();
  }
  SmallVector<int64_t> result;
  for (APInt value : values->getValues<APInt>())
    result.push_back(value.getSExtValue());
  return result;
}

FailureOr<SmallVector<int64_t>> Importer::shapeValue(int index, int input) {
  FailureOr<int> source = throughIdentities(index, input);
  if (failed(source))
    return failure();
  int at = *source;
  const std::string &op = node(at).op();
  auto operandShape = [&](int i) { return shapeValue(at, i); };
  if (op == "Const")
    return integers(index, input);
  if (op == "Shape" || op == "Rank") {
    FailureOr<Value> x = value(at, 0);
    if (failed(x))
      return failure();
    auto type = cast<RankedTensorType>(x->getType());
    if (op == "Rank")
      return SmallVector<int64_t>{type.getRank()};
    return SmallVector<int64_t>(type.getShape());
  }
  if (op == "Slice") {
    FailureOr<SmallVector<int64_t>> vector = operandShape(0);
    FailureOr<SmallVector<int64_t>> begin = operandShape(1);
    FailureOr<SmallVector<int64_t>> size = operandShape(2);
    if (failed(vector) || failed(begin) || failed(size))
      return failure();
    if (begin->size() != 1 || size->size() != 1 || (*begin)[0] < 0 ||
        (*begin)[0] > int64_t(vector->size())) {
      fail(at) << "slices a shape with an unknown or out-of-range begin";
      return failure();
    }
    int64_t first = (*begin)[0];
    int64_t count = (*size)[0] < 0 ? int64_t(vector->size()) - first
                                    : (*size)[0];
    if (first + count > int64_t(vector->size())) {
      fail(at) << "slices past the end of a shape";
      return failure();
    }
    return SmallVector<int64_t>(vector->begin() + first,
                                vector->begin() + first + count);
  }
  if (op == "ConcatV2" || op == "Pack") {
    // ConcatV2's last input is the axis, 0 for the vectors of a shape.
    int parts = node(at).input_size() - (op == "ConcatV2" ? 1 : 0);
    SmallVector<int64_t> joined;
    for (int i = 0; i < parts; ++i) {
      FailureOr<SmallVector<int64_t>> part = operandShape(i);
      if (failed(part))
        return failure();
      joined.append(*part);
    }
    return joined;
  }
  if (op == "Sub" || op == "Add" || op == "AddV2") {
    FailureOr<SmallVector<int64_t>> a = operandShape(0), b = operandShape(1);
    if (failed(a) || failed(b))
      return failure();
    if (a->size() != b->size() && a->size() != 1 && b->size() != 1) {
      fail(at) << "combines shapes of different lengths";
      return failure();
    }
    SmallVector<int64_t> result;
    for (size_t i = 0; i < std::max(a->size(), b->size()); ++i) {
      int64_t x = (*a)[a->size() == 1 ? 0 : i];
      int64_t y = (*b)[b->size() == 1 ? 0 : i];
      result.push_back(ShapedType::isDynamic(x) || ShapedType::isDynamic(y)
                           ? ShapedType::kDynamic
                           : op == "Sub" ? x - y
                                         : x + y);
    }
    return result;
  }
  fail(index) << "input " << input << " must be a shape DTF can compute "
              << "before running (from Const, Shape, Rank, Slice, ConcatV2, "
              << "Pack, Add, Sub), got '" << node(at).name() << "' (" << op
              << ")";
  return failure();
}

FailureOr<double> Importer::scalar(int index, int input) {
  FailureOr<int> source = throughIdentities(index, input);
  if (succeeded(source) && node(*source).op() == "Cast")
    source = throughIdentities(*source, 0);
  if (failed(source))
    return failure();
  if (node(*source).op() != "Const") {
    fail(index) << "input " << input << " must be a scalar Const, got '"
                << node(*source).name() << "' (" << node(*source).op() << ")";
    return failure();
  }
  FailureOr<DenseElementsAttr> values = constant(*source);
  if (failed(values))
    return failure();
  if (values->getNumElements() != 1) {
    fail(index) << "input " << input << " must be a scalar, got "
                << values->getType();
    return failure();
  }
  Type element = values->getElementType();
  if (element.isF32())
    return shortestDouble((*values->getValues<APFloat>().begin())
                              .convertToFloat());
  if (isa<FloatType>(element))
    return (*values->getValues<APFloat>().begin()).convertToDouble();
  return double((*values->getValues<APInt>().begin()).getSExtValue());
}

LogicalResult Importer::findTraining() {
  std::optional<int> first;
  for (int index = 0; index < graph.node_size(); ++index) {
    std::optional<int> gradient = gradientInputOf(node(index).op());
    if (!gradient)
      continue;
    // The optimizer's hyper-parameters, the same for every update.
    const std::string &op = node(index).op();
    Attribute found;
    if (op.find("Adam") != std::string::npos) {
      FailureOr<double> lr = scalar(index, 5), beta1 = scalar(index, 6),
                        beta2 = scalar(index, 7), epsilon = scalar(index, 8);
      if (failed(lr) || failed(beta1) || failed(beta2) || failed(epsilon))
        return failure();
      const tensorflow::AttrValue *nesterov = attr(index, "use_nesterov");
      if (nesterov && nesterov->b()) {
        fail(index) << "Adam with use_nesterov (NAdam) is not one of DTF's "
                       "optimizers";
        return failure();
      }
      found = AdamAttr::get(context, APFloat(*lr), APFloat(*beta1),
                            APFloat(*beta2), APFloat(*epsilon));
    } else if (op.find("Momentum") != std::string::npos) {
      FailureOr<double> lr = scalar(index, 2), momentum = scalar(index, 4);
      if (failed(lr) || failed(momentum))
        return failure();
      const tensorflow::AttrValue *nesterov = attr(index, "use_nesterov");
      found = MomentumAttr::get(context, APFloat(*lr), APFloat(*momentum),
                                nesterov && nesterov->b());
    } else {
      FailureOr<double> lr = scalar(index, 1);
      if (failed(lr))
        return failure();
      found = SGDAttr::get(context, APFloat(*lr));
    }
    if (optimizer && found != optimizer) {
      fail(index) << "updates with " << found << " where '"
                  << node(*first).name() << "' updates with " << optimizer
                  << "; DTF minimizes one loss with one optimizer";
      return failure();
    }
    optimizer = found;
    first = first.value_or(index);

    FailureOr<int> variable = throughIdentities(index, 0);
    if (failed(variable))
      return failure();
    trainable.insert(*variable);
    InputRef gradientRef = parseInput(node(index).input(*gradient));
    std::string scope = gradientRef.node.substr(0, gradientRef.node.find('/'));
    if (!gradientScope.empty() && scope != gradientScope) {
      fail(index) << "reads its gradient from '" << gradientRef.node
                  << "', outside '" << gradientScope
                  << "/': DTF minimizes one loss";
      return failure();
    }
    gradientScope = scope;
  }
  if (!first)
    return success();

  // tf.gradients(loss) starts from Fill(shape of the loss, 1), and the
  // first gradient op that reads that seed is named after the loss's op:
  // "gradients/<loss>_grad/...". (Older TensorFlow also took the shape with
  // a Shape op of the loss.)
  std::string prefix = gradientScope + "/";
  std::set<std::string> seeds = {prefix + "grad_ys_0", prefix + "Fill"};
  for (int index = 0; index < graph.node_size() && !lossNode; ++index) {
    const tensorflow::NodeDef &def = node(index);
    if (def.name().rfind(prefix, 0) != 0)
      continue;
    if (def.name() == prefix + "Shape" && def.op() == "Shape") {
      InputRef loss = parseInput(def.input(0));
      FailureOr<int> lossIndex = lookup(index, loss.node);
      if (failed(lossIndex))
        return failure();
      lossNode = *lossIndex;
      lossOutput = loss.output;
      break;
    }
    bool readsSeed = llvm::any_of(def.input(), [&](const std::string &input) {
      return seeds.count(parseInput(input).node) > 0;
    });
    std::string rest = def.name().substr(prefix.size());
    size_t grad = rest.rfind("_grad/");
    if (!readsSeed || grad == std::string::npos)
      continue;
    FailureOr<int> lossIndex = lookup(index, rest.substr(0, grad));
    if (failed(lossIndex))
      return failure();
    lossNode = *lossIndex;
  }
  if (!lossNode) {
    failAtFile() << "the optimizer's updates read gradients from '"
                 << prefix << "', where no op reads the seed of the backward "
                 << "pass (" << prefix << "grad_ys_0) under the loss's name, "
                 << "as tf.gradients builds it";
    return failure();
  }
  // minimize(global_step=...) increments it with the optimizer's name, after
  // the updates: AssignAdd(global_step, 1) named like the update scope.
  std::string optimizerScope =
      node(*first).name().substr(0, node(*first).name().find('/'));
  auto it = byName.find(optimizerScope);
  if (it != byName.end() && (node(it->second).op() == "AssignAdd" ||
                             node(it->second).op() == "AssignAddVariableOp")) {
    FailureOr<int> step = throughIdentities(it->second, 0);
    if (failed(step))
      return failure();
    globalStep = *step;
  }
  return success();
}

LogicalResult Importer::collectNeeded(int root, std::set<int> &needed) {
  std::vector<int> stack = {root};
  while (!stack.empty()) {
    int index = stack.back();
    stack.pop_back();
    if (!needed.insert(index).second)
      continue;
    // A variable's reads reach it; its initializer is an attribute.
    if (isVariable(node(index).op()))
      continue;
    for (const std::string &input : node(index).input()) {
      InputRef ref = parseInput(input);
      if (ref.control)
        continue;
      FailureOr<int> source = lookup(index, ref.node);
      if (failed(source))
        return failure();
      stack.push_back(*source);
    }
  }
  return success();
}

std::optional<DeviceAttr> Importer::deviceOf(int index, bool &failed) {
  std::string device = node(index).device();
  // TensorFlow may name the replica; DTF's device names do not.
  size_t replica = device.find("/replica:");
  if (replica != std::string::npos) {
    size_t end = device.find('/', replica + 1);
    device.erase(replica, end == std::string::npos ? std::string::npos
                                                   : end - replica);
  }
  // "/job:worker" alone (replica_device_setter's worker_device in
  // between-graph scripts) is whichever worker runs the replica: no pin.
  if (device.find("/task:") == std::string::npos)
    return std::nullopt;
  std::string error;
  FailureOr<DeviceAttr> parsed =
      DeviceAttr::parseDeviceName(context, device, error);
  if (::mlir::failed(parsed)) {
    fail(index) << "device '" << node(index).device() << "': " << error;
    failed = true;
    return std::nullopt;
  }
  return *parsed;
}

LogicalResult Importer::pin(Operation *op, int index) {
  bool failed = false;
  std::optional<DeviceAttr> device = deviceOf(index, failed);
  if (failed)
    return failure();
  if (device)
    op->setAttr(DTFDialect::getDeviceAttrName(), *device);
  return success();
}

FailureOr<Attribute> Importer::initialValue(int index) {
  const std::string &op = node(index).op();
  auto uniform = [&](DenseElementsAttr values) -> FailureOr<Attribute> {
    if (!values.isSplat()) {
      fail(index) << "an initial value whose elements differ is not one of "
                     "DTF's initializers (zeros, a constant, normal samples)";
      return failure();
    }
    Attribute element = values.getSplatValue<Attribute>();
    double value = 0;
    if (auto f = dyn_cast<FloatAttr>(element))
      value = f.getType().isF32()
                  ? shortestDouble(f.getValue().convertToFloat())
                  : f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(element))
      value = double(i.getValue().getSExtValue());
    if (value == 0)
      return Attribute(ZerosInitAttr::get(context));
    return Attribute(ConstantInitAttr::get(context, APFloat(value)));
  };
  if (op == "Identity") {
    FailureOr<int> source = inputNode(index, 0);
    if (failed(source))
      return failure();
    return initialValue(*source);
  }
  if (op == "Const") {
    FailureOr<DenseElementsAttr> values = constant(index);
    if (failed(values))
      return failure();
    return uniform(*values);
  }
  if (op == "Fill") {
    FailureOr<double> value = scalar(index, 1);
    if (failed(value))
      return failure();
    if (*value == 0)
      return Attribute(ZerosInitAttr::get(context));
    return Attribute(ConstantInitAttr::get(context, APFloat(*value)));
  }
  // tf.truncated_normal / tf.random_normal: Add(Mul(sample, stddev), mean).
  if (op == "Add" || op == "AddV2") {
    FailureOr<int> product = throughIdentities(index, 0);
    if (failed(product))
      return failure();
    if (node(*product).op() == "Mul") {
      FailureOr<int> sample = throughIdentities(*product, 0);
      if (failed(sample))
        return failure();
      const std::string &kind = node(*sample).op();
      if (kind == "TruncatedNormal" || kind == "RandomStandardNormal") {
        FailureOr<double> stddev = scalar(*product, 1);
        FailureOr<double> mean = scalar(index, 1);
        if (failed(stddev) || failed(mean))
          return failure();
        // The op's own seed (seed2) is the one a script sets with seed=;
        // seed is the graph's.
        const tensorflow::AttrValue *seed2 = attr(*sample, "seed2");
        const tensorflow::AttrValue *seed = attr(*sample, "seed");
        int64_t value = seed2 && seed2->i() ? seed2->i() : seed ? seed->i() : 0;
        if (kind == "TruncatedNormal")
          return Attribute(TruncatedNormalInitAttr::get(
              context, APFloat(*mean), APFloat(*stddev), value));
        return Attribute(RandomNormalInitAttr::get(
            context, APFloat(*mean), APFloat(*stddev), value));
      }
    }
  }
  fail(index) << "is not an initial value DTF recognizes (a Const, Fill, or "
                 "tf.truncated_normal / tf.random_normal's Add(Mul(sample, "
                 "stddev), mean))";
  return failure();
}

FailureOr<Attribute> Importer::initializerOf(int variable) {
  for (int index = 0; index < graph.node_size(); ++index) {
    const std::string &op = node(index).op();
    if (op != "Assign" && op != "AssignVariableOp")
      continue;
    const std::string &name = node(index).name();
    // Not the optimizer's or the gradients' assignments.
    if (!gradientScope.empty() && name.rfind(gradientScope + "/", 0) == 0)
      continue;
    if (node(index).input_size() < 2 ||
        parseInput(node(index).input(0)).node != node(variable).name())
      continue;
    FailureOr<int> value = inputNode(index, 1);
    if (failed(value))
      return failure();
    return initialValue(*value);
  }
  fail(variable) << "has no initializer (an Assign of its initial value)";
  return failure();
}

LogicalResult Importer::declareVariable(int index) {
  FailureOr<RankedTensorType> type = tensorType(index, "dtype", "shape");
  if (failed(type))
    return failure();
  if (!type->hasStaticShape()) {
    fail(index) << "has a dynamic shape " << *type;
    return failure();
  }
  // DTF counts global steps in int64, as tf.train.get_or_create_global_step.
  if (globalStep == index && type->getElementType().isInteger(32))
    type = RankedTensorType::get(type->getShape(), builder.getI64Type());
  FailureOr<Attribute> initializer = initializerOf(index);
  if (failed(initializer))
    return failure();
  bool isTrainable = trainable.count(index) > 0;
  auto variable = builder.create<VariableOp>(
      locationOf(index), ResourceType::get(context, *type),
      builder.getStringAttr(node(index).name()), *initializer, isTrainable,
      StringAttr());
  variables[index] = variable;
  results[index] = {variable.getHandle()};
  return pin(variable, index);
}

LogicalResult Importer::declareCluster(ModuleOp module,
                                      const std::set<int> &needed) {
  // As many tasks of each job as the graph's devices name (at least one),
  // on loopback ports; dtf-run replaces them with its own cluster.
  int tasks[2] = {1, 1};
  for (int index : needed) {
    bool failed = false;
    std::optional<DeviceAttr> device = deviceOf(index, failed);
    if (failed)
      return failure();
    if (device) {
      int &count = tasks[device->getJob() == "ps" ? 0 : 1];
      count = std::max(count, int(device->getTask()) + 1);
    }
  }
  SmallVector<Attribute> ps, workers;
  for (int task = 0; task < tasks[0]; ++task)
    ps.push_back(builder.getStringAttr("localhost:" +
                                       std::to_string(2222 + task)));
  for (int task = 0; task < tasks[1]; ++task)
    workers.push_back(builder.getStringAttr(
        "localhost:" + std::to_string(2222 + tasks[0] + task)));
  module->setAttr(DTFDialect::getClusterAttrName(),
                  ClusterAttr::get(context, builder.getArrayAttr(ps),
                                   builder.getArrayAttr(workers)));
  return success();
}

FailureOr<Value> Importer::value(int user, int input) {
  if (input >= node(user).input_size()) {
    fail(user) << "expects at least " << input + 1 << " inputs, has "
               << node(user).input_size();
    return failure();
  }
  InputRef ref = parseInput(node(user).input(input));
  FailureOr<int> source = lookup(user, ref.node);
  if (failed(source))
    return failure();
  return resolve(*source, ref.output);
}

FailureOr<Value> Importer::resolve(int index, int output) {
  auto found = results.find(index);
  if (found == results.end()) {
    if (!visiting.insert(index).second) {
      fail(index) << "is part of a cycle of the forward graph";
      return failure();
    }
    FailureOr<SmallVector<Value>> translated = translate(index);
    visiting.erase(index);
    if (failed(translated))
      return failure();
    found = results.insert({index, *translated}).first;
  }
  if (output >= int(found->second.size()) || !found->second[output]) {
    fail(index) << "output " << output
                << " is not one DTF imports (only the forward value)";
    return failure();
  }
  return found->second[output];
}

FailureOr<SmallVector<Value>> Importer::translate(int index) {
  const tensorflow::NodeDef &def = node(index);
  const std::string &op = def.op();
  Location loc = locationOf(index);
  auto operand = [&](int input) { return value(index, input); };
  auto done = [&](Operation *created) -> FailureOr<SmallVector<Value>> {
    if (failed(pin(created, index)))
      return failure();
    return SmallVector<Value>(created->getResults());
  };
  auto unary = [&](auto tag) -> FailureOr<SmallVector<Value>> {
    using Op = decltype(tag);
    FailureOr<Value> x = operand(0);
    if (failed(x))
      return failure();
    return done(builder.create<Op>(loc, *x));
  };
  auto binary = [&](auto tag) -> FailureOr<SmallVector<Value>> {
    using Op = decltype(tag);
    FailureOr<Value> x = operand(0), y = operand(1);
    if (failed(x) || failed(y))
      return failure();
    return done(builder.create<Op>(loc, *x, *y));
  };
  auto window = [&](const char *name) -> FailureOr<SmallVector<int64_t>> {
    const tensorflow::AttrValue *list = attr(index, name);
    if (!list || list->list().i_size() != 4) {
      fail(index) << "needs a '" << name << "' of 4 integers";
      return failure();
    }
    return SmallVector<int64_t>(list->list().i().begin(),
                                list->list().i().end());
  };
  auto padding = [&]() -> FailureOr<Padding> {
    const tensorflow::AttrValue *value = attr(index, "padding");
    if (value && value->s() == "SAME")
      return Padding::SAME;
    if (value && value->s() == "VALID")
      return Padding::VALID;
    fail(index) << "padding must be SAME or VALID";
    return failure();
  };
  auto requireNHWC = [&]() -> LogicalResult {
    const tensorflow::AttrValue *format = attr(index, "data_format");
    if (format && !format->s().empty() && format->s() != "NHWC") {
      fail(index) << "data_format " << format->s()
                  << " is not NHWC, the layout of DTF's kernels";
      return failure();
    }
    return success();
  };

  if (isVariable(op))
    return SmallVector<Value>{variables.lookup(index).getHandle()};
  if (op == "Identity") {
    FailureOr<int> source = inputNode(index, 0);
    if (failed(source))
      return failure();
    // A reference variable's value is read through its Identity.
    if (variables.count(*source))
      return done(
          builder.create<ReadOp>(loc, variables.lookup(*source).getHandle()));
    FailureOr<Value> x = operand(0);
    if (failed(x))
      return failure();
    return SmallVector<Value>{*x};
  }
  if (op == "ReadVariableOp") {
    FailureOr<int> source = throughIdentities(index, 0);
    if (failed(source))
      return failure();
    if (!variables.count(*source)) {
      fail(index) << "reads '" << node(*source).name()
                  << "', which is not a variable";
      return failure();
    }
    return SmallVector<Value>{
        builder.create<ReadOp>(loc, variables.lookup(*source).getHandle())};
  }
  if (op == "Placeholder") {
    FailureOr<RankedTensorType> type = tensorType(index, "dtype", "shape");
    if (failed(type))
      return failure();
    return done(builder.create<PlaceholderOp>(loc, *type,
                                              builder.getStringAttr(def.name())));
  }
  if (op == "Const") {
    FailureOr<DenseElementsAttr> values = constant(index);
    if (failed(values))
      return failure();
    return done(builder.create<ConstantOp>(loc, *values));
  }
  if (op == "MatMul") {
    FailureOr<Value> a = operand(0), b = operand(1);
    if (failed(a) || failed(b))
      return failure();
    const tensorflow::AttrValue *ta = attr(index, "transpose_a");
    const tensorflow::AttrValue *tb = attr(index, "transpose_b");
    return done(builder.create<MatMulOp>(loc, *a, *b, ta && ta->b(),
                                         tb && tb->b()));
  }
  if (op == "Add" || op == "AddV2")
    return binary(AddOp());
  if (op == "Sub")
    return binary(SubOp());
  if (op == "Mul")
    return binary(MulOp());
  if (op == "RealDiv")
    return binary(DivOp());
  if (op == "Equal")
    return binary(EqualOp());
  if (op == "BiasAdd") {
    if (failed(requireNHWC()))
      return failure();
    return binary(BiasAddOp());
  }
  if (op == "Neg")
    return unary(NegOp());
  if (op == "Relu")
    return unary(ReluOp());
  if (op == "Softmax")
    return unary(SoftmaxOp());
  if (op == "Log")
    return unary(LogOp());
  // tf.clip_by_value(t, lo, hi): ClipByValue, or Maximum(Minimum(t, hi), lo).
  if (op == "ClipByValue" || op == "Maximum") {
    int clipped = index;
    int lowInput = 1, highNode = index, highInput = 2;
    if (op == "Maximum") {
      FailureOr<int> minimum = throughIdentities(index, 0);
      if (failed(minimum))
        return failure();
      if (node(*minimum).op() != "Minimum") {
        fail(index) << "Maximum is imported as tf.clip_by_value's "
                       "Maximum(Minimum(t, max), min); input 0 is '"
                    << node(*minimum).name() << "' (" << node(*minimum).op()
                    << ")";
        return failure();
      }
      clipped = *minimum;
      highNode = *minimum;
      highInput = 1;
    }
    FailureOr<Value> x = value(clipped, 0);
    FailureOr<double> low = scalar(index, lowInput);
    FailureOr<double> high = scalar(highNode, highInput);
    if (failed(x) || failed(low) || failed(high))
      return failure();
    return done(builder.create<ClipByValueOp>(loc, *x,
                                              builder.getF64FloatAttr(*low),
                                              builder.getF64FloatAttr(*high)));
  }
  if (op == "SoftmaxCrossEntropyWithLogits" ||
      op == "SparseSoftmaxCrossEntropyWithLogits") {
    FailureOr<Value> logits = operand(0), labels = operand(1);
    if (failed(logits) || failed(labels))
      return failure();
    Operation *loss =
        op == "SoftmaxCrossEntropyWithLogits"
            ? builder.create<SoftmaxCrossEntropyWithLogitsOp>(loc, *logits,
                                                              *labels)
                  .getOperation()
            : builder.create<SparseSoftmaxCrossEntropyWithLogitsOp>(
                  loc, *logits, *labels);
    if (failed(pin(loss, index)))
      return failure();
    // Output 1, the backprop TensorFlow computes with the loss, is left to
    // DTF's autodiff.
    return SmallVector<Value>{loss->getResult(0), Value()};
  }
  if (op == "Sum" || op == "Mean") {
    FailureOr<Value> x = operand(0);
    FailureOr<SmallVector<int64_t>> axes = integers(index, 1);
    if (failed(x) || failed(axes))
      return failure();
    const tensorflow::AttrValue *keep = attr(index, "keep_dims");
    if (op == "Sum")
      return done(
          builder.create<ReduceSumOp>(loc, *x, *axes, keep && keep->b()));
    return done(
        builder.create<ReduceMeanOp>(loc, *x, *axes, keep && keep->b()));
  }
  if (op == "Reshape") {
    FailureOr<Value> x = operand(0);
    if (failed(x))
      return failure();
    FailureOr<SmallVector<int64_t>> shape = shapeValue(index, 1);
    if (failed(shape))
      return failure();
    auto input = cast<RankedTensorType>(x->getType());
    int64_t known = 1, inferred = -1;
    for (auto [dim, size] : llvm::enumerate(*shape)) {
      if ((size == -1 || ShapedType::isDynamic(size)) && inferred < 0)
        inferred = int64_t(dim);
      else if (size < 0) {
        fail(index) << "shape [" << llvm::make_range(shape->begin(),
                                                    shape->end())
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
    auto type = RankedTensorType::get(dims, input.getElementType());
    // TensorFlow's functions reshape to the shape a tensor has already
    // (flattening the outer dimensions of a matrix); those are no ops.
    if (type == input)
      return SmallVector<Value>{*x};
    return done(builder.create<ReshapeOp>(loc, type, *x));
  }
  if (op == "Conv2D") {
    FailureOr<Value> x = operand(0), filter = operand(1);
    FailureOr<SmallVector<int64_t>> strides = window("strides");
    FailureOr<Padding> pad = padding();
    if (failed(x) || failed(filter) || failed(strides) || failed(pad) ||
        failed(requireNHWC()))
      return failure();
    if (const tensorflow::AttrValue *dilations = attr(index, "dilations"))
      for (int64_t dilation : dilations->list().i())
        if (dilation != 1) {
          fail(index) << "dilated convolutions are not one of DTF's kernels";
          return failure();
        }
    return done(builder.create<Conv2DOp>(
        loc, *x, *filter, builder.getDenseI64ArrayAttr(*strides),
        PaddingAttr::get(context, *pad)));
  }
  if (op == "MaxPool") {
    FailureOr<Value> x = operand(0);
    FailureOr<SmallVector<int64_t>> ksize = window("ksize");
    FailureOr<SmallVector<int64_t>> strides = window("strides");
    FailureOr<Padding> pad = padding();
    if (failed(x) || failed(ksize) || failed(strides) || failed(pad) ||
        failed(requireNHWC()))
      return failure();
    return done(builder.create<MaxPoolOp>(
        loc, *x, builder.getDenseI64ArrayAttr(*ksize),
        builder.getDenseI64ArrayAttr(*strides),
        PaddingAttr::get(context, *pad)));
  }
  if (op == "ArgMax") {
    FailureOr<Value> x = operand(0);
    FailureOr<SmallVector<int64_t>> axis = integers(index, 1);
    if (failed(x) || failed(axis))
      return failure();
    const tensorflow::AttrValue *outputType = attr(index, "output_type");
    if (outputType && outputType->type() != tensorflow::DT_INT64) {
      fail(index) << "output_type must be int64, the type of dtf.argmax";
      return failure();
    }
    if (axis->size() != 1) {
      fail(index) << "takes one dimension";
      return failure();
    }
    return done(builder.create<ArgMaxOp>(loc, *x, axis->front()));
  }
  if (op == "Cast") {
    FailureOr<Value> x = operand(0);
    const tensorflow::AttrValue *dst = attr(index, "DstT");
    if (failed(x))
      return failure();
    if (!dst) {
      fail(index) << "has no 'DstT' attribute";
      return failure();
    }
    FailureOr<Type> element = elementType(index, dst->type());
    if (failed(element))
      return failure();
    auto input = cast<RankedTensorType>(x->getType());
    return done(
        builder.create<CastOp>(loc, input.clone(*element), *x));
  }
  fail(index) << "op '" << op << "' is not one dtf-translate imports";
  return failure();
}

OwningOpRef<ModuleOp> Importer::run() {
  for (int index = 0; index < graph.node_size(); ++index)
    if (!byName.insert({node(index).name(), index}).second) {
      fail(index) << "the name is used by two nodes";
      return nullptr;
    }
  if (graph.node_size() == 0) {
    failAtFile() << "the GraphDef has no nodes";
    return nullptr;
  }
  if (failed(findTraining()))
    return nullptr;

  // The function's results: the loss, then the requested outputs.
  SmallVector<std::pair<int, int>> roots;
  if (lossNode)
    roots.push_back({*lossNode, lossOutput});
  for (const std::string &output : options.outputs) {
    InputRef ref = parseInput(output);
    auto it = byName.find(ref.node);
    if (it == byName.end()) {
      failAtFile() << "--outputs: no node '" << ref.node << "' in the graph";
      return nullptr;
    }
    roots.push_back({it->second, ref.output});
  }
  if (roots.empty()) {
    failAtFile() << "the graph has no optimizer update to take a loss from; "
                    "name the values to import with --outputs";
    return nullptr;
  }
  std::set<int> needed;
  for (auto [root, output] : roots)
    if (failed(collectNeeded(root, needed)))
      return nullptr;
  if (globalStep)
    needed.insert(*globalStep);

  Location fileLoc = FileLineColLoc::get(context, filename, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  if (failed(declareCluster(*module, needed)))
    return nullptr;
  builder.setInsertionPointToEnd(module->getBody());
  auto function = builder.create<func::FuncOp>(
      fileLoc, "main", builder.getFunctionType({}, {}));
  builder.setInsertionPointToEnd(function.addEntryBlock());
  // Variables first, in the graph's order: the order in which the script
  // created them, which round-robin placement follows.
  for (int index : needed)
    if (isVariable(node(index).op()) && failed(declareVariable(index)))
      return nullptr;
  SmallVector<Value> returned;
  for (auto [root, output] : roots) {
    FailureOr<Value> result = resolve(root, output);
    if (failed(result))
      return nullptr;
    returned.push_back(*result);
  }
  if (lossNode) {
    std::optional<VariableOp> step;
    if (globalStep)
      step = variables.lookup(*globalStep);
    builder.create<MinimizeOp>(locationOf(*lossNode), returned.front(),
                               optimizer,
                               step ? step->getHandle() : Value());
  }
  builder.create<func::ReturnOp>(fileLoc, returned);
  function.setFunctionType(
      builder.getFunctionType({}, ValueRange(returned).getTypes()));
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace

OwningOpRef<ModuleOp> importGraphDef(StringRef bytes, StringRef filename,
                                     MLIRContext *context,
                                     const GraphDefImportOptions &options) {
  context->loadDialect<DTFDialect, func::FuncDialect>();
  tensorflow::GraphDef graph;
  std::vector<Location> locations;
  Location fileLoc = FileLineColLoc::get(context, filename, 0, 0);
  if (filename.ends_with(".pbtxt")) {
    google::protobuf::TextFormat::Parser parser;
    FirstError errors;
    google::protobuf::TextFormat::ParseInfoTree tree;
    parser.RecordErrorsTo(&errors);
    parser.WriteLocationsTo(&tree);
    // Fields of newer TensorFlow versions (debug info, a function library)
    // are not DTF's business.
    parser.AllowUnknownField(true);
    if (!parser.ParseFromString(std::string(bytes), &graph)) {
      int line = errors.error ? errors.error->line + 1 : 0;
      int column = errors.error ? errors.error->column + 1 : 0;
      emitError(FileLineColLoc::get(context, filename, line, column))
          << "malformed text GraphDef: "
          << (errors.error ? errors.error->message : "cannot parse");
      return nullptr;
    }
    const auto *nodeField =
        tensorflow::GraphDef::descriptor()->FindFieldByName("node");
    for (int index = 0; index < graph.node_size(); ++index) {
      auto at = tree.GetLocation(nodeField, index);
      locations.push_back(NameLoc::get(
          StringAttr::get(context, graph.node(index).name()),
          FileLineColLoc::get(context, filename, at.line + 1,
                              at.column + 1)));
    }
  } else {
    if (!graph.ParseFromArray(bytes.data(), int(bytes.size()))) {
      emitError(fileLoc) << "not a binary GraphDef (truncated or malformed "
                            "protobuf; a text GraphDef must be named "
                            "*.pbtxt)";
      return nullptr;
    }
    for (int index = 0; index < graph.node_size(); ++index)
      locations.push_back(NameLoc::get(
          StringAttr::get(context, graph.node(index).name()), fileLoc));
  }
  // One error: the first one names the node at fault, and what follows
  // from it would only repeat it.
  bool reported = false;
  ScopedDiagnosticHandler firstErrorOnly(context, [&](Diagnostic &) {
    if (reported)
      return success();
    reported = true;
    return failure();
  });
  return Importer(graph, filename, std::move(locations), context, options)
      .run();
}

} // namespace dtf::translate
