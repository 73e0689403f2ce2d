//===- ImportContext.cpp - What the parts of an import share --------------===//
//
// The readers of nodes, attributes and Const tensors, devices, and the
// on-demand translation of the values the import reaches.
//
//===----------------------------------------------------------------------===//

#include "translate/graphdef/ImportContext.h"

#include "translate/graphdef/OpTranslators.h"

#include "dialects/dtf/IR/DTFDialect.h"

#include "llvm/Support/MathExtras.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace dtf::ir;

namespace dtf::translate::graphdef {

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

double shortestDouble(float value) {
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, double(value));
    if (std::strtof(text, nullptr) == value)
      return std::strtod(text, nullptr);
  }
  return double(value);
}

ImportContext::ImportContext(const tensorflow::GraphDef &graph,
                             StringRef filename,
                             std::vector<Location> nodeLocations,
                             MLIRContext *context)
    : graph(graph), filename(filename.str()),
      nodeLocations(std::move(nodeLocations)), context(context),
      builder(context) {}

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

Location ImportContext::fileLocation() const {
  return FileLineColLoc::get(context, filename, 0, 0);
}

LogicalResult ImportContext::indexNodeNames() {
  for (int index = 0; index < nodeCount(); ++index)
    if (!byName.insert({node(index).name(), index}).second) {
      fail(index) << "the name is used by two nodes";
      return failure();
    }
  return success();
}

std::optional<int> ImportContext::findNode(const std::string &name) const {
  auto it = byName.find(name);
  if (it == byName.end())
    return std::nullopt;
  return it->second;
}

FailureOr<int> ImportContext::lookup(int user, const std::string &name) {
  auto it = byName.find(name);
  if (it == byName.end()) {
    fail(user) << "input '" << name << "' names no node of the graph";
    return failure();
  }
  return it->second;
}

FailureOr<InputRef> ImportContext::dataInput(int index, int input) {
  if (input >= node(index).input_size()) {
    fail(index) << "expects at least " << input + 1 << " inputs, has "
                << node(index).input_size();
    return failure();
  }
  // TensorFlow lists a node's control inputs after its values: a control
  // input where a value is read means the node has too few values, and the
  // node it names need not even be imported.
  InputRef ref = parseInput(node(index).input(input));
  if (ref.control) {
    fail(index) << "input " << input << " is the control input '"
                << node(index).input(input) << "', where a value is expected";
    return failure();
  }
  return ref;
}

FailureOr<int> ImportContext::inputNode(int index, int input) {
  FailureOr<InputRef> ref = dataInput(index, input);
  if (failed(ref))
    return failure();
  return lookup(index, ref->node);
}

FailureOr<int> ImportContext::throughIdentities(int index, int input) {
  FailureOr<int> current = inputNode(index, input);
  // A chain of more Identity nodes than the graph has goes round a cycle.
  for (int steps = 0; succeeded(current) && node(*current).op() == "Identity";
       ++steps) {
    if (steps == nodeCount()) {
      fail(*current) << "is part of a cycle of Identity nodes";
      return failure();
    }
    current = inputNode(*current, 0);
  }
  return current;
}

