//===- DataCoordinatorTest.cpp - Units handed out, examples accounted -----===//
//
// The DataCoordinator alone and through the Coordinator (lost workers by
// a short heartbeat timeout, registration and done releasing units), and
// InProcessCoordinatorConnection. runtime/rpc/tests/CoordinationTest.cpp
// drives the same calls over gRPC.
//
//===----------------------------------------------------------------------===//

#include "runtime/coord/DataCoordinator.h"
#include "runtime/coord/Coordinator.h"
#include "runtime/coord/InProcessCoordinator.h"
#include "runtime/core/tests/TestUtil.h"

#include "runtime/core/Error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <thread>

namespace dtf::coord {
namespace {

using dtf::testing::expectError;
using std::chrono::milliseconds;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

DataSetDefinition dataSet(int units, int64_t epochs, uint64_t seed = 7,
                          bool waitForReleasedUnits = true) {
  DataSetDefinition definition;
  for (int i = 0; i < units; ++i) {
    WorkUnit unit;
    unit.id = i;
    unit.path = "/data/part-" + std::to_string(i) + ".tfrecord";
    unit.end = 1000;
    definition.units.push_back(unit);
  }
  definition.epochs = epochs;
  definition.seed = seed;
  definition.waitForReleasedUnits = waitForReleasedUnits;
  return definition;
}

/// A data coordinator whose clock stands still: no worker has a rate, so
/// nothing is refused to pace an epoch's end (PacingTest moves it).
DataCoordinatorOptions workers(int count) {
  DataCoordinatorOptions options;
  options.numWorkers = count;
  options.maxWait = milliseconds(2'000);
  options.clock = [] { return std::chrono::steady_clock::time_point{}; };
  return options;
}

UnitRecords records(int64_t epoch, int64_t unit,
                    std::vector<RecordRange> ranges) {
  return UnitRecords{epoch, unit, std::move(ranges)};
}

DataReport trained(int64_t epoch, int64_t unit, std::vector<RecordRange> ranges,
                   int64_t step) {
  DataReport report;
  report.trained.push_back(records(epoch, unit, std::move(ranges)));
  report.globalStep = step;
  return report;
}

/// Reads `unit` to its end (`total` records) and trains all of it but
/// what it says was trained, at `step`.
void trainAll(DataCoordinator &data, int worker, const WorkUnit &unit,
              int64_t total, int64_t step) {
  DataReport report;
  report.unitsRead.push_back({unit.epoch, unit.id, total});
  std::vector<RecordRange> rest;
  int64_t at = 0;
  for (const RecordRange &range : unit.trained) {
    if (at < range.first)
      rest.emplace_back(at, range.first);
    at = range.second;
  }
  if (at < total)
    rest.emplace_back(at, total);
  if (!rest.empty())
    report.trained.push_back(records(unit.epoch, unit.id, rest));
  report.globalStep = step;
  data.report(worker, report);
}

TEST(DataCoordinatorTest, HandsOutEveryUnitOfEveryEpochOnce) {
  DataCoordinator data(workers(2));
  data.define(0, dataSet(5, 2));
  data.define(1, dataSet(5, 2));
  std::multiset<std::pair<int64_t, int64_t>> seen;
  int64_t step = 0;
  while (std::optional<WorkUnit> unit =
             data.acquire(static_cast<int>(step % 2), milliseconds(1'000))) {
    int worker = static_cast<int>(step % 2);
    seen.emplace(unit->epoch, unit->id);
    EXPECT_EQ(unit->path,
              "/data/part-" + std::to_string(unit->id) + ".tfrecord");
    EXPECT_TRUE(unit->trained.empty());
    trainAll(data, worker, *unit, 10, ++step);
  }
  ASSERT_EQ(seen.size(), 10u);
  for (int64_t epoch = 0; epoch < 2; ++epoch)
    for (int64_t id = 0; id < 5; ++id)
      EXPECT_EQ(seen.count({epoch, id}), 1u) << epoch << " " << id;
  DataStats stats = data.stats();
  EXPECT_TRUE(stats.finished);
  EXPECT_EQ(stats.epochsCompleted, 2);
  EXPECT_EQ(stats.currentEpoch, 2);
  EXPECT_EQ(stats.recordsTrained, 100);
  EXPECT_EQ(stats.duplicateRecords, 0);
  EXPECT_EQ(stats.recordsInDoubt, 0);
  EXPECT_EQ(stats.unitsHandedOut, (std::vector<int64_t>{5, 5}));
  EXPECT_EQ(stats.recordsTrainedPerWorker, (std::vector<int64_t>{50, 50}));
  // Finished for every later caller too, at once.
  EXPECT_FALSE(data.acquire(0, milliseconds(1'000)));
  // Nothing left in the ledger once the epochs are complete and saved.
  data.saveState(step);
  EXPECT_EQ(data.ledgerIntervals(), 0);
}

TEST(DataCoordinatorTest, ConcurrentWorkersTrainEachExampleOncePerEpoch) {
  Coordinator coordinator(
      CoordinatorOptions{1, 3, milliseconds(10'000), milliseconds(2'000), {}});
  std::mutex mutex;
  std::map<std::tuple<int64_t, int64_t, int64_t>, int> trainedCount;
  auto runWorker = [&](int index) {
    InProcessCoordinatorConnection connection(coordinator);
    connection.registerTask("worker", index);
    connection.defineData(index, dataSet(7, 3, 11));
    int64_t step = 0;
    while (std::optional<WorkUnit> unit =
               connection.acquireUnit(index, milliseconds(5'000))) {
      // Batches of 4 examples; unit u holds u + 3 records.
      int64_t total = unit->id + 3;
      for (int64_t first = 0; first < total; first += 4) {
        std::vector<ExampleOrigin> batch;
        for (int64_t r = first; r < std::min(total, first + 4); ++r)
          batch.push_back({unit->epoch, unit->id, r});
        DataReport report;
        if (first + 4 >= total)
          report.unitsRead.push_back({unit->epoch, unit->id, total});
        report.pushing = groupExamples(batch);
        connection.reportData(index, report);
        {
          std::lock_guard<std::mutex> lock(mutex);
          for (const ExampleOrigin &origin : batch)
            ++trainedCount[{origin.epoch, origin.unit, origin.record}];
        }
        DataReport done;
        done.trained = groupExamples(batch);
        done.globalStep = ++step;
        connection.reportData(index, done);
      }
    }
  };
  std::vector<std::future<void>> threads;
  for (int index = 0; index < 3; ++index)
    threads.push_back(std::async(std::launch::async, runWorker, index));
  for (auto &thread : threads)
    thread.get();
  int64_t expected = 0;
  for (int64_t unit = 0; unit < 7; ++unit)
    expected += unit + 3;
  EXPECT_EQ(trainedCount.size(), static_cast<size_t>(3 * expected));
  for (const auto &[origin, count] : trainedCount)
    EXPECT_EQ(count, 1);
  DataStats stats = coordinator.dataStats();
  EXPECT_TRUE(stats.finished);
  EXPECT_EQ(stats.recordsTrained, 3 * expected);
  EXPECT_EQ(stats.duplicateRecords, 0);
  int64_t handedOut = 0;
  for (int64_t count : stats.unitsHandedOut)
    handedOut += count;
  EXPECT_EQ(handedOut, 21);
}

TEST(DataCoordinatorTest, ShufflesTheOrderPerSeedAndEpoch) {
  auto order = [](uint64_t seed) {
    DataCoordinator data(workers(1));
    data.define(0, dataSet(6, 2, seed));
    std::vector<std::vector<int64_t>> order(2);
    while (std::optional<WorkUnit> unit = data.acquire(0, milliseconds(100))) {
      order[unit->epoch].push_back(unit->id);
      trainAll(data, 0, *unit, 1, 1);
    }
    return order;
  };
  std::vector<std::vector<int64_t>> first = order(42);
  // The generator is documented (Fisher-Yates over std::mt19937_64 seeded
  // with seed + epoch): the order is the same on every platform.
  EXPECT_EQ(first[0], (std::vector<int64_t>{3, 1, 5, 2, 4, 0}));
  EXPECT_EQ(first[1], (std::vector<int64_t>{0, 1, 3, 5, 4, 2}));
  EXPECT_EQ(order(42), first);
  EXPECT_NE(order(43), first);
}

TEST(DataCoordinatorTest, ALostWorkersUnitGoesBackWithItsTrainedRecords) {
  // One unit, two workers; worker 0 takes it, trains a part of it, has
  // more in flight, and dies.
  CoordinatorOptions options{1, 2, milliseconds(300), milliseconds(5'000), {}};
  Coordinator coordinator(options);
  coordinator.registerTask("worker", 0);
  coordinator.registerTask("worker", 1);
  coordinator.defineData(0, dataSet(1, 1));
  std::optional<WorkUnit> unit = coordinator.acquireUnit(0, milliseconds(100));
  ASSERT_TRUE(unit);
  DataReport report;
  report.pushing = {records(0, 0, {{0, 10}})};
  coordinator.reportData(0, report);
  coordinator.reportData(0, trained(0, 0, {{0, 5}}, 3));
  report.pushing = {records(0, 0, {{10, 12}})};
  coordinator.reportData(0, report);

  // Worker 1 waits for it (its own wait keeps it alive), and gets it once
  // worker 0 is lost.
  auto start = std::chrono::steady_clock::now();
  std::optional<WorkUnit> again =
      coordinator.acquireUnit(1, milliseconds(3'000));
  double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_TRUE(again);
  EXPECT_GE(waited, 0.2);
  EXPECT_LT(waited, 2.0);
  EXPECT_EQ(again->id, 0);
  EXPECT_EQ(again->trained, (std::vector<RecordRange>{{0, 5}}));
  DataStats stats = coordinator.dataStats();
  // [5, 12) was pushing when worker 0 was lost.
  EXPECT_EQ(stats.recordsInDoubt, 7);
  EXPECT_EQ(stats.recordsTrained, 5);
  EXPECT_EQ(stats.unitsOut, 1);
  EXPECT_EQ(stats.unitsHandedOut, (std::vector<int64_t>{1, 1}));

  // Worker 1 finishes it; the data is finished.
  coordinator.reportData(1, trained(0, 0, {{5, 20}}, 9));
  DataReport read;
  read.unitsRead.push_back({0, 0, 20});
  coordinator.reportData(1, read);
  EXPECT_FALSE(coordinator.acquireUnit(1, milliseconds(100)));
  stats = coordinator.dataStats();
  EXPECT_TRUE(stats.finished);
  EXPECT_EQ(stats.recordsTrainedPerWorker, (std::vector<int64_t>{5, 15}));
}

TEST(DataCoordinatorTest, ALostWorkerIsNoticedByAnyCall) {
  CoordinatorOptions options{1, 2, milliseconds(200), milliseconds(5'000), {}};
  Coordinator coordinator(options);
  coordinator.registerTask("worker", 0);
  coordinator.defineData(0, dataSet(2, 1));
  ASSERT_TRUE(coordinator.acquireUnit(0, milliseconds(100)));
  EXPECT_EQ(coordinator.dataStats().unitsOut, 1);
  std::this_thread::sleep_for(milliseconds(300));
  DataStats stats = coordinator.dataStats();
  EXPECT_EQ(stats.unitsOut, 0);
  EXPECT_EQ(stats.unitsPending, 2);
}

TEST(DataCoordinatorTest, DefiningAgainOrDoneGivesTheUnitsBack) {
  Coordinator coordinator(
      CoordinatorOptions{1, 2, milliseconds(10'000), milliseconds(5'000), {}});
  coordinator.registerTask("worker", 0);
  coordinator.defineData(0, dataSet(2, 1));
  std::optional<WorkUnit> first = coordinator.acquireUnit(0, milliseconds(100));
  std::optional<WorkUnit> second =
      coordinator.acquireUnit(0, milliseconds(100));
  ASSERT_TRUE(first && second);
  DataReport report = trained(0, first->id, {{0, 3}}, 4);
  report.pushing = {records(0, first->id, {{3, 6}})};
  coordinator.reportData(0, report);
  EXPECT_EQ(coordinator.dataStats().unitsOut, 2);

  // Worker 0 recovered from a failed call: it registers again, its
  // readers and their units intact.
  coordinator.registerTask("worker", 0);
  EXPECT_EQ(coordinator.dataStats().unitsOut, 2);
  // Worker 0 restarted: the new process defines the data set again.
  coordinator.registerTask("worker", 0);
  coordinator.defineData(0, dataSet(2, 1));
  DataStats stats = coordinator.dataStats();
  EXPECT_EQ(stats.unitsOut, 0);
  EXPECT_EQ(stats.unitsPending, 2);
  EXPECT_EQ(stats.recordsInDoubt, 3);
  // Given back in the order they were held; the first with what it
  // trained.
  std::optional<WorkUnit> again = coordinator.acquireUnit(1, milliseconds(100));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->id, std::min(first->id, second->id));
  if (again->id == first->id) {
    EXPECT_EQ(again->trained, (std::vector<RecordRange>{{0, 3}}));
  }

  // Worker 1 is done without finishing it.
  coordinator.workerDone(1);
  EXPECT_EQ(coordinator.dataStats().unitsOut, 0);
  EXPECT_EQ(coordinator.dataStats().unitsPending, 2);
}

TEST(DataCoordinatorTest, RecordsNotTrainedLeaveTheFlightInDoubtOrNot) {
  DataCoordinator data(workers(1));
  data.define(0, dataSet(1, 1));
  std::optional<WorkUnit> unit = data.acquire(0, milliseconds(100));
  ASSERT_TRUE(unit);
  DataReport pushing;
  pushing.pushing = {records(0, 0, {{0, 10}})};
  data.report(0, pushing);
  // Records 0..4: their push never went; 5..9: it failed with no answer.
  DataReport back;
  back.withdrawn = {records(0, 0, {{0, 5}})};
  back.inDoubt = {records(0, 0, {{5, 10}})};
  data.report(0, back);
  EXPECT_EQ(data.stats().recordsInDoubt, 5);
  // Nothing is in flight any more: giving the unit back adds none.
  data.releaseWorker(0, ReleaseReason::Restarted);
  EXPECT_EQ(data.stats().recordsInDoubt, 5);
  EXPECT_EQ(data.stats().recordsTrained, 0);
}

TEST(DataCoordinatorTest, ShuffledReportsMergeIntoTheLedger) {
  // Records reported one at a time in a shuffled order, at rising steps,
  // some twice: what a shuffle buffer's batches report.
  DataCoordinator data(workers(1));
  data.define(0, dataSet(1, 1));
  std::optional<WorkUnit> unit = data.acquire(0, milliseconds(100));
  ASSERT_TRUE(unit);
  std::vector<int64_t> order(300);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 random(3);
  std::shuffle(order.begin(), order.end(), random);
  std::set<int64_t> early; // trained at a step <= 10
  for (size_t i = 0; i < 200; ++i) {
    int64_t step = static_cast<int64_t>(i / 10) + 1;
    std::vector<ExampleOrigin> batch = {{0, 0, order[i]}};
    if (i % 50 == 0)
      batch.push_back({0, 0, order[i / 2]}); // trained before: a duplicate
    DataReport report;
    report.trained = groupExamples(batch);
    report.globalStep = step;
    data.report(0, report);
    if (step <= 10)
      early.insert(order[i]);
  }
  DataStats stats = data.stats();
  EXPECT_EQ(stats.recordsTrained, 200);
  EXPECT_EQ(stats.duplicateRecords, 4);
  // The state of step 10 holds the records trained by then, and only them.
  std::string state = data.saveState(10);
  DataCoordinator restored(workers(1));
  restored.restoreState(state);
  restored.define(0, dataSet(1, 1));
  std::optional<WorkUnit> again = restored.acquire(0, milliseconds(100));
  ASSERT_TRUE(again);
  std::set<int64_t> kept;
  for (const RecordRange &range : again->trained)
    for (int64_t record = range.first; record < range.second; ++record)
      kept.insert(record);
  EXPECT_EQ(kept, early);
}

TEST(DataCoordinatorTest, CountsDuplicates) {
  DataCoordinator data(workers(2));
  data.define(0, dataSet(1, 2));
  std::optional<WorkUnit> unit = data.acquire(0, milliseconds(100));
  ASSERT_TRUE(unit);
  data.report(0, trained(0, 0, {{0, 10}}, 1));
  data.report(1, trained(0, 0, {{5, 15}}, 2));
  DataStats stats = data.stats();
  EXPECT_EQ(stats.recordsTrained, 15);
  EXPECT_EQ(stats.duplicateRecords, 5);
  // A record named twice in one report.
  data.report(0, [] {
    DataReport report;
    report.trained = groupExamples({{0, 0, 20}, {0, 0, 20}, {0, 0, 21}});
    report.globalStep = 3;
    return report;
  }());
  stats = data.stats();
  EXPECT_EQ(stats.recordsTrained, 17);
  EXPECT_EQ(stats.duplicateRecords, 6);
  EXPECT_EQ(stats.recordsTrainedPerWorker, (std::vector<int64_t>{12, 5}));
}

TEST(DataCoordinatorTest, GroupsExamplesIntoRunsPerUnit) {
  std::vector<UnitRecords> groups = groupExamples({{1, 2, 7},
                                                   {0, 3, 1},
                                                   {1, 2, 5},
                                                   {1, 2, 6},
                                                   {0, 3, 0},
                                                   {1, 2, 9},
                                                   {1, 2, 6}});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].epoch, 0);
  EXPECT_EQ(groups[0].unit, 3);
  EXPECT_EQ(groups[0].records, (std::vector<RecordRange>{{0, 2}}));
  EXPECT_EQ(groups[1].epoch, 1);
  EXPECT_EQ(groups[1].unit, 2);
  EXPECT_EQ(groups[1].records,
            (std::vector<RecordRange>{{5, 8}, {6, 7}, {9, 10}}));
}

TEST(DataCoordinatorTest, SavedStateLeavesOutRecordsTrainedAfterItsStep) {
  DataCoordinator data(workers(1));
  data.define(0, dataSet(3, 2));
  std::optional<WorkUnit> a = data.acquire(0, milliseconds(100));
  std::optional<WorkUnit> b = data.acquire(0, milliseconds(100));
  ASSERT_TRUE(a && b);
  // a: all 8 records, half of them after step 6: not done at step 6.
  data.report(0, trained(0, a->id, {{0, 4}}, 5));
  data.report(0, trained(0, a->id, {{4, 8}}, 9));
  data.unitRead(0, 0, a->id, 8);
  // b: [0, 2) at step 6, [2, 3) at step 7.
  data.report(0, trained(0, b->id, {{0, 2}}, 6));
  data.report(0, trained(0, b->id, {{2, 3}}, 7));
  EXPECT_EQ(data.stats().unitsDone, 1);
  std::string state = data.saveState(6);

  // A restarted coordinator: the state comes before the definition.
  DataCoordinator restored(workers(1));
  restored.restoreState(state);
  EXPECT_FALSE(restored.stats().defined);
  restored.define(0, dataSet(3, 2));
  DataStats stats = restored.stats();
  EXPECT_EQ(stats.recordsTrained, 6);
  EXPECT_EQ(stats.unitsDone, 0);
  EXPECT_EQ(stats.unitsOut, 0);
  EXPECT_EQ(stats.unitsPending, 3);
  // The units that were out come first, with the records trained by step
  // 6; then the fresh one.
  std::map<int64_t, std::vector<RecordRange>> handed;
  for (int i = 0; i < 3; ++i) {
    std::optional<WorkUnit> unit = restored.acquire(0, milliseconds(100));
    ASSERT_TRUE(unit);
    EXPECT_EQ(unit->epoch, 0);
    handed[unit->id] = unit->trained;
    if (i < 2) {
      EXPECT_TRUE(unit->id == a->id || unit->id == b->id) << unit->id;
    }
  }
  EXPECT_EQ(handed[a->id], (std::vector<RecordRange>{{0, 4}}));
  EXPECT_EQ(handed[b->id], (std::vector<RecordRange>{{0, 2}}));
  ASSERT_EQ(handed.size(), 3u);

  // Restoring into a running coordinator puts everything back to pending.
  data.restoreState(state);
  EXPECT_EQ(data.stats().unitsOut, 0);
  EXPECT_EQ(data.stats().recordsTrained, 6);
}

TEST(DataCoordinatorTest, SavedCompleteEpochsStayComplete) {
  DataCoordinator data(workers(1));
  data.define(0, dataSet(2, 3));
  int64_t step = 0;
  for (int i = 0; i < 2; ++i) {
    std::optional<WorkUnit> unit = data.acquire(0, milliseconds(100));
    ASSERT_TRUE(unit);
    trainAll(data, 0, *unit, 4, ++step);
  }
  // Epoch 1 begun.
  std::optional<WorkUnit> next = data.acquire(0, milliseconds(100));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->epoch, 1);
  data.report(0, trained(1, next->id, {{0, 1}}, ++step));
  std::string state = data.saveState(step);
  DataCoordinator restored(workers(1));
  restored.define(0, dataSet(2, 3));
  restored.restoreState(state);
  DataStats stats = restored.stats();
  EXPECT_EQ(stats.epochsCompleted, 1);
  EXPECT_EQ(stats.currentEpoch, 1);
  std::optional<WorkUnit> unit = restored.acquire(0, milliseconds(100));
  ASSERT_TRUE(unit);
  EXPECT_EQ(unit->epoch, 1);
  EXPECT_EQ(unit->id, next->id);
  EXPECT_EQ(unit->trained, (std::vector<RecordRange>{{0, 1}}));
}

TEST(DataCoordinatorTest, AGarbledStateIsInvalidArgument) {
  DataCoordinator data(workers(1));
  data.define(0, dataSet(3, 2));
  std::optional<WorkUnit> unit = data.acquire(0, milliseconds(100));
  ASSERT_TRUE(unit);
  data.report(0, trained(0, unit->id, {{0, 4}}, 5));
  std::string state = data.saveState(5);

  auto refused = [&](const std::string &bytes, const std::string &message) {
    Error error = expectError([&] { data.restoreState(bytes); });
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(error.what(), message)) << error.what();
  };
  refused("", "is not one");
  refused("garbage, not a state", "is not one");
  refused(state.substr(0, 10), "truncated");
  refused(state.substr(0, state.size() - 3), "truncated or corrupted");
  std::string flipped = state;
  flipped[flipped.size() / 2] ^= 0x40;
  refused(flipped, "truncated or corrupted");
  std::string version = state;
  version[8] = 9;
  refused(version, "version 9");
  // Nothing of it applied.
  EXPECT_EQ(data.stats().unitsOut, 1);
  data.restoreState(state);
  EXPECT_EQ(data.stats().unitsOut, 0);
}

TEST(DataCoordinatorTest, ADifferentDefinitionIsRefused) {
  DataCoordinator data(workers(2));
  data.define(0, dataSet(3, 2, 5));
  data.define(1, dataSet(3, 2, 5));
  auto refused = [&](const DataSetDefinition &definition,
                     const std::string &message) {
    Error error = expectError([&] { data.define(1, definition); });
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(error.what(), "worker 1's data set differs from the "
                                       "one defined first"))
        << error.what();
    EXPECT_TRUE(contains(error.what(), message)) << error.what();
  };
  refused(dataSet(4, 2, 5), "it has 4 unit(s) where the data set has 3");
  refused(dataSet(3, 3, 5), "it has 3 epoch(s) where the data set has 2");
  refused(dataSet(3, 2, 6), "its seed is 6 where the data set's is 5");
  DataSetDefinition other = dataSet(3, 2, 5);
  other.units[1].path = "/data/other.tfrecord";
  refused(other, "its unit 1 is '/data/other.tfrecord'");
  // waitForReleasedUnits is not compared (the first definition's holds).
  data.define(1, dataSet(3, 2, 5, false));

  DataSetDefinition badIds = dataSet(3, 2);
  badIds.units[2].id = 7;
  EXPECT_EQ(expectError([&] {
              DataCoordinator fresh(workers(1));
              fresh.define(0, badIds);
            }).code(),
            ErrorCode::InvalidArgument);

  // A checkpoint of another data set.
  std::string state = data.saveState(0);
  DataCoordinator restored(workers(1));
  restored.restoreState(state);
  Error error = expectError([&] { restored.define(0, dataSet(3, 2, 6)); });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(error.what(), "the checkpoint's data set differs"))
      << error.what();
  EXPECT_FALSE(restored.stats().defined);
  DataCoordinator defined(workers(1));
  defined.define(0, dataSet(3, 2, 6));
  error = expectError([&] { defined.restoreState(state); });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(error.what(), "the checkpoint's data set differs"))
      << error.what();
}

TEST(DataCoordinatorTest, AcquireWaitsForTheDefinition) {
  DataCoordinator data(workers(2));
  Error error = expectError([&] { data.acquire(0, milliseconds(100)); });
  EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded);
  EXPECT_TRUE(contains(error.what(), "defined")) << error.what();
  std::future<std::optional<WorkUnit>> waiting = std::async(
      std::launch::async, [&] { return data.acquire(0, milliseconds(3'000)); });
  std::this_thread::sleep_for(milliseconds(100));
  data.define(1, dataSet(2, 1));
  ASSERT_EQ(waiting.wait_for(milliseconds(2'000)), std::future_status::ready);
  EXPECT_TRUE(waiting.get());
}

TEST(DataCoordinatorTest, AWaitingAcquireGetsAUnitGivenBack) {
  DataCoordinator data(workers(2));
  data.define(0, dataSet(1, 1));
  std::optional<WorkUnit> unit = data.acquire(0, milliseconds(100));
  ASSERT_TRUE(unit);
  // Nothing pending, the unit out with a live worker: wait.
  Error error = expectError([&] { data.acquire(1, milliseconds(100)); });
  EXPECT_EQ(error.code(), ErrorCode::DeadlineExceeded);
  EXPECT_TRUE(contains(error.what(), "out with worker(s) 0")) << error.what();

  std::future<std::optional<WorkUnit>> waiting = std::async(
      std::launch::async, [&] { return data.acquire(1, milliseconds(3'000)); });
  EXPECT_EQ(waiting.wait_for(milliseconds(200)), std::future_status::timeout);
  data.report(0, trained(0, 0, {{0, 2}}, 1));
  data.releaseWorker(0, ReleaseReason::Restarted);
  ASSERT_EQ(waiting.wait_for(milliseconds(2'000)), std::future_status::ready);
  std::optional<WorkUnit> again = waiting.get();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->trained, (std::vector<RecordRange>{{0, 2}}));

  // And a waiting acquire ends when the last unit is done.
  waiting = std::async(std::launch::async,
                       [&] { return data.acquire(0, milliseconds(3'000)); });
  EXPECT_EQ(waiting.wait_for(milliseconds(200)), std::future_status::timeout);
  trainAll(data, 1, *again, 5, 2);
  ASSERT_EQ(waiting.wait_for(milliseconds(2'000)), std::future_status::ready);
  EXPECT_FALSE(waiting.get());
  EXPECT_TRUE(data.stats().finished);
}

TEST(DataCoordinatorTest, WithoutWaitingTheDataEndsWhenNothingIsPending) {
  DataCoordinator data(workers(2));
  data.define(0, dataSet(2, 1, 7, /*waitForReleasedUnits=*/false));
  ASSERT_TRUE(data.acquire(0, milliseconds(100)));
  ASSERT_TRUE(data.acquire(1, milliseconds(100)));
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(data.acquire(1, milliseconds(1'000)));
  EXPECT_LT(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count(),
      0.5);
  EXPECT_FALSE(data.stats().finished);
}

TEST(DataCoordinatorTest, StopAndShutdownEndAWaitingAcquire) {
  Coordinator coordinator(
      CoordinatorOptions{1, 2, milliseconds(10'000), milliseconds(5'000), {}});
  coordinator.defineData(0, dataSet(1, 1));
  ASSERT_TRUE(coordinator.acquireUnit(0, milliseconds(100)));
  std::future<std::optional<WorkUnit>> waiting =
      std::async(std::launch::async, [&] {
        return coordinator.acquireUnit(1, milliseconds(3'000));
      });
  std::this_thread::sleep_for(milliseconds(100));
  coordinator.stop("training finished");
  ASSERT_EQ(waiting.wait_for(milliseconds(2'000)), std::future_status::ready);
  Error error = expectError([&] { waiting.get(); });
  EXPECT_EQ(error.code(), ErrorCode::Aborted);
  EXPECT_TRUE(contains(error.what(), "training finished")) << error.what();

  coordinator.beginShutdown();
  EXPECT_EQ(expectError([&] {
              coordinator.acquireUnit(1, milliseconds(100));
            }).code(),
            ErrorCode::Unavailable);
}

TEST(DataCoordinatorTest, EpochsWithoutEndAndAFastWorkerGoesOn) {
  DataCoordinator data(workers(2));
  data.define(0, dataSet(2, 0));
  // Worker 0 holds a unit of epoch 0; worker 1 goes on into epochs 1, 2...
  std::optional<WorkUnit> slow = data.acquire(0, milliseconds(100));
  ASSERT_TRUE(slow);
  int64_t step = 0;
  for (int i = 0; i < 9; ++i) {
    std::optional<WorkUnit> unit = data.acquire(1, milliseconds(100));
    ASSERT_TRUE(unit);
    EXPECT_EQ(unit->epoch, (i + 1) / 2);
    trainAll(data, 1, *unit, 3, ++step);
  }
  DataStats stats = data.stats();
  EXPECT_FALSE(stats.finished);
  EXPECT_EQ(stats.currentEpoch, 0);
  EXPECT_EQ(stats.unitsOut, 1);
  EXPECT_EQ(stats.unitsDone, 1);
  EXPECT_EQ(stats.epochsCompleted, 4);
  trainAll(data, 0, *slow, 3, ++step);
  stats = data.stats();
  EXPECT_EQ(stats.currentEpoch, 5);
  EXPECT_EQ(stats.epochsCompleted, 5);
  EXPECT_EQ(stats.unitsPending, 2);
  // Complete epochs are dropped, but for the last one, whose steps no save
  // has reached.
  EXPECT_EQ(data.ledgerIntervals(), 2);
}

/// Two workers on 10 units of 1000 bytes: each takes two, worker 0 reads
/// its first to the end (100 records: 0.1 records per byte), then for 0.5
/// s in steps of `tick` worker 0 trains 10 records of its first unit a
/// step and worker 1 one of its first: 100 and 10 records/s. Worker 1
/// then holds 194 records, 19.4 s of its rate; worker 0 holds 140 (1.4 s),
/// and 600 are not handed out: worker 0 alone does the rest in 7.4 s.
class PacingTest : public ::testing::Test {
protected:
  DataCoordinatorOptions options() {
    DataCoordinatorOptions options = workers(2);
    options.clock = [this] { return now; };
    return options;
  }

  void startTraining(DataCoordinator &data, milliseconds tick) {
    std::vector<WorkUnit> first;
    for (int worker : {0, 1, 0, 1}) {
      std::optional<WorkUnit> unit = data.acquire(worker, milliseconds(0));
      ASSERT_TRUE(unit) << "worker " << worker;
      if (first.size() < 2)
        first.push_back(*unit);
    }
    DataReport read;
    read.unitsRead.push_back({first[0].epoch, first[0].id, 100});
    data.report(0, read);
    for (int64_t step = 0; step < 6; ++step) {
      if (step > 0)
        now += tick;
      data.report(0, trained(first[0].epoch, first[0].id,
                             {{10 * step, 10 * step + 10}}, 2 * step + 1));
      data.report(1, trained(first[1].epoch, first[1].id, {{step, step + 1}},
                             2 * step + 2));
    }
  }

  std::chrono::steady_clock::time_point now{};
};

TEST_F(PacingTest, TheLastEpochsUnitsGoToWhoFinishesSooner) {
  DataCoordinator data(options());
  data.define(0, dataSet(10, 1));
  ASSERT_NO_FATAL_FAILURE(startTraining(data, milliseconds(100)));
  // Worker 0 would end the epoch sooner with one more unit.
  EXPECT_TRUE(data.acquire(0, milliseconds(0)));
  // Worker 1's own units take it longer than worker 0 needs for all the
  // rest: refused at once, as at the end of the data, not made to wait.
  EXPECT_FALSE(data.acquire(1, milliseconds(2'000)));
  EXPECT_EQ(data.stats().acquiresRefused, (std::vector<int64_t>{0, 1}));
  // Worker 1 takes no more: worker 0 gets the rest, whatever its rate.
  for (int unit = 0; unit < 5; ++unit)
    EXPECT_TRUE(data.acquire(0, milliseconds(0))) << unit;
  EXPECT_EQ(data.stats().unitsHandedOut, (std::vector<int64_t>{8, 2}));
}

TEST_F(PacingTest, ARefusedWorkerTakesUnitsAgainWhenTheOthersAreGone) {
  DataCoordinator data(options());
  data.define(0, dataSet(10, 1));
  ASSERT_NO_FATAL_FAILURE(startTraining(data, milliseconds(100)));
  EXPECT_FALSE(data.acquire(1, milliseconds(0)));
  data.releaseWorker(0, ReleaseReason::Lost);
  // Worker 0's units went back, and nobody else is left to take them.
  for (int unit = 0; unit < 8; ++unit)
    EXPECT_TRUE(data.acquire(1, milliseconds(0))) << unit;
  EXPECT_EQ(data.stats().acquiresRefused, (std::vector<int64_t>{0, 1}));
}

TEST_F(PacingTest, OnlyTheLastEpochOfAsynchronousTrainingIsPaced) {
  struct Case {
    const char *name;
    DataSetDefinition definition;
    milliseconds tick;
  };
  for (const Case &c :
       {Case{"an epoch before the last", dataSet(10, 2), milliseconds(100)},
        Case{"epochs without end", dataSet(10, 0), milliseconds(100)},
        Case{"synchronous training", dataSet(10, 1, 7, false),
             milliseconds(100)},
        Case{"rates over too short a time", dataSet(10, 1),
             milliseconds(40)}}) {
    SCOPED_TRACE(c.name);
    now = {};
    DataCoordinator data(options());
    data.define(0, c.definition);
    ASSERT_NO_FATAL_FAILURE(startTraining(data, c.tick));
    EXPECT_TRUE(data.acquire(1, milliseconds(0)));
    EXPECT_EQ(data.stats().acquiresRefused, (std::vector<int64_t>{0, 0}));
  }
}

TEST(DataCoordinatorTest, TheLedgerStaysSmall) {
  DataCoordinator data(workers(1));
  data.define(0, dataSet(4, 1));
  std::vector<WorkUnit> units;
  for (int i = 0; i < 4; ++i)
    units.push_back(*data.acquire(0, milliseconds(100)));
  // Batches of 2 records from each unit, one step each, out of order.
  int64_t step = 0;
  for (int64_t first = 0; first < 200; first += 2)
    for (const WorkUnit &unit : units)
      data.report(0, trained(0, unit.id, {{198 - first, 200 - first}}, ++step));
  // A step each: 100 intervals per unit until a save reaches them.
  EXPECT_EQ(data.ledgerIntervals(), 400);
  data.saveState(step);
  EXPECT_EQ(data.ledgerIntervals(), 4);
  for (const WorkUnit &unit : units)
    data.unitRead(0, 0, unit.id, 200);
  EXPECT_EQ(data.ledgerIntervals(), 0);
  EXPECT_TRUE(data.stats().finished);
}

TEST(DataCoordinatorTest, RefusesBadReportsWhole) {
  DataCoordinator data(workers(1));
  data.define(0, dataSet(2, 1));
  std::optional<WorkUnit> unit = data.acquire(0, milliseconds(100));
  ASSERT_TRUE(unit);
  data.unitRead(0, 0, unit->id, 10);
  auto refused = [&](const DataReport &report, const std::string &message) {
    Error error = expectError([&] { data.report(0, report); });
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(error.what(), message)) << error.what();
  };
  DataReport report = trained(0, unit->id, {{0, 5}}, 1);
  report.trained.push_back(records(0, unit->id, {{8, 11}}));
  refused(report, "which holds 10 records");
  refused(trained(1, 0, {{0, 1}}, 1), "epoch 1 of a data set of 1 epoch(s)");
  refused(trained(0, 2, {{0, 1}}, 1), "unit 2 of a data set of 2 unit(s)");
  refused(trained(0, 0, {{3, 3}}, 1), "records [3, 3)");
  DataReport reread;
  reread.unitsRead.push_back({0, unit->id, 12});
  refused(reread, "which holds 10");
  EXPECT_EQ(data.stats().recordsTrained, 0);
  EXPECT_EQ(expectError([&] { data.report(5, report); }).code(),
            ErrorCode::InvalidArgument);
}

TEST(DataCoordinatorTest, TheConnectionWaitsInSlices) {
  CoordinatorOptions options{1, 2, milliseconds(10'000), milliseconds(100), {}};
  Coordinator coordinator(options);
  InProcessCoordinatorConnection worker0(coordinator);
  InProcessCoordinatorConnection worker1(coordinator);
  worker0.defineData(0, dataSet(1, 1));
  std::optional<WorkUnit> unit = worker0.acquireUnit(0, milliseconds(100));
  ASSERT_TRUE(unit);
  std::future<std::optional<WorkUnit>> waiting =
      std::async(std::launch::async,
                 [&] { return worker1.acquireUnit(1, milliseconds(3'000)); });
  // Longer than the coordinator's maxWait.
  EXPECT_EQ(waiting.wait_for(milliseconds(400)), std::future_status::timeout);
  worker0.workerDone(0);
  ASSERT_EQ(waiting.wait_for(milliseconds(2'000)), std::future_status::ready);
  EXPECT_TRUE(waiting.get());
  std::string state = worker1.dataState(0);
  worker1.restoreDataState(state);
  EXPECT_EQ(worker1.dataStats().unitsPending, 1);
}

} // namespace
} // namespace dtf::coord
