//===- Tasks.cpp - What a PS task and a worker task do --------------------===//

#include "runtime/train/Tasks.h"

#include "runtime/train/InputLog.h"
#include "runtime/train/ReplicaStep.h"
#include "runtime/train/RowPulls.h"
#include "runtime/train/Supervisor.h"
#include "runtime/train/TrainingLoop.h"
#include "runtime/train/WarmStart.h"
#include "runtime/train/WorkerProgram.h"
#include "runtime/train/WorkerStep.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "runtime/coord/Coordinator.h"
#include "runtime/coord/HeartbeatSender.h"
#include "runtime/core/CpuKernels.h"
#include "runtime/core/HostMemory.h"
#include "runtime/core/Metrics.h"
#include "runtime/exec/PsProgram.h"
#include "runtime/rpc/CoordinationClient.h"
#include "runtime/rpc/CoordinationService.h"
#include "runtime/rpc/ParameterServerService.h"
#include "runtime/rpc/PsClient.h"
#include "runtime/rpc/Server.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <malloc.h>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sys/resource.h>

namespace dtf::train {
namespace {

using Clock = std::chrono::steady_clock;

ps::Replication replicationOf(const TaskOptions &options) {
  return options.replication.sync
             ? ps::Replication::sync(options.replication.replicasToAggregate,
                                     options.replication.totalReplicas)
             : ps::Replication::async(options.replication.totalReplicas);
}

} // namespace

/// The model's batch: dimension 0 of each placeholder that `input` feeds,
/// which must agree with --batch_size (`requested`, 0 when not given).
static int64_t modelBatchSize(mlir::Operation *scope,
                              const data::InputSource &input, int requested) {
  std::map<std::string, ir::PlaceholderOp> placeholders;
  scope->walk([&](ir::PlaceholderOp placeholder) {
    placeholders[placeholder.getName().str()] = placeholder;
  });
  int64_t batch = -1;
  std::string first;
  for (const std::string &name : input.placeholders()) {
    auto it = placeholders.find(name);
    if (it == placeholders.end())
      throw std::invalid_argument("the model has no placeholder \"" + name +
                                  "\" for the input to feed (runtime/ABI.md)");
    mlir::RankedTensorType type = it->second.getType();
    if (type.getRank() < 1 || type.isDynamicDim(0))
      throw std::invalid_argument(
          "placeholder \"" + name +
          "\" needs a static batch dimension (dimension 0) to be fed");
    int64_t size = type.getDimSize(0);
    if (batch >= 0 && size != batch)
      throw std::invalid_argument("placeholders \"" + first + "\" and \"" +
                                  name + "\" differ in their batch (" +
                                  std::to_string(batch) + " and " +
                                  std::to_string(size) + ")");
    batch = size;
    first = name;
  }
  if (requested != 0 && requested != batch)
    throw std::invalid_argument(
        "--batch_size=" + std::to_string(requested) +
        " does not match the model's batch of " + std::to_string(batch) +
        " (placeholder \"" + first + "\"); write the model with that batch "
        "size, or leave its dimension 0 dynamic (tensor<?x...>)");
  return batch;
}

int64_t checkInputs(mlir::Operation *scope, const WorkerInputs &inputs,
                    int requestedBatch) {
  int64_t batch = modelBatchSize(scope, *inputs.train, requestedBatch);
  if (!inputs.validation)
    return batch;
  if (inputs.validation->placeholders() != inputs.train->placeholders())
    throw std::invalid_argument(
        "the validation input feeds other placeholders than the training "
        "input");
  if (inputs.validation->size() < batch)
    throw std::invalid_argument(
        "the validation input holds " +
        std::to_string(inputs.validation->size()) +
        " examples, fewer than one batch of " + std::to_string(batch));
  return batch;
}

rpc::ClientOptions clientOptionsFor(const TaskOptions &options) {
  rpc::ClientOptions client;
  client.callTimeout = std::chrono::milliseconds(options.rpcDeadlineMs);
  client.connectTimeout = std::chrono::milliseconds(options.connectTimeoutMs);
  applySecurity(client, options.reliability); // [reliability]
  return client;
}

void validate(data::InputSource &validation, int64_t batch, int64_t globalStep,
              WorkerTelemetry &telemetry, FeedMap feeds,
              const std::function<std::vector<Tensor>(FeedMap &)> &evaluate,
              const std::vector<std::string> &resultNames,
              std::optional<std::pair<size_t, size_t>> auc) {
  // Whole batches only: the model's batch is static.
  int64_t batches = validation.size() / batch;
  // Per result, the sum over the batches of a scalar one's value.
  std::vector<double> sums;
  std::vector<bool> scalar;
  metrics::StreamingAuc streamingAuc;
  metrics::StreamingLogLoss logLoss;
  for (int64_t b = 0; b < batches; ++b) {
    validation.nextBatch(batch, feeds);
    std::vector<Tensor> results = evaluate(feeds);
    if (sums.empty()) {
      sums.assign(results.size(), 0.0);
      for (const Tensor &result : results)
        scalar.push_back(result.numElements() == 1);
    }
    for (size_t i = 0; i < results.size(); ++i)
      if (scalar[i])
        sums[i] += results[i].scalarAsDouble();
    if (auc) {
      const Tensor &predictions = results.at(auc->first);
      const Tensor &labels = results.at(auc->second);
      auto count = static_cast<size_t>(predictions.numElements());
      streamingAuc.add(predictions.data<float>(), labels.data<float>(), count);
      logLoss.add(predictions.data<float>(), labels.data<float>(), count);
    }
  }
  auto mean = [&](size_t i) {
    return i < sums.size() && batches > 0 ? sums[i] / batches : 0.0;
  };
  auto format = [](double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return std::string(text);
  };
  std::string line =
      "After " + std::to_string(globalStep) + " training step(s)";
  std::vector<std::pair<std::string, double>> summaries;
  if (auc) {
    summaries = {{"loss", mean(0)},
                 {"auc", streamingAuc.auc()},
                 {"log_loss", logLoss.value()}};
    char text[128];
    std::snprintf(text, sizeof text,
                  ", validation loss = %g, validation AUC = %.6f, validation "
                  "log loss = %.6f",
                  mean(0), streamingAuc.auc(), logLoss.value());
    line += text;
  } else if (!resultNames.empty()) {
    // The model's dtf.result_names: every scalar result by its name.
    for (size_t i = 0; i < resultNames.size() && i < sums.size(); ++i)
      if (scalar[i]) {
        line += ", validation " + resultNames[i] + " = " + format(mean(i));
        summaries.emplace_back(resultNames[i], mean(i));
      }
  } else {
    // Unnamed results are a hand-written model's cross entropy and
    // accuracy, in the line scripts read.
    line += ", validation cross entropy = " + format(mean(0)) +
            ", validation accuracy = " + format(mean(1));
    summaries.emplace_back("loss", mean(0));
    if (sums.size() > 1)
      summaries.emplace_back("accuracy", mean(1));
  }
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  telemetry.validation(globalStep, summaries);
}

void keepStepMemoryOnTheHeap() {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

double processCpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval &time) {
    return static_cast<double>(time.tv_sec) + time.tv_usec * 1e-6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void ServingCpu::attach(ps::Options &options) {
  std::function<void(int64_t, std::chrono::steady_clock::time_point,
                     std::chrono::steady_clock::time_point)>
      next = std::move(options.onApplied);
  options.onApplied = [this, next = std::move(next)](
                          int64_t step, std::chrono::steady_clock::time_point
                                            begin,
                          std::chrono::steady_clock::time_point end) {
    // The task's mutex is held: the fields need no lock of their own.
    if (updates++ == 0)
      cpuAtFirstUpdate = processCpuSeconds();
    if (next)
      next(step, begin, end);
  };
}

std::optional<double> ServingCpu::secondsPerUpdate() const {
  if (updates < 2)
    return std::nullopt;
  return (processCpuSeconds() - cpuAtFirstUpdate) /
         static_cast<double>(updates - 1);
}

exec::ExecutorOptions executorOptionsFor(int interOpThreads) {
  exec::ExecutorOptions executorOptions;
  if (interOpThreads == 1 || interOpThreads < 0)
    executorOptions.runInCallerThread = true;
  else
    executorOptions.numThreads = static_cast<size_t>(interOpThreads);
  return executorOptions;
}

/// PS task 0's lines on the streamed input at its stop: where the epochs
/// stand, what was trained on, and the units each worker took.
static void printDataStats(const coord::DataStats &stats, std::ostream &out) {
  if (!stats.defined)
    return;
  out << "PS task 0 data: epoch " << stats.currentEpoch << ", "
      << stats.epochsCompleted << " epochs complete, " << stats.recordsTrained
      << " records trained, " << stats.recordsInDoubt << " in doubt, "
      << stats.duplicateRecords << " duplicates (" << stats.unitsPerEpoch
      << " units per epoch)" << std::endl;
  auto at = [](const std::vector<int64_t> &perWorker, size_t worker) {
    return worker < perWorker.size() ? perWorker[worker] : 0;
  };
  for (size_t worker = 0; worker < stats.unitsHandedOut.size(); ++worker) {
    out << "PS task 0 data: worker " << worker << " took "
        << stats.unitsHandedOut[worker] << " units, trained "
        << at(stats.recordsTrainedPerWorker, worker) << " records";
    if (int64_t refused = at(stats.acquiresRefused, worker))
      out << ", was refused " << refused
          << " unit(s) at the last epoch's end (its own took longer than "
             "the rest)";
    out << std::endl;
  }
}

int runPsTask(mlir::ModuleOp program, const TaskOptions &options) {
  const cluster::ClusterSpec &spec = *options.cluster;
  int index = options.task.index;
  std::string name = "ps_" + std::to_string(index);
  auto function = program.lookupSymbol<mlir::func::FuncOp>(name);
  if (!function)
    throw std::invalid_argument("the compiled program has no @" + name +
                                ": this PS task holds no variable");

  // Observability (runtime/train/Telemetry.h): --trace of the updates of
  // the workers' traced steps, --logdir summaries of their staleness.
  PsTelemetry telemetry(options.telemetry, spec, options.task,
                        options.telemetry.traceSteps *
                            (options.replication.sync ? 1 : spec.workers().size()));
  // [reliability] TLS, token and bind address; the checkpoint to restore.
  std::string label = "PS task " + std::to_string(index);
  std::string securityNotice;
  rpc::ServerOptions serverOptions = taskServerOptions(
      spec.ps()[index].str(), options.reliability, label, securityNotice);
  ps::Options psOptions;
  // Updates are applied one at a time under the task's lock: each runs in
  // the thread of the push that brought it.
  exec::ExecutorOptions executorOptions = executorOptionsFor(-1);
  telemetry.attach(psOptions, executorOptions.opObserver);
  WarmStartLoader warmStart =
      warmStartLoaderFor(program, function, options.reliability,
                         psOptions.globalStepName, label, std::cout);
  std::vector<checkpoint::VariablePart> heldParts =
      variablePartsHeldBy(program, function);
  configureCheckpointRestore(psOptions, options.reliability, heldParts,
                             warmStart);
  configureCheckpointSave(psOptions, options.reliability, heldParts,
                          variablesHeldBefore(program, function));
  psOptions.availableMemory = availableHostMemory();
  psOptions.maxStaleness = options.replication.maxStaleness;
  psOptions.divideByStaleness = options.replication.divideLrByStaleness;
  configureCrashAtStep(psOptions, options.reliability, label);
  configureHoldAtStep(psOptions, options.reliability, label);
  ServingCpu servingCpu;
  servingCpu.attach(psOptions);
  ps::ParameterServer task(
      std::make_unique<exec::PsProgram>(function, std::move(executorOptions)),
      replicationOf(options), psOptions);
  std::optional<std::string> inputState = restoreAtStart(
      task, options.reliability, heldParts, label, std::cout, warmStart);
  // PS task 0 hosts the coordinator (runtime/coord/Coordinator.h). Both
  // outlive the server, whose shutdown releases the coordinator's waits.
  std::unique_ptr<coord::Coordinator> coordinator;
  std::unique_ptr<rpc::CoordinationService> coordination;
  rpc::Server server(serverOptions);
  rpc::ParameterServerService service(task,
                                      [&server] { server.requestStop(); });
  server.addService(service);

  if (index == 0) {
    coord::CoordinatorOptions coordinatorOptions;
    coordinatorOptions.numPsTasks = static_cast<int>(spec.ps().size());
    coordinatorOptions.numWorkers = static_cast<int>(spec.workers().size());
    coordinatorOptions.heartbeatTimeout =
        std::chrono::milliseconds(options.workerTimeoutMs);
    coordinatorOptions.globalStep = [&task] { return task.currentStep(); };
    coordinator = std::make_unique<coord::Coordinator>(coordinatorOptions);
    // Streamed input: which records the restored variables were trained
    // on, so that the resumed epoch trains on the others only.
    if (inputState)
      coordinator->restoreDataState(*inputState);
    coordination = std::make_unique<rpc::CoordinationService>(*coordinator);
    server.addService(*coordination);
  }
  server.start();
  auto servingSince = std::chrono::steady_clock::now();
  std::cout << securityNotice << std::endl; // [reliability]
  // [reliability] a (re)started PS task other than 0 (which hosts the
  // coordinator) registers with the coordinator, retrying every second.
  std::unique_ptr<PsRegistration> registration;
  if (index != 0) {
    rpc::ClientOptions client = clientOptionsFor(options);
    client.connectTimeout = std::chrono::milliseconds(1'000);
    registration = std::make_unique<PsRegistration>(
        std::make_unique<rpc::CoordinationClient>(spec.ps()[0].str(), client),
        index, std::cout);
  }
  // A sparse gradient is two tensors of a push (ids, rows) of one variable.
  std::set<std::string> gradients(task.pushNames().begin(),
                                  task.pushNames().end());
  std::cout << "PS task " << index << " serving " << gradients.size()
            << " gradients at " << server.address();
  for (const std::string &socket : server.localEndpoints())
    std::cout << " and, for workers on this host, at local socket @" << socket;
  std::cout << "; CPU kernels: " << cpuKernels().describe() << std::endl;
  server.wait();
  telemetry.finish();
  ps::UpdateStats stats = task.stats();
  std::cout << "PS task " << index << " stopped at step "
            << task.currentStep() << ": applied " << stats.appliedUpdates
            << (options.replication.sync ? " aggregates" : " updates")
            << " of " << stats.appliedPushes << " pushes, dropped "
            << stats.stalePushes << " stale pushes" << std::endl;
  // On a line of its own, so that parsers of the line above keep working.
  std::cout << "PS task " << index << " staleness: " << stats.staleness.str();
  if (!options.replication.sync)
    std::cout << "; steps divided by 1 + staleness: "
              << (options.replication.divideLrByStaleness
                      ? std::to_string(stats.dividedPushes) + " pushes"
                      : "off (--divide_lr_by_staleness turns it on)");
  std::cout << std::endl;
  double servedSeconds = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - servingSince)
                             .count();
  for (const ps::DynamicTableStats &table : stats.dynamicTables) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.1f",
                  servedSeconds > 0
                      ? static_cast<double>(table.createdRows) / servedSeconds
                      : 0.0);
    std::cout << "PS task " << index << " dynamic table '" << table.name
              << "': " << table.rows << " rows, " << table.createdRows
              << " created since start (" << rate << " rows/s), "
              << table.pendingIds << " ids held back by min_count "
              << table.minCount << ", " << table.droppedIds
              << " ids dropped from updates" << std::endl;
  }
  if (coordinator)
    printDataStats(coordinator->dataStats(), std::cout);
  if (std::optional<double> perUpdate = servingCpu.secondsPerUpdate()) {
    char milliseconds[32];
    std::snprintf(milliseconds, sizeof milliseconds, "%.3f", *perUpdate * 1e3);
    std::cout << "PS task " << index << " CPU per update while serving: "
              << milliseconds
              << " ms (the process's CPU time from its first update to its "
                 "stop, over the updates since)"
              << std::endl;
  }
  return 0;
}

