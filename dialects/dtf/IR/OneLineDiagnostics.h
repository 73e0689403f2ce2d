//===- OneLineDiagnostics.h - "file:line:col: error: ..." on stderr -*- C++ -*-===//
//
// How dtf's tools report a model they cannot use: one line per diagnostic
// and per note, located by file, line and column, without the source line
// and caret MLIR's SourceMgr handler adds. A task's log and a tool's stderr
// are read by people and by scripts, not by an IDE.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <string>

namespace dtf::ir {

/// "file:line:col" of a location: the file alone for line 0 (a whole file,
/// e.g. a binary input), the named location's file position for a NameLoc,
/// MLIR's own printing otherwise.
std::string describeLocation(mlir::Location location);

/// While alive, prints every diagnostic of `context` to stderr as
/// "<location>: error: <message>", then each note as "<location>: note:
/// <message>".
class OneLineDiagnostics : public mlir::ScopedDiagnosticHandler {
public:
  explicit OneLineDiagnostics(mlir::MLIRContext *context);
};

} // namespace dtf::ir
