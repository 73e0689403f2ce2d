//===- SpecializeBatch.cpp - A dynamic batch dimension given its size -----===//
//
// Compiling for one batch size keeps every later pass and kernel on static
// shapes (see the pass's description in Passes.td). The placeholders are
// where a batch enters the graph, so they alone are rewritten; every other
// type follows by inferring result types again, op after op, in the order
// the function's single block defines them.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace dtf::ir {
#define GEN_PASS_DEF_SPECIALIZEBATCHPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

namespace {

bool isStatic(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return !shaped || !shaped.hasRank() || shaped.hasStaticShape();
}

/// The result types of `op` for its current operand types and the batch
/// size `batch`; nullopt when nothing here knows how `op` derives them.
std::optional<SmallVector<Type>> inferResultTypes(Operation *op,
                                                  int64_t batch) {
  SmallVector<Type> types;
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), types)))
      return std::nullopt;
    return types;
  }
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>())
    return SmallVector<Type>(op->getNumResults(), op->getOperand(0).getType());
  if (auto cast = dyn_cast<CastOp>(op))
    return SmallVector<Type>{
        cast.getInput().getType().clone(cast.getType().getElementType())};
  // A row per id.
  if (auto rowsOfIds = dyn_cast<RowsOfIdsOp>(op))
    return SmallVector<Type>{rowsOfIds.getIds().getType()};
  // A dimension that tf.fill or tf.zeros left unknown came from the shape
  // of a batch (Shape, StridedSlice): the only unknown size in a graph.
  // So did one of a random mask's (tf.nn.dropout samples the shape of its
  // input).
  if (isa<BroadcastToOp, RandomUniformOp>(op)) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<int64_t> shape(type.getShape());
    for (int64_t &size : shape)
      if (ShapedType::isDynamic(size))
        size = batch;
    return SmallVector<Type>{type.clone(shape)};
  }
  // tf.nn.conv2d_transpose's images are as many as those of the value it
  // transposes (its dy).
  if (auto transpose = dyn_cast<Conv2DBackpropInputOp>(op)) {
    SmallVector<int64_t> shape(transpose.getType().getShape());
    shape[0] = transpose.getDy().getType().getDimSize(0);
    return SmallVector<Type>{transpose.getType().clone(shape)};
  }
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    auto input = reshape.getInput().getType();
    auto output = reshape.getType();
    if (!input.hasStaticShape() || output.getNumDynamicDims() != 1)
      return std::nullopt;
    int64_t known = 1;
    for (int64_t size : output.getShape())
      if (!ShapedType::isDynamic(size))
        known *= size;
    if (known == 0 || input.getNumElements() % known != 0)
      return std::nullopt;
    SmallVector<int64_t> shape(output.getShape());
    for (int64_t &size : shape)
      if (ShapedType::isDynamic(size))
        size = input.getNumElements() / known;
    return SmallVector<Type>{output.clone(shape)};
  }
  return std::nullopt;
}

struct SpecializeBatchPass
    : dtf::ir::impl::SpecializeBatchPassBase<SpecializeBatchPass> {
  using SpecializeBatchPassBase::SpecializeBatchPassBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    int64_t batch = batchSize;
    if (batch <= 0) {
      function.emitError("--dtf-specialize-batch needs batch-size > 0, got ")
          << batch;
      return signalPassFailure();
    }
    WalkResult walk = function.walk([&](Operation *op) -> WalkResult {
      if (auto placeholder = dyn_cast<PlaceholderOp>(op))
        return specialize(placeholder, batch);
      if (isa<func::ReturnOp>(op) ||
          llvm::all_of(op->getResultTypes(), isStatic))
        return WalkResult::advance();
      std::optional<SmallVector<Type>> types = inferResultTypes(op, batch);
      if (!types || !llvm::all_of(*types, isStatic)) {
        op->emitOpError("keeps a dynamic result type with batch size ")
            << batch << ": cannot infer its shape from operands "
            << op->getOperandTypes();
        return WalkResult::interrupt();
      }
      for (auto [result, type] : llvm::zip(op->getResults(), *types))
        result.setType(type);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    auto ret = cast<func::ReturnOp>(function.getBody().back().getTerminator());
    function.setFunctionType(FunctionType::get(
        &getContext(), function.getArgumentTypes(), ret.getOperandTypes()));
  }

  WalkResult specialize(PlaceholderOp placeholder, int64_t batch) {
    auto type = cast<RankedTensorType>(placeholder.getType());
    for (int64_t dim = 1; dim < type.getRank(); ++dim)
      if (type.isDynamicDim(dim)) {
        placeholder.emitOpError("'")
            << placeholder.getName() << "' has a dynamic dimension " << dim
            << " (" << type << "); only the batch dimension, 0, may be dynamic";
        return WalkResult::interrupt();
      }
    if (type.getRank() == 0 || !type.isDynamicDim(0))
      return WalkResult::advance();
    SmallVector<int64_t> shape(type.getShape());
    shape[0] = batch;
    placeholder.getOutput().setType(type.clone(shape));
    ++numSpecializedPlaceholders;
    return WalkResult::advance();
  }
};

} // namespace
