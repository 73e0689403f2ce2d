//===- dtf-opt.cpp - The dtf optimizer driver -----------------------------===//
//
// mlir-opt for DTF: parses, verifies, runs passes and prints dtf modules.
//
//===----------------------------------------------------------------------===//

#include "passes/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  dtf::ir::registerAllDialects(registry);
  dtf::ir::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "DTF optimizer driver\n", registry));
}
