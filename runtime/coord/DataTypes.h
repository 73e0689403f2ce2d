//===- DataTypes.h - What workers tell the data coordinator -----*- C++ -*-===//
//
// The plain types of the data coordinator's calls (DataCoordinator.h), kept
// apart from its state machine so that CoordinatorConnection.h and the
// transport can include them alone.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/WorkUnits.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dtf::coord {

/// The data set a job trains on, as every worker defines it at its start.
struct DataSetDefinition {
  /// The units of one epoch, ids 0..n-1 in this order (each unit's `epoch`
  /// and `trained` are ignored). The same units make every epoch.
  std::vector<WorkUnit> units;
  /// Passes over the data set; 0: without end.
  int64_t epochs = 0;
  /// The order fresh units of epoch e are handed out in: 0..n-1 shuffled
  /// (Fisher-Yates, from the last position down, the position to swap with
  /// drawn as `next() % (i + 1)`) by a std::mt19937_64 seeded with
  /// seed + e. The same on every platform.
  uint64_t seed = 0;
  /// When nothing is pending and units are out with live workers, an
  /// acquire waits for one of them to be given back (asynchronous
  /// training: true) rather than ending the worker's data (false). Not
  /// compared between definitions: the first one's holds.
  bool waitForReleasedUnits = true;
};

/// Records of one unit of one epoch: `records` are [first, last) runs,
/// sorted by first. A record that a report names twice appears in two
/// runs (and counts as a duplicate when trained).
struct UnitRecords {
  int64_t epoch = 0;
  int64_t unit = 0;
  std::vector<RecordRange> records;

  bool operator==(const UnitRecords &other) const {
    return epoch == other.epoch && unit == other.unit &&
           records == other.records;
  }
};

/// Groups examples per (epoch, unit), sorted by (epoch, unit), each unit's
/// records as sorted runs of consecutive records; a record named k times
/// appears in k runs.
std::vector<UnitRecords>
groupExamples(const std::vector<ExampleOrigin> &examples);

/// A reader read a unit to its end: it holds `records` records in all.
struct UnitRead {
  int64_t epoch = 0;
  int64_t unit = 0;
  int64_t records = 0;
};

/// What a worker tells the coordinator about its data, one report per step
/// (or whenever it likes): each part may be empty.
struct DataReport {
  std::vector<UnitRead> unitsRead;
  /// Records of batches whose gradients are being pushed.
  std::vector<UnitRecords> pushing;
  /// Records of batches whose gradients are in the model from
  /// `globalStep` on.
  std::vector<UnitRecords> trained;
  /// Records reported pushing that were not trained on, and are read again
  /// by the worker: no push of them went, or the PS refused it.
  std::vector<UnitRecords> withdrawn;
  /// The same, but a push of them failed with no answer: their gradients
  /// may be in the model (counted in DataStats::recordsInDoubt).
  std::vector<UnitRecords> inDoubt;
  int64_t globalStep = 0;
  /// `pushing` is one batch, whose push this report rides if it rides one
  /// (runtime/rpc/DataReportRider.h): PS task 0 then records the batch
  /// trained or in flight once the push's outcome is known, not before
  /// (ParameterServerService::SettleRidingBatch). Elsewhere, as pushing.
  bool pushingRidesItsPush = false;
};

/// Why a worker's units go back to pending.
enum class ReleaseReason {
  /// The worker defined the data set again: a new process of it, which
  /// forgot what the old one held.
  Restarted,
  /// The worker finished training.
  Done,
  /// The worker was silent for longer than the heartbeat timeout.
  Lost,
};

/// "restarted", "done", "lost".
const char *releaseReasonName(ReleaseReason reason);

/// Where the data stands.
struct DataStats {
  /// A definition was accepted.
  bool defined = false;
  /// The last epoch is complete (never, without a last epoch).
  bool finished = false;
  /// The lowest epoch not complete (the number of epochs once finished).
  int64_t currentEpoch = 0;
  /// Epochs all of whose units are done.
  int64_t epochsCompleted = 0;
  int64_t unitsPerEpoch = 0;
  /// The units of the current epoch by state.
  int64_t unitsDone = 0;
  int64_t unitsOut = 0;
  int64_t unitsPending = 0;
  /// Distinct records trained on, all epochs together.
  int64_t recordsTrained = 0;
  /// Records a worker reported pushing and then was lost (or restarted)
  /// before reporting them trained, or whose push failed with no answer
  /// (DataReport::inDoubt): they may or may not be in the model, and are
  /// read again.
  int64_t recordsInDoubt = 0;
  /// Records reported trained that were already trained in their epoch.
  int64_t duplicateRecords = 0;
  /// Records reported for an epoch that was never handed out (a report
  /// from before the state was restored): ignored.
  int64_t staleRecords = 0;
  /// Per worker index: units handed out to it, and records it trained
  /// (since this coordinator started).
  std::vector<int64_t> unitsHandedOut;
  std::vector<int64_t> recordsTrainedPerWorker;
  /// Per worker index: its acquires refused to pace the end of the last
  /// epoch (DataCoordinator.h).
  std::vector<int64_t> acquiresRefused;
};

} // namespace dtf::coord
