//===- DTFDialect.h - The dtf dialect, its types and attributes -*- C++ -*-===//

#pragma once

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

// The compiler's C++ lives in dtf::ir and is written against MLIR's API as
// code in mlir:: is: ODS emits the dialect's classes into dtf::ir, and their
// declarations (builders, extra class declarations) name MLIR's types
// unqualified.
namespace dtf::ir {
using namespace ::mlir;
} // namespace dtf::ir

#include "dialects/dtf/IR/DTFDialect.h.inc"
#include "dialects/dtf/IR/DTFEnums.h.inc"

namespace dtf::ir {
/// Custom parameter parsers and printers used by the generated attributes.
FailureOr<llvm::APFloat> parseF64Parameter(AsmParser &parser);
void printF64Parameter(AsmPrinter &printer, const llvm::APFloat &value);
FailureOr<bool> parseBoolParameter(AsmParser &parser);
} // namespace dtf::ir

#define GET_TYPEDEF_CLASSES
#include "dialects/dtf/IR/DTFTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/dtf/IR/DTFAttrs.h.inc"

namespace dtf::ir {
/// Checks `device` against the cluster of the module enclosing `op` (or `op`
/// itself when it is the module), when that module declares one: the job
/// must have the task. Errors are reported on `op`.
LogicalResult verifyDeviceInCluster(Operation *op, DeviceAttr device);
} // namespace dtf::ir
