//===- WorkerProgram.h - The replica program as one step runs it ----------===//
//
// A worker runs the replicated module's @worker once per step.
// --dtf-lift-ps-transfers turns its dtf.pull ops into feeds (pulled in one
// RPC per PS task before the step) and its dtf.push_gradients ops into
// results (pushed in one RPC per PS task after it), so that the step itself
// is an ordinary evaluation of dtf ops; this describes the result. A
// validation run fetches the model's results only, which skips the backward
// pass.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/train/ReplicaLayout.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Value.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dtf::train {

struct WorkerProgram {
  /// The rewritten @worker.
  mlir::func::FuncOp function;

  /// The variables read from one PS task, and the feed of each.
  using PullGroup = ReplicaLayout::PullGroup;
  std::vector<PullGroup> pulls;

  /// One replica's gradients for one PS task.
  struct PushGroup {
    int psTask = 0;
    mlir::Value step;
    std::vector<std::string> names;
    std::vector<mlir::Value> gradients;
    /// The sparse gradients: for each name, its ids and its rows.
    std::vector<std::string> sparseNames;
    std::vector<mlir::Value> sparseIdsAndRows;
    std::vector<std::optional<SparseShard>> sparseShards;
  };
  std::vector<PushGroup> pushes;

  /// The model's results (loss, accuracy).
  std::vector<mlir::Value> results;
  /// The results holding predictions and labels whose AUC validation
  /// reports (the function's dtf.auc), if any.
  std::optional<std::pair<size_t, size_t>> auc;

  /// What a training step fetches: the results, then each push group's
  /// step and gradients.
  std::vector<mlir::Value> trainingFetches() const;
  /// The pulls and pushes of a step, by name, for ReplicaStep.
  ReplicaLayout layout() const;
};

/// The shard a #dtf.row_shard names, for the runtime.
SparseShard toSparseShard(ir::RowShardAttr shard);

/// Runs --dtf-lift-ps-transfers on `program` (rewriting @worker in place)
/// and describes @worker. Throws std::invalid_argument if the module
/// has no @worker or it is not a replica program of runtime/ABI.md.
WorkerProgram prepareWorkerProgram(mlir::ModuleOp program);

} // namespace dtf::train
