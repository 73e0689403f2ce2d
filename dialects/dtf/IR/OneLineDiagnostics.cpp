//===- OneLineDiagnostics.cpp - "file:line:col: error: ..." on stderr -----===//

#include "dialects/dtf/IR/OneLineDiagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

namespace dtf::ir {

std::string describeLocation(mlir::Location location) {
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(location))
    return describeLocation(name.getChildLoc());
  if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(location)) {
    if (file.getLine() == 0)
      return file.getFilename().str();
    return file.getFilename().str() + ":" + std::to_string(file.getLine()) +
           ":" + std::to_string(file.getColumn());
  }
  std::string text;
  llvm::raw_string_ostream(text) << location;
  return text;
}

OneLineDiagnostics::OneLineDiagnostics(mlir::MLIRContext *context)
    : ScopedDiagnosticHandler(context, [](mlir::Diagnostic &diagnostic) {
        llvm::errs() << describeLocation(diagnostic.getLocation()) << ": "
                     << (diagnostic.getSeverity() ==
                                 mlir::DiagnosticSeverity::Error
                             ? "error: "
                             : "note: ")
                     << diagnostic << "\n";
        for (mlir::Diagnostic &note : diagnostic.getNotes())
          llvm::errs() << describeLocation(note.getLocation())
                       << ": note: " << note << "\n";
        return mlir::success();
      }) {}

} // namespace dtf::ir
