//===- DataWork.cpp - Where a worker's streamed input gets its units ------===//

#include "runtime/train/DataWork.h"

#include "runtime/core/Error.h"

#include <algorithm>
#include <iostream>

namespace dtf::train {

void DeferredWorkSource::bind(std::shared_ptr<WorkSource> bound) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    source = std::move(bound);
  }
  changed.notify_all();
}

std::shared_ptr<WorkSource> DeferredWorkSource::bound() const {
  std::lock_guard<std::mutex> lock(mutex);
  if (!source)
    throw Error(ErrorCode::Internal,
                "streamed input: no source of units bound yet");
  return source;
}

std::optional<WorkUnit> DeferredWorkSource::next() {
  std::shared_ptr<WorkSource> target;
  {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return source || cancelled; });
    if (cancelled)
      return std::nullopt;
    target = source;
  }
  return target->next();
}

std::optional<WorkUnit> DeferredWorkSource::poll() {
  std::shared_ptr<WorkSource> target;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (cancelled || !source)
      return std::nullopt;
    target = source;
  }
  return target->poll();
}

void DeferredWorkSource::unitRead(const WorkUnit &unit, int64_t records) {
  bound()->unitRead(unit, records);
}

void DeferredWorkSource::pushing(const std::vector<ExampleOrigin> &examples) {
  bound()->pushing(examples);
}

void DeferredWorkSource::trained(const std::vector<ExampleOrigin> &examples,
                                 int64_t globalStep) {
  bound()->trained(examples, globalStep);
}

void DeferredWorkSource::notTrained(const std::vector<ExampleOrigin> &examples,
                                    bool inDoubt) {
  bound()->notTrained(examples, inDoubt);
}

void DeferredWorkSource::flush() {
  std::shared_ptr<WorkSource> target;
  {
    std::lock_guard<std::mutex> lock(mutex);
    target = source;
  }
  if (target)
    target->flush();
}

void DeferredWorkSource::cancel() {
  std::shared_ptr<WorkSource> target;
  {
    std::lock_guard<std::mutex> lock(mutex);
    cancelled = true;
    target = source;
  }
  changed.notify_all();
  if (target)
    target->cancel();
}

CoordinatedWorkSource::CoordinatedWorkSource(
    coord::CoordinatorConnection &coordinator, int worker,
    coord::DataSetDefinition definition)
    : coordinator(coordinator), worker(worker),
      definition(std::move(definition)) {
  reporter = std::thread([this] { sendReports(); });
}

CoordinatedWorkSource::~CoordinatedWorkSource() {
  cancel();
  reporter.join();
}

