//===- InitAll.h - Register everything dtf tools use ------------*- C++ -*-===//

#ifndef DTF_PASSES_INITALL_H
#define DTF_PASSES_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace dtf::ir {
/// The dtf dialect and the upstream dialects dtf graphs use or lower to.
void registerAllDialects(mlir::DialectRegistry &registry);
/// dtf's passes and pipelines, plus the upstream passes they compose with.
void registerAllPasses();
} // namespace dtf::ir

#endif // DTF_PASSES_INITALL_H
