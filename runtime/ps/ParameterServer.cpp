//===- ParameterServer.cpp - The state machine of a PS task ---------------===//

#include "runtime/ps/ParameterServer.h"

#include "runtime/core/Error.h"
#include "runtime/core/HostMemory.h"
#include "runtime/core/Sparse.h"
#include "runtime/core/Strings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

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

Tensor UpdateProgram::initializeRows(const std::string &variable,
                                     const Tensor &) const {
  throw std::logic_error("the update program of '" + variable +
                         "' declares no dynamic table");
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
  checkSignature();
  checkDynamicTables();
  dynamicTables = emptyDynamicTables();
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

void ParameterServer::checkDynamicTables() const {
  for (const DynamicTableSignature &table : signature.dynamicTables) {
    std::string prefix =
        messagePrefix() + "dynamic table '" + table.name + "': ";
    if (table.minCount < 1)
      throw std::invalid_argument(prefix + "min_count must be >= 1, got " +
                                  std::to_string(table.minCount));
    std::vector<std::string> columns{table.name};
    columns.insert(columns.end(), table.slots.begin(), table.slots.end());
    for (const std::string &column : columns) {
      auto it = signature.variables.find(column);
      if (it == signature.variables.end())
        throw std::invalid_argument(prefix + "'" + column +
                                    "' is not a variable of the task");
      if (it->second != table.type || !table.type.hasDynamicRows())
        throw std::invalid_argument(
            prefix + "'" + column + "' is " + it->second.str() +
            "; a dynamic table and its slots are of the table's type " +
            table.type.str() + ", whose first dimension is dynamic");
    }
    for (size_t j = 0; j < signature.sparseGradientNames.size(); ++j) {
      if (signature.sparseGradientNames[j] != table.name)
        continue;
      const TensorType &ids =
          signature.argumentTypes[signature.gradientNames.size() + 2 * j];
      if (ids != TensorType{DType::I64, {-1}})
        throw std::invalid_argument(prefix + "its ids are " + ids.str() +
                                    "; a dynamic table's are i64[-1]");
    }
  }
}

ParameterServer::DynamicTables ParameterServer::emptyDynamicTables() const {
  DynamicTables tables;
  for (const DynamicTableSignature &table : signature.dynamicTables) {
    DynamicColumn column{table.type.dtype, Shape(table.type.shape.begin() + 1,
                                                 table.type.shape.end())};
    std::vector<std::string> names{table.name};
    names.insert(names.end(), table.slots.begin(), table.slots.end());
    std::vector<DynamicColumn> columns(names.size(), column);
    tables.emplace(table.name,
                   DynamicState{&table, names,
                                DynamicTable(std::move(columns), table.minCount,
                                             options_.dynamicTableChunkRows)});
  }
  return tables;
}

ParameterServer::DynamicTables
ParameterServer::takeDynamicTables(VariableStore &values,
                                   const std::string &source) const {
  DynamicTables tables = emptyDynamicTables();
  for (auto &[name, state] : tables) {
    std::string idsName = name + "/ids";
    auto ids = values.find(idsName);
    std::vector<Tensor> columnRows;
    for (const std::string &column : state.columnNames) {
      auto it = values.find(column);
      if (it == values.end()) {
        columnRows.clear();
        break;
      }
      columnRows.push_back(std::move(it->second));
      values.erase(it);
    }
    if (ids == values.end()) {
      // Initial values: no rows yet.
      for (const Tensor &rows : columnRows)
        if (rows.numElements() != 0)
          throw std::invalid_argument(
              messagePrefix() + source + " holds rows of dynamic table '" +
              name + "' but not their ids ('" + idsName + "')");
      continue;
    }
    if (columnRows.empty())
      throw std::invalid_argument(messagePrefix() + source +
                                  " holds the ids of dynamic table '" + name +
                                  "' but not the rows of it and its slots");
    try {
      state.table.assign(ids->second, columnRows);
    } catch (const std::invalid_argument &error) {
      throw std::invalid_argument(messagePrefix() + source +
                                  ": dynamic table '" + name +
                                  "': " + error.what());
    }
    values.erase(ids);
  }
  return tables;
}

void ParameterServer::resetDynamicEntriesLocked() {
  for (const auto &[name, state] : dynamicTables)
    for (size_t column = 0; column < state.columnNames.size(); ++column) {
      const DynamicColumn &type = state.table.columns()[column];
      Shape empty{0};
      empty.insert(empty.end(), type.rowShape.begin(), type.rowShape.end());
      variables.insert_or_assign(state.columnNames[column],
                                 Tensor(type.dtype, empty));
    }
}

const ParameterServer::DynamicState *
ParameterServer::dynamicStateOf(const std::string &name, size_t *column) const {
  for (const auto &[table, state] : dynamicTables)
    for (size_t k = 0; k < state.columnNames.size(); ++k)
      if (state.columnNames[k] == name) {
        if (column)
          *column = k;
        return &state;
      }
  return nullptr;
}

void ParameterServer::checkVariablesFitInMemory() const {
  if (!options_.availableMemory)
    return;
  uint64_t total = 0, largestBytes = 0;
  const std::string *largest = nullptr;
  for (const auto &[name, type] : signature.variables) {
    // A dynamic table's size is not known before it grows.
    if (type.hasDynamicRows())
      continue;
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
  // Preloaded tables keep their rows; initial ones start empty.
  resetDynamicEntriesLocked();
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
  return statsLocked();
}

UpdateStats ParameterServer::statsLocked() const {
  UpdateStats stats = stats_;
  for (const DynamicTableSignature &table : signature.dynamicTables) {
    const DynamicState &state = dynamicTables.at(table.name);
    stats.dynamicTables.push_back({table.name, state.table.size(),
                                   state.createdRows, state.table.pendingIds(),
                                   state.droppedIds, table.minCount});
  }
  return stats;
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
    if (dynamicStateOf(name))
      throw Error(ErrorCode::InvalidArgument,
                  messagePrefix() + "'" + name +
                      "' is a dynamic table (or its slot): pull its rows by "
                      "id");
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
      size_t column = 0;
      if (const DynamicState *state = dynamicStateOf(request.name, &column))
        rows.push_back(
            readDynamicRowsLocked(request.name, *state, column, request.ids));
      else
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

Tensor ParameterServer::readDynamicRowsLocked(const std::string &name,
                                              const DynamicState &state,
                                              size_t column,
                                              const Tensor &ids) const {
  if (ids.dtype() != DType::I64 && ids.dtype() != DType::I32)
    throw std::invalid_argument("ids are " + ids.typeString() +
                                ", not i32 or i64");
  std::vector<int64_t> idValues =
      ids.dtype() == DType::I64
          ? ids.toVector<int64_t>()
          : std::vector<int64_t>(ids.data<int32_t>(),
                                 ids.data<int32_t>() + ids.numElements());
  // Rows of the created ids, then the initial rows of the others.
  std::vector<int64_t> localRows;
  std::vector<int64_t> missing;
  std::unordered_map<int64_t, int64_t> missingIndex;
  for (size_t i = 0; i < idValues.size(); ++i) {
    int64_t id = idValues[i];
    if (id == kernels::kPaddingId)
      continue;
    if (id < 0)
      refuseNegativeId(id, static_cast<int64_t>(i));
    int64_t row = state.table.find(id);
    if (row >= 0)
      localRows.push_back(row);
    else if (missingIndex.emplace(id, missing.size()).second)
      missing.push_back(id);
  }
  Tensor created = state.table.gather(column, localRows);
  Tensor initial;
  if (!missing.empty()) {
    Tensor missingIds = Tensor::fromVector<int64_t>(
        {static_cast<int64_t>(missing.size())}, missing);
    initial = program->initializeRows(name, missingIds);
  }
  const DynamicColumn &type = state.table.columns()[column];
  Shape shape{static_cast<int64_t>(idValues.size())};
  shape.insert(shape.end(), type.rowShape.begin(), type.rowShape.end());
  Tensor out(type.dtype, shape); // zero rows for -1
  size_t rowBytes =
      static_cast<size_t>(numElementsOf(type.rowShape)) * dtypeSize(type.dtype);
  auto *target = static_cast<std::byte *>(out.rawData());
  const auto *createdRows = static_cast<const std::byte *>(created.rawData());
  const auto *initialRows = static_cast<const std::byte *>(initial.rawData());
  size_t nextCreated = 0;
  for (size_t i = 0; i < idValues.size(); ++i) {
    int64_t id = idValues[i];
    if (id == kernels::kPaddingId)
      continue;
    auto it = missingIndex.find(id);
    const std::byte *source =
        it == missingIndex.end()
            ? createdRows + rowBytes * nextCreated++
            : initialRows + rowBytes * static_cast<size_t>(it->second);
    std::memcpy(target + rowBytes * i, source, rowBytes);
  }
  return out;
}

Snapshot ParameterServer::snapshot() const {
  std::lock_guard<std::mutex> lock(mutex);
  checkServingLocked(/*needInitialized=*/true);
  Snapshot copy;
  copy.step = step;
  copy.epoch = epoch;
  copy.holdsGlobalStep = holdsGlobalStep;
  for (const auto &[name, value] : variables)
    if (!dynamicStateOf(name))
      copy.tensors.push_back({name, value.clone()});
  for (const auto &[name, state] : dynamicTables) {
    copy.tensors.push_back({name + "/ids", state.table.ids()});
    for (size_t column = 0; column < state.columnNames.size(); ++column)
      copy.tensors.push_back(
          {state.columnNames[column], state.table.rows(column)});
  }
  return copy;
}

Snapshot ParameterServer::saveCheckpointShard(int shard, int numShards,
                                              uint64_t save) const {
  if (numShards < 1 || shard < 0 || shard >= numShards)
    throw Error(ErrorCode::InvalidArgument,
                messagePrefix() + "checkpoint shard " + std::to_string(shard) +
                    " of " + std::to_string(numShards) + " does not exist");
  if (!options_.writeCheckpointShard)
    throw Error(ErrorCode::DataLoss,
                messagePrefix() + "cannot write its shard of a checkpoint: "
                                  "it has no checkpoint directory (--logdir)");
  Snapshot values = snapshot();
  Snapshot written{values.step, values.epoch, values.holdsGlobalStep, {}};
  try {
    options_.writeCheckpointShard(std::move(values), shard, numShards, save);
  } catch (const std::exception &error) {
    throw Error(ErrorCode::DataLoss,
                messagePrefix() +
                    "cannot write its shard of a checkpoint: " + error.what());
  }
  return written;
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
    if (held != type && !(type.hasDynamicRows() && type.accepts(held)))
      throw std::invalid_argument(
          messagePrefix() + source + " holds variable '" + name + "' as " +
          held.str() + " but the model declares it " + type.str());
    own.emplace(name, std::move(it->second));
  }
  for (const DynamicTableSignature &table : signature.dynamicTables) {
    std::string idsName = table.name + "/ids";
    auto ids = state.values.find(idsName);
    if (ids == state.values.end())
      throw std::invalid_argument(messagePrefix() + source +
                                  " has no ids of dynamic table '" +
                                  table.name + "' ('" + idsName +
                                  "'; is it a checkpoint of this model?)");
    own.emplace(idsName, std::move(ids->second));
  }
  return own;
}

void ParameterServer::installLocked(VariableStore values, DynamicTables tables,
                                    int64_t stateStep, int64_t restoredFromStep,
                                    int64_t newEpoch) {
  variables = std::move(values);
  dynamicTables = std::move(tables);
  resetDynamicEntriesLocked();
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
  std::string source =
      "the checkpoint of step " + std::to_string(checkpointStep);
  VariableStore own = ownVariables(state, source);
  DynamicTables tables = takeDynamicTables(own, source);
  std::lock_guard<std::mutex> lock(mutex);
  if (initialized)
    throw std::logic_error(messagePrefix() +
                           "preload() after the task started serving");
  installLocked(std::move(own), std::move(tables), state.step, checkpointStep,
                /*newEpoch=*/0);
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
  DynamicTables tables;
  int64_t stateStep = 0;
  int64_t from = -1;
  switch (source) {
  case RestoreSource::InitialValues:
    program->initialize(values);
    tables = takeDynamicTables(values, "the initial values");
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
      tables = takeDynamicTables(values, checkpoint);
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
    tables = std::move(dynamicTables);
    stateStep = step;
    from = restoredFrom;
  }
  installLocked(std::move(values), std::move(tables), stateStep, from,
                newEpoch);
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
  // A dynamic table's ids index no rows: only their sign can be wrong.
  size_t numDense = signature.gradientNames.size();
  for (size_t j = 0; j < signature.sparseGradientNames.size(); ++j) {
    const std::string &name = signature.sparseGradientNames[j];
    // The signature, not the tables, which a restore may be replacing.
    if (std::none_of(signature.dynamicTables.begin(),
                     signature.dynamicTables.end(),
                     [&](const DynamicTableSignature &table) {
                       return table.name == name;
                     }))
      continue;
    const Tensor &ids = gradients[numDense + 2 * j];
    const int64_t *data = ids.data<int64_t>();
    for (int64_t i = 0; i < ids.numElements(); ++i)
      if (data[i] < kernels::kPaddingId)
        throw rejected("dynamic table '" + name +
                       "': " + negativeIdMessage(data[i], i));
  }

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
    bool divided = options_.divideByStaleness && staleness > 0;
    applyLocked(std::move(gradients), {pushStep},
                divided ? 1.0 / static_cast<double>(1 + staleness) : 1.0);
    if (divided && !failure)
      ++stats_.dividedPushes;
  } else
    outcome = applySyncLocked(pushStep, std::move(gradients));
  if (failure)
    throw Error(ErrorCode::Internal, *failure);
  return {outcome, step};
}

void ParameterServer::applyLocked(std::vector<Tensor> arguments,
                                  const std::vector<int64_t> &pushSteps,
                                  double stalenessLearningRateScale) {
  int64_t before = step;
  auto begin = std::chrono::steady_clock::now();
  try {
    std::vector<DynamicWorkingSet> working = prepareDynamicLocked(arguments);
    try {
      // The step the gradients were computed at, which the workers read
      // from the task holding the global step: every task evaluates the
      // learning rate at the same step, as TensorFlow computes the rate and
      // the gradients in one session run. A sync aggregate's pushes share
      // it; of async ones the newest counts.
      UpdateContext context;
      context.globalStep =
          *std::max_element(pushSteps.begin(), pushSteps.end());
      context.stalenessLearningRateScale = stalenessLearningRateScale;
      program->apply(variables, std::move(arguments), context);
    } catch (...) {
      finishDynamicLocked(working);
      throw;
    }
    finishDynamicLocked(working);
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
  if (options_.onUpdateStats)
    options_.onUpdateStats(step, statsLocked());
  stepChanged.notify_all();
}

std::vector<ParameterServer::DynamicWorkingSet>
ParameterServer::prepareDynamicLocked(std::vector<Tensor> &arguments) {
  std::vector<DynamicWorkingSet> working;
  if (dynamicTables.empty())
    return working;
  size_t perGroup = pushNames_.size();
  size_t groups = arguments.size() / perGroup;
  size_t numDense = signature.gradientNames.size();
  for (size_t j = 0; j < signature.sparseGradientNames.size(); ++j) {
    auto found = dynamicTables.find(signature.sparseGradientNames[j]);
    if (found == dynamicTables.end())
      continue;
    DynamicState &state = found->second;
    const std::string &name = found->first;
    // 1. Count each push's ids; create the rows that reached min_count.
    for (size_t r = 0; r < groups; ++r) {
      std::vector<int64_t> reached;
      try {
        reached = state.table.count(arguments[r * perGroup + numDense + 2 * j]);
      } catch (const std::invalid_argument &error) {
        throw std::invalid_argument("dynamic table '" + name +
                                    "': " + error.what());
      }
      if (reached.empty())
        continue;
      Tensor ids = Tensor::fromVector<int64_t>(
          {static_cast<int64_t>(reached.size())}, reached);
      std::vector<Tensor> initialRows;
      for (const std::string &column : state.columnNames)
        initialRows.push_back(program->initializeRows(column, ids));
      state.table.create(reached, initialRows);
      state.createdRows += static_cast<int64_t>(reached.size());
    }
    // 2, 3. Keep the ids with a row, renumbered in order of first
    // occurrence over the groups, with their gradient rows.
    DynamicWorkingSet set{&state, {}};
    std::unordered_map<int64_t, int64_t> workingRow;
    for (size_t r = 0; r < groups; ++r) {
      Tensor &ids = arguments[r * perGroup + numDense + 2 * j];
      Tensor &rows = arguments[r * perGroup + numDense + 2 * j + 1];
      int64_t count = ids.numElements();
      size_t rowBytes =
          count ? rows.byteSize() / static_cast<size_t>(count) : 0;
      const int64_t *idData = ids.data<int64_t>();
      const auto *rowData = static_cast<const std::byte *>(rows.rawData());
      std::vector<int64_t> kept;
      std::vector<int64_t> keptPositions;
      for (int64_t i = 0; i < count; ++i) {
        int64_t local = idData[i] < 0 ? -1 : state.table.find(idData[i]);
        if (local < 0) {
          state.droppedIds += idData[i] >= 0;
          continue;
        }
        auto [it, inserted] = workingRow.emplace(
            idData[i], static_cast<int64_t>(workingRow.size()));
        if (inserted)
          set.localRows.push_back(local);
        kept.push_back(it->second);
        keptPositions.push_back(i);
      }
      Shape rowsShape = rows.shape();
      rowsShape[0] = static_cast<int64_t>(kept.size());
      Tensor keptRows = Tensor::uninitialized(rows.dtype(), rowsShape);
      auto *target = static_cast<std::byte *>(keptRows.rawData());
      for (size_t k = 0; k < keptPositions.size(); ++k)
        std::memcpy(target + k * rowBytes,
                    rowData + static_cast<size_t>(keptPositions[k]) * rowBytes,
                    rowBytes);
      ids = Tensor::fromVector<int64_t>({static_cast<int64_t>(kept.size())},
                                        kept);
      rows = std::move(keptRows);
    }
    for (size_t column = 0; column < state.columnNames.size(); ++column)
      variables.at(state.columnNames[column]) =
          state.table.gather(column, set.localRows);
    working.push_back(std::move(set));
  }
  return working;
}

void ParameterServer::finishDynamicLocked(
    const std::vector<DynamicWorkingSet> &working) {
  for (const DynamicWorkingSet &set : working) {
    DynamicState &state = *set.state;
    for (size_t column = 0; column < state.columnNames.size(); ++column) {
      Tensor &rows = variables.at(state.columnNames[column]);
      // A program that replaced the tensor with one of another shape
      // broke the update; its rows are not written back.
      Shape expected{static_cast<int64_t>(set.localRows.size())};
      const Shape &rowShape = state.table.columns()[column].rowShape;
      expected.insert(expected.end(), rowShape.begin(), rowShape.end());
      if (rows.shape() == expected &&
          rows.dtype() == state.table.columns()[column].dtype)
        state.table.scatter(column, set.localRows, rows);
    }
  }
  resetDynamicEntriesLocked();
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
