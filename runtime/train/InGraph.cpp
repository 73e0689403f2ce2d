//===- InGraph.cpp - In-graph replication: the master and its tasks -------===//

#include "runtime/train/InGraph.h"

#include "runtime/train/Supervisor.h"

#include "dialects/dtf/IR/DTFDialect.h"
#include "dialects/dtf/IR/DTFOps.h"
#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/core/CpuKernels.h"
#include "runtime/core/ThreadPool.h"
#include "runtime/exec/ExecutorWorker.h"
#include "runtime/rpc/Errors.h"
#include "runtime/rpc/Server.h"
#include "runtime/rpc/WorkerClient.h"
#include "runtime/rpc/WorkerService.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
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

/// One function of the partitioned program and where it runs.
struct Partition {
  std::string function;
  /// The task of its device, e.g. "/job:worker/task:1".
  std::string task;
  /// The placeholders it reads, which the master feeds it.
  std::vector<std::string> placeholders;
  bool returnsResults = false;
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

/// The master's view of the tasks: a client of each, and the steps it
/// runs on them.
class Master {
public:
  /// `maxPartitions`: the most partitions one step runs at once; each but
  /// the caller's own waits for its RunStep on a thread of the master's
  /// pool, made once rather than every step.
  Master(const TaskOptions &options, std::string selfName, size_t maxPartitions)
      : self(std::move(selfName)), stepTimeout(options.rpcDeadlineMs),
        callers(std::max<size_t>(maxPartitions, 2) - 1) {
    for (auto &[task, address] : clusterTasks(*options.cluster))
      clients[task] = std::make_unique<rpc::WorkerClient>(
          task, address, clientOptionsFor(options));
  }

  void waitUntilReachable() {
    for (auto &[task, client] : clients)
      client->waitUntilReachable();
  }

  /// Registers every partition with its task.
  void registerPartitions(const std::string &module,
                          const std::vector<Partition> &partitions) {
    std::map<std::string, std::vector<std::string>> functions;
    for (const Partition &partition : partitions)
      functions[partition.task].push_back(partition.function);
    for (auto &[task, names] : functions)
      clients.at(task)->registerGraph(module, names);
  }

  /// Runs step `stepId` on every partition of `partitions` at once, each
  /// fed the placeholders it reads from `feeds`; returns
  /// the results of the one that returns them. Adds what each task received
  /// from the others to `received` when given. When a partition fails, the
  /// step is aborted on every task and the first failure is thrown, naming
  /// its task.
  std::vector<Tensor>
  runStep(const std::vector<Partition> &partitions, int64_t stepId,
          FeedMap feeds,
          std::map<std::string, std::map<std::string, int64_t>> *received) {
    struct Outcome {
      std::vector<Tensor> results;
      std::map<std::string, int64_t> received;
      std::exception_ptr error;
      /// Among the step's failures: 0 for the first.
      int failureOrder = -1;
    };
    std::vector<Outcome> outcomes(partitions.size());
    std::mutex mutex;
    int failures = 0;
    bool aborted = false;
    std::vector<std::future<void>> aborts;
    // Each placeholder is read by one partition; the feed moves there.
    std::vector<FeedMap> partitionFeeds(partitions.size());
    for (size_t i = 0; i < partitions.size(); ++i)
      for (const std::string &name : partitions[i].placeholders) {
        auto feed = feeds.find(name);
        if (feed != feeds.end())
          partitionFeeds[i].emplace(name, std::move(feed->second));
      }
    auto runPartition = [&](size_t i) {
      const Partition &partition = partitions[i];
      try {
        outcomes[i].results =
            clients.at(partition.task)
                ->runStep(partition.function, stepId, partitionFeeds[i], {},
                          stepTimeout, &outcomes[i].received);
      } catch (const std::exception &error) {
        auto *rpcError = dynamic_cast<const rpc::RpcError *>(&error);
        std::lock_guard<std::mutex> lock(mutex);
        outcomes[i].error = std::make_exception_ptr(rpc::RpcError(
            rpcError ? rpcError->code() : grpc::StatusCode::UNKNOWN,
            "step " + std::to_string(stepId) + " failed on task " +
                partition.task + " (partition @" + partition.function +
                "): " + error.what()));
        outcomes[i].failureOrder = failures++;
        if (!aborted) {
          aborted = true;
          abortEverywhere(stepId,
                          "step " + std::to_string(stepId) +
                              " failed on task " + partition.task,
                          aborts);
        }
      }
    };
    size_t running = partitions.size() - 1;
    std::condition_variable done;
    for (size_t i = 1; i < partitions.size(); ++i)
      callers.schedule([&, i] {
        runPartition(i);
        std::lock_guard<std::mutex> lock(mutex);
        if (--running == 0)
          done.notify_one();
      });
    runPartition(0);
    {
      std::unique_lock<std::mutex> lock(mutex);
      done.wait(lock, [&] { return running == 0; });
    }
    for (std::future<void> &abort : aborts)
      abort.wait();

    // The first failure is the cause; the others follow from the abort.
    for (const Outcome &outcome : outcomes)
      if (outcome.failureOrder == 0)
        std::rethrow_exception(outcome.error);
    std::vector<Tensor> results;
    for (size_t i = 0; i < partitions.size(); ++i) {
      if (partitions[i].returnsResults)
        results = std::move(outcomes[i].results);
      if (received)
        for (auto &[peer, bytes] : outcomes[i].received)
          (*received)[partitions[i].task][peer] += bytes;
    }
    return results;
  }

