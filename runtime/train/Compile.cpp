//===- Compile.cpp - From a model file to the replicated program ----------===//

#include "runtime/train/Compile.h"

#include "dialects/dtf/IR/DTFDialect.h"
#include "dialects/dtf/IR/DTFOps.h"
#include "dialects/dtf/IR/OneLineDiagnostics.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

namespace dtf::train {

/// dtf-run's flags as options of --dtf-training-pipeline.
static void setPipelineOptions(dtf::ir::TrainingPipelineOptions &pipeline,
                               const ReplicationOptions &options,
                               const PlacementOptions &placement) {
  pipeline.mode = options.sync ? dtf::ir::ReplicationMode::Sync
                               : dtf::ir::ReplicationMode::Async;
  pipeline.replicasToAggregate = options.replicasToAggregate;
  pipeline.totalReplicas = options.totalReplicas;
  pipeline.psStrategy = placement.strategy;
  pipeline.minShardBytes = placement.minSliceBytes;
  pipeline.maxShards = placement.maxPartitions;
}

/// The module's cluster attribute for `cluster`.
static mlir::Attribute clusterAttr(mlir::MLIRContext &context,
                                   const cluster::ClusterSpec &cluster) {
  mlir::Builder builder(&context);
  auto addresses = [&](const std::vector<cluster::HostPort> &tasks) {
    llvm::SmallVector<mlir::Attribute> names;
    for (const cluster::HostPort &task : tasks)
      names.push_back(builder.getStringAttr(task.str()));
    return builder.getArrayAttr(names);
  };
  return dtf::ir::ClusterAttr::get(&context, addresses(cluster.ps()),
                                     addresses(cluster.workers()));
}

/// dtf-run trains until the global step reaches --train_steps, so an update
/// without a global step would train forever (the replicas would tag every
/// push with step 0). TensorFlow's StopAtStepHook refuses such a graph too.
static mlir::LogicalResult checkGlobalStep(mlir::ModuleOp module) {
  mlir::WalkResult result = module.walk([](mlir::Operation *op) {
    bool missing = false;
    if (auto minimize = llvm::dyn_cast<dtf::ir::MinimizeOp>(op))
      missing = !minimize.getGlobalStep();
    else if (auto apply = llvm::dyn_cast<dtf::ir::ApplyGradientsOp>(op))
      missing = !apply.getGlobalStep();
    if (!missing)
      return mlir::WalkResult::advance();
    op->emitError() << "'" << op->getName()
                    << "' has no global_step: dtf-run trains until the "
                       "global step reaches --train_steps; give it "
                       "`global_step %step` (a dtf.variable of "
                       "tensor<i64>, {trainable = false})";
    return mlir::WalkResult::interrupt();
  });
  return mlir::failure(result.wasInterrupted());
}

const char *replicationName(Replication replication) {
  return replication == Replication::InGraph ? "in-graph" : "between-graph";
}

/// The worker devices the model's ops are pinned to, as written.
static std::set<std::string> pinnedWorkerDevices(mlir::ModuleOp model) {
  std::set<std::string> devices;
  model.walk([&](mlir::Operation *op) {
    auto device = op->getAttrOfType<dtf::ir::DeviceAttr>(
        dtf::ir::DTFDialect::getDeviceAttrName());
    if (device && device.getJob() == "worker")
      devices.insert(device.getName());
  });
  return devices;
}

/// A model with a dynamic batch compiles for one batch size, which only
/// --batch_size gives. Emits the error at the first such placeholder.
static mlir::LogicalResult checkBatchIsKnown(mlir::ModuleOp model,
                                             int64_t batchSize) {
  if (batchSize > 0)
    return mlir::success();
  mlir::WalkResult walk = model.walk([](dtf::ir::PlaceholderOp placeholder) {
    auto type = llvm::cast<mlir::RankedTensorType>(placeholder.getType());
    if (type.getRank() == 0 || !type.isDynamicDim(0))
      return mlir::WalkResult::advance();
    placeholder.emitError("placeholder '")
        << placeholder.getName() << "' has a dynamic batch (" << type
        << "): give --batch_size";
    return mlir::WalkResult::interrupt();
  });
  return mlir::failure(walk.wasInterrupted());
}

/// The replication of `model`: the one asked for, else the one its
/// devices imply. Null, with the error on stderr, when the model cannot
/// run that way.
static std::optional<Replication>
chooseReplication(mlir::ModuleOp model, const std::string &path,
                  const CompileOptions &options) {
  std::set<std::string> devices = pinnedWorkerDevices(model);
  bool split = devices.size() > 1;
  Replication implied = split || !options.towers.empty()
                            ? Replication::InGraph
                            : Replication::BetweenGraph;
  Replication chosen = options.replication.value_or(implied);
  if (chosen == Replication::BetweenGraph && !options.towers.empty()) {
    llvm::errs() << "dtf-run: --towers replicates the model in-graph; it "
                    "contradicts --replication=between-graph\n";
    return std::nullopt;
  }
  if (chosen == Replication::BetweenGraph && split) {
    std::string names;
    for (const std::string &device : devices)
      names += (names.empty() ? "" : ", ") + device;
    llvm::errs() << path << ": the model's ops are pinned to "
                 << devices.size() << " worker devices (" << names
                 << "); between-graph replication runs one copy of the "
                    "model per worker: use --replication=in-graph\n";
    return std::nullopt;
  }
  return chosen;
}

CompiledModel compileModel(mlir::MLIRContext &context, const std::string &path,
                           const cluster::ClusterSpec &cluster,
                           const CompileOptions &options) {
  // A diagnostic names its location and notes; the operation it is about
  // would be printed with it ("see current operation:"), pages of IR for a
  // function that fails to verify.
  context.printOpOnDiagnostic(false);
  // One line per diagnostic, "model.mlir:4:8: error: ...".
  dtf::ir::OneLineDiagnostics diagnostics(&context);
  CompiledModel compiled;
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(path, &error);
  if (!file) {
    llvm::errs() << "dtf-run: cannot read model " << path << ": " << error
                 << "\n";
    return compiled;
  }
  sourceMgr->AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module || failed(checkGlobalStep(*module)))
    return compiled;
  if (failed(checkBatchIsKnown(*module, options.batchSize)))
    return compiled;
  std::optional<Replication> replication =
      chooseReplication(*module, path, options);
  if (!replication)
    return compiled;
  compiled.replication = *replication;
  mlir::func::FuncOp model;
  for (auto function : module->getOps<mlir::func::FuncOp>())
    model = function;
  if (model) {
    compiled.function = model.getName().str();
    if (auto names = model->getAttrOfType<mlir::ArrayAttr>(
            dtf::ir::DTFDialect::getResultNamesAttrName()))
      for (mlir::Attribute name : names)
        compiled.resultNames.push_back(
            llvm::cast<mlir::StringAttr>(name).str());
  }
  // The flags' cluster replaces whatever the model file declared.
  (*module)->setAttr(dtf::ir::DTFDialect::getClusterAttrName(),
                     clusterAttr(context, cluster));

