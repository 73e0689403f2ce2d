//===- ParameterServer.cpp - The state machine of a PS task ---------------===//

#include "runtime/ps/ParameterServer.h"

#include "runtime/core/Error.h"
#include "runtime/core/HostMemory.h"
#include "runtime/core/Sparse.h"
#include "runtime/core/Strings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <type_traits>

namespace dtf::ps {

std::string TensorType::str() const {
  return dtypeName(dtype) + shapeToString(shape);
}

bool TensorType::accepts(const TensorType &tensor) const {
  if (dtype != tensor.dtype || shape.size() != tensor.shape.size())
    return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] != -1 && shape[i] != tensor.shape[i])
      return false;
  return true;
}

std::vector<std::string> ProgramSignature::pushTensorNames() const {
  std::vector<std::string> names = gradientNames;
  for (const std::string &name : sparseGradientNames) {
    names.push_back(name);
    names.push_back(name);
  }
  return names;
}

void StalenessHistogram::add(int64_t staleness) {
  staleness = std::max<int64_t>(staleness, 0);
  ++counts[std::min(staleness, kExactBuckets)];
  ++pushes;
  sum += staleness;
  max = std::max(max, staleness);
}

std::string StalenessHistogram::str() const {
  if (pushes == 0)
    return "none";
  std::string text;
  for (int64_t bucket = 0; bucket <= kExactBuckets; ++bucket) {
    if (counts[bucket] == 0)
      continue;
    text += (bucket == kExactBuckets ? ">=" : "") + std::to_string(bucket) +
            ":" + std::to_string(counts[bucket]) + " ";
  }
  char summary[64];
  std::snprintf(summary, sizeof(summary), "(mean %.2f, max %lld)", mean(),
                static_cast<long long>(max));
  return text + summary;
}

ParameterServer::ParameterServer(std::unique_ptr<UpdateProgram> program,
                                 Replication replication, Options options)
    : program(std::move(program)), signature(this->program->signature()),
      pushNames_(signature.pushTensorNames()), replication_(replication),
      options_(std::move(options)) {
  if (replication_.replicasToAggregate < 1 || replication_.totalReplicas < 1)
    throw std::invalid_argument(
        messagePrefix() + "replicas_to_aggregate and total_replicas must be "
                          "positive");
  if (replication_.mode == Replication::Mode::Async)
    replication_.replicasToAggregate = 1;
  holdsGlobalStep = signature.variables.count(options_.globalStepName) != 0;
  checkVariablesFitInMemory();
  // Dividing a step takes a copy of every variable before each update: of
  // whole embedding tables, for the few rows a sparse push touches.
  if (options_.divideByStaleness && !signature.sparseGradientNames.empty())
    throw std::invalid_argument(
        messagePrefix() +
        "--divide_lr_by_staleness is not supported for sparse gradients "
        "(of '" +
        signature.sparseGradientNames.front() +
        "'): it would copy the whole table at each update");
  checkSignature();
}

void ParameterServer::checkSignature() {
  for (const std::string &name : pushNames_)
    if (!signature.variables.count(name))
      throw std::invalid_argument(messagePrefix() + "the gradients name '" +
                                  name +
                                  "', which is not a variable of the task");
  // Arguments: replicasToAggregate groups of one gradient per name.
  size_t numGradients = pushNames_.size();
  size_t groups = static_cast<size_t>(replication_.replicasToAggregate);
  const std::vector<TensorType> &arguments = signature.argumentTypes;
  if (arguments.size() != groups * numGradients)
    throw std::invalid_argument(
        messagePrefix() + "the PS function takes " +
        std::to_string(arguments.size()) + " arguments, but " +
        std::to_string(groups) + " group(s) of the " +
        std::to_string(numGradients) + " gradients in dtf.gradients make " +
        std::to_string(groups * numGradients) +
        " (is the replication mode the module's?)");
  for (size_t k = 0; k < numGradients; ++k)
    for (size_t r = 1; r < groups; ++r)
      if (arguments[r * numGradients + k] != arguments[k])
        throw std::invalid_argument(
            messagePrefix() + "argument " +
            std::to_string(r * numGradients + k) +
            " differs in type from argument " + std::to_string(k) +
            ", though both are gradients of '" + pushNames_[k] + "'");
}

