//===- DataWorkTest.cpp - A worker's data reports to the coordinator -----===//
//
// CoordinatedWorkSource over a connection that records each report: which
// thread sent it, which read the answer, and in what order the coordinator
// would have seen them.
//
//===----------------------------------------------------------------------===//

#include "runtime/train/DataWork.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace dtf::train {
namespace {

/// What the coordinator was told, in the order it applied it.
struct Applied {
  coord::DataReport report;
  /// Whether it came by startReportData (else by reportData).
  bool started = false;
  std::thread::id sender;
  /// The thread that read the answer (finish() or reportData()).
  std::thread::id answerReader;
};

/// A connection that takes data reports only, applying each as its answer
/// is read. startReportData works where `canStart`; its first answers can be
/// made to fail, and to wait until released.
class ReportRecorder final : public coord::CoordinatorConnection {
public:
  explicit ReportRecorder(bool canStart) : canStart(canStart) {}

  const std::string &peer() const override { return name; }
  void waitUntilReachable() override {}
  coord::Registration registerTask(const std::string &, int) override {
    throw unused();
  }
  bool heartbeat(const std::string &, int) override { throw unused(); }
  void markInitialized() override { throw unused(); }
  void waitInitialized(std::chrono::milliseconds) override { throw unused(); }
  int64_t globalStep() override { throw unused(); }
  void workerDone(int) override { throw unused(); }
  coord::WorkerStates waitWorkersDone(std::chrono::milliseconds) override {
    throw unused();
  }
  void stop(const std::string &) override { throw unused(); }
  void defineData(int, const coord::DataSetDefinition &) override {
    throw unused();
  }
  std::optional<WorkUnit> acquireUnit(int, std::chrono::milliseconds) override {
    throw unused();
  }
  std::string dataState(int64_t) override { throw unused(); }
  void restoreDataState(const std::string &) override { throw unused(); }
  coord::DataStats dataStats() override { throw unused(); }

  void reportData(int, const coord::DataReport &report) override {
    std::lock_guard<std::mutex> lock(mutex);
    applied.push_back({report, false, std::this_thread::get_id(),
                       std::this_thread::get_id()});
    changed.notify_all();
  }

  std::unique_ptr<coord::PendingReport>
  startReportData(int, const coord::DataReport &report) override {
    if (!canStart)
      return nullptr;
    if (riding) {
      auto ride = std::make_shared<Ride>();
      ride->report = report;
      std::lock_guard<std::mutex> lock(mutex);
      unlanded.push_back(ride);
      return std::make_unique<RidingPending>(*this, std::move(ride));
    }
    return std::make_unique<Pending>(*this, report);
  }

  /// Reports ride pushes (rpc/DataReportRider.h): each is applied, or
  /// fails, when land() says its push was answered.
  bool riding = false;
  /// The oldest report riding a push that was not answered: its push's
  /// answer comes, and the report is applied, or failed with Unavailable;
  /// `batchTrained`: the push was applied and recorded its batch trained.
  void land(bool failed, bool batchTrained = false) {
    std::lock_guard<std::mutex> lock(mutex);
    ASSERT_FALSE(unlanded.empty()) << "no report rides a push";
    std::shared_ptr<Ride> ride = unlanded.front();
    unlanded.pop_front();
    ride->landed = true;
    ride->failed = failed;
    ride->batchTrained = batchTrained;
    if (!failed)
      applied.push_back(
          {ride->report, true, std::thread::id(), std::thread::id()});
    changed.notify_all();
  }

  /// Answers that fail (Unavailable) before one goes through.
  int failures = 0;
  /// Answers wait until release().
  bool holdAnswers = false;

  void release() {
    std::lock_guard<std::mutex> lock(mutex);
    holdAnswers = false;
    changed.notify_all();
  }
  /// Waits until a thread waits for a held answer; returns that thread, or
  /// no thread when none came in a minute.
  std::thread::id awaitHeldAnswer() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait_for(lock, std::chrono::minutes(1),
                     [&] { return heldReader != std::thread::id(); });
    return heldReader;
  }
  std::vector<Applied> reports() {
    std::lock_guard<std::mutex> lock(mutex);
    return applied;
  }

private:
  class Pending final : public coord::PendingReport {
  public:
    Pending(ReportRecorder &owner, coord::DataReport report)
        : owner(owner), report(std::move(report)),
          sender(std::this_thread::get_id()) {}
    void finish() override {
      std::unique_lock<std::mutex> lock(owner.mutex);
      if (owner.holdAnswers) {
        owner.heldReader = std::this_thread::get_id();
        owner.changed.notify_all();
        owner.changed.wait(lock, [&] { return !owner.holdAnswers; });
      }
      if (owner.failures > 0) {
        --owner.failures;
        throw Error(ErrorCode::Unavailable, "the coordinator restarted");
      }
      owner.applied.push_back(
          {report, true, sender, std::this_thread::get_id()});
    }

  private:
    ReportRecorder &owner;
    coord::DataReport report;
    std::thread::id sender;
  };

