//===- DTFDialect.cpp - dtf dialect registration and verification --------===//

#include "dialects/dtf/IR/DTFDialect.h"
#include "dialects/dtf/IR/WorkerStepAttrs.h"
#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace dtf::ir;

#include "dialects/dtf/IR/DTFDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "dialects/dtf/IR/DTFTypes.cpp.inc"

void DTFDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/dtf/IR/DTFOps.cpp.inc"
      >();
  registerTypes();
  registerAttributes();
}

void DTFDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/dtf/IR/DTFTypes.cpp.inc"
      >();
}

Operation *DTFDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, type, elements);
}

LogicalResult
ResourceType::verify(function_ref<InFlightDiagnostic()> emitError,
                     RankedTensorType valueType) {
  // A dynamic table (#dtf.dynamic_table, checked on its dtf.variable) has
  // as many rows as ids were met: its first dimension alone is dynamic.
  ArrayRef<int64_t> shape = valueType.getShape();
  if (llvm::any_of(shape.drop_front(std::min<size_t>(shape.size(), 1)),
                   ShapedType::isDynamic))
    return emitError() << "variable type " << valueType
                       << " must have a static shape, but for the first "
                          "dimension of a dynamic table";
  return success();
}

LogicalResult dtf::ir::verifyDeviceInCluster(Operation *op,
                                               DeviceAttr device) {
  auto module = op->getParentOfType<ModuleOp>();
  if (isa<ModuleOp>(op))
    module = cast<ModuleOp>(op);
  if (!module)
    return success();
  auto cluster = module->getAttrOfType<ClusterAttr>(
      DTFDialect::getClusterAttrName());
  if (!cluster)
    return success();
  int64_t numTasks = cluster.getNumTasks(device.getJob());
  if (device.getTask() >= numTasks)
    return op->emitError("device '")
           << device.getName() << "' is not in the cluster: job '"
           << device.getJob() << "' has " << numTasks
           << (numTasks == 1 ? " task" : " tasks");
  return success();
}

/// Checks `dtf.gradients` on a PS function: distinct variable names and,
/// once the module records its replication, arguments that are the
/// replicas' groups of one gradient per listed variable.
static LogicalResult verifyGradientsAttr(Operation *op, Attribute value) {
  StringLiteral name = DTFDialect::getGradientsAttrName();
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitError("'") << name << "' is only valid on a function";
  auto names = dyn_cast<ArrayAttr>(value);
  if (!names || !llvm::all_of(names, llvm::IsaPred<StringAttr>))
    return op->emitError("'") << name << "' must be an array of strings";
  StringLiteral sparseName = DTFDialect::getSparseGradientsAttrName();
  Attribute sparseValue = op->getAttr(sparseName);
  auto sparseNames = dyn_cast_or_null<ArrayAttr>(sparseValue);
  if (sparseValue &&
      (!sparseNames || !llvm::all_of(sparseNames, llvm::IsaPred<StringAttr>)))
    return op->emitError("'") << sparseName << "' must be an array of strings";
  llvm::StringSet<> seen, seenDense;
  for (Attribute variable : names)
    if (!seenDense.insert(cast<StringAttr>(variable).getValue()).second)
      return op->emitError("'")
             << name << "' lists '" << cast<StringAttr>(variable).getValue()
             << "' twice";
  if (sparseNames)
    for (Attribute variable : sparseNames) {
      StringRef sparse = cast<StringAttr>(variable).getValue();
      if (seenDense.contains(sparse))
        return op->emitError("'") << name << "' and '" << sparseName
                                  << "' both list '" << sparse << "'";
      if (!seen.insert(sparse).second)
        return op->emitError("'")
               << sparseName << "' lists '" << sparse << "' twice";
    }

  auto module = op->getParentOfType<ModuleOp>();
  auto replication =
      module ? module->getAttrOfType<ReplicationAttr>(
                   DTFDialect::getReplicationAttrName())
             : ReplicationAttr();
  if (!replication)
    return success();
  // Each sparse gradient is two arguments: its ids and its rows.
  int64_t numGradients = names.size();
  int64_t numSparse = sparseNames ? sparseNames.size() : 0;
  int64_t groupSize = numGradients + 2 * numSparse;
  int64_t numGroups = replication.getNumGradientGroups();
  ArrayRef<Type> arguments = function.getArgumentTypes();
  if (static_cast<int64_t>(arguments.size()) != numGroups * groupSize) {
    InFlightDiagnostic diag = op->emitError("takes ")
                              << arguments.size() << " arguments, but '" << name
                              << "' lists " << numGradients << " variables";
    if (numSparse > 0)
      diag << ", '" << sparseName << "' " << numSparse
           << " (two arguments each)";
    return diag << " and the module aggregates " << numGroups
                << (numGroups == 1 ? " replica" : " replicas") << " per update";
  }
  for (int64_t index = groupSize, e = arguments.size(); index < e; ++index) {
    int64_t first = index % groupSize;
    if (arguments[index] == arguments[first])
      continue;
    Attribute variable = first < numGradients
                             ? names[first]
                             : sparseNames[(first - numGradients) / 2];
    return op->emitError("argument #")
           << index << " has type " << arguments[index]
           << ", but it is a gradient of '"
           << cast<StringAttr>(variable).getValue() << "' like argument #"
           << first << " of type " << arguments[first];
  }
  return success();
}

