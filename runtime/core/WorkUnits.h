//===- WorkUnits.h - Parts of a data set handed out to readers ------------===//
//
// Streaming input (Streaming.h) does not shard a data set by example index:
// each epoch is cut into units (a file, or a byte range of a large plain
// TFRecord file), and a WorkSource hands them to the readers of a worker as
// they ask, as tf.data service's `distributed_epoch` mode does. A slow
// worker takes fewer units; a worker that joins late gets work.
//
// The reader tells the source what became of each example, so that the
// source (with a data coordinator behind it, runtime/coord/DataCoordinator.h)
// can hand a lost worker's unfinished units to another reader from the
// record after those already trained on, and can save the epoch's state
// with a checkpoint: every example is trained on once per epoch. A unit's
// records are numbered from 0 in file order; `trained` lists those to skip.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace dtf {

/// How a TFRecord file is compressed (TFRecordOptions.compression_type).
enum class Compression { None, Gzip, Zlib };

/// "NONE", "GZIP", "ZLIB".
const char *compressionName(Compression compression);

/// Record numbers [first, last) of one unit.
using RecordRange = std::pair<int64_t, int64_t>;

/// One part of one epoch.
struct WorkUnit {
  /// The pass over the data set it belongs to, from 0.
  int64_t epoch = 0;
  /// Its index among the units of an epoch (the same units each epoch).
  int64_t id = 0;
  std::string path;
  Compression compression = Compression::None;
  /// The unit holds the records whose first byte is at an offset in
  /// [begin, end) of the file: a reader starting at `begin` skips to the
  /// first record boundary at or after it. A compressed file is always one
  /// unit (begin 0, end its size in bytes).
  uint64_t begin = 0;
  uint64_t end = 0;
  /// Records of the unit already trained on, sorted and disjoint: a unit
  /// handed out again (its reader was lost, or the job resumed from a
  /// checkpoint) skips them.
  std::vector<RecordRange> trained;
};

/// Where one example of a batch came from.
struct ExampleOrigin {
  int64_t epoch = 0;
  int64_t unit = 0;
  int64_t record = 0;
};

/// By epoch, then unit, then record: the order a report groups a batch's
/// examples in (runtime/coord's groupExamples), which streaming input
/// hands them over in.
inline bool operator<(const ExampleOrigin &a, const ExampleOrigin &b) {
  return std::tie(a.epoch, a.unit, a.record) <
         std::tie(b.epoch, b.unit, b.record);
}

/// Hands out the units of a data set, epoch after epoch. Thread-safe: the
/// reader threads of one worker share it.
class WorkSource {
public:
  virtual ~WorkSource();

  /// The next unit to read. nullopt when there is no more: the last epoch
  /// was handed out and every unit finished or taken by a live reader, or
  /// (a data coordinator's pacing) the others will be through the rest
  /// before this worker is through what it holds. May block while units
  /// are out with other readers that may yet give them back.
  virtual std::optional<WorkUnit> next() = 0;
  /// A unit if one is to be had now, without waiting; nullopt otherwise
  /// (next() then says whether any will come). A reader that still reads
  /// other units asks this way: were it to wait for a unit that others
  /// hold, while they wait for the ones it holds, nobody would finish.
  virtual std::optional<WorkUnit> poll() { return next(); }
  /// The reader read all of `unit` (up to its end): it holds `records`
  /// records in all, trained or not.
  virtual void unitRead(const WorkUnit &unit, int64_t records) = 0;
  /// The gradients of a batch of these examples are about to be pushed:
  /// if this reader is lost before trained() arrives, they may or may not
  /// be in the model (counted as in doubt, and read again).
  virtual void pushing(const std::vector<ExampleOrigin> &examples) = 0;
  /// These examples were trained on: their gradients are part of the model
  /// from global step `globalStep` on.
  virtual void trained(const std::vector<ExampleOrigin> &examples,
                       int64_t globalStep) = 0;
  /// Examples said pushing() that were not trained on; the reader reads
  /// them again. `inDoubt`: a push of them failed with no answer (their
  /// gradients may be in the model all the same); else none went, or the
  /// PS refused it.
  virtual void notTrained(const std::vector<ExampleOrigin> &examples,
                          bool inDoubt) {
    (void)examples;
    (void)inDoubt;
  }
  /// Returns once what was said so far reached whatever keeps the account
  /// (a source may send it in the background). Throws what sending threw.
  virtual void flush() {}
  /// Ends every next() now and later with nullopt: the reader is going
  /// away (a source whose next() blocks must implement it).
  virtual void cancel() {}
};

} // namespace dtf