void ParameterServer::checkVariablesFitInMemory() const {
  if (!options_.availableMemory)
    return;
  uint64_t total = 0, largestBytes = 0;
  const std::string *largest = nullptr;
  for (const auto &[name, type] : signature.variables) {
    uint64_t bytes = static_cast<uint64_t>(numElementsOf(type.shape)) *
                     dtypeSize(type.dtype);
    total += bytes;
    if (!largest || bytes > largestBytes) {
      largest = &name;
      largestBytes = bytes;
    }
  }
  if (total <= *options_.availableMemory)
    return;
  throw std::invalid_argument(
      messagePrefix() + "variable '" + *largest + "' (" +
      signature.variables.at(*largest).str() + ") needs " +
      std::to_string(largestBytes) + " bytes (" + formatBytes(largestBytes) +
      "); the variables of the task need " + formatBytes(total) +
      " in all, more than the " + formatBytes(*options_.availableMemory) +
      " of memory this task can allocate");
}

//===----------------------------------------------------------------------===//
// Serving
//===----------------------------------------------------------------------===//

bool ParameterServer::initialize() {
  std::lock_guard<std::mutex> lock(mutex);
  checkServingLocked(/*needInitialized=*/false);
  if (initialized)
    return false;
  // Values preloaded from a checkpoint are kept, with their step.
  bool preloaded = !variables.empty();
  try {
    program->initialize(variables);
  } catch (const std::exception &error) {
    throw Error(ErrorCode::Internal,
                messagePrefix() +
                    "initializing the variables failed: " + error.what());
  }
  initialized = true;
  if (!preloaded)
    step = holdsGlobalStep ? readGlobalStepLocked() : 0;
  stepChanged.notify_all();
  return !preloaded;
}

bool ParameterServer::isInitialized() const {
  std::lock_guard<std::mutex> lock(mutex);
  return initialized;
}

int64_t ParameterServer::currentStep() const {
  std::lock_guard<std::mutex> lock(mutex);
  return step;
}

UpdateStats ParameterServer::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return stats_;
}

TaskStatus ParameterServer::status() const {
  std::lock_guard<std::mutex> lock(mutex);
  TaskStatus status;
  status.step = step;
  status.initialized = initialized;
  status.epoch = epoch;
  status.hasValues = !variables.empty();
  status.restoredFrom = restoredFrom;
  status.holdsGlobalStep = holdsGlobalStep;
  return status;
}

void ParameterServer::checkServing() const {
  std::lock_guard<std::mutex> lock(mutex);
  checkServingLocked(/*needInitialized=*/false);
}

void ParameterServer::beginShutdown() {
  std::lock_guard<std::mutex> lock(mutex);
  shuttingDown = true;
  stepChanged.notify_all();
}

int64_t ParameterServer::readGlobalStepLocked() const {
  return static_cast<int64_t>(
      std::llround(variables.at(options_.globalStepName).scalarAsDouble()));
}

std::string ParameterServer::describeHeldVariables() const {
  std::vector<std::string> names;
  for (const auto &entry : signature.variables)
    names.push_back(entry.first);
  return names.empty() ? "it holds none" : "it holds " + joinNames(names);
}

void ParameterServer::checkServingLocked(bool needInitialized) const {
  if (shuttingDown)
    throw Error(ErrorCode::Unavailable, messagePrefix() + "shutting down");
  if (failure)
    throw Error(ErrorCode::Internal, *failure);
  if (needInitialized && !initialized)
    throw Error(
        ErrorCode::FailedPrecondition,
        messagePrefix() +
            (variables.empty()
                 ? "the variables are not initialized yet (the chief "
                   "initializes them)"
                 : "the task restored the checkpoint of step " +
                       std::to_string(restoredFrom) +
                       " and waits for the chief to restore the model"));
}

