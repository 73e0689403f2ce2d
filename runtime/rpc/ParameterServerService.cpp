//===- ParameterServerService.cpp - A PS task's variables over gRPC -------===//

#include "runtime/rpc/ParameterServerService.h"

#include "dtf/runtime/HostMemory.h"

#include "runtime/rpc/Auth.h"
#include "runtime/rpc/TensorCodec.h"

// The ODS-generated op classes have unused parameters; they are not ours
// to fix.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "dialects/dtf/IR/DTFOps.h"
#pragma GCC diagnostic pop

#include <algorithm>
#include <cmath>
#include <stdexcept>

// The dialect lives in mlir::dtf, the runtime in ::dtf.
namespace ir = mlir::dtf;

namespace dtf::rpc {

namespace {

/// How often blocked waits look whether their client is still there.
constexpr std::chrono::milliseconds kCancellationPoll{100};

/// The sync queue of future pushes is full.
class QueueFull : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

std::string join(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "" : ", ") + name;
  return text;
}

std::string typeString(DType dtype, const Shape &shape) {
  return dtypeName(dtype) + shapeToString(shape);
}

} // namespace

ParameterServerService::ParameterServerService(
    mlir::func::FuncOp function, Replication replication,
    std::function<void()> onStop, ParameterServerOptions options)
    : function(function), replication(replication), onStop(std::move(onStop)),
      options_(std::move(options)) {
  if (auto device = function->getAttrOfType<ir::DeviceAttr>(
          ir::DTFDialect::getDeviceAttrName()))
    taskName_ = device.getName();
  else
    taskName_ = "@" + function.getSymName().str();

  if (replication.replicasToAggregate < 1 || replication.totalReplicas < 1)
    throw std::invalid_argument(
        errorPrefix() + "replicas_to_aggregate and total_replicas must be "
                        "positive");
  if (replication.mode == Replication::Mode::Async)
    this->replication.replicasToAggregate = 1;

  const exec::EvalOptions evalOptions;
  try {
    function.walk([&](ir::VariableOp variable) {
      mlir::RankedTensorType type = variable.getValueType();
      variableTypes[variable.getName().str()] = {
          exec::toDType(type.getElementType(), evalOptions),
          exec::toShape(type)};
    });
  } catch (const exec::EvalError &error) {
    throw std::invalid_argument(errorPrefix() + error.what());
  }
  holdsGlobalStep = variableTypes.count(options_.globalStepName) != 0;
  checkVariablesFitInMemory();

  // dtf.gradients: absent when the task holds no trainable variable.
  if (auto names = function->getAttrOfType<mlir::ArrayAttr>("dtf.gradients")) {
    for (mlir::Attribute name : names) {
      auto string = mlir::dyn_cast<mlir::StringAttr>(name);
      if (!string)
        throw std::invalid_argument(errorPrefix() +
                                    "dtf.gradients must list variable names");
      if (!variableTypes.count(string.str()))
        throw std::invalid_argument(errorPrefix() + "dtf.gradients names '" +
                                    string.str() +
                                    "', which is not a variable of the task");
      gradientNames_.push_back(string.str());
    }
  }

  // Arguments: replicasToAggregate groups of one gradient per name.
  size_t numGradients = gradientNames_.size();
  size_t groups = static_cast<size_t>(this->replication.replicasToAggregate);
  mlir::FunctionType signature = function.getFunctionType();
  if (signature.getNumInputs() != groups * numGradients)
    throw std::invalid_argument(
        errorPrefix() + "the PS function takes " +
        std::to_string(signature.getNumInputs()) + " arguments, but " +
        std::to_string(groups) + " group(s) of the " +
        std::to_string(numGradients) +
        " gradients in dtf.gradients make " +
        std::to_string(groups * numGradients) +
        " (is the replication mode the module's?)");
  for (size_t k = 0; k < numGradients; ++k) {
    mlir::Type type = signature.getInput(k);
    for (size_t r = 1; r < groups; ++r)
      if (signature.getInput(r * numGradients + k) != type)
        throw std::invalid_argument(
            errorPrefix() + "argument " + std::to_string(r * numGradients + k) +
            " differs in type from argument " + std::to_string(k) +
            ", though both are gradients of '" + gradientNames_[k] + "'");
    try {
      gradientTypes.push_back(
          {exec::toDType(mlir::cast<mlir::RankedTensorType>(type)
                             .getElementType(),
                         evalOptions),
           exec::toShape(type)});
    } catch (const std::exception &error) {
      throw std::invalid_argument(errorPrefix() + "gradient of '" +
                                  gradientNames_[k] + "': " + error.what());
    }
  }
}

