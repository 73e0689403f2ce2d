//===- CoordinationService.cpp - Start-up and end of training -------------===//

#include "runtime/rpc/CoordinationService.h"

#include "runtime/rpc/Auth.h"

#include <algorithm>

namespace dtf::rpc {

namespace {

/// How often waits re-evaluate: a worker gets lost by time passing, and
/// a client may leave, without any call signalling it.
constexpr std::chrono::milliseconds kPollInterval{50};

std::string join(const std::vector<int> &indices) {
  std::string text;
  for (int index : indices)
    text += (text.empty() ? "" : ", ") + std::to_string(index);
  return text;
}

std::string describe(const TaskId &task) {
  return "/job:" + task.job() + "/task:" + std::to_string(task.index());
}

} // namespace

CoordinationService::CoordinationService(CoordinationOptions options)
    : options(std::move(options)) {
  workers.resize(std::max(this->options.numWorkers, 0));
  psRegistered.resize(std::max(this->options.numPsTasks, 0));
  // A worker that never shows up is lost one heartbeat timeout after the
  // start.
  for (WorkerState &worker : workers)
    worker.lastSeen = Clock::now();
}

bool CoordinationService::isInitialized() const {
  std::lock_guard<std::mutex> lock(mutex);
  return initialized;
}

bool CoordinationService::stopRequested() const {
  std::lock_guard<std::mutex> lock(mutex);
  return stopRequested_;
}

WorkerStates CoordinationService::workerStates() const {
  std::lock_guard<std::mutex> lock(mutex);
  return workerStatesLocked(Clock::now());
}

void CoordinationService::beginShutdown() {
  std::lock_guard<std::mutex> lock(mutex);
  shuttingDown = true;
  changed.notify_all();
}

WorkerStates
CoordinationService::workerStatesLocked(Clock::time_point now) const {
  WorkerStates states;
  for (size_t index = 0; index < workers.size(); ++index) {
    const WorkerState &worker = workers[index];
    if (worker.done)
      states.done.push_back(index);
    else if (now - worker.lastSeen > options.heartbeatTimeout)
      states.lost.push_back(index);
    else
      states.running.push_back(index);
  }
  return states;
}

grpc::Status CoordinationService::checkTask(const TaskId &task) const {
  size_t count;
  if (task.job() == "worker")
    count = workers.size();
  else if (task.job() == "ps")
    count = psRegistered.size();
  else
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "coordinator: unknown job '" + task.job() +
                            "' (the jobs are ps and worker)");
  if (task.index() < 0 || static_cast<size_t>(task.index()) >= count)
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "coordinator: no task " + describe(task) +
                            " in a cluster of " + std::to_string(count) + " " +
                            task.job() + " task(s)");
  return grpc::Status::OK;
}

void CoordinationService::sawTaskLocked(const TaskId &task) {
  if (task.job() == "worker") {
    workers[task.index()].registered = true;
    workers[task.index()].lastSeen = Clock::now();
  } else {
    psRegistered[task.index()] = true;
  }
}

grpc::Status CoordinationService::waitLocked(
    std::unique_lock<std::mutex> &lock, grpc::ServerContext *context,
    int64_t timeoutMs, const std::function<std::optional<grpc::Status>()> &poll,
    const std::function<std::string()> &timeoutMessage) {
  auto timeout = std::min(
      std::chrono::milliseconds(std::max<int64_t>(timeoutMs, 0)),
      options.maxWait);
  auto deadline = Clock::now() + timeout;
  while (true) {
    if (shuttingDown)
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "coordinator: shutting down");
    if (std::optional<grpc::Status> status = poll())
      return *status;
    if (context->IsCancelled())
      return grpc::Status(grpc::StatusCode::CANCELLED,
                          "coordinator: the call was cancelled");
    auto now = Clock::now();
    if (now >= deadline)
      return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                          "coordinator: " + timeoutMessage());
    changed.wait_until(lock, std::min(deadline, now + kPollInterval));
  }
}

grpc::Status CoordinationService::RegisterTask(grpc::ServerContext *context,
                                               const RegisterTaskRequest *request,
                                               RegisterTaskResponse *response) {
  if (grpc::Status denied = checkClusterToken(*context, clusterToken,
                                              "coordinator");
      !denied.ok())
    return denied;
  std::lock_guard<std::mutex> lock(mutex);
  if (grpc::Status valid = checkTask(request->task()); !valid.ok())
    return valid;
  sawTaskLocked(request->task());
  // A worker registering again has restarted: whatever it reported
  // before its restart no longer holds.
  if (request->task().job() == "worker")
    workers[request->task().index()].done = false;
  response->set_initialized(initialized);
  response->set_stop_requested(stopRequested_);
  changed.notify_all();
  return grpc::Status::OK;
}

