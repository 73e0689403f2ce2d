//===- InGraph.cpp - In-graph replication: the master and its tasks -------===//

#include "runtime/train/InGraph.h"

#include "runtime/train/InGraphMaster.h"
#include "runtime/train/TrainingLoop.h"

#include "dialects/dtf/IR/DTFDialect.h"
#include "dialects/dtf/IR/DTFOps.h"
#include "runtime/core/CpuKernels.h"
#include "runtime/data/LocalWorkSource.h"
#include "runtime/exec/ExecutorWorker.h"
#include "runtime/rpc/Server.h"
#include "runtime/rpc/WorkerClient.h"
#include "runtime/rpc/WorkerService.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace dtf::train {
namespace {

using Clock = std::chrono::steady_clock;

/// Every task of the cluster, by name ("/job:ps/task:0"), with its address.
std::map<std::string, std::string>
clusterTasks(const cluster::ClusterSpec &spec) {
  std::map<std::string, std::string> tasks;
  for (size_t i = 0; i < spec.ps().size(); ++i)
    tasks[cluster::TaskId{cluster::Job::PS, static_cast<int>(i)}.deviceName()] =
        spec.ps()[i].str();
  for (size_t i = 0; i < spec.workers().size(); ++i)
    tasks[cluster::TaskId{cluster::Job::Worker, static_cast<int>(i)}
              .deviceName()] = spec.workers()[i].str();
  return tasks;
}

/// A task's server of its partitions: the graphs, their worker service and
/// the gRPC server; stopped by a StopTask from the master.
class TaskServer {
public:
  /// `opObserver` sees every op of the task's partitions (--trace);
  /// `onStepDone` is called after each step of a partition.
  TaskServer(const TaskOptions &options, exec::OpObserver opObserver,
             std::function<void(const std::string &graph)> onStepDone = {})
      : name(options.task.deviceName()),
        graphs(graphOptions(options, name, std::move(opObserver))),
        service(graphs, serviceOptions(
                            options, name,
                            [this](const std::string &reason) { stop(reason); },
                            std::move(onStepDone))) {
    server = std::make_unique<rpc::Server>(
        taskServerOptions(options.cluster->address(options.task).str(),
                          options.reliability, "Task " + name, securityNotice));
    server->addService(service);
  }

  void start() {
    server->start();
    std::cout << securityNotice << std::endl; // [reliability]
    std::cout << "Task " << name << ": serving in-graph partitions at "
              << server->address() << std::endl;
  }

  /// Stops the server with `reason` (the first reason given wins).
  void stop(const std::string &reason) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (stopReason.empty())
        stopReason = reason;
      stopping = true;
    }
    stopRequested.notify_all();
    server->requestStop();
  }

  /// Blocks until the server stops; gives up (stopping it) when the master
  /// is not heard of for `beforeGraphs` before the first registration or
  /// `afterGraphs` after it. Returns whether the master stopped it.
  bool waitForMaster(std::chrono::milliseconds beforeGraphs,
                     std::chrono::milliseconds afterGraphs) {
    std::unique_lock<std::mutex> lock(mutex);
    while (!stopping) {
      stopRequested.wait_for(lock, std::chrono::milliseconds(200));
      auto limit = service.hasGraphs() ? afterGraphs : beforeGraphs;
      if (!stopping && Clock::now() - service.lastCall() > limit) {
        stopReason = "no call from the master (worker 0) for " +
                     std::to_string(limit.count()) + " ms";
        masterLost = true;
        stopping = true;
      }
    }
    lock.unlock();
    server->shutdown();
    return !masterLost;
  }

  void shutdown() { server->shutdown(); }

  const std::string &taskName() const { return name; }
  std::string reason() {
    std::lock_guard<std::mutex> lock(mutex);
    return stopReason;
  }

  /// One line per graph and peer: what the task received, in all and per
  /// step. Integration tests and the benchmark read these lines.
  void printTraffic() {
    for (auto &[graph, traffic] : service.traffic())
      for (auto &[peer, bytes] : traffic.receivedBytes)
        std::cout << "Task " << name << ": graph " << graph << " received "
                  << bytes << " bytes in " << traffic.steps << " steps ("
                  << (traffic.steps ? bytes / traffic.steps : 0)
                  << " bytes/step) from " << peer << std::endl;
  }