  struct Ride {
    coord::DataReport report;
    bool landed = false;
    bool failed = false;
    bool batchTrained = false;
  };
  class RidingPending final : public coord::PendingReport {
  public:
    RidingPending(ReportRecorder &owner, std::shared_ptr<Ride> ride)
        : owner(owner), ride(std::move(ride)) {}
    void finish() override {
      std::unique_lock<std::mutex> lock(owner.mutex);
      owner.changed.wait(lock, [&] { return ride->landed; });
      if (ride->failed)
        throw Error(ErrorCode::Unavailable, "the push failed");
    }
    bool ridesPush() const override { return true; }
    bool answered() const override {
      std::lock_guard<std::mutex> lock(owner.mutex);
      return ride->landed;
    }
    bool batchTrainedWithPush() const override {
      std::lock_guard<std::mutex> lock(owner.mutex);
      return ride->landed && ride->batchTrained;
    }

  private:
    ReportRecorder &owner;
    std::shared_ptr<Ride> ride;
  };

  static std::logic_error unused() {
    return std::logic_error("not a call CoordinatedWorkSource makes here");
  }

  const bool canStart;
  const std::string name = "recorder";
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<Applied> applied;
  std::thread::id heldReader;
  std::deque<std::shared_ptr<Ride>> unlanded;
};

std::vector<ExampleOrigin> batchOf(int64_t unit, int64_t first, int64_t count) {
  std::vector<ExampleOrigin> examples;
  for (int64_t r = first; r < first + count; ++r)
    examples.push_back({0, unit, r});
  return examples;
}

/// The pushing records of `report` as "unit:[first,last)" runs.
std::vector<std::string> pushingOf(const coord::DataReport &report) {
  std::vector<std::string> runs;
  for (const coord::UnitRecords &group : report.pushing)
    for (const RecordRange &range : group.records)
      runs.push_back(std::to_string(group.unit) + ":[" +
                     std::to_string(range.first) + "," +
                     std::to_string(range.second) + ")");
  return runs;
}

TEST(DataWorkTest, TheStepsThreadSendsItsReportAndReadsTheAnswerAtFlush) {
  ReportRecorder coordinator(/*canStart=*/true);
  CoordinatedWorkSource source(coordinator, 0, {});
  const std::thread::id step = std::this_thread::get_id();
  for (int64_t s = 0; s < 3; ++s) {
    source.pushing(batchOf(1, 10 * s, 10));
    source.flush();
    source.trained(batchOf(1, 10 * s, 10), s + 1);
  }
  source.flush();
  std::vector<Applied> reports = coordinator.reports();
  ASSERT_EQ(reports.size(), 4u);
  // Each step's report (its pushing records, and the trained ones of the
  // step before) went and was answered on the step's thread.
  for (int s = 0; s < 3; ++s) {
    SCOPED_TRACE(s);
    EXPECT_TRUE(reports[s].started);
    EXPECT_EQ(reports[s].sender, step);
    EXPECT_EQ(reports[s].answerReader, step);
    EXPECT_EQ(pushingOf(reports[s].report),
              std::vector<std::string>{"1:[" + std::to_string(10 * s) + "," +
                                       std::to_string(10 * s + 10) + ")"});
    EXPECT_EQ(reports[s].report.trained.size(), s == 0 ? 0u : 1u);
  }
  // The last trained records had no step's report to go with: the
  // reporter thread sent them when flush() asked.
  EXPECT_FALSE(reports[3].started);
  EXPECT_NE(reports[3].sender, step);
  EXPECT_EQ(reports[3].report.globalStep, 3);
}

TEST(DataWorkTest, WithoutATwoHalfCallTheReporterThreadSends) {
  ReportRecorder coordinator(/*canStart=*/false);
  CoordinatedWorkSource source(coordinator, 0, {});
  source.pushing(batchOf(2, 0, 5));
  source.flush();
  std::vector<Applied> reports = coordinator.reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_FALSE(reports[0].started);
  EXPECT_NE(reports[0].sender, std::this_thread::get_id());
  EXPECT_EQ(pushingOf(reports[0].report), std::vector<std::string>{"2:[0,5)"});
}

TEST(DataWorkTest, AReportQueuedBehindOneOnItsWayGoesAfterItsAnswer) {
  ReportRecorder coordinator(/*canStart=*/true);
  coordinator.holdAnswers = true;
  CoordinatedWorkSource source(coordinator, 0, {});
  source.pushing(batchOf(4, 0, 10));
  // A reader finished a unit meanwhile: urgent, so the reporter thread
  // reads the step's answer first, then sends it.
  WorkUnit unit;
  unit.epoch = 0;
  unit.id = 5;
  source.unitRead(unit, 77);
  std::thread::id reader = coordinator.awaitHeldAnswer();
  ASSERT_NE(reader, std::thread::id()) << "nobody read the step's answer";
  EXPECT_NE(reader, std::this_thread::get_id());
  coordinator.release();
  source.flush();
  std::vector<Applied> reports = coordinator.reports();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_TRUE(reports[0].started);
  EXPECT_EQ(reports[0].sender, std::this_thread::get_id());
  EXPECT_EQ(reports[0].answerReader, reader);
  EXPECT_EQ(pushingOf(reports[0].report), std::vector<std::string>{"4:[0,10)"});
  ASSERT_EQ(reports[1].report.unitsRead.size(), 1u);
  EXPECT_EQ(reports[1].report.unitsRead[0].unit, 5);
  EXPECT_EQ(reports[1].report.unitsRead[0].records, 77);
}

