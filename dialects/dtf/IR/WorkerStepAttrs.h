//===- WorkerStepAttrs.h - What a lifted worker step carries ----*- C++ -*-===//
//
// The discardable attributes --dtf-lift-ps-transfers leaves on a worker's
// replica function for the worker's runtime (runtime/ABI.md): where a
// pulled placeholder is read from, which pushes the extra results make, and
// how many results the model itself has. DTFDialect verifies them.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "llvm/ADT/StringRef.h"

#include <string>

namespace dtf::ir {

/// On a dtf.placeholder: the #dtf.device of the PS task it is pulled from.
inline constexpr llvm::StringLiteral kPulledFromAttrName = "dtf.pulled_from";
/// On the function: one {device, names} dictionary per push, in the order
/// of the results after the model's.
inline constexpr llvm::StringLiteral kPushesAttrName = "dtf.pushes";
/// On the function: the number of results before the pushes'.
inline constexpr llvm::StringLiteral kModelResultsAttrName =
    "dtf.model_results";

/// The placeholder that carries the pulled value of `variable`; '^' cannot
/// start a model's placeholder name by convention, so they never collide.
inline std::string pulledPlaceholderName(llvm::StringRef variable) {
  return ("^pull/" + variable).str();
}

} // namespace dtf::ir