private:
  static exec::ExecutorWorkerOptions graphOptions(const TaskOptions &options,
                                                  const std::string &name,
                                                  exec::OpObserver observer) {
    exec::ExecutorWorkerOptions graphs;
    graphs.taskName = name;
    graphs.opObserver = std::move(observer);
    exec::ExecutorOptions executor = executorOptionsFor(options.interOpThreads);
    graphs.runInCallerThread = executor.runInCallerThread;
    graphs.numThreads = executor.numThreads;
    return graphs;
  }

  static rpc::WorkerServiceOptions
  serviceOptions(const TaskOptions &options, const std::string &name,
                 std::function<void(const std::string &)> onStop,
                 std::function<void(const std::string &)> onStepDone) {
    rpc::WorkerServiceOptions service;
    service.taskName = name;
    service.peers = clusterTasks(*options.cluster);
    service.peers.erase(name);
    service.client = clientOptionsFor(options);
    // A step waits for its tensors at most as long as the master waits for
    // the step.
    service.maxWait = std::chrono::milliseconds(options.rpcDeadlineMs);
    service.onStopTask = std::move(onStop);
    service.onStepDone = std::move(onStepDone);
    return service;
  }

  std::string name;
  exec::ExecutorWorker graphs;
  rpc::WorkerService service;
  std::string securityNotice;
  std::unique_ptr<rpc::Server> server;

  std::mutex mutex;
  std::condition_variable stopRequested;
  bool stopping = false;
  bool masterLost = false;
  std::string stopReason;
};

/// The partitions of one function of the model: every function whose
/// name is `<function>_<device suffix>` and that carries a dtf.device.
std::vector<Partition> partitionsOf(mlir::ModuleOp program,
                                    const std::string &function,
                                    const std::string &excludedPrefix) {
  std::vector<Partition> partitions;
  std::string prefix = function + "_";
  for (auto candidate : program.getOps<mlir::func::FuncOp>()) {
    std::string name = candidate.getName().str();
    auto device = candidate->getAttrOfType<ir::DeviceAttr>(
        ir::DTFDialect::getDeviceAttrName());
    if (!device || name.rfind(prefix, 0) != 0 ||
        (!excludedPrefix.empty() && name.rfind(excludedPrefix, 0) == 0))
      continue;
    Partition partition;
    partition.function = name;
    partition.task = device.getTaskDevice().getName();
    candidate.walk([&](ir::PlaceholderOp placeholder) {
      partition.placeholders.push_back(placeholder.getName().str());
    });
    partition.returnsResults = candidate.getNumResults() > 0;
    partitions.push_back(std::move(partition));
  }
  return partitions;
}

} // namespace

int serveInGraphTask(const TaskOptions &options) {
  // --trace: the ops of the first --trace_steps steps of the task's
  // partitions, dtf.send and dtf.recv included (category "transfer"); the
  // master's steps are sequential, so a step's ops all end before the
  // next step's begin.
  enum { OpTrack = 1 };
  TaskTrace trace(options.telemetry, *options.cluster, options.task);
  trace.nameTrack(OpTrack, "op kernels");
  trace.setRecording(true);
  std::mutex tracedMutex;
  std::map<std::string, int64_t> tracedSteps;
  int64_t tracedMost = 0;
  TaskServer server(options, trace.opObserver(OpTrack),
                    [&](const std::string &graph) {
                      std::lock_guard<std::mutex> lock(tracedMutex);
                      tracedMost = std::max(tracedMost, ++tracedSteps[graph]);
                      if (tracedMost >= options.telemetry.traceSteps)
                        trace.setRecording(false);
                    });
  server.start();
  std::cout << "Task " << server.taskName()
            << ": CPU kernels: " << cpuKernels().describe() << std::endl;
  // During a recovery the master is silent for up to
  // --recovery_timeout_ms while it waits for a restarted task.
  auto silence = std::chrono::milliseconds(std::max<int64_t>(
      options.workerTimeoutMs,
      options.reliability.recoveryTimeoutMs + options.rpcDeadlineMs));
  bool stoppedByMaster = server.waitForMaster(
      std::chrono::milliseconds(options.connectTimeoutMs), silence);
  trace.write("Task " + server.taskName(),
              std::to_string(
                  std::min<int64_t>(tracedMost, options.telemetry.traceSteps)) +
                  " steps");
  server.printTraffic();
  if (!stoppedByMaster) {
    std::cerr << "dtf-run: task " << server.taskName() << ": "
              << server.reason() << "; stopping" << std::endl;
    return 1;
  }
  std::cout << "Task " << server.taskName() << " stopped: " << server.reason()
            << std::endl;
  return 0;
}