grpc::Status CoordinationService::Heartbeat(grpc::ServerContext *context,
                                            const HeartbeatRequest *request,
                                            HeartbeatResponse *response) {
  if (grpc::Status denied = checkClusterToken(*context, clusterToken,
                                              "coordinator");
      !denied.ok())
    return denied;
  std::lock_guard<std::mutex> lock(mutex);
  if (grpc::Status valid = checkTask(request->task()); !valid.ok())
    return valid;
  sawTaskLocked(request->task());
  response->set_stop_requested(stopRequested_);
  changed.notify_all();
  return grpc::Status::OK;
}

grpc::Status CoordinationService::MarkInitialized(grpc::ServerContext *context,
                                                  const MarkInitializedRequest *,
                                                  MarkInitializedResponse *) {
  if (grpc::Status denied = checkClusterToken(*context, clusterToken,
                                              "coordinator");
      !denied.ok())
    return denied;
  std::lock_guard<std::mutex> lock(mutex);
  initialized = true;
  changed.notify_all();
  return grpc::Status::OK;
}

grpc::Status CoordinationService::WaitInitialized(
    grpc::ServerContext *context, const WaitInitializedRequest *request,
    WaitInitializedResponse *) {
  if (grpc::Status denied = checkClusterToken(*context, clusterToken,
                                              "coordinator");
      !denied.ok())
    return denied;
  std::unique_lock<std::mutex> lock(mutex);
  return waitLocked(
      lock, context, request->timeout_ms(),
      [&]() -> std::optional<grpc::Status> {
        if (initialized)
          return grpc::Status::OK;
        if (stopRequested_)
          return grpc::Status(grpc::StatusCode::ABORTED,
                              "coordinator: training was stopped before the "
                              "variables were initialized: " +
                                  stopReason);
        return std::nullopt;
      },
      [] { return std::string("the chief has not initialized the variables "
                              "yet"); });
}

grpc::Status CoordinationService::GetGlobalStep(grpc::ServerContext *context,
                                                const GetGlobalStepRequest *,
                                                GetGlobalStepResponse *response) {
  if (grpc::Status denied = checkClusterToken(*context, clusterToken,
                                              "coordinator");
      !denied.ok())
    return denied;
  if (!options.globalStep)
    return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                        "coordinator: no source of the global step (read it "
                        "from the PS task holding global_step)");
  try {
    response->set_step(options.globalStep());
  } catch (const std::exception &error) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        std::string("coordinator: reading the global step "
                                    "failed: ") +
                            error.what());
  }
  return grpc::Status::OK;
}

grpc::Status CoordinationService::WorkerDone(grpc::ServerContext *context,
                                             const WorkerDoneRequest *request,
                                             WorkerDoneResponse *) {
  if (grpc::Status denied = checkClusterToken(*context, clusterToken,
                                              "coordinator");
      !denied.ok())
    return denied;
  TaskId task;
  task.set_job("worker");
  task.set_index(request->index());
  std::lock_guard<std::mutex> lock(mutex);
  if (grpc::Status valid = checkTask(task); !valid.ok())
    return valid;
  sawTaskLocked(task);
  workers[task.index()].done = true;
  changed.notify_all();
  return grpc::Status::OK;
}

grpc::Status CoordinationService::WaitWorkersDone(
    grpc::ServerContext *context, const WaitWorkersDoneRequest *request,
    WaitWorkersDoneResponse *response) {
  if (grpc::Status denied = checkClusterToken(*context, clusterToken,
                                              "coordinator");
      !denied.ok())
    return denied;
  std::unique_lock<std::mutex> lock(mutex);
  WorkerStates states;
  return waitLocked(
      lock, context, request->timeout_ms(),
      [&]() -> std::optional<grpc::Status> {
        if (stopRequested_)
          return grpc::Status(grpc::StatusCode::ABORTED,
                              "coordinator: training was stopped: " +
                                  stopReason);
        states = workerStatesLocked(Clock::now());
        if (!states.running.empty())
          return std::nullopt;
        response->mutable_done()->Add(states.done.begin(), states.done.end());
        response->mutable_lost()->Add(states.lost.begin(), states.lost.end());
        return grpc::Status::OK;
      },
      [&] {
        return "worker(s) " + join(states.running) +
               " are still running (done: " + join(states.done) +
               "; lost: " + join(states.lost) + ")";
      });
}

grpc::Status CoordinationService::Stop(grpc::ServerContext *context,
                                       const StopTrainingRequest *request,
                                       StopTrainingResponse *) {
  if (grpc::Status denied = checkClusterToken(*context, clusterToken,
                                              "coordinator");
      !denied.ok())
    return denied;
  std::lock_guard<std::mutex> lock(mutex);
  if (!stopRequested_) {
    stopRequested_ = true;
    stopReason = request->reason().empty() ? "no reason given"
                                           : request->reason();
  }
  changed.notify_all();
  return grpc::Status::OK;
}

} // namespace dtf::rpc
