//===- TrainingPipeline.cpp - --dtf-training-pipeline and in-graph --------===//
//
// The passes between a model and the program dtf-run executes, registered
// as named pipelines with options, as torch-mlir registers its backend
// pipelines, so that dtf-opt shows what dtf-run compiles: one for
// between-graph replication, one for in-graph replication.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

void dtf::ir::buildTrainingPipeline(OpPassManager &pm,
                                      const TrainingPipelineOptions &options) {
  options.addSpecializeBatch(pm);
  pm.addNestedPass<func::FuncOp>(createAutodiffPass());
  pm.addNestedPass<func::FuncOp>(createExpandOptimizerPass());
  pm.addPass(createPlaceVariablesPass(options.getPlaceVariablesOptions()));
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

void dtf::ir::buildInGraphPipeline(OpPassManager &pm,
                                     const InGraphPipelineOptions &options) {
  options.addSpecializeBatch(pm);
  AutodiffPassOptions autodiff;
  autodiff.colocateGradientsWithOps = options.colocateGradientsWithOps;
  pm.addNestedPass<func::FuncOp>(createAutodiffPass(autodiff));
  pm.addNestedPass<func::FuncOp>(createExpandOptimizerPass());
  pm.addPass(createPlaceVariablesPass(options.getPlaceVariablesOptions()));
  if (!options.towers.empty()) {
    ReplicateTowersPassOptions replication;
    replication.devices = options.towers;
    pm.addPass(createReplicateTowersPass(replication));
  }
  pm.addPass(createAddEvalFunctionPass());
  pm.addPass(createPartitionPass());
  pm.addPass(createVerifyPartitionsPass());
}

void dtf::ir::registerInGraphPipeline() {
  PassPipelineRegistration<InGraphPipelineOptions>(
      "dtf-in-graph-pipeline",
      "Compile a model for in-graph replication: autodiff, optimizer "
      "expansion, variable placement, towers, an evaluation function and "
      "one partition per device (what dtf-run runs in-graph)",
      buildInGraphPipeline);
}
