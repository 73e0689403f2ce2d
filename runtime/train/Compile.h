//===- Compile.h - From a model file to the replicated program ------------===//

#pragma once

#include "runtime/cluster/ClusterSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <string>

namespace dtf::train {

struct ReplicationOptions {
  bool sync = false;
  /// Gradients averaged per update in sync mode.
  int replicasToAggregate = 1;
  /// Workers pushing gradients (may exceed replicasToAggregate).
  int totalReplicas = 1;
};

/// Where variables go: tf.train.replica_device_setter's ps_strategy and
/// tf.min_max_variable_partitioner's bounds (--dtf-place-variables).
struct PlacementOptions {
  /// "round-robin" or "greedy-bytes".
  std::string strategy = "round-robin";
  /// Split variables bigger than this into shards of at least this many
  /// bytes (0: never).
  int64_t minSliceBytes = 0;
  /// Most shards of one variable (0: the number of PS tasks).
  int64_t maxPartitions = 0;
};

/// Parses `path`, gives it `cluster` and compiles it with
/// --dtf-training-pipeline (passes/Passes.h), which turns it into the
/// replicated program of runtime/ABI.md. Diagnostics go to stderr with the file and line; on
/// failure the result is null.
mlir::OwningOpRef<mlir::ModuleOp>
compileModel(mlir::MLIRContext &context, const std::string &path,
             const cluster::ClusterSpec &cluster,
             const ReplicationOptions &options,
             const PlacementOptions &placement = {});

} // namespace dtf::train
