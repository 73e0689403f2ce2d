//===- HostCodeVerifier.h - Host code a GPU function may hold ---*- C++ -*-===//
//
// A function lowered by --dtf-lower-to-gpu is host code that only queues
// work on a GPU, and GpuFunction runs it op by op rather than compiling it.
// It therefore accepts a fixed set of host ops (runtime/ABI.md, "Host
// code"), and checks a function against it when the function is prepared,
// before any device is touched, so that an unsupported op is reported by
// name instead of failing halfway through a step. The diagnostics of a
// run's own failures name the op the same way.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Error.h"
#include "runtime/core/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace dtf::cuda {

/// Throws CudaError(code, "<location>: '<op name>' <message>").
[[noreturn]] void failAt(mlir::Operation *op, ErrorCode code,
                         const std::string &message);

/// The DType of the elements of a memref a GPU function takes, returns or
/// allocates (f32, f64, i1, i32 or i64); std::nullopt for any other type.
std::optional<DType> dtypeOf(mlir::Type elementType);

/// Whether `op` computes a scalar on the host (HostScalarInterpreter.h).
bool isScalarArith(mlir::Operation *op);
/// Whether `op` is a view of a memref: the same buffer, with the offset,
/// sizes and strides of its result type.
bool isViewOp(mlir::Operation *op);

/// The number of operands of the dtf_cuda_* library function `callee`, or
/// std::nullopt when host code may not call it.
using LibraryArity =
    llvm::function_ref<std::optional<unsigned>(llvm::StringRef callee)>;

/// Checks the signature of `function` and every op of its body against
/// what GpuFunction runs, its calls against `libraryArity`. Throws
/// CudaError(InvalidArgument) naming the first op it cannot run.
void verifyHostCode(mlir::func::FuncOp function, LibraryArity libraryArity);

} // namespace dtf::cuda
