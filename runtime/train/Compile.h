//===- Compile.h - From a model file to the replicated program ------------===//

#pragma once

#include "runtime/cluster/ClusterSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dtf::train {

struct ReplicationOptions {
  bool sync = false;
  /// Gradients averaged per update in sync mode.
  int replicasToAggregate = 1;
  /// Workers pushing gradients (may exceed replicasToAggregate).
  int totalReplicas = 1;
  /// Async: pushes staler than this are dropped (0: no bound;
  /// ps::Options::maxStaleness).
  int64_t maxStaleness = 0;
  /// Async: the learning rate of a push's optimizers with momentum divided
  /// by 1 + its staleness (ps::Options::divideByStaleness).
  bool divideLrByStaleness = false;
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

/// The two ways of TensorFlow 1.x to use a cluster.
enum class Replication {
  /// Every worker runs its own copy of the model on its shard of the data;
  /// the variables live on PS tasks (--dtf-training-pipeline).
  BetweenGraph,
  /// One graph whose ops are pinned to several devices, partitioned into
  /// one function per device that the chief drives step by step
  /// (--dtf-in-graph-pipeline, runtime/train/InGraph.h).
  InGraph,
};

/// "between-graph" or "in-graph", as --replication spells it.
const char *replicationName(Replication replication);

struct CompileOptions {
  /// Unset: the model decides. It runs in-graph when its ops are pinned to
  /// more than one worker device or `towers` is given, between-graph
  /// otherwise.
  std::optional<Replication> replication;
  /// Between-graph only.
  ReplicationOptions betweenGraph;
  PlacementOptions placement;
  /// In-graph data parallelism: one tower of the model on each of these
  /// devices (--dtf-replicate-towers); empty for none.
  std::vector<std::string> towers;
  /// The batch of a model whose placeholders leave dimension 0 dynamic
  /// (--dtf-specialize-batch); such a model is an error without it. 0: the
  /// model's static batch.
  int64_t batchSize = 0;
};

struct CompiledModel {
  /// Null when the model did not compile (the diagnostics went to stderr).
  mlir::OwningOpRef<mlir::ModuleOp> program;
  Replication replication = Replication::BetweenGraph;
  /// The model's function, whose partitions are @<function>_<device> and,
  /// for validation, @<function>_eval_<device> (in-graph).
  std::string function;
  /// The model function's dtf.result_names, read before compilation (the
  /// in-graph partitions replace the function): empty without.
  std::vector<std::string> resultNames;
};

/// Parses `path`, gives it `cluster`, decides its replication and compiles
/// it with the pipeline of that replication. A model that cannot run the
/// way `options.replication` asks is an error naming the file.
CompiledModel compileModel(mlir::MLIRContext &context, const std::string &path,
                           const cluster::ClusterSpec &cluster,
                           const CompileOptions &options);

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