template <typename Call>
bool CoordinatedWorkSource::retrying(const Call &call) {
  std::chrono::milliseconds backoff(100);
  while (!cancelled) {
    try {
      call();
      return true;
    } catch (const Error &error) {
      if (!isRecoverable(error.code()))
        throw;
    }
    std::unique_lock<std::mutex> lock(mutex);
    toSend.wait_for(lock, backoff, [&] { return cancelled.load(); });
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
  return false;
}

void CoordinatedWorkSource::define() {
  std::lock_guard<std::mutex> lock(defining);
  if (defined)
    return;
  if (retrying([&] { coordinator.defineData(worker, definition); }))
    defined = true;
}

std::optional<WorkUnit> CoordinatedWorkSource::next() {
  // Every worker defines the data set; the coordinator keeps the first
  // definition.
  define();
  if (!defined)
    return std::nullopt; // cancelled
  std::optional<WorkUnit> unit;
  bool answered = false;
  while (!answered && !cancelled) {
    try {
      unit = coordinator.acquireUnit(worker, std::chrono::seconds(5));
      answered = true;
    } catch (const Error &error) {
      // DeadlineExceeded: units are out with other workers and may come
      // back; ask again. Aborted: training was stopped.
      if (error.code() == ErrorCode::Aborted)
        return std::nullopt;
      if (error.code() != ErrorCode::DeadlineExceeded &&
          !isRecoverable(error.code()))
        throw;
      if (error.code() != ErrorCode::DeadlineExceeded) {
        std::unique_lock<std::mutex> lock(mutex);
        toSend.wait_for(lock, std::chrono::milliseconds(200),
                        [&] { return cancelled.load(); });
      }
    }
  }
  return cancelled ? std::nullopt : unit;
}

std::optional<WorkUnit> CoordinatedWorkSource::poll() {
  define();
  if (!defined || cancelled)
    return std::nullopt;
  try {
    return coordinator.acquireUnit(worker, std::chrono::milliseconds(0));
  } catch (const Error &error) {
    // Nothing now (DeadlineExceeded), training stopped, or a call that
    // failed: next() asks again, and says which.
    if (error.code() == ErrorCode::DeadlineExceeded ||
        error.code() == ErrorCode::Aborted || isRecoverable(error.code()))
      return std::nullopt;
    throw;
  }
}

coord::DataReport &CoordinatedWorkSource::openReportLocked(bool forTrained) {
  if (queued.empty() || queued.back().sealed ||
      (forTrained && !queued.back().report.trained.empty())) {
    queued.emplace_back();
    ++queuedCount;
  }
  return queued.back().report;
}

void CoordinatedWorkSource::unitRead(const WorkUnit &unit, int64_t records) {
  std::lock_guard<std::mutex> lock(mutex);
  openReportLocked(false).unitsRead.push_back({unit.epoch, unit.id, records});
  // At the end of the data, others wait for it (the coordinator's drained
  // end): it goes now, not with the next step's report.
  queued.back().urgent = true;
  toSend.notify_all();
}

void CoordinatedWorkSource::pushing(
    const std::vector<ExampleOrigin> &examples) {
  std::vector<coord::UnitRecords> grouped = coord::groupExamples(examples);
  std::unique_lock<std::mutex> lock(mutex);
  coord::DataReport &report = openReportLocked(false);
  // One batch's records, riding its push if the connection lets them: then
  // the push records them trained, and trained() has nothing to say.
  report.pushingRidesItsPush = report.pushing.empty();
  report.pushing.insert(report.pushing.end(), grouped.begin(), grouped.end());
  queued.back().urgent = true;
  if (reportInFlight || queued.size() > 1 || cancelled ||
      frameOnItsWayLocked()) {
    // Behind another report: the reporter thread sends it in turn.
    toSend.notify_all();
    return;
  }
  // Nothing ahead of it: this thread sends it, and flush() reads the answer.
  coord::DataReport sending = std::move(queued.front().report);
  queued.pop_front();
  reportInFlight = true;
  lock.unlock();
  std::unique_ptr<coord::PendingReport> call;
  try {
    call = coordinator.startReportData(worker, sending);
  } catch (const Error &) {
    // Not sent (the coordinator's socket not known yet, and not asked): the
    // reporter thread sends it, and says why if it cannot.
  }
  lock.lock();
  reportInFlight = false;
  if (call)
    direct.push_back(DirectReport{std::move(call), std::move(sending)});
  else
    requeueLocked(std::move(sending));
  // The reporter thread has nothing to do unless a report came meanwhile
  // (woken for nothing, it cost the step a context switch).
  if (!queued.empty())
    toSend.notify_all();
}

void CoordinatedWorkSource::requeueLocked(coord::DataReport report) {
  // Sealed: what is queued behind it must be applied after it.
  queued.push_front(QueuedReport{std::move(report), /*urgent=*/true,
                                 /*sealed=*/true});
}

void CoordinatedWorkSource::warnRefused(const Error &error) const {
  // Not one a retry fixes (a report the coordinator refuses): the examples
  // count as not trained, and are read again.
  std::cerr << "Worker " << worker
            << ": warning: a data report was refused: " << error.what()
            << std::endl;
}

void CoordinatedWorkSource::finishDirect(DirectReport sent) {
  bool retry = false;
  try {
    sent.call->finish();
  } catch (const Error &error) {
    if (isRecoverable(error.code()))
      retry = true;
    else
      warnRefused(error);
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    finishing = false;
    if (retry)
      requeueLocked(std::move(sent.report));
    else
      ++sentCount;
    if (!queued.empty())
      toSend.notify_all();
  }
  sentChanged.notify_all();
}

void CoordinatedWorkSource::finishDirectLocked(
    std::unique_lock<std::mutex> &lock) {
  while (
      !finishing && !direct.empty() &&
      (!direct.front().call->ridesPush() || direct.front().call->answered())) {
    finishing = true;
    DirectReport sent = std::move(direct.front());
    direct.pop_front();
    if (!sent.batchSettled && sent.call->batchTrainedWithPush())
      trainedWithPush.push_back(std::move(sent.report.pushing));
    lock.unlock();
    finishDirect(std::move(sent));
    lock.lock();
  }
}

bool CoordinatedWorkSource::frameOnItsWayLocked() const {
  return finishing || (!direct.empty() && !direct.front().call->ridesPush());
}

uint64_t CoordinatedWorkSource::ridingLocked() const {
  return static_cast<uint64_t>(
      std::count_if(direct.begin(), direct.end(), [](const DirectReport &sent) {
        return sent.call->ridesPush();
      }));
}

void CoordinatedWorkSource::notTrained(
    const std::vector<ExampleOrigin> &examples, bool inDoubt) {
  std::vector<coord::UnitRecords> grouped = coord::groupExamples(examples);
  std::lock_guard<std::mutex> lock(mutex);
  coord::DataReport &report = openReportLocked(false);
  std::vector<coord::UnitRecords> &list =
      inDoubt ? report.inDoubt : report.withdrawn;
  list.insert(list.end(), grouped.begin(), grouped.end());
  // The coordinator applies a report's pushing records before these: the
  // batch serving these examples again says so in a report of its own.
  queued.back().sealed = true;
  queued.back().urgent = true;
  toSend.notify_all();
}

bool CoordinatedWorkSource::takeTrainedWithPushLocked(
    const std::vector<coord::UnitRecords> &batch) {
  auto taken = std::find(trainedWithPush.begin(), trainedWithPush.end(), batch);
  if (taken != trainedWithPush.end()) {
    trainedWithPush.erase(taken);
    return true;
  }
  // Answered with its push, its answer not read yet.
  for (DirectReport &sent : direct)
    if (!sent.batchSettled && sent.report.pushing == batch &&
        sent.call->batchTrainedWithPush()) {
      sent.batchSettled = true;
      return true;
    }
  return false;
}

void CoordinatedWorkSource::trained(const std::vector<ExampleOrigin> &examples,
                                    int64_t globalStep) {
  std::vector<coord::UnitRecords> grouped = coord::groupExamples(examples);
  std::lock_guard<std::mutex> lock(mutex);
  // The push that carried the batch's report recorded it trained.
  if (takeTrainedWithPushLocked(grouped))
    return;
  // A report carries one global step: trained records of another step
  // start a report of their own. Not urgent: it goes with the next batch's
  // pushing records, one call a step.
  coord::DataReport &report = openReportLocked(true);
  report.trained = std::move(grouped);
  report.globalStep = globalStep;
}

void CoordinatedWorkSource::flush() {
  std::unique_lock<std::mutex> lock(mutex);
  uint64_t target = queuedCount;
  flushTarget = std::max(flushTarget, target);
  finishDirectLocked(lock);
  // A report riding the step's push reaches the coordinator before the
  // push: waiting for its answer here would wait for the push.
  if (sentCount + ridingLocked() < target)
    toSend.notify_all();
  sentChanged.wait(
      lock, [&] { return sentCount + ridingLocked() >= target || cancelled; });
}

void CoordinatedWorkSource::cancel() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    cancelled = true;
  }
  toSend.notify_all();
  sentChanged.notify_all();
}