  mlir::PassManager passManager(&context);
  if (*replication == Replication::BetweenGraph) {
    dtf::ir::TrainingPipelineOptions pipeline;
    setPipelineOptions(pipeline, options.betweenGraph, options.placement);
    pipeline.batchSize = options.batchSize;
    dtf::ir::buildTrainingPipeline(passManager, pipeline);
  } else {
    dtf::ir::InGraphPipelineOptions pipeline;
    pipeline.psStrategy = options.placement.strategy;
    pipeline.minShardBytes = options.placement.minSliceBytes;
    pipeline.maxShards = options.placement.maxPartitions;
    pipeline.towers = options.towers;
    pipeline.batchSize = options.batchSize;
    dtf::ir::buildInGraphPipeline(passManager, pipeline);
  }
  if (failed(passManager.run(*module)))
    return compiled;
  compiled.program = std::move(module);
  return compiled;
}

mlir::OwningOpRef<mlir::ModuleOp>
compileModel(mlir::MLIRContext &context, const std::string &path,
             const cluster::ClusterSpec &cluster,
             const ReplicationOptions &options,
             const PlacementOptions &placement) {
  CompileOptions compile;
  compile.replication = Replication::BetweenGraph;
  compile.betweenGraph = options;
  compile.placement = placement;
  return std::move(compileModel(context, path, cluster, compile).program);
}

} // namespace dtf::train
