//===- Placement.h - Helpers of the placement passes ------------*- C++ -*-===//
//
// Small utilities shared by --dtf-place-variables, --dtf-print-placement,
// --dtf-partition and --dtf-verify-partitions: reading and writing the
// `dtf.device` attribute, parsing device options against the module's
// cluster, and the byte size of variables.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "dialects/dtf/IR/DTFDialect.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace dtf::ir {

/// The `dtf.device` of `op`, or null when it has none.
inline DeviceAttr getDevice(Operation *op) {
  return op->getAttrOfType<DeviceAttr>(DTFDialect::getDeviceAttrName());
}

/// Places `op` on `device`.
inline void setDevice(Operation *op, DeviceAttr device) {
  op->setAttr(DTFDialect::getDeviceAttrName(), device);
}

/// The module's `dtf.cluster`, or null.
inline ClusterAttr getCluster(ModuleOp module) {
  return module->getAttrOfType<ClusterAttr>(DTFDialect::getClusterAttrName());
}

/// The device of PS task `task`: "/job:ps/task:<task>".
DeviceAttr getPSDevice(MLIRContext *context, int64_t task);

/// Parses the device name given to pass option `option` and checks that its
/// task is in `cluster` (when given). Errors are reported on `module`, naming
/// the option.
FailureOr<DeviceAttr> parseDeviceOption(ModuleOp module, ClusterAttr cluster,
                                        StringRef option, StringRef name);

/// Bytes of one element of `type` (rounded up to whole bytes), if known.
std::optional<int64_t> getElementBytes(Type type);

/// Bytes of a tensor of static shape `type`, if its element size is known.
std::optional<int64_t> getTensorBytes(RankedTensorType type);

} // namespace dtf::ir
