//===- InitAll.h - Register everything dtf tools use ------------*- C++ -*-===//

#pragma once

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace dtf::ir {
/// The dtf dialect and the upstream dialects dtf graphs use or lower to.
void registerAllDialects(mlir::DialectRegistry &registry);
/// dtf's passes and pipelines, plus the upstream passes they compose with.
void registerAllPasses();
} // namespace dtf::ir
