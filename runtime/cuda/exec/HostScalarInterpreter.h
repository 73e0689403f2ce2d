//===- HostScalarInterpreter.h - Scalar arithmetic of host code -*- C++ -*-===//
//
// The host code of a lowered GPU function computes its launch dimensions
// and the scalar arguments of its library calls with arith ops on index and
// integer values, and holds the float constants its kernels take. These
// few ops run once per step, beside the kernels and library calls they
// feed, so GpuFunction evaluates them itself as it goes. Every integer is
// held as an int64_t, and extensions, truncations and index casts pass it
// through: exact while the sizes and flags host code computes fit the types
// they pass through.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>

namespace dtf::cuda {

/// A scalar of host code: an integer (index or iN; an i1 is 0 or 1), or the
/// value of a float constant.
struct HostScalar {
  int64_t integer = 0;
  double real = 0;
};

/// The value of `op`, one of the ops isScalarArith accepts
/// (HostCodeVerifier.h), whose integer operands have the values `integerOf`
/// gives. Throws CudaError(InvalidArgument) naming the op for a division by
/// zero.
HostScalar
evaluateScalarArith(mlir::Operation *op,
                    llvm::function_ref<int64_t(mlir::Value)> integerOf);

} // namespace dtf::cuda