int runInGraphMaster(mlir::ModuleOp program, const std::string &function,
                     const TaskOptions &options, WorkerInputs inputs) {
  const cluster::ClusterSpec &spec = *options.cluster;
  std::vector<Partition> train =
      partitionsOf(program, function, function + "_eval_");
  std::vector<Partition> eval = partitionsOf(program, function + "_eval", "");
  if (train.empty() || eval.empty())
    throw std::invalid_argument("the compiled program has no partitions of @" +
                                function + " and @" + function + "_eval");
  int64_t batch = checkInputs(program, inputs, options.batchSize);
  // Streamed data: the master is the one reader, of every unit.
  if (inputs.streamed)
    inputs.streamed->work->bind(std::make_shared<data::LocalWorkSource>(
        inputs.streamed->units, inputs.streamed->epochs,
        inputs.streamed->seed));
  if (options.reliability.recoveryTimeoutMs > 0 &&
      options.reliability.logdir.empty())
    throw std::invalid_argument(
        "--recovery_timeout_ms: in-graph recovery resumes from the last "
        "checkpoint; give --logdir");
  std::vector<Partition> all = train;
  all.insert(all.end(), eval.begin(), eval.end());
  std::string module;
  llvm::raw_string_ostream(module) << program;

  // The chief's trace holds the master's steps and its own partitions'
  // ops.
  WorkerTelemetry telemetry(options.telemetry, spec, options.task, batch);
  TaskServer own(options, telemetry.opObserver());
  own.start();
  std::vector<std::unique_ptr<rpc::WorkerClient>> clients;
  std::map<std::string, WorkerConnection *> tasks;
  for (auto &[task, address] : clusterTasks(spec)) {
    clients.push_back(std::make_unique<rpc::WorkerClient>(
        task, address, clientOptionsFor(options)));
    tasks[task] = clients.back().get();
  }
  InGraphMaster master(tasks, own.taskName(),
                       std::max(train.size(), eval.size()),
                       std::chrono::milliseconds(options.rpcDeadlineMs));
  InGraphTrainingOptions trainingOptions;
  trainingOptions.trainSteps = options.trainSteps;
  trainingOptions.logEvery = options.logEvery;
  trainingOptions.reliability = options.reliability;
  InGraphTrainer trainer(master, module, train, all, trainingOptions);
  try {
    int64_t step = trainer.establish();
    std::cout << "Worker 0: in-graph master: " << train.size()
              << " partitions:";
    for (const Partition &partition : train)
      std::cout << " @" << partition.function << " on " << partition.task;
    std::cout << std::endl;
    std::cout << "Worker 0: CPU kernels: " << cpuKernels().describe()
              << std::endl;

    std::cout << "Worker 0: training to global step " << options.trainSteps
              << " (in-graph, " << spec.workers().size() << " workers)"
              << std::endl;
    Clock::time_point start = Clock::now();
    TelemetryHook telemetryHook(telemetry);
    InGraphTrainingResult trained =
        trainer.train(step, *inputs.train, batch, {&telemetryHook});
    double seconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    std::cout << "Worker 0: training ended after " << trained.localSteps
              << " local steps" << std::endl;
    std::printf("Training elapsed time: %f s\n", seconds);
    // What crossed between the tasks per training step, by receiver.
    for (auto &[task, peers] : trained.received) {
      int64_t total = 0;
      for (auto &[peer, bytes] : peers)
        total += bytes;
      std::printf("In-graph traffic: %s received %lld bytes/step\n",
                  task.c_str(),
                  static_cast<long long>(
                      trained.localSteps ? total / trained.localSteps : 0));
    }
    std::fflush(stdout);

    // Validation with the forward-only partitions.
    if (inputs.validation)
      validate(
          *inputs.validation, batch, trained.globalStep, telemetry, {},
          [&](FeedMap &feeds) {
            return master.runStep(eval, trainer.nextStepId(),
                                  std::exchange(feeds, {}), nullptr);
          },
          options.resultNames);
    else
      std::cout << "Worker 0: no evaluation input, no validation"
                << std::endl;
    telemetry.finish();
  } catch (...) {
    master.stopOthers("the master failed");
    own.shutdown();
    throw;
  }
  master.stopOthers("training finished");
  own.printTraffic();
  own.shutdown();
  return 0;
}

} // namespace dtf::train