void ParameterServerService::checkVariablesFitInMemory() const {
  if (!options_.availableMemory)
    return;
  uint64_t total = 0, largestBytes = 0;
  const std::string *largest = nullptr;
  for (const auto &[name, type] : variableTypes) {
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
  const GradientType &type = variableTypes.at(*largest);
  throw std::invalid_argument(
      errorPrefix() + "variable '" + *largest + "' (" +
      typeString(type.dtype, type.shape) + ") needs " +
      std::to_string(largestBytes) + " bytes (" + formatBytes(largestBytes) +
      "); the variables of the task need " + formatBytes(total) +
      " in all, more than the " +
      formatBytes(*options_.availableMemory) +
      " of memory this task can allocate");
}

//===----------------------------------------------------------------------===//
// In-process API
//===----------------------------------------------------------------------===//

bool ParameterServerService::initialize() {
  std::lock_guard<std::mutex> lock(mutex);
  if (initialized)
    return false;
  // Values preloaded from a checkpoint are kept, with their step.
  bool preloaded = !variables.empty();
  exec::initializeVariables(function, variables, exec::EvalOptions());
  initialized = true;
  if (!preloaded)
    step = holdsGlobalStep ? readGlobalStepLocked() : 0;
  stepChanged.notify_all();
  return !preloaded;
}

bool ParameterServerService::isInitialized() const {
  std::lock_guard<std::mutex> lock(mutex);
  return initialized;
}

int64_t ParameterServerService::currentStep() const {
  std::lock_guard<std::mutex> lock(mutex);
  return step;
}

UpdateStats ParameterServerService::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return stats_;
}

PsTaskStatus ParameterServerService::status() const {
  std::lock_guard<std::mutex> lock(mutex);
  PsTaskStatus status;
  status.step = step;
  status.initialized = initialized;
  status.epoch = epoch;
  status.hasValues = !variables.empty();
  status.restoredFrom = restoredFrom;
  status.holdsGlobalStep = holdsGlobalStep;
  return status;
}

exec::VariableStore
ParameterServerService::ownVariables(ModelState &state,
                                     const std::string &source) const {
  exec::VariableStore own;
  for (const auto &[name, type] : variableTypes) {
    auto it = state.values.find(name);
    if (it == state.values.end())
      throw std::invalid_argument(errorPrefix() + source +
                                  " has no value of variable '" + name +
                                  "' (is it a checkpoint of this model?)");
    if (it->second.dtype() != type.dtype || it->second.shape() != type.shape)
      throw std::invalid_argument(
          errorPrefix() + source + " holds variable '" + name + "' as " +
          typeString(it->second.dtype(), it->second.shape()) +
          " but the model declares it " + typeString(type.dtype, type.shape));
    own.emplace(name, std::move(it->second));
  }
  return own;
}