/// Checks `dtf.pushes` on a function: one {device, names} per push, whose
/// step and gradients are the results after `dtf.model_results`.
static LogicalResult verifyPushesAttr(Operation *op, Attribute value) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  auto pushes = dyn_cast<ArrayAttr>(value);
  auto modelResults = op->getAttrOfType<IntegerAttr>(kModelResultsAttrName);
  if (!function || !pushes || !modelResults)
    return op->emitError("'") << kPushesAttrName
                              << "' must be an array on a function with '"
                              << kModelResultsAttrName << "'";
  int64_t results = modelResults.getInt();
  for (Attribute attribute : pushes) {
    auto push = dyn_cast<DictionaryAttr>(attribute);
    auto device = push ? push.getAs<DeviceAttr>("device") : DeviceAttr();
    auto names = push ? push.getAs<ArrayAttr>("names") : ArrayAttr();
    auto sparseNames =
        push ? push.getAs<ArrayAttr>("sparse_names") : ArrayAttr();
    auto sparseShards =
        push ? push.getAs<ArrayAttr>("sparse_shards") : ArrayAttr();
    if (sparseShards &&
        (!sparseNames || sparseShards.size() != sparseNames.size() ||
         !llvm::all_of(sparseShards, llvm::IsaPred<RowShardAttr, UnitAttr>)))
      return op->emitError("'")
             << kPushesAttrName
             << "' has sparse_shards that are not one #dtf.row_shard or unit "
                "per sparse name";
    auto allStrings = [](ArrayAttr list) {
      return !list || llvm::all_of(list, llvm::IsaPred<StringAttr>);
    };
    if (!device || !names || !allStrings(names) || !allStrings(sparseNames) ||
        (push.get("sparse_names") && !sparseNames))
      return op->emitError("'") << kPushesAttrName
                                << "' must list {device = #dtf.device<...>, "
                                   "names = [...], sparse_names = [...]?} "
                                   "dictionaries";
    // The step, each dense gradient, and each sparse one's ids and rows.
    results += 1 + names.size() + 2 * (sparseNames ? sparseNames.size() : 0);
  }
  if (results != static_cast<int64_t>(function.getNumResults()))
    return op->emitError("'")
           << kPushesAttrName << "' and '" << kModelResultsAttrName
           << "' account for " << results << " results, but the function has "
           << function.getNumResults();
  return success();
}

