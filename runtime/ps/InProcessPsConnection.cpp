//===- InProcessPsConnection.cpp - A PS task of the same process ----------===//

#include "runtime/ps/InProcessPsConnection.h"

#include "runtime/core/Error.h"

namespace dtf::ps {

TransferStats &TransferStats::operator+=(const TransferStats &other) {
  pulls += other.pulls;
  pulledBytes += other.pulledBytes;
  pushes += other.pushes;
  pushedBytes += other.pushedBytes;
  pushPulls += other.pushPulls;
  return *this;
}

TransferStats TransferCounters::load() const {
  TransferStats stats;
  stats.pulls = pulls.load();
  stats.pulledBytes = pulledBytes.load();
  stats.pushes = pushes.load();
  stats.pushedBytes = pushedBytes.load();
  stats.pushPulls = pushPulls.load();
  return stats;
}

namespace {

uint64_t bytesOf(const std::vector<Tensor> &tensors) {
  uint64_t bytes = 0;
  for (const Tensor &tensor : tensors)
    bytes += tensor.byteSize();
  return bytes;
}

} // namespace

InProcessPsConnection::InProcessPsConnection(
    ParameterServer &task, std::string taskName,
    std::function<void(const std::string &)> onStop)
    : task(task), peer_("PS " + taskName + " (in process)"),
      onStop(std::move(onStop)) {}

bool InProcessPsConnection::initialize() {
  return callInProcess(peer_, "Initialize", [&] { return task.initialize(); });
}

std::vector<Tensor>
InProcessPsConnection::pull(const std::vector<std::string> &names,
                            int64_t *epoch) {
  PulledValues pulled = callInProcess(peer_, "Pull", [&] {
    PulledValues copy;
    task.read(names, [&](const std::vector<const Tensor *> &values,
                         int64_t readEpoch) {
      for (const Tensor *value : values)
        copy.values.push_back(value->clone());
      copy.epoch = readEpoch;
    });
    return copy;
  });
  ++counters.pulls;
  counters.pulledBytes += bytesOf(pulled.values);
  if (epoch)
    *epoch = pulled.epoch;
  return std::move(pulled.values);
}

std::vector<Tensor>
InProcessPsConnection::pullRows(const std::vector<RowRequest> &requests,
                                int64_t *epoch) {
  std::vector<Tensor> rows = callInProcess(
      peer_, "PullRows", [&] { return task.readRows(requests, epoch); });
  ++counters.pulls;
  counters.pulledBytes += bytesOf(rows);
  return rows;
}

std::future<PulledValues>
InProcessPsConnection::startPull(const std::vector<std::string> &names) {
  return std::async(std::launch::async, [this, names] {
    PulledValues pulled;
    pulled.values = pull(names, &pulled.epoch);
    return pulled;
  });
}

PushResult InProcessPsConnection::push(int64_t step,
                                       const std::vector<TensorRef> &gradients,
                                       int64_t epoch) {
  std::vector<Tensor> copies;
  for (const TensorRef &gradient : gradients)
    copies.push_back(gradient.tensor->clone());
  uint64_t bytes = bytesOf(copies);
  PushResult result = callInProcess(peer_, "Push", [&] {
    const std::vector<std::string> &expected = task.pushNames();
    if (gradients.size() != expected.size())
      throw Error(ErrorCode::InvalidArgument,
                  "the push carries " + std::to_string(gradients.size()) +
                      " gradients, the task takes " +
                      std::to_string(expected.size()));
    for (size_t i = 0; i < gradients.size(); ++i) {
      if (gradients[i].name != expected[i])
        throw Error(ErrorCode::InvalidArgument,
                    "gradient " + std::to_string(i) + " is '" +
                        gradients[i].name + "', the task expects '" +
                        expected[i] + "'");
      task.checkGradient(i, gradients[i].name, copies[i].dtype(),
                         copies[i].shape());
    }
    return task.push(step, epoch, std::move(copies));
  });
  ++counters.pushes;
  counters.pushedBytes += bytes;
  return result;
}

PushPullResult InProcessPsConnection::pushPull(
    int64_t step, std::vector<NamedTensor> gradients, int64_t epoch,
    const std::vector<std::string> &pullNames) {
  std::vector<TensorRef> refs;
  for (const NamedTensor &gradient : gradients)
    refs.push_back({gradient.name, &gradient.tensor});
  PushPullResult result;
  result.push = push(step, refs, epoch);
  result.pulled.values = pull(pullNames, &result.pulled.epoch);
  ++counters.pushPulls;
  return result;
}

std::future<PushPullResult> InProcessPsConnection::startPushPull(
    int64_t step, std::vector<NamedTensor> gradients, int64_t epoch,
    const std::vector<std::string> &pullNames) {
  return std::async(std::launch::async, [this, step,
                                         gradients = std::move(gradients),
                                         epoch, pullNames]() mutable {
    return pushPull(step, std::move(gradients), epoch, pullNames);
  });
}

int64_t InProcessPsConnection::step() {
  return callInProcess(peer_, "GetStep", [&] {
    task.checkServing();
    return task.currentStep();
  });
}

TaskStatus InProcessPsConnection::status() {
  return callInProcess(peer_, "GetStep", [&] {
    task.checkServing();
    return task.status();
  });
}

int64_t InProcessPsConnection::waitForStep(int64_t step,
                                           std::chrono::milliseconds timeout,
                                           int64_t epoch) {
  return callInProcess(peer_, "WaitForStep", [&] {
    return task.waitForStep(step, epoch, timeout, [] { return false; });
  });
}

Snapshot InProcessPsConnection::snapshot() {
  return callInProcess(peer_, "Snapshot", [&] { return task.snapshot(); });
}

Snapshot InProcessPsConnection::saveCheckpointShard(int shard, int numShards,
                                                    uint64_t save) {
  return callInProcess(peer_, "SaveCheckpointShard", [&] {
    return task.saveCheckpointShard(shard, numShards, save);
  });
}

int64_t InProcessPsConnection::restore(RestoreSource source,
                                       int64_t checkpointStep, int64_t epoch) {
  return callInProcess(peer_, "Restore", [&] {
    return task.restore(source, checkpointStep, epoch);
  });
}

void InProcessPsConnection::stop(const std::string &reason) {
  callInProcess(peer_, "Stop", [&] {
    task.beginShutdown();
    if (onStop)
      onStop(reason);
  });
}

TransferStats InProcessPsConnection::transferStats() const {
  return counters.load();
}

} // namespace dtf::ps