TEST(DataWorkTest, AnAnswerThatARetryMayFixSendsTheReportAgain) {
  ReportRecorder coordinator(/*canStart=*/true);
  coordinator.failures = 1;
  CoordinatedWorkSource source(coordinator, 0, {});
  source.pushing(batchOf(3, 20, 4));
  // flush() returns once the report went through, by the reporter thread.
  source.flush();
  std::vector<Applied> reports = coordinator.reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_FALSE(reports[0].started);
  EXPECT_EQ(pushingOf(reports[0].report),
            std::vector<std::string>{"3:[20,24)"});
}

TEST(DataWorkTest, AReportRidingThePushIsNotWaitedForBeforeThePush) {
  ReportRecorder coordinator(/*canStart=*/true);
  coordinator.riding = true;
  CoordinatedWorkSource source(coordinator, 0, {});
  // Two steps, the pushes' answers not read (as with overlapped pulls,
  // where a push is answered in the next step): their reports reach the
  // coordinator with the pushes, so flush() waits for neither.
  for (int64_t s = 0; s < 2; ++s) {
    source.pushing(batchOf(1, 10 * s, 10));
    std::future<void> flushed =
        std::async(std::launch::async, [&] { source.flush(); });
    ASSERT_EQ(flushed.wait_for(std::chrono::minutes(1)),
              std::future_status::ready)
        << "flush() waited for a report riding the push of step " << s;
  }
  EXPECT_TRUE(coordinator.reports().empty());
  // The first push failed (a retry may fix it): its report goes again, on
  // the reporter thread; the second went through.
  coordinator.land(/*failed=*/true);
  coordinator.land(/*failed=*/false);
  source.trained(batchOf(1, 10, 10), 2);
  source.flush();
  std::vector<Applied> reports = coordinator.reports();
  ASSERT_EQ(reports.size(), 3u);
  EXPECT_TRUE(reports[0].started);
  EXPECT_EQ(pushingOf(reports[0].report),
            std::vector<std::string>{"1:[10,20)"});
  EXPECT_FALSE(reports[1].started);
  EXPECT_EQ(pushingOf(reports[1].report), std::vector<std::string>{"1:[0,10)"});
  EXPECT_FALSE(reports[2].started);
  EXPECT_EQ(reports[2].report.trained.size(), 1u);
  EXPECT_EQ(reports[2].report.globalStep, 2);
}

TEST(DataWorkTest, ABatchItsPushRecordedTrainedIsNotReportedTrainedAgain) {
  ReportRecorder coordinator(/*canStart=*/true);
  coordinator.riding = true;
  CoordinatedWorkSource source(coordinator, 0, {});
  // Step 0's push recorded its batch trained, and its answer was read
  // (flush) before the step said so; step 1's answer was not read yet.
  // Neither batch needs a report of its own.
  for (int64_t s = 0; s < 2; ++s) {
    source.pushing(batchOf(1, 10 * s, 10));
    source.flush();
    coordinator.land(/*failed=*/false, /*batchTrained=*/true);
    if (s == 0)
      source.flush();
    source.trained(batchOf(1, 10 * s, 10), s + 1);
  }
  // Step 2's push was applied without its batch (the push of a sync step
  // that did not complete its aggregate, say): the step reports it.
  source.pushing(batchOf(1, 20, 10));
  source.flush();
  coordinator.land(/*failed=*/false, /*batchTrained=*/false);
  source.trained(batchOf(1, 20, 10), 3);
  source.flush();
  std::vector<Applied> reports = coordinator.reports();
  ASSERT_EQ(reports.size(), 4u);
  for (int s = 0; s < 3; ++s) {
    SCOPED_TRACE(s);
    EXPECT_TRUE(reports[s].started);
    EXPECT_TRUE(reports[s].report.pushingRidesItsPush);
    EXPECT_EQ(pushingOf(reports[s].report),
              std::vector<std::string>{"1:[" + std::to_string(10 * s) + "," +
                                       std::to_string(10 * s + 10) + ")"});
    EXPECT_TRUE(reports[s].report.trained.empty());
  }
  EXPECT_FALSE(reports[3].started);
  ASSERT_EQ(reports[3].report.trained.size(), 1u);
  EXPECT_EQ(reports[3].report.trained[0].records,
            (std::vector<RecordRange>{{20, 30}}));
  EXPECT_EQ(reports[3].report.globalStep, 3);
}

} // namespace
} // namespace dtf::train
