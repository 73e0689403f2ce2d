//===- CoordinationClient.h - Calls to the coordination service -*- C++ -*-===//
//
// A task's coord::CoordinatorConnection over gRPC, to the
// CoordinationService that PS task 0 hosts. Like PsClient: a deadline on
// every call, errors (dtf::Error) naming the coordinator's address and the
// RPC, long waits done in slices so that a dead coordinator is noticed
// quickly. Thread-safe. ReportData, a call a step of each worker that
// streams its input, goes over PS task 0's local socket when the worker is
// on its host (LocalTransport.h), as the PS client's step calls do.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/coord/CoordinatorConnection.h"
#include "runtime/rpc/DataReportRider.h"
#include "runtime/rpc/LocalTransport.h"
#include "runtime/rpc/Options.h"

#include "coordination.grpc.pb.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace dtf::rpc {

class CoordinationClient final : public coord::CoordinatorConnection {
public:
  /// A client of the coordination service at `address`. Connects lazily.
  explicit CoordinationClient(std::string address, ClientOptions options = {});

  /// "coordinator /job:ps/task:0 at localhost:2222".
  const std::string &peer() const override { return peer_; }

  /// Retries with backoff until the coordinator accepts connections, for at
  /// most the options' connectTimeout.
  void waitUntilReachable() override;

  coord::Registration registerTask(const std::string &job, int index) override;
  bool heartbeat(const std::string &job, int index) override;
  void markInitialized() override;
  void waitInitialized(std::chrono::milliseconds timeout) override;
  int64_t globalStep() override;
  void workerDone(int index) override;
  coord::WorkerStates
  waitWorkersDone(std::chrono::milliseconds timeout) override;
  void stop(const std::string &reason) override;

  void defineData(int worker,
                  const coord::DataSetDefinition &definition) override;
  /// A long poll in slices of options.waitSlice, like waitInitialized; one
  /// that waits for nothing (a poll) over the local socket where there is
  /// one.
  std::optional<WorkUnit>
  acquireUnit(int worker, std::chrono::milliseconds timeout) override;
  void reportData(int worker, const coord::DataReport &report) override;
  /// Once reports ride pushes (rideReportsOnPushes): held for the next
  /// push to PS task 0. Else over the local socket only (null on gRPC): the
  /// frame is written on the caller's thread, and finish() reads the
  /// answer.
  std::unique_ptr<coord::PendingReport>
  startReportData(int worker, const coord::DataReport &report) override;
  /// From now on, reports ride the pushes of the PS client of task 0 that
  /// is given the rider returned (PsClient::carryDataReports): for a
  /// worker whose step pushes to PS task 0 alone (DataReportRider.h).
  /// Called before the first report.
  std::shared_ptr<DataReportRider> rideReportsOnPushes();
  std::string dataState(int64_t globalStep) override;
  void restoreDataState(const std::string &state) override;
  coord::DataStats dataStats() override;

  /// Whether ReportData goes over the coordinator's local socket (asks for
  /// it when not yet known).
  bool usesLocalTransport() { return localChannel() != nullptr; }

private:
  /// The coordinator's local socket, asked for once it answers; null when
  /// it has none or this client is not on its host (or uses TLS).
  std::shared_ptr<LocalChannel> localChannel();
  /// ReportData with a serialized request, on the local socket or gRPC.
  void sendReport(const std::string &request);

  std::string peer_;
  ClientOptions options;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<Coordination::Stub> stub;
  LocalEndpoint local;
  std::shared_ptr<DataReportRider> rider;
};

} // namespace dtf::rpc
