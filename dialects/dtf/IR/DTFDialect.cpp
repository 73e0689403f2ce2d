//===- DTFDialect.cpp - dtf dialect registration and verification --------===//

#include "dialects/dtf/IR/DTFDialect.h"
#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::dtf;

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
  if (!valueType.hasStaticShape())
    return emitError() << "variable type " << valueType
                       << " must have a static shape";
  return success();
}

/// Checks a `dtf.device` attribute against the cluster of the enclosing
/// module, when it declares one: the job must have the task.
static LogicalResult verifyDeviceInCluster(Operation *op, DeviceAttr device) {
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
  if (attr.getName() == getOptimizerAttrName()) {
    if (!isa<FunctionOpInterface>(op))
      return op->emitError("'")
             << getOptimizerAttrName() << "' is only valid on a function";
    if (!isa<SGDAttr, MomentumAttr, AdamAttr>(attr.getValue()))
      return op->emitError("'") << getOptimizerAttrName()
                                << "' must be a dtf optimizer attribute";
    return success();
  }
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