int runWorkerTask(mlir::ModuleOp program, const TaskOptions &options,
                  WorkerInputs inputs) {
  const cluster::ClusterSpec &spec = *options.cluster;
  int index = options.task.index;
  int numWorkers = static_cast<int>(spec.workers().size());
  bool isChief = index == 0;

  WorkerProgram worker = prepareWorkerProgram(program);
  int64_t batch = checkInputs(worker.function, inputs, options.batchSize);
  if (inputs.streamed && inputs.streamed->epochs > 0 &&
      options.replication.sync)
    throw std::invalid_argument(
        "--num_epochs with sync replication: a sync step needs every "
        "replica's gradients, so one worker's end of data would stall the "
        "others; train sync to --train_steps (--num_epochs=0)");
  // The step is lowered and its device checked before anything else, so
  // that a worker that cannot compute there fails at once.
  std::unique_ptr<WorkerStep> compute;
#ifdef DTF_HAVE_CUDA
  if (options.device.gpu)
    compute = makeGpuWorkerStep(worker, options.device.ordinal);
#endif

  rpc::ClientOptions client = clientOptionsFor(options);
  std::vector<std::unique_ptr<rpc::PsClient>> psClients;
  std::vector<ps::PsConnection *> ps;
  for (size_t task = 0; task < spec.ps().size(); ++task) {
    psClients.push_back(std::make_unique<rpc::PsClient>(
        cluster::TaskId{cluster::Job::PS, static_cast<int>(task)}.deviceName(),
        spec.ps()[task].str(), client));
    ps.push_back(psClients.back().get());
  }
  rpc::CoordinationClient coordinator(spec.ps()[0].str(), client);
  coordinator.waitUntilReachable();
  coordinator.registerTask("worker", index);
  for (ps::PsConnection *task : ps)
    task->waitUntilReachable();
  std::cout << "worker " << index << ": pulls and pushes";
  for (size_t task = 0; task < psClients.size(); ++task)
    std::cout << (task ? "," : "") << " to ps " << task << " over "
              << (psClients[task]->usesLocalTransport() ? "its local socket"
                                                        : "gRPC");
  std::cout << std::endl;

  // [reliability] The chief initializes the variables (or confirms those
  // the PS tasks restored) and checkpoints; the others wait for it.
  Supervisor supervisor(ps, coordinator, options.reliability, index,
                        options.replication.sync);
  // Streamed input: the units come from the data coordinator, and the
  // chief's checkpoints keep which examples the variables were trained on.
  std::shared_ptr<CoordinatedWorkSource> dataWork;
  if (inputs.streamed) {
    coord::DataSetDefinition definition;
    definition.units = inputs.streamed->units;
    definition.epochs = inputs.streamed->epochs;
    definition.seed = inputs.streamed->seed;
    // Async workers wait at the end of the data for units a lost worker
    // gives back; sync ones cannot (their steps need every replica).
    definition.waitForReleasedUnits = !options.replication.sync;
    // Where the step pushes to PS task 0 alone, the step's data report
    // rides that push: one call a step, not two (rpc/DataReportRider.h).
    const ReplicaLayout &layout = worker.layout();
    if (layout.pushes.size() == 1 && layout.pushes[0].psTask == 0)
      psClients[0]->carryDataReports(coordinator.rideReportsOnPushes());
    dataWork = std::make_shared<CoordinatedWorkSource>(coordinator, index,
                                                       std::move(definition));
    inputs.streamed->work->bind(dataWork);
    dataWork->define();
  }
  // The streamed input's readers call the coordinator's connection: they
  // stop before it goes, also when training fails.
  struct StopReaders {
    WorkerInputs &inputs;
    std::shared_ptr<CoordinatedWorkSource> &work;
    void stop() {
      if (!work)
        return;
      work->cancel();
      inputs.train.reset();
    }
    ~StopReaders() { stop(); }
  } stopReaders{inputs, dataWork};
  if (inputs.streamed && isChief)
    supervisor.saveDataState();
  supervisor.start();
  coord::HeartbeatSender heartbeats(coordinator, "worker", index,
                                    std::chrono::seconds(1));

  // Observability (runtime/train/Telemetry.h): --logdir and --trace.
  WorkerTelemetry telemetry(options.telemetry, spec, options.task, batch);
  if (!compute) {
    exec::ExecutorOptions executorOptions =
        executorOptionsFor(options.interOpThreads);
    executorOptions.opObserver = telemetry.opObserver();
    executorOptions.externalOps["dtf.pull_rows"] = makePullRowsHandler(ps);
    compute = makeCpuWorkerStep(worker, std::move(executorOptions), index);
  }
  ReplicaOptions replicaOptions;
  replicaOptions.sync = options.replication.sync;
  replicaOptions.pushPull = options.pushPull;
  replicaOptions.overlapPull = options.overlapPull;
  replicaOptions.trainSteps = options.trainSteps;
  ReplicaStep replica(worker.layout(), ps, *compute, supervisor, telemetry,
                      replicaOptions);

  std::cout << "Worker " << index << ": computing on " << compute->describe()
            << std::endl;
  std::cout << "Worker " << index << ": training to global step "
            << options.trainSteps;
  if (inputs.streamed && inputs.streamed->epochs > 0)
    std::cout << " or the end of " << inputs.streamed->epochs
              << " epoch(s) of the streamed input";
  std::cout << " (" << numWorkers << " workers, "
            << (options.replication.sync ? "sync" : "async") << ", batches of "
            << batch
            << (options.replication.sync ? ""
                : options.overlapPull    ? ", pulls overlapped"
                : options.pushPull       ? ", values brought back by pushes"
                                         : ", values pulled at each step")
            << ")" << std::endl;
  Clock::time_point start = Clock::now();
  TelemetryHook telemetryHook(telemetry);
  StepLogHook logHook(index, options.logEvery);
  std::vector<TrainingHook *> hooks = {&telemetryHook, &logHook};
  std::optional<InputLogHook> inputLog;
  if (inputs.streamed) {
    const auto &streaming =
        static_cast<const data::StreamingInput &>(*inputs.train);
    inputLog.emplace(index, options.logEvery, streaming);
    hooks.push_back(&*inputLog);
    telemetry.addScalars([rates = std::make_shared<InputRates>(streaming)] {
      return rates->sample().scalars();
    });
  }
  int64_t localSteps =
      trainReplica(replica, supervisor, *inputs.train, batch, std::move(hooks),
                   [&] { return heartbeats.stopRequested(); });
  supervisor.finish(); // [reliability] the last checkpoint
  double trainingSeconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  if (inputs.streamed) {
    // What was trained on reaches the coordinator before this worker says
    // it is done (which gives its units back); the reader goes before the
    // coordinator's connection does.
    dataWork->flush();
    printInputTotals(index,
                     static_cast<const data::StreamingInput &>(*inputs.train),
                     std::cout);
    stopReaders.stop();
  }
  std::cout << "Worker " << index << ": training ended after " << localSteps
            << " local steps" << std::endl;
  std::printf("Training elapsed time: %f s\n", trainingSeconds);
  // What this worker's training moved over the network, summed over the PS
  // tasks: Pull responses and Push requests (a PushPull is both, in one
  // round trip).
  ps::TransferStats traffic = replica.transferStats();
  std::printf("Worker %d: RPC traffic: pulled %llu bytes in %llu pulls, "
              "pushed %llu bytes in %llu pushes, in %llu round trips\n",
              index, static_cast<unsigned long long>(traffic.pulledBytes),
              static_cast<unsigned long long>(traffic.pulls),
              static_cast<unsigned long long>(traffic.pushedBytes),
              static_cast<unsigned long long>(traffic.pushes),
              static_cast<unsigned long long>(traffic.roundTrips()));

  // Validation on the whole evaluation input with the final parameters.
  if (inputs.validation) {
    FeedMap pulled;
    supervisor.withRecovery([&] { replica.pullAll(pulled); }); // [reliability]
    int64_t finalStep = 0;
    supervisor.withRecovery(
        [&] { finalStep = ps[0]->step(); }); // [reliability]
    validate(
        *inputs.validation, batch, finalStep, telemetry, std::move(pulled),
        [&](FeedMap &feeds) { return compute->evaluate(feeds); },
        options.resultNames, worker.auc);
  } else {
    std::cout << "Worker " << index
              << ": no evaluation input, no validation" << std::endl;
  }
  telemetry.finish();

  coordinator.workerDone(index);
  if (isChief) {
    coord::WorkerStates states =
        coordinator.waitWorkersDone(std::chrono::minutes(10));
    if (!states.lost.empty())
      std::cout << "Worker 0: " << states.lost.size()
                << " worker(s) lost during training" << std::endl;
    // The final checkpoint again, with what the other workers reported
    // trained on since the first (streamed input).
    if (inputs.streamed)
      supervisor.finish(/*replace=*/true);
    coordinator.stop("training finished");
    for (ps::PsConnection *task : ps)
      task->stop("training finished");
  }
  return 0;
}

} // namespace dtf::train