  /// Every variable of every task, for a checkpoint.
  VariableStore gatherVariables() {
    VariableStore all;
    for (auto &[task, client] : clients)
      for (auto &[name, value] : client->getVariables())
        all.emplace(name, std::move(value));
    return all;
  }

  /// Gives every task the values of its variables among `values`; throws
  /// when some value belongs to no task (a checkpoint of another model).
  void setVariables(const VariableStore &values, const std::string &source) {
    std::set<std::string> set;
    for (auto &[task, client] : clients)
      for (std::string &name : client->setVariables(values))
        set.insert(std::move(name));
    for (auto &[name, value] : values)
      if (!set.count(name))
        throw std::runtime_error(source + ": variable '" + name +
                                 "' is not a variable of the model");
  }

  /// Asks every task but this one to stop; a task that does not answer is
  /// reported, not waited for beyond the RPC deadline.
  void stopOthers(const std::string &reason) {
    std::vector<std::future<void>> stops;
    for (auto &[task, client] : clients) {
      if (task == self)
        continue;
      rpc::WorkerClient *target = client.get();
      stops.push_back(std::async(std::launch::async, [target, reason] {
        try {
          target->stopTask(reason);
        } catch (const std::exception &error) {
          std::cerr << "dtf-run: could not stop " << error.what() << "\n";
        }
      }));
    }
  }

private:
  /// Aborts `stepId` on every task, without waiting: a task that is gone
  /// must not hold the others' abort back.
  void abortEverywhere(int64_t stepId, const std::string &reason,
                       std::vector<std::future<void>> &pending) {
    for (auto &[task, client] : clients) {
      rpc::WorkerClient *target = client.get();
      pending.push_back(
          std::async(std::launch::async, [target, stepId, reason] {
            try {
              target->abortStep(stepId, reason);
            } catch (const std::exception &) {
              // The task is gone or the step over there: nothing waits.
            }
          }));
    }
  }

  std::string self;
  std::chrono::milliseconds stepTimeout;
  std::map<std::string, std::unique_ptr<rpc::WorkerClient>> clients;
  ThreadPool callers;
};

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

namespace {

/// The master's checkpoints in --logdir: the variables of every task in
/// one file per global step, the format of between-graph training's.
class MasterCheckpoints {
public:
  MasterCheckpoints(const ReliabilityOptions &options, Master &master)
      : options(options), master(master), lastSaveTime(Clock::now()) {}

  bool enabled() const { return !options.logdir.empty(); }

  /// Loads the newest valid checkpoint into the tasks; returns its global
  /// step, or nullopt when there is none (the tasks keep their initial
  /// values).
  std::optional<int64_t> restoreNewest() {
    if (!enabled())
      return std::nullopt;
    checkpoint::CheckpointDirectory directory(options.logdir);
    directory.removeTemporaries();
    auto loaded = directory.loadNewest([](const std::string &warning) {
      std::cout << "Worker 0: warning: " << warning << std::endl;
    });
    if (!loaded)
      return std::nullopt;
    master.setVariables(loaded->checkpoint.tensors, loaded->path);
    std::cout << "Worker 0: restored every task's variables from "
              << loaded->path << " (global step " << loaded->checkpoint.step
              << ")" << std::endl;
    lastSavedStep = loaded->checkpoint.step;
    if (options.debugHoldAfterRestore) // [reliability] test only
      holdUntilReleased("Worker 0",
                        "after the restore of global step " +
                            std::to_string(loaded->checkpoint.step) +
                            " (--debug_hold_after_restore)",
                        options.debugReleaseFile);
    return loaded->checkpoint.step;
  }

