//===- StepBench.cpp - A worker's step and a PS update, per engine --------===//
//
// The MLP of examples/mnist_mlp.mlir compiled as dtf-run compiles it for
// 1 PS task and 1 worker: the worker's replica step (forward, backward, the
// gradients fetched) and PS task 0's update (Adam and the global step), each
// run by the Executor, which tasks use, and by the reference Interpreter, in
// one process and one run, so that their ratio does not depend on how busy
// the machine is. The Executor runs as the study's tasks run it (a worker
// with --inter_op_parallelism_threads=1, a PS task: the caller's thread), and
// malloc keeps freed step memory as a task's process does
// (train::keepStepMemoryOnTheHeap).
//
//===----------------------------------------------------------------------===//

#include "bench/micro/BenchMain.h"

#include "runtime/exec/Interpreter.h"
#include "runtime/exec/PsProgram.h"
#include "runtime/train/Compile.h"
#include "runtime/train/Tasks.h"
#include "runtime/train/WorkerProgram.h"
#include "runtime/train/WorkerStep.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <stdexcept>
#include <vector>

using namespace dtf;

namespace {

/// The compiled MLP, its worker program, a batch and PS task 0's state.
struct Mlp {
  Mlp() {
    mlir::DialectRegistry registry;
    ir::registerAllDialects(registry);
    ir::registerAllPasses();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    cluster::ClusterSpec cluster =
        cluster::ClusterSpec::fromHostLists("localhost:1", "localhost:2");
    module = train::compileModel(context, DTF_EXAMPLES "/mnist_mlp.mlir",
                                 cluster, train::ReplicationOptions{});
    if (!module)
      throw std::runtime_error("examples/mnist_mlp.mlir does not compile");
    worker = train::prepareWorkerProgram(*module);
    fetches = worker.trainingFetches();
    // Every placeholder (the batch and the pulled parameters) gets small
    // values; one-hot labels of 0.1 everywhere are as costly as real ones.
    worker.function.walk([&](ir::PlaceholderOp placeholder) {
      mlir::RankedTensorType type = placeholder.getType();
      feeds.emplace(placeholder.getName().str(),
                    Tensor::filled(exec::toDType(type.getElementType(), {}),
                                   exec::toShape(type), 0.1));
    });
    ps = module->lookupSymbol<mlir::func::FuncOp>("ps_0");
    for (mlir::Type type : ps.getFunctionType().getInputs())
      gradientTypes.push_back(exec::toShape(type));
  }

  /// Gradients for one update of PS task 0.
  std::vector<Tensor> gradients() const {
    std::vector<Tensor> result;
    for (const Shape &shape : gradientTypes)
      result.push_back(Tensor::filled(DType::F32, shape, 1e-3));
    return result;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  train::WorkerProgram worker;
  std::vector<mlir::Value> fetches;
  FeedMap feeds;
  mlir::func::FuncOp ps;
  std::vector<Shape> gradientTypes;
};

Mlp &mlp() {
  static Mlp instance;
  return instance;
}

void BM_WorkerStep_Executor(benchmark::State &state) {
  std::unique_ptr<train::WorkerStep> step =
      train::makeCpuWorkerStep(mlp().worker, train::executorOptionsFor(1),
                               /*workerIndex=*/0);
  for (auto _ : state)
    benchmark::DoNotOptimize(step->train(mlp().feeds));
}
BENCHMARK(BM_WorkerStep_Executor)->Unit(benchmark::kMicrosecond);

void BM_WorkerStep_Interpreter(benchmark::State &state) {
  VariableStore noVariables;
  exec::Interpreter interpreter(noVariables);
  for (auto _ : state)
    benchmark::DoNotOptimize(interpreter.runAndFetch(
        mlp().worker.function, mlp().feeds, mlp().fetches));
}
BENCHMARK(BM_WorkerStep_Interpreter)->Unit(benchmark::kMicrosecond);

void BM_PsUpdate_Executor(benchmark::State &state) {
  exec::PsProgram program(mlp().ps, train::executorOptionsFor(-1));
  VariableStore variables;
  program.initialize(variables);
  for (auto _ : state)
    program.apply(variables, mlp().gradients(), ps::UpdateContext{});
}
BENCHMARK(BM_PsUpdate_Executor)->Unit(benchmark::kMicrosecond);

void BM_PsUpdate_Interpreter(benchmark::State &state) {
  VariableStore variables;
  exec::initializeVariables(mlp().ps, variables, {});
  exec::Interpreter interpreter(variables);
  for (auto _ : state)
    interpreter.run(mlp().ps, /*feeds=*/{}, mlp().gradients());
}
BENCHMARK(BM_PsUpdate_Interpreter)->Unit(benchmark::kMicrosecond);

} // namespace

int main(int argc, char **argv) { return runLikeATask(argc, argv); }
