//===- LiftPsTransfers.cpp - A replica's transfers as feeds and results ---===//
//
// Implements --dtf-lift-ps-transfers: the pulls of the replica function
// become placeholders and its pushes extra results, described by
// attributes, so that a worker's runtime runs the step as a plain function
// of tensors and makes one Pull and one Push RPC per PS task around it.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "dialects/dtf/IR/WorkerStepAttrs.h"

#include "mlir/IR/Builders.h"

namespace dtf::ir {
#define GEN_PASS_DEF_LIFTPSTRANSFERSPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

namespace {

struct LiftPsTransfersPass
    : public dtf::ir::impl::LiftPsTransfersPassBase<LiftPsTransfersPass> {
  using LiftPsTransfersPassBase::LiftPsTransfersPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto function = module.lookupSymbol<func::FuncOp>(functionName);
    if (!function) {
      module.emitError() << "--dtf-lift-ps-transfers: no function @"
                         << functionName;
      return signalPassFailure();
    }
    if (!function.getBody().hasOneBlock()) {
      function.emitOpError()
          << "must have one block for --dtf-lift-ps-transfers";
      return signalPassFailure();
    }
    lift(function);
  }

  void lift(func::FuncOp function) {
    Block &body = function.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    OpBuilder builder(function.getContext());
    SmallVector<Value> results(ret.getOperands());
    unsigned modelResults = results.size();
    SmallVector<Attribute> pushes;
    SmallVector<Operation *> erased;

    for (Operation &op : body.without_terminator()) {
      if (auto pull = dyn_cast<PullOp>(op)) {
        builder.setInsertionPoint(pull);
        auto placeholder = builder.create<PlaceholderOp>(
            pull.getLoc(), pull.getType(),
            pulledPlaceholderName(pull.getName()));
        placeholder->setAttr(kPulledFromAttrName, pull.getDevice());
        pull.getResult().replaceAllUsesWith(placeholder.getResult());
        erased.push_back(pull);
      } else if (auto push = dyn_cast<PushGradientsOp>(op)) {
        results.push_back(push.getStep());
        results.append(push.getGradients().begin(), push.getGradients().end());
        for (auto [ids, rows] :
             llvm::zip(push.getSparseIds(), push.getSparseRows())) {
          results.push_back(ids);
          results.push_back(rows);
        }
        SmallVector<NamedAttribute> entry = {
            builder.getNamedAttr("device", push.getDevice()),
            builder.getNamedAttr("names", push.getNamesAttr())};
        if (!push.getSparseNames().empty())
          entry.push_back(
              builder.getNamedAttr("sparse_names", push.getSparseNamesAttr()));
        if (ArrayAttr shards = push.getSparseShardsAttr())
          entry.push_back(builder.getNamedAttr("sparse_shards", shards));
        pushes.push_back(builder.getDictionaryAttr(entry));
        erased.push_back(push);
      }
    }
    for (Operation *op : erased)
      op->erase();

    builder.setInsertionPoint(ret);
    builder.create<func::ReturnOp>(ret.getLoc(), results);
    ret.erase();
    SmallVector<Type> resultTypes;
    for (Value result : results)
      resultTypes.push_back(result.getType());
    function.setFunctionType(
        builder.getFunctionType(function.getArgumentTypes(), resultTypes));
    if (ArrayAttr resultAttrs = function.getResAttrsAttr()) {
      SmallVector<Attribute> extended(resultAttrs.begin(), resultAttrs.end());
      extended.resize(results.size(), builder.getDictionaryAttr({}));
      function.setResAttrsAttr(builder.getArrayAttr(extended));
    }
    function->setAttr(kPushesAttrName, builder.getArrayAttr(pushes));
    function->setAttr(kModelResultsAttrName,
                      builder.getI64IntegerAttr(modelResults));
  }
};

} // namespace
