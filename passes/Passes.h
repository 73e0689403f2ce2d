//===- Passes.h - dtf transformation passes ---------------------*- C++ -*-===//
//
// Constructors and registration of the passes declared in Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_PASSES_PASSES_H
#define DTF_PASSES_PASSES_H

#include "dialects/dtf/IR/DTFDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace mlir::dtf {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace mlir::dtf

#endif // DTF_PASSES_PASSES_H