void ParameterServer::read(
    const std::vector<std::string> &names,
    const std::function<void(const std::vector<const Tensor *> &, int64_t)>
        &read) const {
  std::lock_guard<std::mutex> lock(mutex);
  checkServingLocked(/*needInitialized=*/true);
  std::vector<const Tensor *> values;
  for (const std::string &name : names) {
    auto it = variables.find(name);
    if (it == variables.end())
      throw Error(ErrorCode::NotFound, messagePrefix() + "no variable '" +
                                           name + "' (" +
                                           describeHeldVariables() + ")");
    values.push_back(&it->second);
  }
  read(values, epoch);
}

std::vector<Tensor>
ParameterServer::readRows(const std::vector<RowRequest> &requests,
                          int64_t *readEpoch) const {
  std::lock_guard<std::mutex> lock(mutex);
  checkServingLocked(/*needInitialized=*/true);
  std::vector<Tensor> rows;
  rows.reserve(requests.size());
  for (const RowRequest &request : requests) {
    auto it = variables.find(request.name);
    if (it == variables.end())
      throw Error(ErrorCode::NotFound, messagePrefix() + "no variable '" +
                                           request.name + "' (" +
                                           describeHeldVariables() + ")");
    if (request.ids.rank() != 1)
      throw Error(ErrorCode::InvalidArgument,
                  messagePrefix() + "rows of '" + request.name +
                      "' asked for by ids " + request.ids.typeString() +
                      "; row ids are 1-D");
    try {
      rows.push_back(kernels::gather(it->second, request.ids));
    } catch (const std::exception &error) {
      throw Error(ErrorCode::InvalidArgument, messagePrefix() + "rows of '" +
                                                  request.name +
                                                  "': " + error.what());
    }
  }
  if (readEpoch)
    *readEpoch = epoch;
  return rows;
}

Snapshot ParameterServer::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex);
  checkServingLocked(/*needInitialized=*/true);
  Snapshot copy;
  copy.step = step;
  copy.epoch = epoch;
  copy.holdsGlobalStep = holdsGlobalStep;
  for (const auto &[name, value] : variables)
    copy.tensors.push_back({name, value.clone()});
  return copy;
}

int64_t ParameterServer::waitForStep(int64_t awaited, int64_t awaitedEpoch,
                                     std::chrono::milliseconds timeout,
                                     const std::function<bool()> &isCancelled,
                                     std::chrono::milliseconds pollInterval) {
  timeout = std::clamp(timeout, std::chrono::milliseconds(0), options_.maxWait);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    checkServingLocked(/*needInitialized=*/true);
    if (awaitedEpoch != 0 && awaitedEpoch != epoch)
      throw Error(ErrorCode::Aborted,
                  messagePrefix() + "the model was restored (epoch " +
                      std::to_string(epoch) + ", waited in epoch " +
                      std::to_string(awaitedEpoch) + "); pull again");
    if (step > awaited)
      return step;
    if (isCancelled && isCancelled())
      throw Error(ErrorCode::Cancelled,
                  messagePrefix() + "WaitForStep cancelled");
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline)
      throw Error(
          ErrorCode::DeadlineExceeded,
          messagePrefix() + "the step is still " + std::to_string(step) +
              " after " + std::to_string(timeout.count()) +
              " ms of waiting for it to pass " + std::to_string(awaited));
    stepChanged.wait_until(lock, std::min(deadline, now + pollInterval));
  }
}

//===----------------------------------------------------------------------===//
// Restoring
//===----------------------------------------------------------------------===//

VariableStore ParameterServer::ownVariables(ModelState &state,
                                            const std::string &source) const {
  VariableStore own;
  for (const auto &[name, type] : signature.variables) {
    auto it = state.values.find(name);
    if (it == state.values.end())
      throw std::invalid_argument(messagePrefix() + source +
                                  " has no value of variable '" + name +
                                  "' (is it a checkpoint of this model?)");
    TensorType held{it->second.dtype(), it->second.shape()};
    if (held != type)
      throw std::invalid_argument(
          messagePrefix() + source + " holds variable '" + name + "' as " +
          held.str() + " but the model declares it " + type.str());
    own.emplace(name, std::move(it->second));
  }
  return own;
}

