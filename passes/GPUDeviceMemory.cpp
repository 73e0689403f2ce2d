//===- GPUDeviceMemory.cpp - Host buffers in GPU memory -------------------===//
//
// Implements --dtf-gpu-device-memory: the buffers the host function of a
// lowered graph allocates are only touched by kernels and library calls, so
// they live in GPU memory. The runtime serves gpu.alloc from its caching
// allocator (runtime/ABI.md, "GPU").
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace dtf::ir {
#define GEN_PASS_DEF_GPUDEVICEMEMORYPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;

/// Whether `op` may use or define memrefs in host code: it creates a view,
/// hands buffers to the GPU or a library, or moves them between functions,
/// but never dereferences them.
static bool isHostBufferOp(Operation *op) {
  return isa<memref::CastOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
             memref::SubViewOp, memref::ReinterpretCastOp,
             memref::ExtractStridedMetadataOp, gpu::AllocOp, gpu::DeallocOp,
             gpu::MemcpyOp, gpu::MemsetOp, gpu::LaunchFuncOp, func::CallOp,
             func::ReturnOp>(op);
}

namespace {
struct GPUDeviceMemoryPass
    : public dtf::ir::impl::GPUDeviceMemoryPassBase<GPUDeviceMemoryPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    SmallVector<Operation *> ops;
    function.walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Kernel bodies not yet outlined access memory on the device.
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (isa<memref::AllocOp, memref::DeallocOp, memref::CopyOp,
              memref::GetGlobalOp>(op))
        ops.push_back(op);
      return WalkResult::advance();
    });

    IRRewriter rewriter(&getContext());
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        rewriter.replaceOpWithNewOp<gpu::AllocOp>(
            alloc, alloc.getType(), /*asyncToken=*/Type(),
            /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
            alloc.getSymbolOperands(), /*hostShared=*/false);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
            dealloc, /*asyncToken=*/Type(), ValueRange(),
            dealloc.getMemref());
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        rewriter.replaceOpWithNewOp<gpu::MemcpyOp>(
            copy, /*asyncToken=*/Type(), ValueRange(), copy.getTarget(),
            copy.getSource());
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        // The constant is in host memory; kernels read a device copy.
        rewriter.setInsertionPointAfter(global);
        auto type = cast<MemRefType>(global.getType());
        Value device =
            rewriter
                .create<gpu::AllocOp>(
                    loc,
                    MemRefType::get(type.getShape(), type.getElementType()),
                    Type(), ValueRange(), ValueRange(), ValueRange(), false)
                .getMemref();
        auto memcpy = rewriter.create<gpu::MemcpyOp>(loc, Type(), ValueRange(),
                                                     device, global);
        if (type.getLayout().isIdentity())
          rewriter.replaceAllUsesExcept(global, device, memcpy);
        else
          rewriter.replaceAllUsesExcept(
              global,
              rewriter.create<memref::CastOp>(loc, type, device).getResult(),
              memcpy);
      }
    }

    // Nothing else in host code may touch a buffer.
    WalkResult checked =
        function.walk<WalkOrder::PreOrder>([&](Operation *op) -> WalkResult {
          if (isa<gpu::LaunchOp>(op))
            return WalkResult::skip();
          if (isHostBufferOp(op) || isa<memref::GetGlobalOp>(op))
            return WalkResult::advance();
          auto isMemRef = [](Type type) { return isa<BaseMemRefType>(type); };
          if (llvm::any_of(op->getOperandTypes(), isMemRef) ||
              llvm::any_of(op->getResultTypes(), isMemRef))
            return op->emitOpError(
                "would access GPU memory from the host; every memory access "
                "of a lowered function must be in a kernel or a library "
                "call");
          return WalkResult::advance();
        });
    if (checked.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
