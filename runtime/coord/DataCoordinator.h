//===- DataCoordinator.h - Which examples each epoch trained on -*- C++ -*-===//
//
// Hands out the units of a data set (WorkUnits.h) to the readers of the
// workers and keeps, per epoch, a ledger of the records trained on, so that
// each example is trained on once per epoch although workers die, restart
// and the job resumes from checkpoints. The Coordinator (one per cluster,
// on PS task 0) owns it and drives it; the rpc layer serves it.
//
// Hand-out. Each epoch has the same units 0..n-1. A unit is fresh (never
// handed out in its epoch), out (with one worker), pending again (given
// back) or done (its number of records is known and all are trained). An
// acquire gets the lowest epoch's pending unit, units given back before
// fresh ones, fresh ones in the epoch's shuffled order; when an epoch has
// none pending, the next epoch is opened at once (no barrier: a fast worker
// goes on while a slow one finishes the epoch before). A unit handed out
// again carries its `trained` records, which the reader skips.
//
// Pacing the end of the last epoch (asynchronous training only: a
// synchronous step waits for every worker, and stragglers are what backup
// workers are for). Once every unit is handed out, each worker trains what
// it holds (its shuffle buffer, the units it still reads) at its own rate,
// and the epoch ends when the slowest of them is through: a worker 3x
// slower than the others, holding as many examples, ends long after them.
// So in the last epoch an acquire is refused, as at the end of the data
// (nullopt), to a worker whose records in hand take it, at its rate, at
// least as long as the other workers still taking units need for all the
// rest (the records not handed out and theirs in hand) at their combined
// rate: one unit more would only end the epoch later. The refused worker
// trains what it holds and ends; the others take the rest. A rate is the
// records a worker reported trained per second over the last
// kRateWindow; a unit's records not known yet (not read to its end) are
// its bytes times the records per byte of the units read. Without a rate
// for the worker and for some other worker, or before any unit was read
// to its end, nothing is refused. DataStats::acquiresRefused counts them.
// A refused worker's data has ended: its examples left over at its end
// (fewer than a batch) go back with its units, and a worker still taking
// units trains them; should the others die after, their units wait for a
// worker that asks again (a restarted one), as after the drained end
// below.
//
// Exactly once, what is exact:
//  - A unit is with at most one worker at a time, and goes back (with its
//    trained records) only when that worker defines the data set again
//    (a new process of it: its readers start over), finishes or is lost (silent
//    for longer than the heartbeat timeout; noticed at the latest by the next
//    call of any worker, and by a waiting acquire).
//  - A record reported trained is never handed out again in its epoch.
//  - saveState(G) keeps exactly the records reported trained at a global
//    step <= G (the checkpoint of step G holds their gradients); restoring
//    it hands out every other record of the saved epochs again.
//
// A batch whose report rides its push to PS task 0 (the step pushes there
// alone: runtime/rpc/DataReportRider.h) is reported there by the push:
// trained at the step an applied push made, else pushing, before the
// push's answer goes (ParameterServerService::SettleRidingBatch). The
// worker reports the rest as below.
//
// What is not exact:
//  - In doubt: a worker lost (or restarted) after reporting a batch
//    `pushing` and before reporting it `trained`. Its gradients may or may
//    not have reached the model; the records are read again, so they may
//    be trained twice. Counted in DataStats::recordsInDoubt. (A batch that
//    rode its push is in flight only where the push was not applied; one
//    whose push's answer was lost is counted in doubt by its worker, and
//    as duplicates if it was trained and is trained again.)
//  - A worker wrongly thought lost (alive, but silent past the timeout)
//    goes on with units that were given to another worker: what both
//    train is counted in DataStats::duplicateRecords (the ledger keeps the
//    truth: whatever is reported trained is trained).
//  - A checkpoint saved while a batch's report is on its way (its push
//    applied, its `trained` not yet arrived; for a batch that rode its
//    push, within PS task 0's handling of the push) holds the gradients
//    but not the record: after a restore from it the record is trained
//    again.
//  - The steps of the trained records are kept until saveState reaches
//    them; a done unit whose steps are all <= the last saved step forgets
//    them, and a complete epoch is forgotten once it is saved over, or once
//    the epoch after it is complete too. saveState(G) for a G lower than
//    an earlier save's, or lower than the steps of an epoch forgotten that
//    way, counts those records as trained.
//
// Memory: per open epoch, a few words per unit plus its trained intervals
// (adjacent intervals merge when their steps are equal or both saved
// over), so units x small; complete epochs are dropped as above.
//
// State bytes (saveState): "DTFDATA\0", a version (1), the definition's
// fingerprint, units, epochs and seed, the step saved, the epochs complete
// below the first one kept, the counters, then per epoch kept its done
// units and, per unit not done, its number of records (-1: not known) and
// trained ranges; all integers little-endian, 64-bit, ending with the
// masked CRC-32C of what precedes. No protobuf: this library links no
// transport.
//
// Failures are dtf::Error: InvalidArgument (a bad definition or report, a
// worker outside the cluster, a definition that differs, a garbled
// state), FailedPrecondition (a report or saveState before any
// definition), DeadlineExceeded (an acquire that waited its time: ask
// again), Aborted (an acquire that would wait after stop()), Cancelled
// (its caller left), Unavailable (beginShutdown()).
//
// Thread-safe.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/coord/DataTypes.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dtf::coord {

