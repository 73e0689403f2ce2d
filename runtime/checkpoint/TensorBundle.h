//===- TensorBundle.h - TensorFlow's V2 checkpoint format -------*- C++ -*-===//
//
// TensorFlow's V2 checkpoint, the "tensor bundle" of
// tensorflow/core/util/tensor_bundle: a checkpoint `<prefix>` is
//
//   <prefix>.index                  a LevelDB-format table, bytewise-sorted:
//                                   key "" -> BundleHeaderProto, each other
//                                   key -> the BundleEntryProto of a tensor
//   <prefix>.data-0000K-of-0000N    the tensors' bytes back to back
//
// and a checkpoint directory has a text-format `checkpoint` file naming its
// newest checkpoint. TensorFlow reads what BundleWriter writes
// (`tf.train.load_checkpoint`, `Saver.restore`), and BundleReader reads
// what TensorFlow's Saver writes, partitioned variables included. The
// format and what is not supported are in runtime/checkpoint/README.md,
// "TensorFlow's format (tensor bundle)".
//
// A sharded save, as TensorFlow's `Saver(sharded=True)` does it: each PS
// task K of N writes its own variables as a bundle at
// shardedSavePrefix(prefix, K, N) with a BundleWriter; once all have
// finished, the chief calls mergeBundles(), which renames their data files
// into place and writes the checkpoint's index last, so that `<prefix>`
// is complete or has no index. Every file is written to a temporary name,
// fsynced and renamed, and its directory fsynced.
//
// Every failure throws CheckpointError naming the file and, where there is
// one, the tensor.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/core/Tensor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dtf::checkpoint {

/// TensorFlow's TensorSlice: the part of a partitioned variable that one
/// slice holds, as a start and a length in each dimension of the full
/// tensor, or the whole dimension.
struct TensorSlice {
  struct Extent {
    int64_t start = 0;
    /// nullopt: the whole dimension (start is then 0).
    std::optional<int64_t> length;

    bool operator==(const Extent &other) const {
      return start == other.start && length == other.length;
    }
  };
  std::vector<Extent> extents;

  /// Every element of a tensor of rank `rank`.
  static TensorSlice full(size_t rank);
  /// From (start, length) per dimension.
  static TensorSlice
  fromStartsAndLengths(const std::vector<std::pair<int64_t, int64_t>> &extents);

  size_t rank() const { return extents.size(); }
  /// The shape of the slice of a tensor of shape `fullShape`, whose rank
  /// must be rank().
  Shape shapeIn(const Shape &fullShape) const;
  /// TensorFlow's spelling of a slice spec: "0,3:-" (start,length per
  /// dimension, "-" for a whole one).
  std::string toString() const;

  bool operator==(const TensorSlice &other) const {
    return extents == other.extents;
  }
};

/// The key under which the bundle holds the values of `slice` of the
/// partitioned variable `name`: TensorFlow's
/// checkpoint::EncodeTensorNameSlice, an OrderedCode encoding of 0, the
/// name, the rank, and each dimension's start and length (-1 for a whole
/// dimension).
std::string encodeTensorNameSlice(std::string_view name,
                                  const TensorSlice &slice);

/// "<prefix>.index".
std::string bundleIndexPath(const std::string &prefix);
/// "<prefix>.data-0000K-of-0000N", TensorFlow's DataFilename.
std::string bundleDataPath(const std::string &prefix, int shard, int numShards);
/// Where task `shard` of `numShards` writes its part of a sharded save of
/// `prefix`: "<prefix>_temp/part-0000K-of-0000N", as TensorFlow's sharded
/// Saver names it.
std::string shardedSavePrefix(const std::string &prefix, int shard,
                              int numShards);

