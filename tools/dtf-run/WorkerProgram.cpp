//===- WorkerProgram.cpp - The replica program as one step runs it --------===//

#include "tools/dtf-run/WorkerProgram.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/IR/Builders.h"

#include <map>
#include <stdexcept>

namespace ir = mlir::dtf;

namespace dtf::run {

std::string WorkerProgram::pullFeedName(const std::string &variable) {
  // '^' cannot start a model's placeholder name by convention, so pulled
  // feeds never collide with data feeds.
  return "^pull/" + variable;
}

std::vector<mlir::Value> WorkerProgram::trainingFetches() const {
  std::vector<mlir::Value> fetches(results);
  for (const PushGroup &group : pushes) {
    fetches.push_back(group.step);
    fetches.insert(fetches.end(), group.gradients.begin(),
                   group.gradients.end());
  }
  return fetches;
}

size_t WorkerProgram::pushOffset(size_t group) const {
  size_t offset = results.size();
  for (size_t i = 0; i < group; ++i)
    offset += 1 + pushes[i].gradients.size();
  return offset;
}

static int psTaskOf(ir::DeviceAttr device, mlir::Operation *op) {
  if (device.getJob() != "ps")
    throw std::invalid_argument("@worker: an op reaches " + device.getName() +
                                ", which is not a PS task");
  (void)op;
  return static_cast<int>(device.getTask());
}

WorkerProgram prepareWorkerProgram(mlir::ModuleOp program) {
  auto function = program.lookupSymbol<mlir::func::FuncOp>("worker");
  if (!function || function.getBody().getBlocks().size() != 1)
    throw std::invalid_argument(
        "the compiled program has no single-block @worker function "
        "(see runtime/ABI.md)");

  WorkerProgram result;
  result.function = function;
  std::map<int, size_t> pullGroupOfTask;
  mlir::OpBuilder builder(function.getContext());
  llvm::SmallVector<mlir::Operation *> erased;

  for (mlir::Operation &op : function.getBody().front()) {
    if (auto pull = llvm::dyn_cast<ir::PullOp>(op)) {
      int task = psTaskOf(pull.getDevice(), &op);
      auto [it, inserted] =
          pullGroupOfTask.emplace(task, result.pulls.size());
      if (inserted)
        result.pulls.push_back({task, {}, {}});
      WorkerProgram::PullGroup &group = result.pulls[it->second];
      std::string name = pull.getName().str();
      group.variables.push_back(name);
      group.feedNames.push_back(WorkerProgram::pullFeedName(name));
      builder.setInsertionPoint(&op);
      auto feed = builder.create<ir::PlaceholderOp>(
          op.getLoc(), pull.getType(), WorkerProgram::pullFeedName(name));
      pull.getResult().replaceAllUsesWith(feed.getResult());
      erased.push_back(&op);
    } else if (auto push = llvm::dyn_cast<ir::PushGradientsOp>(op)) {
      WorkerProgram::PushGroup group;
      group.psTask = psTaskOf(push.getDevice(), &op);
      group.step = push.getStep();
      for (mlir::Attribute name : push.getNames())
        group.names.push_back(llvm::cast<mlir::StringAttr>(name).str());
      group.gradients.assign(push.getGradients().begin(),
                             push.getGradients().end());
      result.pushes.push_back(std::move(group));
      erased.push_back(&op);
    } else if (auto ret = llvm::dyn_cast<mlir::func::ReturnOp>(op)) {
      result.results.assign(ret.getOperands().begin(),
                            ret.getOperands().end());
    }
  }
  // Pushes are erased last: their operands stay alive as fetches.
  for (mlir::Operation *op : erased)
    op->erase();
  return result;
}

} // namespace dtf::run
