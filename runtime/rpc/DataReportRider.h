//===- DataReportRider.h - Data reports riding pushes ----------*- C++ -*-===//
//
// A worker that streams its input reports each batch to the data
// coordinator on PS task 0 before any of the batch's gradients may reach
// the model (runtime/train/DataWork.h). As a call of its own, that report
// cost PS task 0 the wake-up of a serving thread and two frames a step, and
// the step a wait for the answer before its push (perf of the streamed MLP,
// 2 workers on 2 cores: a quarter of PS task 0's CPU went to the
// report's thread, a third of that to context switches).
//
// Where the step pushes to PS task 0 alone, the report rides the push
// instead (PushRequest.data_report): PS task 0 applies the report, then the
// push, in one call, so the coordinator knows of the batch before its
// gradients are in the model, and the step need not wait for the answer.
// A report that says its pushing records are its push's batch
// (DataReport::pushingRidesItsPush) leaves them to the push: recorded
// trained at the step it made where it was applied, else in flight, in
// the same call; the answer says which (PendingReport::
// batchTrainedWithPush), and the worker reports a batch trained so no
// more (perf: half the records a step to parse and apply).
// The coordinator's client holds the report (hold(), in place of sending
// it); the PS client of task 0 takes it into its next push (board()) and
// lands it when the push's answer comes.
//
// Order: reports reach the coordinator in the order they were held, each
// before any push after it. A held report that no push took when another
// is held or sent (send(): a report that must not wait for a push), or when
// its answer is asked for (finish()), is sent alone by the coordinator's
// own call, and a push that finds its report on its way alone waits for
// that call first. A report sent is not ordered after one a push carries
// and has not been answered: what depends on a batch's report (its trained
// or withdrawn records) comes only once the batch's push was answered.
//
// A ride's outcome, what finish() throws:
//  - the push's answer says the report failed (data_report_code): that
//    error; where a retry may fix it the push was not applied either, and
//    the push fails with it too;
//  - the push's call failed: its error; whether the coordinator applied
//    the report is not known (as for a ReportData call that fails), and a
//    caller that sends it again may count its trained records twice
//    (DataStats::duplicateRecords), never its in-flight ones (a set);
//  - a push dropped with its answer unread: Cancelled.
//
// Thread-safe.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/coord/CoordinatorConnection.h"

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace dtf::rpc {

/// One report: held, then boarded on a push or sent alone, then landed.
class DataReportRide {
public:
  explicit DataReportRide(std::string request) : request_(std::move(request)) {}

  /// The serialized ReportDataRequest.
  const std::string &request() const { return request_; }
  /// Its outcome: null when the coordinator applied it, else why not (or
  /// why that is not known); `batchTrained`: the push was applied and its
  /// batch (the report's pushing records) recorded trained with it
  /// (PushResponse.data_report_trained). The first landing counts.
  void land(std::exception_ptr failure, bool batchTrained = false);

private:
  friend class DataReportRider;
  enum class State { Held, Boarded, Alone, Landed };

  std::string request_;
  std::mutex mutex;
  std::condition_variable landed;
  State state = State::Held;
  std::exception_ptr failure;
  bool batchTrained = false;
};

class DataReportRider {
public:
  /// Sends a serialized ReportDataRequest in a call of its own and waits
  /// for the answer; throws what CoordinatorConnection::reportData throws.
  using SendAlone = std::function<void(const std::string &request)>;

  explicit DataReportRider(SendAlone sendAlone)
      : sendAlone(std::move(sendAlone)) {}

  /// Holds `request` for the next push, after sending alone a report held
  /// before and not boarded yet. The PendingReport's finish() waits for the
  /// outcome (sending the report alone if no push took it) and throws the
  /// failure; its ridesPush() is true.
  std::unique_ptr<coord::PendingReport> hold(std::string request);

  /// Sends `request` alone, after the held report if no push took it; throws
  /// what CoordinatorConnection::reportData throws. For a report that
  /// must not wait for a push's answer.
  void send(const std::string &request);

  /// For the push about to be sent: the held report, now boarded (the
  /// caller must land it), or null. Waits while the held report is on its
  /// way alone.
  std::shared_ptr<DataReportRide> board();

private:
  class Pending;
  /// Sends `ride` alone and lands it if no push took it (and no other
  /// thread sends it); returns once it landed.
  void sendAloneUnlessTaken(DataReportRide &ride);
  /// The held report, sent alone unless a push took it, landed.
  void sendHeld();

  SendAlone sendAlone;
  std::mutex mutex;
  /// The report held last; not boarded yet unless a push or finish() took
  /// it since.
  std::shared_ptr<DataReportRide> held;
};

} // namespace dtf::rpc
