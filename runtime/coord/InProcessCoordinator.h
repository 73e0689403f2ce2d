//===- InProcessCoordinator.h - A local coordinator -------------*- C++ -*-===//
//
// A CoordinatorConnection that calls a Coordinator of the same process
// directly, without sockets: for unit tests of what uses the connection
// and for a cluster of one process. It behaves as rpc::CoordinationClient
// does, waits included: a wait lasts the whole timeout asked for, in
// slices of the coordinator's maxWait.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/coord/Coordinator.h"
#include "runtime/coord/CoordinatorConnection.h"

#include <string>

namespace dtf::coord {

class InProcessCoordinatorConnection final : public CoordinatorConnection {
public:
  /// `coordinator` must outlive the connection.
  explicit InProcessCoordinatorConnection(Coordinator &coordinator);

  const std::string &peer() const override { return peer_; }
  /// The coordinator is always reachable.
  void waitUntilReachable() override {}

  Registration registerTask(const std::string &job, int index) override;
  bool heartbeat(const std::string &job, int index) override;
  void markInitialized() override;
  void waitInitialized(std::chrono::milliseconds timeout) override;
  int64_t globalStep() override;
  void workerDone(int index) override;
  WorkerStates waitWorkersDone(std::chrono::milliseconds timeout) override;
  void stop(const std::string &reason) override;

  void defineData(int worker, const DataSetDefinition &definition) override;
  std::optional<WorkUnit>
  acquireUnit(int worker, std::chrono::milliseconds timeout) override;
  void reportData(int worker, const DataReport &report) override;
  std::string dataState(int64_t globalStep) override;
  void restoreDataState(const std::string &state) override;
  DataStats dataStats() override;

private:
  Coordinator &coordinator;
  std::string peer_ = "coordinator in this process";
};

} // namespace dtf::coord