void ParameterServerService::installLocked(exec::VariableStore values,
                                           int64_t stateStep,
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

void ParameterServerService::preload(ModelState state, int64_t checkpointStep) {
  exec::VariableStore own = ownVariables(
      state, "the checkpoint of step " + std::to_string(checkpointStep));
  std::lock_guard<std::mutex> lock(mutex);
  if (initialized)
    throw std::logic_error(errorPrefix() +
                           "preload() after the task started serving");
  installLocked(std::move(own), state.step, checkpointStep, /*newEpoch=*/0);
}

int64_t ParameterServerService::restore(RestoreRequest::Source source,
                                        int64_t checkpointStep,
                                        int64_t newEpoch) {
  if (newEpoch <= 0)
    throw std::invalid_argument(errorPrefix() + "a restore needs an epoch > 0");
  exec::VariableStore values;
  int64_t stateStep = 0;
  int64_t from = -1;
  switch (source) {
  case RestoreRequest::INITIAL_VALUES:
    exec::initializeVariables(function, values, exec::EvalOptions());
    break;
  case RestoreRequest::CHECKPOINT: {
    if (!options_.loadCheckpoint)
      throw std::runtime_error(errorPrefix() +
                               "cannot restore a checkpoint: the task has no "
                               "checkpoint directory (--logdir)");
    ModelState state;
    try {
      state = options_.loadCheckpoint(checkpointStep);
    } catch (const std::exception &error) {
      throw std::runtime_error(errorPrefix() + "cannot restore the checkpoint "
                                               "of step " +
                               std::to_string(checkpointStep) + ": " +
                               error.what());
    }
    try {
      values = ownVariables(state, "the checkpoint of step " +
                                       std::to_string(checkpointStep));
    } catch (const std::invalid_argument &error) {
      throw std::runtime_error(error.what());
    }
    stateStep = state.step;
    from = checkpointStep;
    break;
  }
  case RestoreRequest::KEEP_RESTORED:
    break;
  default:
    throw std::invalid_argument(errorPrefix() + "unknown restore source " +
                                std::to_string(static_cast<int>(source)));
  }

  std::lock_guard<std::mutex> lock(mutex);
  if (shuttingDown)
    throw std::runtime_error(errorPrefix() + "shutting down");
  if (newEpoch < epoch)
    throw std::invalid_argument(errorPrefix() + "restore to epoch " +
                                std::to_string(newEpoch) +
                                ", older than the task's epoch " +
                                std::to_string(epoch));
  if (source == RestoreRequest::KEEP_RESTORED) {
    if (initialized || variables.empty() || restoredFrom != checkpointStep)
      throw std::runtime_error(
          errorPrefix() + "cannot keep the values restored at start-up from "
                          "the checkpoint of step " +
          std::to_string(checkpointStep) + ": " +
          (initialized       ? "the task serves already"
           : variables.empty() ? "it restored none"
                               : "it restored step " +
                                     std::to_string(restoredFrom)));
    values = std::move(variables);
    stateStep = step;
    from = restoredFrom;
  }
  installLocked(std::move(values), stateStep, from, newEpoch);
  initialized = true;
  return step;
}

grpc::Status
ParameterServerService::authorize(grpc::ServerContext *context) const {
  return checkClusterToken(*context, clusterToken, "PS task " + taskName_);
}

void ParameterServerService::beginShutdown() {
  std::lock_guard<std::mutex> lock(mutex);
  shuttingDown = true;
  stepChanged.notify_all();
}

int64_t ParameterServerService::readGlobalStepLocked() const {
  return static_cast<int64_t>(
      std::llround(variables.at(options_.globalStepName).scalarAsDouble()));
}

std::string ParameterServerService::describeHeldVariables() const {
  std::vector<std::string> names;
  for (const auto &entry : variableTypes)
    names.push_back(entry.first);
  return names.empty() ? "it holds none" : "it holds " + join(names);
}

grpc::Status
ParameterServerService::checkServingLocked(bool needInitialized) const {
  if (shuttingDown)
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        errorPrefix() + "shutting down");
  if (failure)
    return grpc::Status(grpc::StatusCode::INTERNAL, *failure);
  if (needInitialized && !initialized)
    return grpc::Status(
        grpc::StatusCode::FAILED_PRECONDITION,
        errorPrefix() +
            (variables.empty()
                 ? "the variables are not initialized yet (the chief "
                   "initializes them)"
                 : "the task restored the checkpoint of step " +
                       std::to_string(restoredFrom) +
                       " and waits for the chief to restore the model"));
  return grpc::Status::OK;
}

//===----------------------------------------------------------------------===//
// Applying gradients
//===----------------------------------------------------------------------===//

void ParameterServerService::checkGradient(size_t index,
                                           const std::string &name,
                                           DType dtype,
                                           const Shape &shape) const {
  size_t expectedCount = gradientNames_.size();
  if (index >= expectedCount)
    throw std::invalid_argument(
        "the push carries more than the " + std::to_string(expectedCount) +
        " gradient(s) the task takes (" + join(gradientNames_) + "): '" +
        name + "' is extra");
  const std::string &expectedName = gradientNames_[index];
  if (name != expectedName) {
    bool isGradient = std::find(gradientNames_.begin(), gradientNames_.end(),
                                name) != gradientNames_.end();
    if (isGradient)
      throw std::invalid_argument(
          "the gradient of '" + name + "' comes at position " +
          std::to_string(index) + ", where '" + expectedName +
          "' belongs (the order of dtf.gradients is " + join(gradientNames_) +
          ")");
    if (variableTypes.count(name))
      throw std::invalid_argument("variable '" + name +
                                  "' takes no gradients (dtf.gradients is " +
                                  join(gradientNames_) + ")");
    throw std::invalid_argument("'" + name +
                                "' is not a variable of the task (expected "
                                "the gradient of '" +
                                expectedName + "' at position " +
                                std::to_string(index) + "; " +
                                describeHeldVariables() + ")");
  }
  const GradientType &expected = gradientTypes[index];
  if (dtype != expected.dtype || shape != expected.shape)
    throw std::invalid_argument("the gradient of '" + name + "' is " +
                                typeString(dtype, shape) + " but variable '" +
                                name + "' is " +
                                typeString(expected.dtype, expected.shape));
}

