//===- TrainingPipeline.cpp - --dtf-training-pipeline ---------------------===//
//
// The passes between a model and the program dtf-run executes, registered
// as one named pipeline with options, as torch-mlir registers its backend
// pipelines, so that dtf-opt shows what dtf-run compiles.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

void dtf::ir::buildTrainingPipeline(OpPassManager &pm,
                                      const TrainingPipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(createAutodiffPass());
  pm.addNestedPass<func::FuncOp>(createExpandOptimizerPass());
  PlaceVariablesPassOptions placement;
  placement.strategy = options.psStrategy;
  placement.minShardBytes = options.minShardBytes;
  placement.maxShards = options.maxShards;
  pm.addPass(createPlaceVariablesPass(placement));
  ReplicatePassOptions replication;
  replication.mode = options.mode;
  replication.replicasToAggregate = options.replicasToAggregate;
  replication.totalReplicas = options.totalReplicas;
  pm.addPass(createReplicatePass(replication));
}

void dtf::ir::registerTrainingPipeline() {
  PassPipelineRegistration<TrainingPipelineOptions>(
      "dtf-training-pipeline",
      "Compile a model for between-graph replication: autodiff, optimizer "
      "expansion, variable placement and replication (what dtf-run runs)",
      buildTrainingPipeline);
}