struct DataCoordinatorOptions {
  int numWorkers = 1;
  /// Longest an acquire blocks, whatever its caller asks.
  std::chrono::milliseconds maxWait{60'000};
  /// The workers lost now. Asked at every call and while an acquire
  /// waits, with the data coordinator's lock held (so it must not call
  /// the data coordinator). A worker waiting in an acquire is not
  /// released. Empty: none is ever lost.
  std::function<std::vector<int>()> lostWorkers;
  /// The clock the workers' rates are measured by (the pacing above);
  /// empty: std::chrono::steady_clock.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

class DataCoordinator {
public:
  using ClientLeft = std::function<bool()>;

  explicit DataCoordinator(DataCoordinatorOptions options);
  DataCoordinator(const DataCoordinator &) = delete;
  DataCoordinator &operator=(const DataCoordinator &) = delete;
  ~DataCoordinator();

  /// The first definition wins; an identical one later is accepted; one
  /// with other units, epochs or seed is InvalidArgument naming what
  /// differs (also when it differs from a state restored before it).
  void define(int worker, const DataSetDefinition &definition);
  /// The next unit for `worker` (see the top of this file); nullopt when
  /// the data is finished, when the last epoch is handed out and every
  /// unit still out was read to its end (drainedLocked), or, without
  /// waitForReleasedUnits, when nothing is pending and nothing will be
  /// opened, or when the pacing of the last epoch refuses `worker` a unit.
  /// Blocks while there is no definition, or nothing is pending but
  /// units are out with live workers that still read them, for at most
  /// min(`timeout`, maxWait): DeadlineExceeded.
  std::optional<WorkUnit> acquire(int worker, std::chrono::milliseconds timeout,
                                  const ClientLeft &clientLeft = {});
  /// The unit holds `records` records in all.
  void unitRead(int worker, int64_t epoch, int64_t unit, int64_t records);
  /// Applies a report: units read, then records pushing, then records
  /// trained. Checked whole before anything of it is applied.
  void report(int worker, const DataReport &report);
  /// The worker's units not done go back to pending, with their trained
  /// records; its records pushing and not trained count as in doubt.
  void releaseWorker(int worker, ReleaseReason reason);

  /// The ledger as of global step `globalStep`, as bytes to keep with the
  /// checkpoint of that step. FailedPrecondition before a definition.
  std::string saveState(int64_t globalStep);
  /// Replaces the ledger by a saved one: every unit not done is pending
  /// (nothing is out). Allowed before define(), which must then match it.
  /// InvalidArgument for a truncated or garbled state, or one of another
  /// data set.
  void restoreState(const std::string &state);

  DataStats stats();
  /// Trained intervals held in the ledger, all epochs together (its
  /// memory, for tests).
  int64_t ledgerIntervals();

  /// Training is over: an acquire that would wait fails with Aborted.
  void stop(const std::string &reason);
  /// Releases every wait, now and later, with Unavailable.
  void beginShutdown();

private:
  struct Interval {
    int64_t first;
    int64_t last;
    int64_t step;
  };
  /// Records a worker reported trained at `step`, not merged yet.
  struct PendingRecords {
    int64_t first;
    int64_t last;
    int64_t step;
    int worker;
  };
  using Clock = std::chrono::steady_clock;
  /// (when, records the worker trained by then), at each of its reports
  /// of trained records within the last kRateWindow.
  using RateSamples = std::deque<std::pair<Clock::time_point, int64_t>>;
  enum class UnitStatus : uint8_t { Fresh, Out, Pending, Done };
  struct Unit {
    UnitStatus status = UnitStatus::Fresh;
    int worker = -1;
    /// Records in all; -1 until a reader read it to its end.
    int64_t total = -1;
    int64_t trainedCount = 0;
    /// Sorted, disjoint.
    std::vector<Interval> trained;
    /// Records reported trained and not yet merged into `trained`, in the
    /// order they came (settlePendingLocked). A shuffled batch names a few
    /// records of many units, and merging each report into a unit's list
    /// would cost the list's length per record.
    std::vector<PendingRecords> pending;
    /// Records in `pending`, duplicates included.
    int64_t pendingCount = 0;
    /// Records its worker reported pushing and not yet trained.
    std::vector<RecordRange> inFlight;
  };
  struct Epoch {
    std::vector<int64_t> order;
    size_t nextFresh = 0;
    /// Units given back, in the order they came back.
    std::deque<int64_t> released;
    std::vector<Unit> units;
    int64_t done = 0;
    int64_t out = 0;
  };
  struct SavedState;

  void checkWorkerLocked(int worker) const;
  void releaseLostLocked();
  void releaseWorkerLocked(int worker);
  std::optional<WorkUnit> tryAcquireLocked(int worker, bool &finished);
  Epoch &openEpochLocked(int64_t epoch);
  WorkUnit handOutLocked(int worker, int64_t epoch, Epoch &state, int64_t unit);
  Clock::time_point nowLocked() const;
  /// Records per second `worker` trained over the last kRateWindow; 0
  /// when not known (its reports since it was last released span less
  /// than kMinRateSpan).
  double rateLocked(int worker) const;
  /// Whether `worker`'s records in hand take it, at its rate, at least as
  /// long as the other workers still taking units need for all the rest:
  /// then it is refused a unit of the last epoch (see "Pacing" above).
  bool outlastsTheRestLocked(int worker) const;
  bool finishedLocked() const;
  /// The last epoch is handed out and every unit not done was read to its
  /// end by the worker holding it: what is left of it is in that worker's
  /// buffers, which no other worker can help with. A waiting acquire ends
  /// then (else each worker would wait for the others' last examples,
  /// fewer than a batch each, for ever). Requires the mutex.
  bool drainedLocked() const;
  int64_t epochsCompletedLocked() const;
  void markDoneIfCompleteLocked(int64_t epoch, Epoch &state, int64_t unit);
  /// Merges `unit.pending` into `unit.trained` in one pass, counting the
  /// records that were trained already as duplicates (and taking them out
  /// of the counts of trained records that the report added).
  void settlePendingLocked(Unit &unit);
  void settleAllLocked();
  void compactLocked();
  void dropEpochsLocked();
  bool mergeable(const Interval &a, const Interval &b) const;
  void mergeIntervals(std::vector<Interval> &intervals) const;
  void applyLocked(const SavedState &saved);
  std::string waitMessageLocked() const;

  const DataCoordinatorOptions options;

  mutable std::mutex mutex;
  std::condition_variable changed;
  std::optional<DataSetDefinition> definition;
  uint64_t fingerprint = 0;
  /// A state restored before the definition.
  std::unique_ptr<SavedState> restored;
  /// Epochs below it are all complete and dropped; those kept follow it
  /// without gaps.
  int64_t completeBelow = 0;
  std::map<int64_t, Epoch> epochs;
  /// The highest step saved (or restored): intervals with steps at or
  /// below it merge, done units below it forget them.
  int64_t savedStep;
  int64_t recordsTrained = 0;
  int64_t recordsInDoubt = 0;
  int64_t duplicateRecords = 0;
  int64_t staleRecords = 0;
  std::vector<int64_t> unitsHandedOut;
  std::vector<int64_t> recordsTrainedPerWorker;
  /// Per worker, the (epoch, unit)s out with it.
  std::vector<std::set<std::pair<int64_t, int64_t>>> held;
  /// Per worker, its acquires in progress: a worker waiting in one is
  /// alive, whatever its heartbeats say.
  std::vector<int> acquiring;
  /// Per worker: its rate's samples; whether its last acquire of the last
  /// epoch was refused (it takes no units: no help with the rest).
  std::vector<RateSamples> trainedSamples;
  std::vector<bool> refused;
  std::vector<int64_t> acquiresRefused;
  bool stopped = false;
  std::string stopReason;
  bool shuttingDown = false;
};

} // namespace dtf::coord