void ParameterServerService::runFunctionLocked(std::vector<Tensor> arguments) {
  int64_t before = step;
  auto begin = std::chrono::steady_clock::now();
  try {
    exec::Interpreter interpreter(variables);
    interpreter.setOpObserver(options_.opObserver);
    interpreter.run(function, /*feeds=*/{}, std::move(arguments));
  } catch (const std::exception &error) {
    failure = errorPrefix() + "applying gradients failed, the variables may "
                              "be partly updated: " +
              error.what();
    stepChanged.notify_all();
    return;
  }
  ++stats_.appliedUpdates;
  stats_.appliedPushes += replication.replicasToAggregate;
  if (holdsGlobalStep) {
    step = readGlobalStepLocked();
    if (replication.mode == Replication::Mode::Sync && step != before + 1)
      failure = errorPrefix() + "the PS function moved " +
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

PushResponse::Outcome
ParameterServerService::applyAsyncLocked(GradientGroup gradients) {
  runFunctionLocked(std::move(gradients));
  return PushResponse::APPLIED;
}

bool ParameterServerService::accumulateLocked(GradientGroup gradients) {
  aggregate.push_back(std::move(gradients));
  if (static_cast<int64_t>(aggregate.size()) < replication.replicasToAggregate)
    return false;
  // Argument r*K+k is the r-th group's gradient of variable k.
  std::vector<Tensor> arguments;
  for (GradientGroup &group : aggregate)
    for (Tensor &gradient : group)
      arguments.push_back(std::move(gradient));
  aggregate.clear();
  runFunctionLocked(std::move(arguments));
  return true;
}

PushResponse::Outcome
ParameterServerService::applySyncLocked(int64_t pushStep,
                                        GradientGroup gradients) {
  if (pushStep < step) {
    ++stats_.stalePushes;
    return PushResponse::STALE;
  }
  if (pushStep > step) {
    if (queued.size() >= options_.maxQueuedPushes)
      throw QueueFull(
          errorPrefix() + "too many pushes for future steps are queued (" +
          std::to_string(queued.size()) + "); the push for step " +
          std::to_string(pushStep) + " is refused at step " +
          std::to_string(step));
    queued.emplace(pushStep, std::move(gradients));
    return PushResponse::QUEUED;
  }
  if (!accumulateLocked(std::move(gradients)))
    return PushResponse::ACCUMULATED;
  // The step advanced: the pushes queued for the new step join its
  // aggregate, which may complete it and advance the step again. Queued
  // pushes a completed step left behind are stale now.
  while (!failure && !queued.empty()) {
    auto first = queued.begin();
    if (first->first > step)
      break;
    GradientGroup group = std::move(first->second);
    bool current = first->first == step;
    queued.erase(first);
    if (current)
      accumulateLocked(std::move(group));
    else
      ++stats_.stalePushes;
  }
  return PushResponse::APPLIED;
}

//===----------------------------------------------------------------------===//
// The gRPC methods
//===----------------------------------------------------------------------===//

grpc::Status ParameterServerService::Initialize(grpc::ServerContext *context,
                                                const InitializeRequest *,
                                                InitializeResponse *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  {
    std::lock_guard<std::mutex> lock(mutex);
    grpc::Status serving = checkServingLocked(/*needInitialized=*/false);
    if (!serving.ok())
      return serving;
  }
  try {
    response->set_initialized_now(initialize());
  } catch (const std::exception &error) {
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        errorPrefix() + "initializing the variables failed: " +
                            error.what());
  }
  response->set_step(currentStep());
  return grpc::Status::OK;
}

grpc::Status
ParameterServerService::Pull(grpc::ServerContext *context, const PullRequest *request,
                             grpc::ServerWriter<PullResponse> *writer) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  // Encode the values under the lock, so that they come from one state
  // between updates, and stream the messages without it. Encoding is the
  // one copy a pull makes of the values.
  std::vector<PullResponse> messages;
  {
    std::lock_guard<std::mutex> lock(mutex);
    grpc::Status serving = checkServingLocked(/*needInitialized=*/true);
    if (!serving.ok())
      return serving;
    std::vector<TensorRef> refs;
    for (const std::string &name : request->names()) {
      auto it = variables.find(name);
      if (it == variables.end())
        return grpc::Status(grpc::StatusCode::NOT_FOUND,
                            errorPrefix() + "no variable '" + name + "' (" +
                                describeHeldVariables() + ")");
      refs.push_back({name, &it->second});
    }
    encodeTensors(refs, options_.chunkBytes,
                  [&](std::vector<TensorChunk> &chunks) {
                    PullResponse &message = messages.emplace_back();
                    message.set_epoch(epoch);
                    for (TensorChunk &chunk : chunks)
                      *message.add_chunks() = std::move(chunk);
                    return true;
                  });
    if (messages.empty()) // no tensors, still the epoch
      messages.emplace_back().set_epoch(epoch);
  }
  for (const PullResponse &message : messages)
    if (!writer->Write(message))
      return grpc::Status(grpc::StatusCode::CANCELLED,
                          errorPrefix() + "the client went away during Pull");
  return grpc::Status::OK;
}

