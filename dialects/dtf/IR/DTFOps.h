//===- DTFOps.h - dtf dialect operations ------------------------*- C++ -*-===//

#ifndef DTF_IR_DTFOPS_H
#define DTF_IR_DTFOPS_H

#include "dialects/dtf/IR/DTFDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/dtf/IR/DTFOps.h.inc"

#endif // DTF_IR_DTFOPS_H
