//===- ExecutorWorker.cpp - A worker task's graphs on the Executor --------===//

#include "runtime/exec/ExecutorWorker.h"

#include "runtime/core/Error.h"
#include "runtime/core/Strings.h"

#include "dialects/dtf/IR/DTFDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

namespace dtf::exec {

/// A registered function, ready to run.
struct ExecutorWorker::Graph {
  /// Shared by the graphs registered from one module.
  std::shared_ptr<mlir::OwningOpRef<mlir::ModuleOp>> module;
  std::unique_ptr<Executor> executor;
};

ExecutorWorker::ExecutorWorker(ExecutorWorkerOptions options)
    : options(std::move(options)),
      pool(this->options.runInCallerThread
               ? nullptr
               : std::make_shared<ThreadPool>(this->options.numThreads)) {
  // The dialects of a partition (passes/Partition.cpp) and no more: a
  // worker task needs no lowering.
  context.loadDialect<dtf::ir::DTFDialect, mlir::func::FuncDialect,
                      mlir::arith::ArithDialect>();
}

ExecutorWorker::~ExecutorWorker() = default;

VariableStore ExecutorWorker::snapshotVariables() {
  std::shared_lock<std::shared_mutex> lock(variablesMutex);
  VariableStore copy;
  for (auto &[name, value] : variables)
    copy.emplace(name, value.clone());
  return copy;
}

std::vector<std::string> ExecutorWorker::assignVariables(VariableStore values) {
  std::unique_lock<std::shared_mutex> lock(variablesMutex);
  std::vector<std::string> assigned;
  for (auto &[name, value] : values) {
    auto variable = variables.find(name);
    if (variable == variables.end())
      continue;
    const Tensor &current = variable->second;
    if (value.dtype() != current.dtype() || value.shape() != current.shape())
      throw Error(ErrorCode::InvalidArgument,
                  "task " + options.taskName + ": variable '" + name +
                      "' is " + dtypeName(current.dtype()) +
                      shapeToString(current.shape()) + ", the value " +
                      dtypeName(value.dtype()) + shapeToString(value.shape()));
    assigned.push_back(name);
  }
  // Every value fits: now set them.
  for (const std::string &name : assigned)
    variables.find(name)->second = std::move(values.find(name)->second);
  return assigned;
}

std::shared_ptr<ExecutorWorker::Graph>
ExecutorWorker::findGraph(const std::string &name) {
  std::lock_guard<std::mutex> lock(graphsMutex);
  auto it = graphs.find(name);
  if (it != graphs.end())
    return it->second;
  std::vector<std::string> registered;
  for (auto &graph : graphs)
    registered.push_back(graph.first);
  throw Error(ErrorCode::NotFound,
              "task " + options.taskName + " has no graph '" + name +
                  "' (registered: " + joinNames(registered, "none") + ")");
}

void ExecutorWorker::registerGraphs(const std::string &text,
                                    const std::vector<std::string> &functions) {
  std::lock_guard<std::mutex> registering(registerMutex);
  // Keep the parser's and verifier's diagnostics for the error.
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(
      &context, [&](mlir::Diagnostic &diagnostic) {
        llvm::raw_string_ostream os(diagnostics);
        os << (diagnostics.empty() ? "" : "; ") << diagnostic.getLocation()
           << ": " << diagnostic;
        return mlir::success();
      });
  auto module = std::make_shared<mlir::OwningOpRef<mlir::ModuleOp>>(
      mlir::parseSourceString<mlir::ModuleOp>(
          text, mlir::ParserConfig(&context),
          "module registered on " + options.taskName));
  if (!*module)
    throw Error(ErrorCode::InvalidArgument,
                "task " + options.taskName +
                    ": the module does not parse: " + diagnostics);

  std::map<std::string, std::shared_ptr<Graph>> prepared;
  for (const std::string &name : functions) {
    auto function = (*module)->lookupSymbol<mlir::func::FuncOp>(name);
    if (!function) {
      std::vector<std::string> available;
      for (auto candidate : (*module)->getOps<mlir::func::FuncOp>())
        available.push_back(candidate.getName().str());
      throw Error(ErrorCode::InvalidArgument,
                  "task " + options.taskName +
                      ": the module has no function @" + name + " (it has " +
                      joinNames(available, "none") + ")");
    }
    {
      std::unique_lock<std::shared_mutex> lock(variablesMutex);
      initializeVariables(function, variables, options.eval);
    }
    ExecutorOptions executorOptions;
    executorOptions.eval = options.eval;
    executorOptions.threadPool = pool;
    executorOptions.runInCallerThread = options.runInCallerThread;
    executorOptions.opObserver = options.opObserver;
    executorOptions.externalOps = options.externalOps;
    auto graph = std::make_shared<Graph>();
    graph->module = module;
    graph->executor =
        std::make_unique<Executor>(function, variables, executorOptions);
    prepared[name] = std::move(graph);
  }
  std::lock_guard<std::mutex> lock(graphsMutex);
  for (auto &[name, graph] : prepared)
    graphs[name] = std::move(graph);
}

std::vector<Tensor> ExecutorWorker::runStep(const std::string &name,
                                            FeedMap feeds,
                                            std::vector<Tensor> arguments,
                                            const StepOptions &step) {
  std::shared_ptr<Graph> graph = findGraph(name);
  RunOptions run;
  run.stepId = step.stepId;
  run.rendezvous = step.rendezvous;
  run.deadline = step.deadline;
  run.cancellation = step.cancellation;
  std::shared_lock<std::shared_mutex> lock(variablesMutex);
  return graph->executor->run(feeds, std::move(arguments), run);
}

} // namespace dtf::exec
