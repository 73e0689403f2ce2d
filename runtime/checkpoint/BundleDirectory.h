//===- BundleDirectory.h - A --logdir of TensorFlow bundles ----*- C++ -*-===//
//
// The checkpoints of a training directory (dtf-run's --logdir) in
// TensorFlow's V2 format, as TensorFlow's sharded Saver keeps them:
//
//   model.ckpt-<step>.index                   the merged index (last)
//   model.ckpt-<step>.data-0000K-of-0000N     PS task K's tensors
//   checkpoint                                model_checkpoint_path and
//                                             all_model_checkpoint_paths
//
// Each PS task writes its own shard at pendingShardPrefix() (dtf-run's
// PS tasks, asked by the chief; save() does it all in one process), then
// commit() merges them under the step (mergeBundles: the index is written
// last, so a save killed midway leaves no index and no checkpoint), writes
// the `checkpoint` file, and deletes all but the newest `keep` bundles; the
// next save removes what a killed one left. loadNewest() reads the newest
// bundle whose index and every tensor read back, warning about each newer
// one that does not.
//
// A directory may also hold DTF's own checkpoint files (Checkpoint.h), e.g.
// of the same job before it switched formats: newestCheckpoint() and
// readCheckpointAt() read whichever of the two is newest.
//
// Every failure throws CheckpointError naming the file.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/checkpoint/TensorBundle.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dtf::checkpoint {

/// What a training directory's checkpoints are written in.
enum class CheckpointFormat {
  /// DTF's own, one file per checkpoint (Checkpoint.h).
  Dtf,
  /// TensorFlow's V2 tensor bundle (TensorBundle.h).
  TensorFlow,
};

/// The format of a --checkpoint_format value ("tf", "dtf"); nullopt for any
/// other.
std::optional<CheckpointFormat> parseCheckpointFormat(std::string_view value);

/// What one PS task contributes to a sharded save.
struct BundleShard {
  /// Tensors stored whole, by name.
  std::map<std::string, Tensor> tensors;
  /// A slice of a partitioned variable (BundleWriter::addSlice).
  struct Slice {
    std::string variable;
    Shape variableShape;
    TensorSlice slice;
    Tensor value;
  };
  std::vector<Slice> slices;
};

/// The bundles `model.ckpt-<step>` of one directory.
class BundleDirectory {
public:
  explicit BundleDirectory(std::string directory);

  const std::string &directory() const { return directory_; }

  struct Entry {
    int64_t step;
    std::string prefix;
  };
  /// The bundles that have an index (by name; not verified), oldest
  /// first. A data file without an index is no checkpoint. Empty if the
  /// directory does not exist.
  std::vector<Entry> list() const;

  /// "<directory>/model.ckpt-<step>", whether or not it exists.
  std::string prefixFor(int64_t step) const;

  /// Saves `shards` (one per PS task, in task order) as the bundle of
  /// `step`, as TensorFlow's sharded Saver does, in one process: removes
  /// the leftovers of a killed save, writes each shard at
  /// pendingShardPrefix() and commit()s them.
  std::string save(int64_t step, const std::vector<BundleShard> &shards,
                   int keep);

  /// Where shard `shard` of `numShards` of the save `save` in progress is
  /// written (writeBundleShard), by whichever task holds its variables:
  /// "<directory>/model.ckpt-pending-<save>_temp/part-0000K-of-0000N". The
  /// step is not in the name: the shards are written before the step is
  /// known (in async training only the task holding the global step knows
  /// it, as of its own shard), and commit() names the bundle. Each save has
  /// its own `save` number, so that a task still writing for an abandoned
  /// save (its call timed out) cannot put its shard into a later one.
  std::string pendingShardPrefix(uint64_t save, int shard, int numShards) const;

  /// Makes the `numShards` pending shards of `save` the bundle of `step`:
  /// merges
  /// them (mergeBundles; a bundle of the same step saved before is
  /// replaced, its index first), writes the `checkpoint` file, then
  /// deletes all but the `keep` newest bundles (keep <= 0: keeps all), each
  /// index before its data files. Returns the prefix written. Throws
  /// CheckpointError naming a missing shard.
  std::string commit(int64_t step, uint64_t save, int numShards, int keep);

  /// The newest bundle whose index and every tensor read back (each
  /// tensor's CRC checked); each newer one that does not is reported
  /// through `warn`, naming the file at fault, and skipped.
  struct Loaded {
    std::string prefix;
    Checkpoint checkpoint;
  };
  std::optional<Loaded>
  loadNewest(const std::function<void(const std::string &)> &warn) const;

  /// Removes what a save killed midway left: temporaries (`*.tempstate*`
  /// of a bundle or of the `checkpoint` file), the pending save's shards
  /// (pendingShardPrefix, of every save), and data files whose prefix has no
  /// index. Only the one writer (the chief) may call it, between saves: it
  /// would delete a save in progress.
  void removeLeftovers() const;

private:
  std::string directory_;
};

/// Writes `shard` as a one-file bundle at `prefix` (BundleWriter: its whole
/// tensors, then its slices).
void writeBundleShard(const std::string &prefix, const BundleShard &shard);

/// Every tensor of the bundle at `prefix` (a partitioned variable whole,
/// by its own name) at the step its name `model.ckpt-<step>` gives; throws
/// CheckpointError naming the file at fault.
Checkpoint readBundleCheckpoint(const std::string &prefix, int64_t step);

/// A checkpoint of a training directory in either format.
struct LoadedCheckpoint {
  CheckpointFormat format;
  /// The DTF file, or the bundle's prefix.
  std::string path;
  Checkpoint checkpoint;
};

/// The newest checkpoint of `directory`, bundles and DTF files alike (of
/// one step, the `preferred` format's first), that reads back completely;
/// each newer one that does not is reported through `warn` and skipped.
/// nullopt if there is none.
std::optional<LoadedCheckpoint>
newestCheckpoint(const std::string &directory, CheckpointFormat preferred,
                 const std::function<void(const std::string &)> &warn);

/// The checkpoint of `step` in `directory`: its bundle or DTF file (the
/// `preferred` format's if both exist). Throws CheckpointError when there
/// is none or it does not read back.
LoadedCheckpoint readCheckpointAt(const std::string &directory, int64_t step,
                                  CheckpointFormat preferred);

/// Whether `directory` holds a checkpoint of `step` (any step: nullopt) in
/// either format, by name.
bool holdsCheckpoint(const std::string &directory,
                     std::optional<int64_t> step = std::nullopt);

} // namespace dtf::checkpoint
