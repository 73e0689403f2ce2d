//===- WorkerConnection.cpp - A Worker of the same process ----------------===//

#include "runtime/core/WorkerConnection.h"

#include "runtime/core/Error.h"

#include <set>

namespace dtf {

InProcessWorkerConnection::InProcessWorkerConnection(
    Worker &worker, LocalRendezvous &rendezvous, std::string taskName,
    std::chrono::milliseconds callTimeout,
    std::function<void(const std::string &)> onStop)
    : worker(worker), rendezvous(rendezvous),
      peer_("worker " + taskName + " (in process)"), callTimeout(callTimeout),
      onStop(std::move(onStop)) {}

void InProcessWorkerConnection::registerGraph(
    const std::string &module, const std::vector<std::string> &functions) {
  callInProcess(peer_, "RegisterGraph",
                [&] { worker.registerGraphs(module, functions); });
}

std::vector<Tensor> InProcessWorkerConnection::runStep(
    const std::string &graph, int64_t stepId,
    const std::map<std::string, Tensor> &feeds,
    const std::vector<Tensor> &arguments,
    std::optional<std::chrono::milliseconds> timeout,
    std::map<std::string, int64_t> * /*receivedBytes: nothing crosses a
                                        network in one process*/) {
  return callInProcess(peer_, "RunStep", [&] {
    Worker::StepOptions options;
    options.stepId = stepId;
    options.rendezvous = &rendezvous;
    options.deadline = Clock::now() + timeout.value_or(callTimeout);
    std::map<std::string, Tensor> ownFeeds;
    for (const auto &[name, value] : feeds)
      ownFeeds.emplace(name, value.clone());
    std::vector<Tensor> ownArguments;
    for (const Tensor &argument : arguments)
      ownArguments.push_back(argument.clone());
    return worker.runStep(graph, std::move(ownFeeds), std::move(ownArguments),
                          options);
  });
}

void InProcessWorkerConnection::cleanupStep(int64_t stepId) {
  rendezvous.cleanupStep(stepId);
}

void InProcessWorkerConnection::abortStep(int64_t stepId,
                                          const std::string &reason) {
  rendezvous.abortStep(stepId, makeError(ErrorCode::Aborted, reason));
}

VariableStore
InProcessWorkerConnection::getVariables(const std::vector<std::string> &names) {
  return callInProcess(peer_, "GetVariables", [&] {
    VariableStore all = worker.snapshotVariables();
    if (names.empty())
      return all;
    std::set<std::string> wanted(names.begin(), names.end());
    VariableStore some;
    for (auto &[name, value] : all)
      if (wanted.count(name))
        some.emplace(name, std::move(value));
    return some;
  });
}

std::vector<std::string>
InProcessWorkerConnection::setVariables(const VariableStore &values) {
  return callInProcess(peer_, "SetVariables", [&] {
    VariableStore copies;
    for (const auto &[name, value] : values)
      copies.emplace(name, value.clone());
    return worker.assignVariables(std::move(copies));
  });
}

void InProcessWorkerConnection::stopTask(const std::string &reason) {
  if (onStop)
    onStop(reason);
}

} // namespace dtf
