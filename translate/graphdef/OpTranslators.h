//===- OpTranslators.h - The dtf ops of each TensorFlow op ------*- C++ -*-===//
//
// The single place that maps a TensorFlow op, by name, to the function that
// translates a node of it into dtf ops, as runtime/exec/OpKernels.h maps a
// dtf op to its kernel. The importer looks a node's op up when it first needs
// one of the node's values (ImportContext::resolve).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace dtf::translate::graphdef {

class ImportContext;

/// Translates node `index` of `import`'s graph: one value per output of the
/// node, null for an output DTF does not import (a loss op's backprop).
/// Errors are emitted with import.fail(index) and return failure.
using OpTranslator = mlir::FailureOr<llvm::SmallVector<mlir::Value>> (*)(
    ImportContext &import, int index);

/// The translator of TensorFlow op `op`, or null when dtf-translate does not
/// import it.
OpTranslator findOpTranslator(llvm::StringRef op);

/// Prints the table as markdown, one section per kind of op: the TensorFlow
/// ops sorted by name, each with what its node becomes.
void printOpTranslatorTable(llvm::raw_ostream &os);

} // namespace dtf::translate::graphdef
