//===- InitAll.cpp - Register everything dtf tools use --------------------===//

#include "passes/InitAll.h"

#include "dialects/dtf/IR/DTFDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::dtf::registerAllDialects(DialectRegistry &registry) {
  registry.insert<DTFDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect, linalg::LinalgDialect,
                  bufferization::BufferizationDialect, memref::MemRefDialect,
                  scf::SCFDialect, gpu::GPUDialect, NVVM::NVVMDialect,
                  LLVM::LLVMDialect>();
}

void mlir::dtf::registerAllPasses() {
  registerDTFPasses();

  // Generic clean-ups that compose with every dtf pass.
  registerCanonicalizerPass();
  registerCSEPass();
  registerSymbolDCEPass();
  registerInlinerPass();
}