grpc::Status ParameterServerService::Push(grpc::ServerContext *context,
                                          grpc::ServerReader<PushRequest> *reader,
                                          PushResponse *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  auto rejected = [&](const std::string &why) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        errorPrefix() + "push rejected, nothing applied: " +
                            why);
  };

  // Read and check the whole push before touching any state.
  PushRequest message;
  if (!reader->Read(&message))
    return rejected("the stream carries no message");
  if (!message.has_header())
    return rejected("the first message has no header");
  int64_t pushStep = message.header().step();
  int64_t pushEpoch = message.header().epoch();
  auto otherEpoch = [&]() {
    return grpc::Status(grpc::StatusCode::ABORTED,
                        errorPrefix() + "push refused, nothing applied: it was "
                                        "computed from the values of epoch " +
                            std::to_string(pushEpoch) +
                            " but the model was restored since (epoch " +
                            std::to_string(epoch) + "); pull again");
  };
  {
    // Refuse early rather than after receiving megabytes.
    std::lock_guard<std::mutex> lock(mutex);
    grpc::Status serving = checkServingLocked(/*needInitialized=*/true);
    if (!serving.ok())
      return serving;
    if (pushEpoch != 0 && pushEpoch != epoch)
      return otherEpoch();
  }
  std::vector<NamedTensor> gradients;
  try {
    TensorAssembler assembler(
        [this](size_t index, const std::string &name, DType dtype,
               const Shape &shape) {
          checkGradient(index, name, dtype, shape);
        });
    bool first = true;
    do {
      if (!first && message.has_header())
        throw std::invalid_argument("a message after the first has a header");
      first = false;
      for (const TensorChunk &chunk : message.chunks())
        assembler.add(chunk);
    } while (reader->Read(&message));
    gradients = assembler.finish();
  } catch (const std::invalid_argument &error) {
    return rejected(error.what());
  }
  // Read() also ends when the client cancels; a push cut short must not be
  // applied, even if it happens to end between two gradients.
  if (context->IsCancelled())
    return grpc::Status(grpc::StatusCode::CANCELLED,
                        errorPrefix() +
                            "the push was cancelled, nothing applied");
  if (gradients.size() != gradientNames_.size())
    return rejected("the push carries " + std::to_string(gradients.size()) +
                    " of the " + std::to_string(gradientNames_.size()) +
                    " gradients the task takes; the gradient of '" +
                    gradientNames_[gradients.size()] + "' is missing");
  GradientGroup group;
  for (NamedTensor &gradient : gradients)
    group.push_back(std::move(gradient.tensor));

  std::lock_guard<std::mutex> lock(mutex);
  grpc::Status serving = checkServingLocked(/*needInitialized=*/true);
  if (!serving.ok())
    return serving;
  if (pushEpoch != 0 && pushEpoch != epoch)
    return otherEpoch();
  PushResponse::Outcome outcome;
  try {
    outcome = replication.mode == Replication::Mode::Async
                  ? applyAsyncLocked(std::move(group))
                  : applySyncLocked(pushStep, std::move(group));
  } catch (const QueueFull &error) {
    return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, error.what());
  }
  if (failure)
    return grpc::Status(grpc::StatusCode::INTERNAL, *failure);
  response->set_outcome(outcome);
  response->set_step(step);
  return grpc::Status::OK;
}

