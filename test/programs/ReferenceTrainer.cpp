//===- ReferenceTrainer.cpp - A model trained in one process, the oracle --===//
//
// The reference the distributed numerics test (test/integration/numerics.py)
// holds a cluster to: the model with only its gradients and optimizer
// expanded (--dtf-autodiff, --dtf-expand-optimizer; no placement, no
// replication), stepped by the reference interpreter in one process,
// starting from the variables of a checkpoint. Each step's batch is every
// training example of an IDX directory, or with --batch_size the next
// batch in the order the one worker of a one-worker cluster reads them
// (runtime/train/Inputs.h: its shard and shuffle). After each step it
// writes <out>/model.ckpt-<global step>.dtf, in the cluster's checkpoint
// format.
//
//   dtf-reference-train --data=DIR --init=CKPT --steps=K --out=DIR
//                       [--batch_size=N] model.mlir
//
// Sharded variables of the initial checkpoint ("w/part_0", "w/part_1", and
// their slots "w/Adam/part_0", ...) are concatenated along dimension 0 into
// the unsharded variable ("w", "w/Adam").
//
//===----------------------------------------------------------------------===//

#include "passes/InitAll.h"
#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/exec/Interpreter.h"
#include "runtime/train/Inputs.h"

#include "runtime/data/IdxReader.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

#include <cstring>
#include <iostream>
#include <map>
#include <regex>

namespace {

namespace cl = llvm::cl;

cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                               cl::desc("<model.mlir>"));
cl::opt<std::string> dataDir("data", cl::Required,
                             cl::desc("IDX directory: every training "
                                      "example is in every step's batch"));
cl::opt<std::string> initPath("init", cl::Required,
                              cl::desc("Checkpoint of the initial variables"));
cl::opt<int> steps("steps", cl::Required, cl::desc("Training steps"));
cl::opt<std::string> outDir("out", cl::Required,
                            cl::desc("Directory for a checkpoint per step"));
cl::opt<int64_t> batchSize("batch_size", cl::init(0),
                           cl::desc("Examples per step, read as the worker of "
                                    "a one-worker cluster reads them (0: "
                                    "every example in every step)"));

/// The checkpoint's tensors with the shards of each variable concatenated
/// along dimension 0, by their unsharded names.
std::map<std::string, dtf::Tensor>
mergeShards(std::map<std::string, dtf::Tensor> tensors) {
  static const std::regex shard("/part_([0-9]+)");
  std::map<std::string, std::map<int, dtf::Tensor>> parts;
  std::map<std::string, dtf::Tensor> merged;
  for (auto &[name, tensor] : tensors) {
    std::smatch match;
    if (!std::regex_search(name, match, shard)) {
      merged.emplace(name, std::move(tensor));
      continue;
    }
    std::string whole = match.prefix().str() + match.suffix().str();
    parts[whole].emplace(std::stoi(match[1].str()), std::move(tensor));
  }
  for (auto &[name, shards] : parts) {
    const dtf::Tensor &first = shards.begin()->second;
    dtf::Shape shape = first.shape();
    int64_t rows = 0;
    for (auto &[index, part] : shards)
      rows += part.dim(0);
    shape[0] = rows;
    dtf::Tensor whole(first.dtype(), shape);
    char *out = static_cast<char *>(whole.rawData());
    for (auto &[index, part] : shards) {
      std::memcpy(out, part.rawData(), part.byteSize());
      out += part.byteSize();
    }
    merged.emplace(name, std::move(whole));
  }
  return merged;
}

int run() {
  mlir::DialectRegistry registry;
  dtf::ir::registerAllDialects(registry);
  dtf::ir::registerAllPasses();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(modelPath.getValue(), sourceMgr,
                                            &context);
  if (!module)
    return 1;
  mlir::PassManager passManager(&context);
  if (failed(mlir::parsePassPipeline(
          "func.func(dtf-autodiff,dtf-expand-optimizer)", passManager)) ||
      failed(passManager.run(*module)))
    return 1;
  auto functions = module->getOps<mlir::func::FuncOp>();
  if (std::distance(functions.begin(), functions.end()) != 1) {
    std::cerr << modelPath << ": expected one training function\n";
    return 1;
  }
  mlir::func::FuncOp train = *functions.begin();

  dtf::exec::VariableStore variables =
      mergeShards(dtf::checkpoint::readCheckpointFile(initPath).tensors);
  dtf::data::MnistSplit data = dtf::data::loadMnistSplit(dataDir, "train");
  dtf::exec::FeedMap everyExample;
  everyExample["x"] = data.images.clone();
  everyExample["y_"] = data.oneHotLabels.clone();
  std::vector<std::pair<std::string, dtf::Tensor>> columns;
  columns.emplace_back("x", std::move(data.images));
  columns.emplace_back("y_", std::move(data.oneHotLabels));
  dtf::train::DataShard reader = dtf::train::betweenGraphDataShard(0, 1);
  dtf::data::TensorSlices worker(std::move(columns), reader.shard,
                                 reader.shuffleSeed);
  dtf::exec::Interpreter interpreter(variables);
  for (int step = 0; step < steps; ++step) {
    dtf::exec::FeedMap batch;
    if (batchSize > 0)
      worker.nextBatch(batchSize, batch);
    interpreter.run(train, batchSize > 0 ? batch : everyExample);
    dtf::checkpoint::Checkpoint checkpoint;
    checkpoint.step =
        static_cast<int64_t>(variables.at("global_step").scalarAsDouble());
    for (const auto &[name, value] : variables)
      checkpoint.tensors.emplace(name, value.clone());
    dtf::checkpoint::writeCheckpointFile(
        outDir + "/" + dtf::checkpoint::checkpointFileName(checkpoint.step),
        checkpoint);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "trains a dtf model in one process: the "
                              "reference of the distributed numerics test\n");
  try {
    return run();
  } catch (const std::exception &error) {
    std::cerr << "dtf-reference-train: " << error.what() << "\n";
    return 1;
  }
}
