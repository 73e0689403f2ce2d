//===- Passes.h - dtf transformation passes ---------------------*- C++ -*-===//
//
// Constructors and registration of the passes declared in Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef DTF_PASSES_PASSES_H
#define DTF_PASSES_PASSES_H

#include "dialects/dtf/IR/DTFDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

#include <memory>
#include <string>

namespace mlir::dtf {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

//===----------------------------------------------------------------------===//
// GPU lowering pipeline
//===----------------------------------------------------------------------===//

/// Options of `--dtf-lower-to-gpu`.
struct LowerToGPUOptions : public PassPipelineOptions<LowerToGPUOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("CUDA compute capability of the kernels (default: sm_90)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features of the NVVM target (e.g. +ptx80); by "
                     "default nvvm-attach-target's, which LLVM raises to the "
                     "PTX version the chip needs (default: \"\")"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc(
          "LLVM and ptxas optimization level of the kernels (default: 3)"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> cudaToolkit{
      *this, "cuda-toolkit",
      llvm::cl::desc("CUDA toolkit whose bin/ptxas assembles the kernels "
                     "(default: the toolkit CMake found)"),
      llvm::cl::init(defaultCUDAToolkitPath())};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu.binary embeds: 'bin' (cubin, assembled with "
                     "ptxas), 'isa' (PTX) or 'fatbin' (default: bin)"),
      llvm::cl::init("bin")};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of the kernels (default: 256)"),
      llvm::cl::init(256)};

  /// The toolkit found when DTF was configured, or "" to let MLIR search.
  static std::string defaultCUDAToolkitPath();
};

/// Lowers dtf functions to host functions launching cubins and calling
/// cuBLAS/cuDNN (LowerToGPU.cpp lists the passes; runtime/ABI.md, "GPU",
/// describes the result).
void buildLowerToGPUPipeline(OpPassManager &pm,
                             const LowerToGPUOptions &options);

/// The first half of buildLowerToGPUPipeline: dtf functions to library
/// calls and tiled scf.parallel loops on buffers, before GPU mapping. The
/// loops run as well on a CPU (lowered to LLVM), which is how the lowering
/// is tested without a GPU.
void buildLowerToGPULoopsPipeline(OpPassManager &pm,
                                  const LowerToGPUOptions &options);

/// Registers `--dtf-lower-to-gpu` and `--dtf-lower-to-gpu-loops`.
void registerLowerToGPUPipeline();

} // namespace mlir::dtf

#endif // DTF_PASSES_PASSES_H