grpc::Status ParameterServerService::GetStep(grpc::ServerContext *context,
                                             const GetStepRequest *,
                                             GetStepResponse *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  std::lock_guard<std::mutex> lock(mutex);
  grpc::Status serving = checkServingLocked(/*needInitialized=*/false);
  if (!serving.ok())
    return serving;
  response->set_step(step);
  response->set_initialized(initialized);
  response->set_epoch(epoch);
  response->set_has_values(!variables.empty());
  response->set_restored_from(restoredFrom);
  response->set_holds_global_step(holdsGlobalStep);
  return grpc::Status::OK;
}

grpc::Status ParameterServerService::WaitForStep(
    grpc::ServerContext *context, const WaitForStepRequest *request,
    WaitForStepResponse *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  auto timeout = std::min(
      std::chrono::milliseconds(std::max<int64_t>(request->timeout_ms(), 0)),
      options_.maxWait);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    grpc::Status serving = checkServingLocked(/*needInitialized=*/true);
    if (!serving.ok())
      return serving;
    if (request->epoch() != 0 && request->epoch() != epoch)
      return grpc::Status(grpc::StatusCode::ABORTED,
                          errorPrefix() + "the model was restored (epoch " +
                              std::to_string(epoch) + ", waited in epoch " +
                              std::to_string(request->epoch()) +
                              "); pull again");
    if (step > request->step()) {
      response->set_step(step);
      return grpc::Status::OK;
    }
    if (context->IsCancelled())
      return grpc::Status(grpc::StatusCode::CANCELLED,
                          errorPrefix() + "WaitForStep cancelled");
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline)
      return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                          errorPrefix() + "the step is still " +
                              std::to_string(step) + " after " +
                              std::to_string(timeout.count()) +
                              " ms of waiting for it to pass " +
                              std::to_string(request->step()));
    stepChanged.wait_until(lock, std::min(deadline, now + kCancellationPoll));
  }
}

grpc::Status ParameterServerService::Stop(grpc::ServerContext *context,
                                          const StopServerRequest *,
                                          StopServerResponse *) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  if (onStop)
    onStop();
  return grpc::Status::OK;
}

grpc::Status ParameterServerService::Snapshot(
    grpc::ServerContext *context, const SnapshotRequest *,
    grpc::ServerWriter<SnapshotResponse> *writer) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  std::vector<NamedTensor> values;
  SnapshotHeader header;
  {
    std::lock_guard<std::mutex> lock(mutex);
    grpc::Status serving = checkServingLocked(/*needInitialized=*/true);
    if (!serving.ok())
      return serving;
    header.set_step(step);
    header.set_epoch(epoch);
    header.set_holds_global_step(holdsGlobalStep);
    for (const auto &[name, value] : variables)
      values.push_back({name, value.clone()});
  }
  std::vector<TensorRef> refs;
  for (const NamedTensor &value : values)
    refs.push_back({value.name, &value.tensor});
  bool headerSent = false;
  auto send = [&](std::vector<TensorChunk> &chunks) {
    SnapshotResponse message;
    if (!headerSent) {
      *message.mutable_header() = header;
      headerSent = true;
    }
    for (TensorChunk &chunk : chunks)
      *message.add_chunks() = std::move(chunk);
    return writer->Write(message);
  };
  bool sent = encodeTensors(refs, options_.chunkBytes, send);
  if (sent && !headerSent) {
    std::vector<TensorChunk> none;
    sent = send(none);
  }
  if (!sent)
    return grpc::Status(grpc::StatusCode::CANCELLED,
                        errorPrefix() + "the client went away during Snapshot");
  return grpc::Status::OK;
}

grpc::Status ParameterServerService::Restore(grpc::ServerContext *context,
                                             const RestoreRequest *request,
                                             RestoreResponse *response) {
  if (grpc::Status denied = authorize(context); !denied.ok())
    return denied;
  try {
    response->set_step(restore(request->source(), request->checkpoint_step(),
                               request->epoch()));
  } catch (const std::invalid_argument &error) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, error.what());
  } catch (const std::exception &error) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, error.what());
  }
  return grpc::Status::OK;
}

} // namespace dtf::rpc
