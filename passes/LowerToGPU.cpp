//===- LowerToGPU.cpp - The --dtf-lower-to-gpu pipeline -------------------===//
//
// Lowers the dtf functions of a module to host functions that launch cubin
// kernels and call cuBLAS/cuDNN, composed from dtf's conversions and
// upstream MLIR passes:
//
//   dtf-lift-graph-inputs            feeds/variables -> arguments
//   dtf-convert-to-cuda-calls        matmul/conv/pool -> dtf_cuda_* calls
//   dtf-convert-to-linalg            the rest -> linalg on tensors
//   canonicalize, cse
//   linalg-fuse-elementwise-ops      elementwise chains -> one generic
//   one-shot-bufferize               tensors -> memrefs (function boundaries
//                                    too; copies are linalg.copy kernels)
//   canonicalize, cse
//   convert-linalg-to-parallel-loops scf.parallel over results, scf.for over
//                                    reductions
//   dtf-gpu-tile-parallel-loops      1-D grid of `block-size` threads
//   (--dtf-lower-to-gpu-loops stops here)
//   gpu-map-parallel-loops, convert-parallel-loops-to-gpu
//   canonicalize
//   gpu-launch-sink-index-computations, gpu-kernel-outlining
//   lower-affine, canonicalize, cse
//   dtf-gpu-device-memory            host buffers -> gpu.alloc
//   nvvm-attach-target{chip, O}
//   gpu.module(convert-scf-to-cf, convert-gpu-to-nvvm{bare pointers},
//              canonicalize, cse, reconcile-unrealized-casts)
//   gpu-module-to-binary{format, toolkit}   ptxas -> cubin in gpu.binary
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace dtf::ir;

std::string LowerToGPUOptions::defaultCUDAToolkitPath() {
#ifdef DTF_CUDA_TOOLKIT_DIR
  return DTF_CUDA_TOOLKIT_DIR;
#else
  return "";
#endif
}

/// One-shot bufferization of whole modules: function signatures become
/// identity-layout memrefs and copies become linalg.copy, which turns into
/// a kernel like any other linalg op (memref.copy would run on the host).
static std::unique_ptr<Pass> createBufferizePass() {
  bufferization::OneShotBufferizationOptions options;
  options.bufferizeFunctionBoundaries = true;
  options.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  options.unknownTypeConverterFn =
      [](Value value, Attribute memorySpace,
         const bufferization::BufferizationOptions &) {
        return bufferization::getMemRefTypeWithStaticIdentityLayout(
            cast<TensorType>(value.getType()), memorySpace);
      };
  options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                        Value to) -> LogicalResult {
    b.create<linalg::CopyOp>(loc, from, to);
    return success();
  };
  return bufferization::createOneShotBufferizePass(options);
}

void dtf::ir::buildLowerToGPULoopsPipeline(
    OpPassManager &pm, const LowerToGPUOptions &options) {
  // dtf -> library calls and linalg on tensors.
  pm.addPass(createLiftGraphInputsPass());
  pm.addPass(createConvertDTFToCUDACallsPass());
  pm.addNestedPass<func::FuncOp>(createConvertDTFToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());

  // Tensors -> buffers.
  pm.addPass(createBufferizePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // linalg -> parallel loops -> gpu.launch -> outlined kernels.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(
      createGPUTileParallelLoopsPass({options.blockSize}));
}

void dtf::ir::buildLowerToGPUPipeline(OpPassManager &pm,
                                        const LowerToGPUOptions &options) {
  buildLowerToGPULoopsPipeline(pm, options);
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createParallelLoopToGpuPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createGpuLauchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createGPUDeviceMemoryPass());

  // Kernels -> NVVM -> cubin.
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  if (!options.features.empty())
    target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertSCFToCFPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.cudaToolkit;
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void dtf::ir::registerLowerToGPUPipeline() {
  PassPipelineRegistration<LowerToGPUOptions>(
      "dtf-lower-to-gpu",
      "Lower dtf functions to host code launching cubin kernels (MLIR gpu "
      "-> NVVM -> ptxas) and calling cuBLAS/cuDNN",
      buildLowerToGPUPipeline);
  PassPipelineRegistration<LowerToGPUOptions>(
      "dtf-lower-to-gpu-loops",
      "The first half of --dtf-lower-to-gpu: dtf functions to library calls "
      "and tiled scf.parallel loops on buffers, before GPU mapping",
      buildLowerToGPULoopsPipeline);
}
