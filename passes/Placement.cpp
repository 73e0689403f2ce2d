//===- Placement.cpp - Helpers of the placement passes --------------------===//

#include "passes/Placement.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace dtf::ir;

DeviceAttr dtf::ir::getPSDevice(MLIRContext *context, int64_t task) {
  return DeviceAttr::get(context, "ps", task, "", -1);
}

FailureOr<DeviceAttr> dtf::ir::parseDeviceOption(ModuleOp module,
                                                   ClusterAttr cluster,
                                                   StringRef option,
                                                   StringRef name) {
  std::string error;
  FailureOr<DeviceAttr> device =
      DeviceAttr::parseDeviceName(module.getContext(), name, error);
  if (failed(device))
    return module.emitError()
           << "invalid " << option << " '" << name << "': " << error;
  if (!cluster)
    return device;
  int64_t numTasks = cluster.getNumTasks(device->getJob());
  if (device->getTask() >= numTasks)
    return module.emitError()
           << option << " '" << name << "' is not in the cluster: job '"
           << device->getJob() << "' has " << numTasks
           << (numTasks == 1 ? " task" : " tasks");
  return device;
}

std::optional<int64_t> dtf::ir::getElementBytes(Type type) {
  if (type.isIntOrFloat())
    return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
  if (type.isIndex())
    return 8;
  if (auto complex = dyn_cast<ComplexType>(type))
    if (std::optional<int64_t> part = getElementBytes(complex.getElementType()))
      return 2 * *part;
  return std::nullopt;
}

std::optional<int64_t> dtf::ir::getTensorBytes(RankedTensorType type) {
  std::optional<int64_t> element = getElementBytes(type.getElementType());
  if (!element || !type.hasStaticShape())
    return std::nullopt;
  return *element * type.getNumElements();
}
