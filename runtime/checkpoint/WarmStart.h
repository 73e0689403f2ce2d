//===- WarmStart.h - Variables from another job's checkpoint -*- C++ -*-===//
//
// What tf.compat.v1.train.init_from_checkpoint(ckpt_dir_or_file,
// assignment_map) does, for dtf-run's --init_from_checkpoint and
// --init_assignment_map: a model starts from the values of a checkpoint
// written by another job (TensorFlow's Saver, or DTF with any number of PS
// tasks), under the names an assignment map gives, instead of from its
// initializers.
//
// - WarmStartCheckpoint reads either format by the names of the model that
//   wrote it: a TensorFlow bundle's partitioned variable is one tensor, and
//   so are the shards `name/part_K` of a DTF checkpoint.
// - matchAssignmentMap() applies TensorFlow's rules: which checkpoint
//   tensor initializes which variable, with errors for names the
//   checkpoint lacks and shapes that differ.
// - readAssigned() reads, for each variable or shard a PS task holds, its
//   rows of the checkpoint tensor, so that a variable saved in 2 parts
//   starts in 3.
//
// Every failure throws CheckpointError naming the checkpoint (and the
// tensor), or std::invalid_argument naming --init_assignment_map.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/core/Tensor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace dtf::checkpoint {

/// One entry of an assignment map, as init_from_checkpoint's
/// `assignment_map` {checkpointName: graphName}: a checkpoint tensor and
/// the variable it initializes ('w': 'w2'), or a scope of the checkpoint
/// and the scope of the model whose variables it initializes, each ending
/// in '/' ('old/': 'new/'; '/' is the root: every variable).
struct Assignment {
  std::string checkpointName;
  std::string graphName;

  bool operator==(const Assignment &other) const {
    return checkpointName == other.checkpointName &&
           graphName == other.graphName;
  }
};

/// Parses --init_assignment_map: comma-separated `CHECKPOINT:GRAPH` entries
/// ("old/:new/,w:w2"). Empty: {'/': '/'}, every variable from the tensor
/// of its own name. Throws std::invalid_argument naming the flag.
std::vector<Assignment> parseAssignmentMap(const std::string &spec);

/// A tensor's dtype and shape.
struct TensorType {
  DType dtype = DType::F32;
  Shape shape;
};

/// Which checkpoint tensor initializes each model variable (model name ->
/// checkpoint name), by TensorFlow's rules: the entries in the order of
/// their checkpoint names (a later, more specific entry overrides a
/// scope's); an entry whose graph name is a variable maps that variable; any
/// other maps every variable of its scope (`graph`'s names under it) to the
/// tensor of the same name under the checkpoint's scope, and must then be
/// a scope itself (end in '/'). `globalStep`, the model's global step,
/// starts at 0 unless an entry names it: a scope never covers it. Throws
/// CheckpointError naming the checkpoint `checkpointPath` for a tensor it
/// lacks, and for a dtype or shape that differs from the variable's
/// (naming both, with both shapes); a dimension of -1 in `graph` (a
/// dynamic table's rows) takes any size.
std::map<std::string, std::string>
matchAssignmentMap(const std::vector<Assignment> &assignments,
                   const std::map<std::string, TensorType> &graph,
                   const std::map<std::string, TensorType> &checkpoint,
                   const std::string &checkpointPath,
                   const std::string &globalStep);

/// Rows along dimension 0 of a tensor: `count` rows from `first`, each
/// `stride` after the previous (1: a range, a div shard's; N: the rows
/// `first`, `first + N`, ... of a mod shard of N). count -1: the whole
/// tensor.
struct RowSelection {
  int64_t first = 0;
  int64_t count = -1;
  int64_t stride = 1;

  bool whole() const { return count < 0; }
};

/// `rows` of `whole` (a copy); throws std::invalid_argument for rows it
/// does not have.
Tensor selectRows(const Tensor &whole, const RowSelection &rows);

/// A checkpoint to start from, in either format, by the names of the
/// model that wrote it.
class WarmStartCheckpoint {
public:
  /// Opens `path`: a tensor bundle's prefix (`<path>.index` exists), a DTF
  /// checkpoint file (`model.ckpt-<step>.dtf`), or a directory holding
  /// either: the bundle its `checkpoint` file names, else its newest valid
  /// DTF checkpoint (`warn` hears of newer ones that are corrupt). A DTF
  /// checkpoint's shards `name/part_0` ... `name/part_{N-1}` (N >= 2) are
  /// one tensor `name`, their rows in order, or interleaved (row r in
  /// shard r % N) for the names in `interleaved` (tables partitioned by id
  /// modulo). Throws CheckpointError naming `path`.
  static WarmStartCheckpoint
  open(const std::string &path, const std::set<std::string> &interleaved,
       const std::function<void(const std::string &)> &warn);

  WarmStartCheckpoint(WarmStartCheckpoint &&) noexcept;
  WarmStartCheckpoint &operator=(WarmStartCheckpoint &&) noexcept;
  ~WarmStartCheckpoint();

  /// What was read: the bundle's prefix or the DTF file.
  const std::string &path() const { return path_; }
  /// "TensorFlow bundle" or "DTF checkpoint".
  const char *format() const;
  /// Every tensor by name (a partitioned variable once, whole).
  const std::map<std::string, TensorType> &tensors() const { return types_; }
  /// `rows` of tensor `name` (one of tensors()).
  Tensor read(const std::string &name, const RowSelection &rows) const;

  /// What reads one format (WarmStart.cpp).
  struct Source;

private:
  WarmStartCheckpoint(std::string path, std::unique_ptr<Source> source);
  std::string path_;
  std::unique_ptr<Source> source_;
  std::map<std::string, TensorType> types_;
};

/// A variable as a PS task holds it: a model variable whole, or a shard of
/// its rows.
struct VariablePart {
  /// The task's name for it: "w", or "w/part_1" for a shard.
  std::string name;
  /// The model's variable: "w".
  std::string variable;
  /// The whole variable's dtype and shape.
  TensorType variableType;
  /// The shard's rows of the variable; whole for an unsharded one.
  RowSelection rows;
  /// How many shards the variable has (1: unsharded).
  int64_t shards = 1;
};

/// The number of shards `variable/part_0` ... `variable/part_{N-1}` that a
/// DTF checkpoint's `tensors` hold of `variable` (0: none; a gap in the
/// numbers ends them).
int64_t shardCountOf(const std::map<std::string, Tensor> &tensors,
                     const std::string &variable);

/// The shards of `variable` in a DTF checkpoint's `tensors` (N =
/// shardCountOf >= 2) joined into the whole variable: their rows in order,
/// or interleaved (row r in shard r % N) when `modulo` (a table partitioned
/// by id modulo). nullopt when there are fewer than 2. Throws
/// CheckpointError naming `path` for shards that do not fit together.
std::optional<Tensor> joinShards(const std::map<std::string, Tensor> &tensors,
                                 const std::string &variable, bool modulo,
                                 const std::string &path);

/// The values of the parts whose variables `assignments` (model name ->
/// checkpoint name, from matchAssignmentMap) covers, by part name: each
/// part's rows of its checkpoint tensor.
VariableStore
readAssigned(const WarmStartCheckpoint &checkpoint,
             const std::map<std::string, std::string> &assignments,
             const std::vector<VariablePart> &parts);

} // namespace dtf::checkpoint
