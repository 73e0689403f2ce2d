//===- WorkerProgram.cpp - The replica program as one step runs it --------===//

#include "runtime/train/WorkerProgram.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "dialects/dtf/IR/WorkerStepAttrs.h"
#include "passes/Passes.h"
#include "runtime/exec/OpKernels.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <stdexcept>


namespace dtf::train {

std::vector<mlir::Value> WorkerProgram::trainingFetches() const {
  std::vector<mlir::Value> fetches(results);
  for (const PushGroup &group : pushes) {
    fetches.push_back(group.step);
    fetches.insert(fetches.end(), group.gradients.begin(),
                   group.gradients.end());
    fetches.insert(fetches.end(), group.sparseIdsAndRows.begin(),
                   group.sparseIdsAndRows.end());
  }
  return fetches;
}

ReplicaLayout WorkerProgram::layout() const {
  ReplicaLayout layout;
  layout.pulls = pulls;
  for (const PushGroup &group : pushes)
    layout.pushes.push_back(
        {group.psTask, group.names, group.sparseNames, group.sparseShards});
  layout.numResults = results.size();
  return layout;
}

SparseShard toSparseShard(ir::RowShardAttr shard) {
  return {exec::toRowPartition(shard), shard.getShard()};
}

WorkerProgram prepareWorkerProgram(mlir::ModuleOp program) {
  std::string diagnostics;
  {
    mlir::ScopedDiagnosticHandler handler(
        program.getContext(), [&](mlir::Diagnostic &diagnostic) {
          llvm::raw_string_ostream(diagnostics)
              << (diagnostics.empty() ? "" : "; ") << diagnostic;
          return mlir::success();
        });
    mlir::PassManager passManager(program.getContext());
    passManager.addPass(ir::createLiftPsTransfersPass());
    if (failed(passManager.run(program)))
      throw std::invalid_argument(
          "the compiled program is not a replica program of runtime/ABI.md: " +
          diagnostics);
  }
  auto function = program.lookupSymbol<mlir::func::FuncOp>("worker");

  WorkerProgram result;
  result.function = function;
  // Pulls: the lifted placeholders, grouped by PS task in program order.
  std::map<int, size_t> pullGroupOfTask;
  function.walk([&](ir::PlaceholderOp placeholder) {
    auto from =
        placeholder->getAttrOfType<ir::DeviceAttr>(ir::kPulledFromAttrName);
    if (!from)
      return;
    int task = static_cast<int>(from.getTask());
    auto [it, inserted] = pullGroupOfTask.emplace(task, result.pulls.size());
    if (inserted)
      result.pulls.push_back({task, {}, {}});
    std::string name = placeholder.getName().str();
    result.pulls[it->second].variables.push_back(
        name.substr(ir::pulledPlaceholderName("").size()));
    result.pulls[it->second].feedNames.push_back(name);
  });
  // Results: the model's, then each push's step and gradients.
  auto ret = llvm::cast<mlir::func::ReturnOp>(
      function.getBody().front().getTerminator());
  auto modelResults =
      function->getAttrOfType<mlir::IntegerAttr>(ir::kModelResultsAttrName);
  auto pushes = function->getAttrOfType<mlir::ArrayAttr>(ir::kPushesAttrName);
  size_t next = static_cast<size_t>(modelResults.getInt());
  result.results.assign(ret.getOperands().begin(),
                        ret.getOperands().begin() + next);
  if (auto auc = function->getAttrOfType<mlir::DenseI64ArrayAttr>(
          ir::DTFDialect::getAucAttrName()))
    result.auc = {static_cast<size_t>(auc[0]), static_cast<size_t>(auc[1])};
  for (mlir::Attribute attribute : pushes) {
    auto push = llvm::cast<mlir::DictionaryAttr>(attribute);
    WorkerProgram::PushGroup group;
    group.psTask = static_cast<int>(
        llvm::cast<ir::DeviceAttr>(push.get("device")).getTask());
    group.step = ret.getOperand(next++);
    for (mlir::Attribute name :
         llvm::cast<mlir::ArrayAttr>(push.get("names"))) {
      group.names.push_back(llvm::cast<mlir::StringAttr>(name).str());
      group.gradients.push_back(ret.getOperand(next++));
    }
    if (auto sparse = push.getAs<mlir::ArrayAttr>("sparse_names"))
      for (mlir::Attribute name : sparse) {
        group.sparseNames.push_back(llvm::cast<mlir::StringAttr>(name).str());
        group.sparseIdsAndRows.push_back(ret.getOperand(next++));
        group.sparseIdsAndRows.push_back(ret.getOperand(next++));
      }
    auto shards = push.getAs<mlir::ArrayAttr>("sparse_shards");
    for (size_t k = 0; k < group.sparseNames.size(); ++k) {
      auto shard = shards ? llvm::dyn_cast<ir::RowShardAttr>(shards[k])
                          : ir::RowShardAttr();
      group.sparseShards.push_back(
          shard ? std::optional<SparseShard>(toSparseShard(shard))
                : std::nullopt);
    }
    result.pushes.push_back(std::move(group));
  }
  return result;
}

} // namespace dtf::train
