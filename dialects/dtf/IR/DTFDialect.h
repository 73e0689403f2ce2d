//===- DTFDialect.h - The dtf dialect, its types and attributes -*- C++ -*-===//

#ifndef DTF_IR_DTFDIALECT_H
#define DTF_IR_DTFDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "dialects/dtf/IR/DTFDialect.h.inc"
#include "dialects/dtf/IR/DTFEnums.h.inc"

namespace mlir::dtf {
/// Custom parameter parsers and printers used by the generated attributes.
FailureOr<llvm::APFloat> parseF64Parameter(AsmParser &parser);
void printF64Parameter(AsmPrinter &printer, const llvm::APFloat &value);
FailureOr<bool> parseBoolParameter(AsmParser &parser);
} // namespace mlir::dtf

#define GET_TYPEDEF_CLASSES
#include "dialects/dtf/IR/DTFTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/dtf/IR/DTFAttrs.h.inc"

namespace mlir::dtf {
/// Checks `device` against the cluster of the module enclosing `op` (or `op`
/// itself when it is the module), when that module declares one: the job
/// must have the task. Errors are reported on `op`.
LogicalResult verifyDeviceInCluster(Operation *op, DeviceAttr device);
} // namespace mlir::dtf

#endif // DTF_IR_DTFDIALECT_H