  /// Saves at `step` when --save_checkpoint_steps or --save_checkpoint_secs
  /// say so, or always with `force` (the start and the end of training).
  void maybeSave(int64_t step, bool force = false) {
    if (!enabled() || step == lastSavedStep)
      return;
    bool due =
        force ||
        (options.saveCheckpointSteps > 0 &&
         step - lastSavedStep >= options.saveCheckpointSteps) ||
        (options.saveCheckpointSecs > 0 &&
         std::chrono::duration<double>(Clock::now() - lastSaveTime).count() >=
             options.saveCheckpointSecs);
    if (!due)
      return;
    // Between steps nothing runs: every task's variables are at `step`.
    checkpoint::Checkpoint state;
    state.step = step;
    state.tensors = master.gatherVariables();
    std::string path = checkpoint::CheckpointDirectory(options.logdir)
                           .save(state, options.keepCheckpoints);
    std::cout << "Worker 0: saved checkpoint " << path << " (global step "
              << step << ")" << std::endl;
    lastSavedStep = step;
    lastSaveTime = Clock::now();
  }

private:
  const ReliabilityOptions &options;
  Master &master;
  int64_t lastSavedStep = -1;
  Clock::time_point lastSaveTime;
};

} // namespace

int runInGraphMaster(mlir::ModuleOp program, const std::string &function,
                     const TaskOptions &options, WorkerInputs inputs) {
  const cluster::ClusterSpec &spec = *options.cluster;
  const ReliabilityOptions &reliability = options.reliability;
  std::vector<Partition> train =
      partitionsOf(program, function, function + "_eval_");
  std::vector<Partition> eval = partitionsOf(program, function + "_eval", "");
  if (train.empty() || eval.empty())
    throw std::invalid_argument("the compiled program has no partitions of @" +
                                function + " and @" + function + "_eval");
  int64_t batch = checkInputs(program, inputs, options.batchSize);
  if (reliability.recoveryTimeoutMs > 0 && reliability.logdir.empty())
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
  Master master(options, own.taskName(), std::max(train.size(), eval.size()));
  MasterCheckpoints checkpoints(reliability, master);
  /// Registers the partitions everywhere and sets the variables: from the
  /// newest checkpoint, else their initial values. Returns the global step.
  auto establish = [&] {
    master.waitUntilReachable();
    master.registerPartitions(module, all);
    std::optional<int64_t> restored = checkpoints.restoreNewest();
    return restored.value_or(0);
  };
  try {
    int64_t step = establish();
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
    checkpoints.maybeSave(step, /*force=*/true);
    Clock::time_point start = Clock::now();
    std::map<std::string, std::map<std::string, int64_t>> received;
    int64_t stepId = 0;
    int64_t localSteps = 0;
    while (step < options.trainSteps) {
      try {
        telemetry.beginStep(localSteps);
        FeedMap feeds;
        inputs.train->nextBatch(batch, feeds);
        std::vector<Tensor> results;
        {
          auto span = telemetry.compute();
          results =
              master.runStep(train, ++stepId, std::move(feeds), &received);
        }
        ++step;
        ++localSteps;
        telemetry.endStep(localSteps, step, results, results.size());
        if (options.logEvery > 0 && localSteps % options.logEvery == 0) {
          char line[160];
          std::snprintf(
              line, sizeof(line),
              "%.6f: Worker 0: training step %lld done (global step: %lld)",
              std::chrono::duration<double>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count(),
              static_cast<long long>(localSteps), static_cast<long long>(step));
          std::cout << line << std::endl;
        }
        if (reliability.debugStepDelayMs > 0) // [reliability] test only
          std::this_thread::sleep_for(
              std::chrono::milliseconds(reliability.debugStepDelayMs));
        checkpoints.maybeSave(step);
      } catch (const rpc::RpcError &error) {
        // [reliability] Wait for the task to come back, register its
        // partitions again and resume from the last checkpoint.
        if (reliability.recoveryTimeoutMs <= 0 || !isRecoverable(error.code()))
          throw;
        std::cout << "Worker 0: " << error.what() << "; waiting up to "
                  << reliability.recoveryTimeoutMs
                  << " ms for the cluster to recover" << std::endl;
        Clock::time_point deadline =
            Clock::now() +
            std::chrono::milliseconds(reliability.recoveryTimeoutMs);
        while (true) {
          try {
            step = establish();
            break;
          } catch (const rpc::RpcError &again) {
            if (!isRecoverable(again.code()) || Clock::now() >= deadline)
              throw rpc::RpcError(
                  again.code(),
                  std::string(error.what()) +
                      "; the cluster did not recover within " +
                      std::to_string(reliability.recoveryTimeoutMs) +
                      " ms: " + again.what());
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
          }
        }
        std::cout << "Worker 0: the cluster recovered; resuming at global "
                     "step "
                  << step << std::endl;
      }
    }
    telemetry.endTraining();
    checkpoints.maybeSave(step, /*force=*/true);
    double seconds =
        std::chrono::duration<double>(Clock::now() - start).count();
    std::cout << "Worker 0: training ended after " << localSteps
              << " local steps" << std::endl;
    std::printf("Training elapsed time: %f s\n", seconds);
    // What crossed between the tasks per training step, by receiver.
    for (auto &[task, peers] : received) {
      int64_t total = 0;
      for (auto &[peer, bytes] : peers)
        total += bytes;
      std::printf("In-graph traffic: %s received %lld bytes/step\n",
                  task.c_str(),
                  static_cast<long long>(localSteps ? total / localSteps : 0));
    }
    std::fflush(stdout);

    // Validation with the forward-only partitions.
    if (inputs.validation)
      validate(*inputs.validation, batch, step, telemetry, {},
               [&](FeedMap &feeds) {
                 return master.runStep(eval, ++stepId,
                                       std::exchange(feeds, {}), nullptr);
               });
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