LogicalResult ImportContext::enter(int index) {
  if (path.count(index)) {
    fail(index) << "is part of a cycle of the forward graph";
    return failure();
  }
  // Each node on the path takes a few frames of the stack, under 2 KiB in
  // all: a path this long fits well in a main thread's 8 MiB.
  constexpr size_t maxDepth = 2048;
  if (path.size() == maxDepth) {
    fail(index) << "lies more than " << maxDepth
                << " ops below the values imported, deeper than the importer "
                   "follows";
    return failure();
  }
  path.insert(index);
  return success();
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

InFlightDiagnostic ImportContext::fail(int index) const {
  return emitError(locationOf(index)) << "node '" << node(index).name() << "' ("
                                      << node(index).op() << "): ";
}

InFlightDiagnostic ImportContext::failAtFile() const {
  return emitError(fileLocation());
}

LogicalResult ImportContext::asNodeError(int index,
                                         function_ref<LogicalResult()> check) {
  std::string reason;
  LogicalResult result = success();
  {
    // Ahead of the tool's handler while `check` runs, so that the check's
    // error is only the tail of the node's.
    ScopedDiagnosticHandler capture(context, [&](Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      if (reason.empty())
        reason = diagnostic.str();
      return success();
    });
    result = check();
  }
  // Some checks fail without a word (ReadOp's inference of a non-resource).
  if (failed(result))
    fail(index) << (reason.empty() ? "DTF's dialect rejects its operands"
                                   : reason);
  return result;
}

//===----------------------------------------------------------------------===//
// Attributes and constants
//===----------------------------------------------------------------------===//

const tensorflow::AttrValue *ImportContext::attr(int index,
                                                 const char *name) const {
  auto it = node(index).attr().find(name);
  return it == node(index).attr().end() ? nullptr : &it->second;
}

FailureOr<Type> ImportContext::elementType(int index,
                                           tensorflow::DataType dtype) {
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

FailureOr<RankedTensorType> ImportContext::tensorType(int index,
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

FailureOr<DenseElementsAttr> ImportContext::constant(int index) {
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
  int64_t count = 1;
  for (const auto &dim : tensor.tensor_shape().dim()) {
    if (dim.size() < 0) {
      fail(index) << "has a tensor_shape dimension of negative size "
                  << dim.size();
      return failure();
    }
    if (llvm::MulOverflow(count, int64_t(dim.size()), count)) {
      fail(index) << "has a tensor_shape of more than 2^63 elements";
      return failure();
    }
    dims.push_back(dim.size());
  }
  auto type = RankedTensorType::get(dims, *element);
  const std::string &raw = tensor.tensor_content();
  size_t width =
      element->isInteger(1) ? 1 : element->getIntOrFloatBitWidth() / 8;
  if (!raw.empty() &&
      (raw.size() % width != 0 || raw.size() / width != uint64_t(count))) {
    fail(index) << "holds " << raw.size() << " bytes of tensor_content for "
                << count << " elements";
    return failure();
  }
  // The typed fields may hold fewer values than the shape: the last one
  // repeats (none: zeros), as TensorFlow's MakeNdarray reads them. One value
  // for all is a splat, whatever the shape's size; the elements a longer list
  // repeats into are held in memory, no more than a GraphDef could spell out
  // (protobuf's limit of 2 GiB).
  constexpr uint64_t maxBytes = (uint64_t(1) << 31) - 1;
  auto fill = [&](auto values, auto make) -> FailureOr<DenseElementsAttr> {
    using T = typename decltype(values)::value_type;
    if (values.size() <= 1 && count > 0)
      return make(std::vector<T>(1, values.empty() ? T() : values.front()));
    if (uint64_t(count) > maxBytes / width) {
      fail(index) << "repeats its last value to " << count
                  << " elements, more than a GraphDef can hold";
      return failure();
    }
    std::vector<T> all(count, values.empty() ? T() : values.back());
    for (int64_t i = 0; i < count && i < int64_t(values.size()); ++i)
      all[i] = values[i];
    return make(all);
  };
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
    auto values = raw.empty() ? std::vector<int64_t>(tensor.int64_val().begin(),
                                                     tensor.int64_val().end())
                              : fromRaw(int64_t());
    return fill(values, [&](const std::vector<int64_t> &all) {
      return DenseElementsAttr::get(type, ArrayRef<int64_t>(all));
    });
  }
  std::vector<char> values = raw.empty()
                                 ? std::vector<char>(tensor.bool_val().begin(),
                                                     tensor.bool_val().end())
                                 : fromRaw(char());
  return fill(values, [&](const std::vector<char> &all) {
    SmallVector<bool> bools(all.begin(), all.end());
    return DenseElementsAttr::get(type, ArrayRef<bool>(bools));
  });
}

FailureOr<SmallVector<int64_t>> ImportContext::integers(int index, int input) {
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
  // No axes, shape or dimension has more integers than a TensorFlow tensor
  // has dimensions (TensorShape's limit): a huge splat is refused before it
  // is listed.
  constexpr int64_t maxRank = 254;
  if (values->getNumElements() > maxRank) {
    fail(index) << "input " << input << " holds " << values->getNumElements()
                << " integers, more than the " << maxRank
                << " dimensions of a TensorFlow tensor";
    return failure();
  }
  SmallVector<int64_t> result;
  for (APInt value : values->getValues<APInt>())
    result.push_back(value.getSExtValue());
  return result;
}

int64_t ImportContext::randomSeed(int index) const {
  const tensorflow::AttrValue *seed2 = attr(index, "seed2");
  const tensorflow::AttrValue *seed = attr(index, "seed");
  return seed2 && seed2->i() ? seed2->i() : seed ? seed->i() : 0;
}

FailureOr<double> ImportContext::scalar(int index, int input) {
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
    return shortestDouble(
        (*values->getValues<APFloat>().begin()).convertToFloat());
  if (isa<FloatType>(element))
    return (*values->getValues<APFloat>().begin()).convertToDouble();
  return double((*values->getValues<APInt>().begin()).getSExtValue());
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

std::optional<DeviceAttr> ImportContext::deviceOf(int index, bool &failed) {
  std::string device = node(index).device();
  // TensorFlow may name the replica; DTF's device names do not.
  size_t replica = device.find("/replica:");
  if (replica != std::string::npos) {
    size_t end = device.find('/', replica + 1);
    device.erase(replica,
                 end == std::string::npos ? std::string::npos : end - replica);
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

LogicalResult ImportContext::pin(Operation *op, int index) {
  bool failed = false;
  std::optional<DeviceAttr> device = deviceOf(index, failed);
  if (failed)
    return failure();
  if (device)
    op->setAttr(DTFDialect::getDeviceAttrName(), *device);
  return success();
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

FailureOr<Value> ImportContext::operand(int user, int input) {
  FailureOr<InputRef> ref = dataInput(user, input);
  if (failed(ref))
    return failure();
  FailureOr<int> source = lookup(user, ref->node);
  if (failed(source))
    return failure();
  FailureOr<Value> value = resolve(*source, ref->output);
  if (failed(value))
    return failure();
  // A variable node's value is its dtf.variable's handle, which no op but a
  // read takes (TensorFlow reads a reference variable implicitly).
  if (isa<ResourceType>(value->getType())) {
    fail(user) << "input " << input << " is the variable '"
               << node(*source).name()
               << "' itself; DTF computes with the value an Identity or "
                  "ReadVariableOp reads from it";
    return failure();
  }
  return value;
}

FailureOr<Value> ImportContext::resolve(int index, int output) {
  if (untranslatable.count(index))
    return failure();
  auto found = results.find(index);
  if (found == results.end()) {
    if (failed(enter(index)))
      return failure();
    FailureOr<SmallVector<Value>> translated = translate(index);
    leave(index);
    if (failed(translated)) {
      untranslatable.insert(index);
      return failure();
    }
    found = results.insert({index, *translated}).first;
  }
  if (output >= int(found->second.size()) || !found->second[output]) {
    fail(index) << "output " << output
                << " is not one DTF imports (only the forward value)";
    return failure();
  }
  return found->second[output];
}

void ImportContext::recordVariable(int index, VariableOp variable) {
  variables[index] = variable;
  results[index] = {variable.getHandle()};
}

void ImportContext::recordShard(int index, VariableOp table, int shard) {
  shards[index] = {table, shard};
}

std::optional<std::pair<VariableOp, int>>
ImportContext::shardOf(int index) const {
  auto it = shards.find(index);
  if (it == shards.end())
    return std::nullopt;
  return it->second;
}

FailureOr<SmallVector<Value>> ImportContext::translate(int index) {
  const std::string &op = node(index).op();
  OpTranslator translator = findOpTranslator(op);
  if (!translator) {
    recordUnsupportedOp(index);
    // Were the op imported, its inputs would be translated as well: the ops
    // they use that DTF does not import belong to the same list.
    for (const std::string &input : node(index).input()) {
      InputRef ref = parseInput(input);
      if (ref.control)
        continue;
      FailureOr<int> source = lookup(index, ref.node);
      if (succeeded(source))
        (void)resolve(*source, ref.output);
    }
    return failure();
  }
  return translator(*this, index);
}

} // namespace dtf::translate::graphdef