/// Writes one bundle with one data file. The data file is written to a
/// temporary name as tensors are added; finish() makes it durable and
/// renames it, then writes the index the same way. Until finish() returns,
/// `<prefix>` has no index of this bundle; the index of a bundle that was
/// at `<prefix>` before is removed before the new data file takes its
/// name, so that it never names the new bytes. Destroying an unfinished
/// writer removes its temporary file. finish() is called once, and nothing
/// is added after it.
class BundleWriter {
public:
  /// Creates the prefix's directory if needed.
  explicit BundleWriter(std::string prefix);
  ~BundleWriter();
  BundleWriter(const BundleWriter &) = delete;
  BundleWriter &operator=(const BundleWriter &) = delete;

  const std::string &prefix() const { return prefix_; }

  /// Adds a whole tensor under `name` (not empty, not added before).
  void add(const std::string &name, const Tensor &value);
  /// Adds `slice` of the partitioned variable `name` of shape `fullShape`:
  /// the variable's entry records the slice, the values go under
  /// encodeTensorNameSlice(name, slice). A slice that covers the whole
  /// shape is stored as add() stores a tensor, as TensorFlow does.
  void addSlice(const std::string &name, const Shape &fullShape,
                const TensorSlice &slice, const Tensor &value);

  /// Writes the index; the bundle is complete and durable when it returns.
  void finish();

private:
  struct State;
  std::string prefix_;
  std::unique_ptr<State> state_;
};

/// TensorFlow's MergeBundles, as the sharded Saver's chief runs it: merges
/// the single-file bundles at `prefixes` (each finished by a BundleWriter,
/// as the PS tasks of a sharded save write them) into one at
/// `mergedPrefix`, whose data file K is the data file of `prefixes[K]`
/// (renamed). The slices of a partitioned variable saved by several
/// bundles are merged into its one entry. The merged index is written
/// last; then the inputs' indexes are deleted, and their directories if
/// empty (MergeV2Checkpoints' delete_old_dirs).
void mergeBundles(const std::vector<std::string> &prefixes,
                  const std::string &mergedPrefix);

/// Reads a bundle, whoever wrote it. The constructor reads and checks the
/// whole index (the header, every entry, the slices of each partitioned
/// variable) and that every entry lies within its data file; read()
/// checks each tensor's CRC.
class BundleReader {
public:
  explicit BundleReader(std::string prefix);
  ~BundleReader();
  BundleReader(const BundleReader &) = delete;
  BundleReader &operator=(const BundleReader &) = delete;

  struct TensorInfo {
    DType dtype;
    /// Of the whole tensor.
    Shape shape;
    /// A partitioned variable's slices; empty for a tensor stored whole.
    std::vector<TensorSlice> slices;
  };
  /// Every tensor by name: a partitioned variable once, by its own name
  /// (the keys of its slices are not names), as TensorFlow's
  /// CheckpointReader lists them.
  const std::map<std::string, TensorInfo> &tensors() const;

  const std::string &prefix() const { return prefix_; }
  int numShards() const;

  /// The whole tensor `name`; a partitioned variable is assembled from its
  /// slices.
  Tensor read(const std::string &name) const;
  /// `slice` of the tensor `name`, whichever slices it was saved in (a
  /// variable saved in 2 parts restores into 3).
  Tensor readSlice(const std::string &name, const TensorSlice &slice) const;
  /// Every tensor, whole, by name.
  std::map<std::string, Tensor> readAll() const;

private:
  struct State;
  std::string prefix_;
  std::unique_ptr<State> state_;
};

/// The `checkpoint` file of a checkpoint directory (TensorFlow's
/// CheckpointState): the newest checkpoint's prefix and all those kept,
/// oldest first, each relative to the directory or absolute.
struct CheckpointState {
  std::string modelCheckpointPath;
  std::vector<std::string> allModelCheckpointPaths;
};

/// Writes `<directory>/checkpoint` atomically, in TensorFlow's text format.
void writeCheckpointState(const std::string &directory,
                          const CheckpointState &state);
/// Reads `<directory>/checkpoint`; nullopt if there is none. Paths are
/// returned as written.
std::optional<CheckpointState>
readCheckpointState(const std::string &directory);

} // namespace dtf::checkpoint