void ParameterServer::installLocked(VariableStore values, int64_t stateStep,
                                    int64_t restoredFromStep,
                                    int64_t newEpoch) {
  variables = std::move(values);
  // A task without global_step counts aggregates: after a restore it
  // counts on from the restored global step, as the workers' step tags do.
  step = holdsGlobalStep ? readGlobalStepLocked() : stateStep;
  restoredFrom = restoredFromStep;
  epoch = newEpoch;
  aggregate.clear();
  queued.clear();
  failure.reset();
  stepChanged.notify_all();
}

void ParameterServer::preload(ModelState state, int64_t checkpointStep) {
  VariableStore own = ownVariables(state, "the checkpoint of step " +
                                              std::to_string(checkpointStep));
  std::lock_guard<std::mutex> lock(mutex);
  if (initialized)
    throw std::logic_error(messagePrefix() +
                           "preload() after the task started serving");
  installLocked(std::move(own), state.step, checkpointStep, /*newEpoch=*/0);
}

int64_t ParameterServer::restore(RestoreSource source, int64_t checkpointStep,
                                 int64_t newEpoch) {
  auto unavailable = [&](const std::string &why) {
    return Error(ErrorCode::FailedPrecondition, messagePrefix() + why);
  };
  if (newEpoch <= 0)
    throw Error(ErrorCode::InvalidArgument,
                messagePrefix() + "a restore needs an epoch > 0");
  VariableStore values;
  int64_t stateStep = 0;
  int64_t from = -1;
  switch (source) {
  case RestoreSource::InitialValues:
    program->initialize(values);
    break;
  case RestoreSource::Checkpoint: {
    std::string checkpoint =
        "the checkpoint of step " + std::to_string(checkpointStep);
    if (!options_.loadCheckpoint)
      throw unavailable("cannot restore a checkpoint: the task has no "
                        "checkpoint directory (--logdir)");
    ModelState state;
    try {
      state = options_.loadCheckpoint(checkpointStep);
    } catch (const std::exception &error) {
      throw unavailable("cannot restore " + checkpoint + ": " + error.what());
    }
    try {
      values = ownVariables(state, checkpoint);
    } catch (const std::invalid_argument &error) {
      throw Error(ErrorCode::FailedPrecondition, error.what());
    }
    stateStep = state.step;
    from = checkpointStep;
    break;
  }
  case RestoreSource::KeepRestored:
    break;
  }

  std::lock_guard<std::mutex> lock(mutex);
  if (shuttingDown)
    throw unavailable("shutting down");
  if (newEpoch < epoch)
    throw Error(ErrorCode::InvalidArgument,
                messagePrefix() + "restore to epoch " +
                    std::to_string(newEpoch) +
                    ", older than the task's epoch " + std::to_string(epoch));
  if (source == RestoreSource::KeepRestored) {
    if (initialized || variables.empty() || restoredFrom != checkpointStep)
      throw unavailable(
          "cannot keep the values restored at start-up from the checkpoint "
          "of step " +
          std::to_string(checkpointStep) + ": " +
          (initialized ? "the task serves already"
           : variables.empty()
               ? "it restored none"
               : "it restored step " + std::to_string(restoredFrom)));
    values = std::move(variables);
    stateStep = step;
    from = restoredFrom;
  }
  installLocked(std::move(values), stateStep, from, newEpoch);
  initialized = true;
  return step;
}

//===----------------------------------------------------------------------===//
// Applying gradients
//===----------------------------------------------------------------------===//

void ParameterServer::checkEpochLocked(int64_t pushEpoch) const {
  if (pushEpoch != 0 && pushEpoch != epoch)
    throw Error(ErrorCode::Aborted,
                messagePrefix() +
                    "push refused, nothing applied: it was computed from the "
                    "values of epoch " +
                    std::to_string(pushEpoch) +
                    " but the model was restored since (epoch " +
                    std::to_string(epoch) + "); pull again");
}

