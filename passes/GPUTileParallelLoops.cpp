//===- GPUTileParallelLoops.cpp - Parallel loops as 1-D grids -------------===//
//
// Implements --dtf-gpu-tile-parallel-loops. gpu-map-parallel-loops maps the
// dimensions of an outermost scf.parallel to the x, y and z block ids and
// those of the loop nested in it to thread ids, in order, and the fourth and
// later dimensions to sequential loops. Collapsing each loop to one
// dimension and tiling it by the block size gives every loop, whatever its
// rank, a 1-D grid of full blocks in which consecutive threads handle
// consecutive elements of a row-major result.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

namespace dtf::ir {
#define GEN_PASS_DEF_GPUTILEPARALLELLOOPSPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;

/// The scf.parallel ops of `function` not nested in another one.
static SmallVector<scf::ParallelOp> outermostParallelLoops(Operation *root) {
  SmallVector<scf::ParallelOp> loops;
  root->walk<WalkOrder::PreOrder>([&](scf::ParallelOp loop) {
    loops.push_back(loop);
    return WalkResult::skip();
  });
  return loops;
}

namespace {
struct GPUTileParallelLoopsPass
    : public dtf::ir::impl::GPUTileParallelLoopsPassBase<
          GPUTileParallelLoopsPass> {
  using GPUTileParallelLoopsPassBase::GPUTileParallelLoopsPassBase;

  void runOnOperation() override {
    if (blockSize < 1) {
      getOperation().emitError("block-size must be positive, got ")
          << static_cast<int64_t>(blockSize);
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : outermostParallelLoops(getOperation())) {
      if (loop.getNumReductions() != 0)
        continue;
      if (loop.getNumLoops() > 1) {
        // The collapsed loop replaces `loop` just before its successor.
        Operation *next = loop->getNextNode();
        std::vector<unsigned> dims(loop.getNumLoops());
        std::iota(dims.begin(), dims.end(), 0u);
        collapseParallelLoops(rewriter, loop, {dims});
        loop = cast<scf::ParallelOp>(next->getPrevNode());
      }
      scf::tileParallelLoop(loop, {static_cast<int64_t>(blockSize)},
                            /*noMinMaxBounds=*/true);
    }
  }
};
} // namespace