LogicalResult DTFDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == getClusterAttrName()) {
    if (!isa<ModuleOp>(op))
      return op->emitError("'")
             << getClusterAttrName() << "' is only valid on a module";
    if (!isa<ClusterAttr>(attr.getValue()))
      return op->emitError("'") << getClusterAttrName()
                                << "' must be a #dtf.cluster attribute";
    return success();
  }
  if (attr.getName() == getDeviceAttrName()) {
    auto device = dyn_cast<DeviceAttr>(attr.getValue());
    if (!device)
      return op->emitError("'") << getDeviceAttrName()
                                << "' must be a #dtf.device attribute";
    return verifyDeviceInCluster(op, device);
  }
  if (attr.getName() == getReplicationAttrName()) {
    if (!isa<ModuleOp>(op))
      return op->emitError("'")
             << getReplicationAttrName() << "' is only valid on a module";
    if (!isa<ReplicationAttr>(attr.getValue()))
      return op->emitError("'") << getReplicationAttrName()
                                << "' must be a #dtf.replication attribute";
    return success();
  }
  if (attr.getName() == getGradientsAttrName())
    return verifyGradientsAttr(op, attr.getValue());
  if (attr.getName() == getPartitionerAttrName()) {
    auto variable = dyn_cast<VariableOp>(op);
    auto partitioner = dyn_cast<PartitionerAttr>(attr.getValue());
    if (!variable || !partitioner)
      return op->emitError("'") << getPartitionerAttrName()
                                << "' must be a #dtf.partitioner on a "
                                   "dtf.variable";
    RankedTensorType type = variable.getValueType();
    // A dynamic table's rows are its id space, which any number of shards
    // can split.
    if (type.getRank() >= 1 && type.isDynamicDim(0))
      return success();
    if (type.getRank() < 1 || !type.hasStaticShape() ||
        type.getDimSize(0) < partitioner.getShards())
      return op->emitError("'")
             << getPartitionerAttrName() << "' splits variable '"
             << variable.getName() << "' of type " << type << " into "
             << partitioner.getShards()
             << " shards, but it has fewer rows along dimension 0";
    return success();
  }
  if (attr.getName() == getDynamicTableAttrName()) {
    auto variable = dyn_cast<VariableOp>(op);
    if (!variable || !isa<DynamicTableAttr>(attr.getValue()))
      return op->emitError("'") << getDynamicTableAttrName()
                                << "' must be a #dtf.dynamic_table on a "
                                   "dtf.variable";
    RankedTensorType type = variable.getValueType();
    if (type.getRank() < 2 || !type.isDynamicDim(0))
      return op->emitError("'")
             << getDynamicTableAttrName() << "' on variable '"
             << variable.getName() << "' of type " << type
             << ", but a dynamic table's type is tensor<?xDx...>";
    if (!isa<FloatType>(type.getElementType()))
      return op->emitError("'")
             << getDynamicTableAttrName() << "' on variable '"
             << variable.getName() << "' of type " << type
             << ", but a dynamic table holds floats";
    if (auto partitioner =
            op->getAttrOfType<PartitionerAttr>(getPartitionerAttrName()))
      if (partitioner.getStrategy() != PartitionStrategy::Mod)
        return op->emitError("'")
               << getDynamicTableAttrName() << "' on variable '"
               << variable.getName()
               << "' split with strategy div, but the ids of a dynamic "
                  "table are hashes: split it with strategy mod";
    return success();
  }
  if (attr.getName() == getAucAttrName()) {
    auto function = dyn_cast<FunctionOpInterface>(op);
    auto indices = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!function || !indices || indices.size() != 2)
      return op->emitError("'") << getAucAttrName()
                                << "' must be array<i64: predictions, labels> "
                                   "on a function";
    ArrayRef<Type> results = function.getResultTypes();
    for (int64_t index : indices.asArrayRef())
      if (index < 0 || index >= static_cast<int64_t>(results.size()))
        return op->emitError("'")
               << getAucAttrName() << "' names result #" << index
               << ", but the function has " << results.size() << " results";
    Type predictions = results[indices[0]], labels = results[indices[1]];
    auto tensor = dyn_cast<RankedTensorType>(predictions);
    if (!tensor || !tensor.getElementType().isF32() || predictions != labels)
      return op->emitError("'")
             << getAucAttrName() << "' needs predictions and labels of one f32 "
             << "tensor type, got " << predictions << " and " << labels;
    return success();
  }
  if (attr.getName() == getResultNamesAttrName()) {
    auto function = dyn_cast<FunctionOpInterface>(op);
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (!function || !names || !llvm::all_of(names, [](Attribute name) {
          return isa<StringAttr>(name);
        }))
      return op->emitError("'") << getResultNamesAttrName()
                                << "' must be an array of strings on a "
                                   "function";
    size_t results = function.getResultTypes().size();
    if (names.size() != results)
      return op->emitError("'")
             << getResultNamesAttrName() << "' holds " << names.size()
             << " names, but the function has " << results << " results";
    // TensorFlow's op names (its regex [A-Za-z0-9.][A-Za-z0-9_.\-/>]*):
    // the names become TensorBoard tags, and an imported graph's are its
    // nodes'.
    auto valid = [](StringRef name) {
      auto inName = [](char c) {
        return llvm::isAlnum(c) || c == '_' || c == '.' || c == '/' ||
               c == '-' || c == '>';
      };
      return !name.empty() && (llvm::isAlnum(name.front()) || name[0] == '.') &&
             llvm::all_of(name, inName);
    };
    llvm::StringSet<> seen;
    for (auto [index, attribute] : llvm::enumerate(names)) {
      StringRef name = cast<StringAttr>(attribute).getValue();
      if (!valid(name))
        return op->emitError("'")
               << getResultNamesAttrName() << "' names result #" << index
               << " '" << name
               << "': a name is letters, digits and '_', '.', '/', '-', '>', "
                  "and starts with a letter, a digit or '.', as TensorFlow's "
                  "op names";
      if (!seen.insert(name).second)
        return op->emitError("'")
               << getResultNamesAttrName() << "' gives two results the name '"
               << name << "'";
    }
    return success();
  }
  // Checked with dtf.gradients, which a PS function always has.
  if (attr.getName() == getSparseGradientsAttrName()) {
    if (!op->hasAttr(getGradientsAttrName()))
      return op->emitError("'") << getSparseGradientsAttrName() << "' needs '"
                                << getGradientsAttrName() << "' beside it";
    return success();
  }
  if (attr.getName() == getOptimizerAttrName()) {
    auto variable = dyn_cast<VariableOp>(op);
    if (!isa<FunctionOpInterface>(op) && !variable)
      return op->emitError("'") << getOptimizerAttrName()
                                << "' is only valid on a function or a "
                                   "dtf.variable";
    if (!isa<SGDAttr, MomentumAttr, AdamAttr, AdagradAttr, FtrlAttr,
             RMSPropAttr, AdadeltaAttr>(attr.getValue()))
      return op->emitError("'") << getOptimizerAttrName()
                                << "' must be a dtf optimizer attribute";
    if (variable && !variable.getTrainable())
      return op->emitError("'")
             << getOptimizerAttrName() << "' on variable '"
             << variable.getName()
             << "', which is not trainable, so no optimizer updates it";
    return success();
  }
  if (attr.getName() == kPulledFromAttrName) {
    auto device = dyn_cast<DeviceAttr>(attr.getValue());
    if (!isa<PlaceholderOp>(op) || !device || device.getJob() != "ps" ||
        device.hasDevicePart())
      return op->emitError("'") << kPulledFromAttrName
                                << "' must be the PS task of a placeholder";
    return verifyDeviceInCluster(op, device);
  }
  if (attr.getName() == kModelResultsAttrName) {
    auto function = dyn_cast<FunctionOpInterface>(op);
    auto count = dyn_cast<IntegerAttr>(attr.getValue());
    if (!function || !count || count.getInt() < 0 ||
        count.getInt() > static_cast<int64_t>(function.getNumResults()))
      return op->emitError("'")
             << kModelResultsAttrName
             << "' must count results of the function it is on";
    return success();
  }
  if (attr.getName() == kPushesAttrName)
    return verifyPushesAttr(op, attr.getValue());
  return op->emitError("unknown dtf attribute '")
         << attr.getName().getValue() << "'";
}

/// Checks a boundary attribute of a function argument or result: one of
/// `names`, naming a feed or variable with a non-empty string.
static LogicalResult verifyBoundaryAttribute(Operation *op,
                                             NamedAttribute attr,
                                             ArrayRef<StringRef> names,
                                             StringRef where) {
  if (!llvm::is_contained(names, attr.getName().getValue()))
    return op->emitError("unknown dtf ")
           << where << " attribute '" << attr.getName().getValue() << "'";
  auto name = dyn_cast<StringAttr>(attr.getValue());
  if (!name || name.getValue().empty())
    return op->emitError("'")
           << attr.getName().getValue() << "' must be a non-empty string";
  return success();
}

LogicalResult DTFDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                   unsigned,
                                                   NamedAttribute attr) {
  return verifyBoundaryAttribute(
      op, attr, {getFeedAttrName(), getVariableAttrName()}, "argument");
}

LogicalResult DTFDialect::verifyRegionResultAttribute(Operation *op, unsigned,
                                                      unsigned,
                                                      NamedAttribute attr) {
  return verifyBoundaryAttribute(op, attr, {getGradientAttrName()}, "result");
}