void ParameterServer::checkPushAccepted(int64_t pushEpoch) const {
  std::lock_guard<std::mutex> lock(mutex);
  checkServingLocked(/*needInitialized=*/true);
  checkEpochLocked(pushEpoch);
}

void ParameterServer::checkGradient(size_t index, const std::string &name,
                                    DType dtype, const Shape &shape) const {
  const std::vector<std::string> &names = pushNames_;
  if (index >= names.size())
    throw std::invalid_argument("the push carries more than the " +
                                std::to_string(names.size()) +
                                " gradient(s) the task takes (" + joinNames(names) +
                                "): '" + name + "' is extra");
  const std::string &expectedName = names[index];
  if (name != expectedName) {
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw std::invalid_argument(
          "the gradient of '" + name + "' comes at position " +
          std::to_string(index) + ", where '" + expectedName +
          "' belongs (the order of dtf.gradients is " + joinNames(names) + ")");
    if (signature.variables.count(name))
      throw std::invalid_argument("variable '" + name +
                                  "' takes no gradients (dtf.gradients is " +
                                  joinNames(names) + ")");
    throw std::invalid_argument("'" + name +
                                "' is not a variable of the task (expected "
                                "the gradient of '" +
                                expectedName + "' at position " +
                                std::to_string(index) + "; " +
                                describeHeldVariables() + ")");
  }
  const TensorType &expected = signature.argumentTypes[index];
  TensorType pushed{dtype, shape};
  if (!expected.accepts(pushed))
    throw std::invalid_argument("the gradient of '" + name + "' is " +
                                pushed.str() + " but variable '" + name +
                                "' is " + expected.str());
}

namespace {

/// Takes `updated` back towards `before` so that it moves by `factor` of
/// the step the update took: before + factor * (updated - before).
/// Floating-point tensors only; others (a step counter) keep the update.
void scaleStep(const Tensor &before, Tensor &updated, double factor) {
  auto scale = [&](auto *after, const auto *old) {
    for (int64_t i = 0, n = updated.numElements(); i < n; ++i)
      after[i] = old[i] + static_cast<std::remove_pointer_t<decltype(after)>>(
                              factor * (after[i] - old[i]));
  };
  if (updated.dtype() == DType::F32)
    scale(updated.data<float>(), before.data<float>());
  else if (updated.dtype() == DType::F64)
    scale(updated.data<double>(), before.data<double>());
}

} // namespace

PushResult ParameterServer::push(int64_t pushStep, int64_t pushEpoch,
                                 std::vector<Tensor> gradients) {
  auto rejected = [&](const std::string &why) {
    return Error(ErrorCode::InvalidArgument,
                 messagePrefix() + "push rejected, nothing applied: " + why);
  };
  const std::vector<std::string> &names = pushNames_;
  try {
    for (size_t k = 0; k < gradients.size(); ++k)
      checkGradient(k, k < names.size() ? names[k] : "#" + std::to_string(k),
                    gradients[k].dtype(), gradients[k].shape());
  } catch (const std::invalid_argument &error) {
    throw rejected(error.what());
  }
  if (gradients.size() != names.size())
    throw rejected("the push carries " + std::to_string(gradients.size()) +
                   " of the " + std::to_string(names.size()) +
                   " gradients the task takes; the gradient of '" +
                   names[gradients.size()] + "' is missing");

  std::lock_guard<std::mutex> lock(mutex);
  checkServingLocked(/*needInitialized=*/true);
  checkEpochLocked(pushEpoch);
  PushOutcome outcome = PushOutcome::Applied;
  if (replication_.mode == Replication::Mode::Async) {
    int64_t staleness = std::max<int64_t>(step - pushStep, 0);
    if (options_.maxStaleness > 0 && staleness > options_.maxStaleness) {
      ++stats_.stalePushes;
      return {PushOutcome::Stale, step};
    }
    if (options_.divideByStaleness && staleness > 1) {
      // The learning rate is divided, not the gradient: Adam, Adagrad and
      // RMSProp normalize a gradient by its own magnitude and would undo a
      // scaled one. The optimizer's slots take the whole gradient; the
      // variables move by 1/staleness of the step it computed.
      std::vector<Tensor> before;
      for (const std::string &name : names)
        before.push_back(variables.at(name).clone());
      applyLocked(std::move(gradients), {pushStep});
      for (size_t k = 0; k < names.size() && !failure; ++k)
        scaleStep(before[k], variables.at(names[k]),
                  1.0 / static_cast<double>(staleness));
    } else {
      applyLocked(std::move(gradients), {pushStep});
    }
  } else
    outcome = applySyncLocked(pushStep, std::move(gradients));
  if (failure)
    throw Error(ErrorCode::Internal, *failure);
  return {outcome, step};
}