void CoordinatedWorkSource::sendReports() {
  while (true) {
    coord::DataReport report;
    {
      std::unique_lock<std::mutex> lock(mutex);
      // A report goes when something in it is urgent, when one is queued
      // behind it, or when flush() waits for it; after the one on its way,
      // whose answer this thread reads if the step's thread sent it.
      toSend.wait(lock, [&] {
        return cancelled || (!queued.empty() &&
                             (queued.front().urgent || queued.size() > 1 ||
                              flushTarget > sentCount + ridingLocked()) &&
                             !reportInFlight && !finishing);
      });
      if (queued.empty() ||
          (cancelled && !queued.front().urgent && flushTarget <= sentCount))
        return;
      // Cancelled with a report on its way: training stops, and what the
      // report says is not waited for (as a retry is not).
      if (cancelled && (reportInFlight || frameOnItsWayLocked()))
        return;
      // The answers that are in, and the one on the socket ahead of this
      // report. Reports riding pushes are not waited for: what follows them
      // (trained or withdrawn records of their batch) comes only once their
      // push was answered, and the rider sends a report it holds first.
      finishDirectLocked(lock);
      if (frameOnItsWayLocked() || queued.empty())
        continue;
      report = std::move(queued.front().report);
      queued.pop_front();
      reportInFlight = true;
    }
    bool sent = false;
    try {
      sent = retrying([&] { coordinator.reportData(worker, report); });
    } catch (const Error &error) {
      warnRefused(error);
      sent = true;
    }
    std::lock_guard<std::mutex> lock(mutex);
    reportInFlight = false;
    if (sent)
      ++sentCount;
    sentChanged.notify_all();
    if (!sent)
      return; // cancelled
  }
}

} // namespace dtf::train
