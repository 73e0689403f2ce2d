//===- Tasks.cpp - What a PS task and a worker task do --------------------===//

#include "runtime/train/Tasks.h"

#include "runtime/train/Supervisor.h"
#include "runtime/train/WorkerProgram.h"
#include "runtime/train/WorkerStep.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "runtime/core/CpuKernels.h"
#include "runtime/core/HostMemory.h"
#include "runtime/rpc/CoordinationClient.h"
#include "runtime/rpc/CoordinationService.h"
#include "runtime/exec/PsProgram.h"
#include "runtime/rpc/ParameterServerService.h"
#include "runtime/rpc/PsClient.h"
#include "runtime/rpc/Server.h"

#include <chrono>
#include <cstdio>
#include <future>
#include <iostream>
#include <malloc.h>
#include <map>
#include <memory>
#include <optional>

namespace dtf::train {
namespace {

using Clock = std::chrono::steady_clock;

/// Seconds since the epoch, as TensorFlow's examples print time.time().
double wallSeconds() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

ps::Replication replicationOf(const TaskOptions &options) {
  return options.replication.sync
             ? ps::Replication::sync(options.replication.replicasToAggregate,
                                     options.replication.totalReplicas)
             : ps::Replication::async(options.replication.totalReplicas);
}

/// The tensor to push: the fetched gradients of one push group.
std::vector<rpc::TensorRef>
gradientRefs(const WorkerProgram::PushGroup &group,
             const std::vector<Tensor> &fetched, size_t firstIndex) {
  std::vector<rpc::TensorRef> refs;
  for (size_t i = 0; i < group.names.size(); ++i)
    refs.push_back({group.names[i], &fetched[firstIndex + i]});
  return refs;
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

void validate(data::InputSource &validation, int64_t batch,
              int64_t globalStep, WorkerTelemetry &telemetry, FeedMap feeds,
              const std::function<std::vector<Tensor>(FeedMap &)> &evaluate) {
  // Whole batches only: the model's batch is static.
  int64_t batches = validation.size() / batch;
  double lossSum = 0, accuracySum = 0;
  size_t numResults = 0;
  for (int64_t b = 0; b < batches; ++b) {
    validation.nextBatch(batch, feeds);
    std::vector<Tensor> results = evaluate(feeds);
    numResults = results.size();
    lossSum += results.at(0).scalarAsDouble();
    if (results.size() > 1)
      accuracySum += results[1].scalarAsDouble();
  }
  std::printf("After %lld training step(s), validation cross entropy = %g, "
              "validation accuracy = %g\n",
              static_cast<long long>(globalStep), lossSum / batches,
              accuracySum / batches);
  std::fflush(stdout);
  telemetry.validation(globalStep, lossSum / batches,
                       numResults > 1
                           ? std::optional<double>(accuracySum / batches)
                           : std::nullopt);
}

void keepStepMemoryOnTheHeap() {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

exec::ExecutorOptions executorOptionsFor(int interOpThreads) {
  exec::ExecutorOptions executorOptions;
  if (interOpThreads == 1 || interOpThreads < 0)
    executorOptions.runInCallerThread = true;
  else
    executorOptions.numThreads = static_cast<size_t>(interOpThreads);
  return executorOptions;
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
  configureCheckpointRestore(psOptions, options.reliability);
  psOptions.availableMemory = availableHostMemory();
  configureCrashAtStep(psOptions, options.reliability, label);
  configureHoldAtStep(psOptions, options.reliability, label);
  ps::ParameterServer task(
      std::make_unique<exec::PsProgram>(function, std::move(executorOptions)),
      replicationOf(options), psOptions);
  restoreAtStart(task, options.reliability, label, std::cout);
  rpc::Server server(serverOptions);
  rpc::ParameterServerService service(task,
                                      [&server] { server.requestStop(); });
  server.addService(service);

  std::unique_ptr<rpc::CoordinationService> coordination;
  if (index == 0) {
    rpc::CoordinationOptions coordinationOptions;
    coordinationOptions.numPsTasks = static_cast<int>(spec.ps().size());
    coordinationOptions.numWorkers = static_cast<int>(spec.workers().size());
    coordinationOptions.heartbeatTimeout =
        std::chrono::milliseconds(options.workerTimeoutMs);
    coordinationOptions.globalStep = [&task] { return task.currentStep(); };
    coordination =
        std::make_unique<rpc::CoordinationService>(coordinationOptions);
    server.addService(*coordination);
  }
  server.start();
  std::cout << securityNotice << std::endl; // [reliability]
  // [reliability] a (re)started PS task registers with the coordinator
  PsRegistration registration(spec.ps()[0].str(), index,
                              clientOptionsFor(options), std::cout);
  std::cout << "PS task " << index << " serving "
            << task.gradientNames().size() << " gradients at "
            << server.address() << "; CPU kernels: "
            << cpuKernels().describe() << std::endl;
  server.wait();
  telemetry.finish();
  ps::UpdateStats stats = task.stats();
  std::cout << "PS task " << index << " stopped at step "
            << task.currentStep() << ": applied " << stats.appliedUpdates
            << (options.replication.sync ? " aggregates" : " updates")
            << " of " << stats.appliedPushes << " pushes, dropped "
            << stats.stalePushes << " stale pushes" << std::endl;
  // On a line of its own, so that parsers of the line above keep working.
  std::cout << "PS task " << index << " staleness: " << stats.staleness.str()
            << std::endl;
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
  // The step is lowered and its device checked before anything else, so
  // that a worker that cannot compute there fails at once.
  std::unique_ptr<WorkerStep> step;
#ifdef DTF_HAVE_CUDA
  if (options.device.gpu)
    step = makeGpuWorkerStep(worker, options.device.ordinal);
#endif

  rpc::ClientOptions client = clientOptionsFor(options);
  std::vector<std::unique_ptr<rpc::PsClient>> ps;
  for (size_t task = 0; task < spec.ps().size(); ++task)
    ps.push_back(std::make_unique<rpc::PsClient>(
        cluster::TaskId{cluster::Job::PS, static_cast<int>(task)}.deviceName(),
        spec.ps()[task].str(), client));
  rpc::CoordinationClient coordinator(spec.ps()[0].str(), client);
  coordinator.waitUntilReachable();
  coordinator.registerTask("worker", index);
  for (auto &task : ps)
    task->waitUntilReachable();

  // [reliability] The chief initializes the variables (or confirms those
  // the PS tasks restored) and checkpoints; the others wait for it.
  Supervisor supervisor(ps, coordinator, options.reliability, index,
                        options.replication.sync);
  supervisor.start();
  rpc::HeartbeatSender heartbeats(coordinator, "worker", index,
                                  std::chrono::seconds(1));

  // Observability (runtime/train/Telemetry.h): --logdir and --trace.
  WorkerTelemetry telemetry(options.telemetry, spec, options.task, batch);
  if (!step) {
    exec::ExecutorOptions executorOptions =
        executorOptionsFor(options.interOpThreads);
    executorOptions.opObserver = telemetry.opObserver();
    step = makeCpuWorkerStep(worker, std::move(executorOptions));
  }
  // [speed] In async mode a push to a PS task also brings back the values
  // of the task's variables (PushPull): one round trip per step. With
  // --overlap_pull the push-pull of a step flies while the next step
  // computes on the values the one before brought.
  bool pushPull = !options.replication.sync;
  std::vector<int> pullGroupOf(worker.pushes.size(), -1);
  for (size_t i = 0; i < worker.pushes.size(); ++i)
    for (size_t g = 0; g < worker.pulls.size(); ++g)
      if (pushPull && worker.pulls[g].psTask == worker.pushes[i].psTask)
        pullGroupOf[i] = static_cast<int>(g);
  // Values of a pull group for the next step, when a push-pull brought them.
  std::vector<std::optional<rpc::PulledValues>> nextValues(worker.pulls.size());
  // Push-pulls in flight (--overlap_pull), by push group.
  std::vector<std::future<rpc::PushPullResult>> inFlight(worker.pushes.size());
  // Forgets what earlier steps left behind: after a failed RPC the step
  // starts over from a fresh pull.
  auto dropPending = [&] {
    for (auto &call : inFlight)
      if (call.valid())
        try {
          call.get();
        } catch (const rpc::RpcError &) {
          // The failure that ended the step, or one of its kind.
        }
    for (auto &values : nextValues)
      values.reset();
  };

  auto pullAll = [&](FeedMap &feeds) {
    supervisor.beginStep(); // [reliability] one epoch per step
    // The pulls of several PS tasks fly together; a single one runs on
    // this thread (PsClient::pull, no hand-off).
    size_t missing = 0;
    for (const auto &values : nextValues)
      missing += !values;
    std::vector<std::future<rpc::PulledValues>> pulls(worker.pulls.size());
    if (missing > 1)
      for (size_t g = 0; g < worker.pulls.size(); ++g)
        if (!nextValues[g])
          pulls[g] = ps[worker.pulls[g].psTask]->startPull(
              worker.pulls[g].variables);
    for (size_t g = 0; g < worker.pulls.size(); ++g) {
      const WorkerProgram::PullGroup &group = worker.pulls[g];
      rpc::PulledValues pulled;
      if (nextValues[g]) {
        pulled = std::move(*nextValues[g]);
        nextValues[g].reset();
      } else {
        auto span = telemetry.rpc("pull ps" + std::to_string(group.psTask),
                                  {{"variables", group.variables.size()}});
        if (pulls[g].valid())
          pulled = pulls[g].get();
        else
          pulled.values = ps[group.psTask]->pull(group.variables, &pulled.epoch);
      }
      supervisor.sawEpoch(pulled.epoch, ps[group.psTask]->peer());
      for (size_t i = 0; i < pulled.values.size(); ++i)
        feeds[group.feedNames[i]] = std::move(pulled.values[i]);
    }
  };

  std::cout << "Worker " << index << ": computing on " << step->describe()
            << std::endl;
  std::cout << "Worker " << index << ": training to global step "
            << options.trainSteps << " (" << numWorkers << " workers, "
            << (options.replication.sync ? "sync" : "async") << ", batches of "
            << batch << (options.overlapPull ? ", pulls overlapped" : "")
            << ")" << std::endl;
  Clock::time_point start = Clock::now();
  int64_t localStep = 0;
  int64_t globalStep = 0;
  // [reliability] A failed RPC ends the step; with --recovery_timeout_ms
  // the supervisor waits for the cluster to recover and the step starts
  // over from a fresh pull.
  while (true) try {
    if (heartbeats.stopRequested() || supervisor.stopRequested())
      break;
    telemetry.beginStep(localStep);
    FeedMap feeds;
    pullAll(feeds);
    inputs.train->nextBatch(batch, feeds);
    std::vector<Tensor> fetched;
    {
      auto span = telemetry.compute();
      fetched = step->train(feeds);
    }
    int64_t stepTag = -1;
    bool trained = false;
    for (size_t i = 0; i < worker.pushes.size(); ++i) {
      const WorkerProgram::PushGroup &group = worker.pushes[i];
      size_t offset = worker.pushOffset(i);
      stepTag = static_cast<int64_t>(fetched[offset].scalarAsDouble());
      if (inFlight[i].valid()) {
        // The previous step's push-pull: its values are the next step's.
        auto span = telemetry.rpc("push-pull ps" +
                                  std::to_string(group.psTask) + " (wait)");
        rpc::PushPullResult previous = inFlight[i].get();
        trained = trained || previous.push.step >= options.trainSteps;
        nextValues[pullGroupOf[i]] = std::move(previous.pulled);
      }
      if (stepTag >= options.trainSteps || trained)
        break;
      auto span = telemetry.rpc(
          (pullGroupOf[i] >= 0 ? "push-pull ps" : "push ps") +
              std::to_string(group.psTask),
          {{"step", stepTag}, {"gradients", group.names.size()}});
      if (pullGroupOf[i] < 0) {
        ps[group.psTask]->push(stepTag, gradientRefs(group, fetched, offset + 1),
                               supervisor.epoch());
        continue;
      }
      std::vector<rpc::NamedTensor> gradients;
      for (size_t k = 0; k < group.names.size(); ++k)
        gradients.push_back(
            {group.names[k], std::move(fetched[offset + 1 + k])});
      const std::vector<std::string> &pullNames =
          worker.pulls[pullGroupOf[i]].variables;
      if (options.overlapPull && localStep > 0) {
        inFlight[i] = ps[group.psTask]->startPushPull(
            stepTag, std::move(gradients), supervisor.epoch(), pullNames);
      } else {
        // Without overlap, and on the first step, which has no values
        // ahead yet: the step waits for its own.
        nextValues[pullGroupOf[i]] =
            ps[group.psTask]
                ->pushPull(stepTag, std::move(gradients), supervisor.epoch(),
                           pullNames)
                .pulled;
      }
    }
    if (stepTag >= options.trainSteps || trained)
      break;
    if (options.replication.sync)
      for (const WorkerProgram::PushGroup &group : worker.pushes) {
        auto span = telemetry.rpc("wait for step ps" +
                                      std::to_string(group.psTask),
                                  {{"step", stepTag}});
        ps[group.psTask]->waitForStep(stepTag, std::chrono::minutes(5),
                                      supervisor.epoch());
      }
    ++localStep;
    globalStep = stepTag + 1;
    telemetry.endStep(localStep, globalStep, fetched, worker.results.size());
    if (options.logEvery > 0 && localStep % options.logEvery == 0) {
      char line[160];
      std::snprintf(line, sizeof(line),
                    "%.6f: Worker %d: training step %lld done (global step: "
                    "%lld)",
                    wallSeconds(), index, static_cast<long long>(localStep),
                    static_cast<long long>(globalStep));
      std::cout << line << std::endl;
    }
    supervisor.afterStep(globalStep); // [reliability] checkpoint, delay
  } catch (const rpc::RpcError &error) {
    dropPending();
    if (!supervisor.recover(error)) // [reliability]
      throw;
  }
  // The last push-pulls still fly; validation pulls the final values afresh.
  dropPending();
  telemetry.endTraining();
  supervisor.finish(); // [reliability] the last checkpoint
  double trainingSeconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  std::cout << "Worker " << index << ": training ended after " << localStep
            << " local steps" << std::endl;
  std::printf("Training elapsed time: %f s\n", trainingSeconds);
  // What this worker's training moved over the network, summed over the PS
  // tasks: Pull responses and Push requests (a PushPull is both, in one
  // round trip).
  {
    rpc::TransferStats total;
    for (auto &task : ps) {
      rpc::TransferStats stats = task->transferStats();
      total.pulls += stats.pulls;
      total.pulledBytes += stats.pulledBytes;
      total.pushes += stats.pushes;
      total.pushedBytes += stats.pushedBytes;
      total.pushPulls += stats.pushPulls;
    }
    std::printf("Worker %d: RPC traffic: pulled %llu bytes in %llu pulls, "
                "pushed %llu bytes in %llu pushes, in %llu round trips\n",
                index, static_cast<unsigned long long>(total.pulledBytes),
                static_cast<unsigned long long>(total.pulls),
                static_cast<unsigned long long>(total.pushedBytes),
                static_cast<unsigned long long>(total.pushes),
                static_cast<unsigned long long>(total.roundTrips()));
  }

  // Validation on the whole evaluation input with the final parameters.
  if (inputs.validation) {
    FeedMap pulled;
    supervisor.withRecovery([&] { pullAll(pulled); }); // [reliability]
    int64_t finalStep = 0;
    supervisor.withRecovery(
        [&] { finalStep = ps[0]->step(); }); // [reliability]
    validate(*inputs.validation, batch, finalStep, telemetry,
             std::move(pulled),
             [&](FeedMap &feeds) { return step->evaluate(feeds); });
  } else {
    std::cout << "Worker " << index
              << ": no evaluation input, no validation" << std::endl;
  }
  telemetry.finish();

  coordinator.workerDone(index);
  if (isChief) {
    rpc::WorkerStates states =
        coordinator.waitWorkersDone(std::chrono::minutes(10));
    if (!states.lost.empty())
      std::cout << "Worker 0: " << states.lost.size()
                << " worker(s) lost during training" << std::endl;
    coordinator.stop("training finished");
    for (auto &task : ps)
      task->stop("training finished");
  }
  return 0;
}

} // namespace dtf::train