void ParameterServer::applyLocked(std::vector<Tensor> arguments,
                                  const std::vector<int64_t> &pushSteps) {
  int64_t before = step;
  auto begin = std::chrono::steady_clock::now();
  try {
    program->apply(variables, std::move(arguments));
  } catch (const std::exception &error) {
    failure = messagePrefix() +
              "applying gradients failed, the variables "
              "may be partly updated: " +
              error.what();
    stepChanged.notify_all();
    return;
  }
  ++stats_.appliedUpdates;
  stats_.appliedPushes += replication_.replicasToAggregate;
  for (int64_t pushStep : pushSteps) {
    int64_t staleness = std::max<int64_t>(before - pushStep, 0);
    stats_.staleness.add(staleness);
    if (options_.onPushApplied)
      options_.onPushApplied(staleness);
  }
  if (holdsGlobalStep) {
    step = readGlobalStepLocked();
    if (replication_.mode == Replication::Mode::Sync && step != before + 1)
      failure = messagePrefix() + "the PS function moved " +
                options_.globalStepName + " from " + std::to_string(before) +
                " to " + std::to_string(step) +
                " while applying one aggregate (it must add one)";
  } else {
    ++step;
  }
  if (options_.onApplied)
    options_.onApplied(step, begin, std::chrono::steady_clock::now());
  stepChanged.notify_all();
}

bool ParameterServer::accumulateLocked(int64_t pushStep,
                                       GradientGroup gradients) {
  aggregate.push_back({pushStep, std::move(gradients)});
  if (static_cast<int64_t>(aggregate.size()) < replication_.replicasToAggregate)
    return false;
  // Argument r*K+k is the r-th group's gradient of variable k.
  std::vector<Tensor> arguments;
  std::vector<int64_t> pushSteps;
  for (PendingPush &pending : aggregate) {
    pushSteps.push_back(pending.step);
    for (Tensor &gradient : pending.gradients)
      arguments.push_back(std::move(gradient));
  }
  aggregate.clear();
  applyLocked(std::move(arguments), pushSteps);
  return true;
}

PushOutcome ParameterServer::applySyncLocked(int64_t pushStep,
                                             GradientGroup gradients) {
  if (pushStep < step) {
    ++stats_.stalePushes;
    return PushOutcome::Stale;
  }
  if (pushStep > step) {
    if (queued.size() >= options_.maxQueuedPushes)
      throw Error(ErrorCode::ResourceExhausted,
                  messagePrefix() +
                      "too many pushes for future steps are queued (" +
                      std::to_string(queued.size()) + "); the push for step " +
                      std::to_string(pushStep) + " is refused at step " +
                      std::to_string(step));
    queued.emplace(pushStep, std::move(gradients));
    return PushOutcome::Queued;
  }
  if (!accumulateLocked(pushStep, std::move(gradients)))
    return PushOutcome::Accumulated;
  // The step advanced: the pushes queued for the new step join its
  // aggregate, which may complete it and advance the step again. Queued
  // pushes a completed step left behind are stale now.
  while (!failure && !queued.empty()) {
    auto first = queued.begin();
    if (first->first > step)
      break;
    int64_t queuedStep = first->first;
    GradientGroup group = std::move(first->second);
    queued.erase(first);
    if (queuedStep == step)
      accumulateLocked(queuedStep, std::move(group));
    else
      ++stats_.stalePushes;
  }
  return PushOutcome::Applied;
}

} // namespace dtf::ps
