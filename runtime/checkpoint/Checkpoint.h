//===- Checkpoint.h - Checkpoint files of a model's variables ---*- C++ -*-===//
//
// A checkpoint holds the value of every variable of a model (weights,
// optimizer slots, beta powers, global_step) at one global step, in one
// file `model.ckpt-<step>.dtf` of a checkpoint directory (`--logdir`). The
// format is below and in runtime/checkpoint/README.md; it depends on nothing
// but dtf::Tensor.
//
// Files are written atomically (a temporary file in the same directory,
// fsync, rename, fsync of the directory): a reader sees a complete file or
// none. Each tensor carries a CRC-32C of its header and of its data, and the
// file ends with a footer holding its length, so a corrupt or truncated file
// is detected; CheckpointDirectory::loadNewest() then falls back to the
// previous checkpoint with a warning.
//
// Every failure throws CheckpointError naming the file.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dtf::checkpoint {

class CheckpointError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The variables of a model at one global step.
struct Checkpoint {
  int64_t step = 0;
  /// By variable name.
  std::map<std::string, Tensor> tensors;
};

/// Limits a reader enforces before allocating anything (a hostile file must
/// not make it allocate whatever it claims).
inline constexpr uint32_t kMaxNameBytes = 4096;
inline constexpr uint32_t kMaxRank = 32;

/// Writes `checkpoint` to `path` atomically: a temporary file beside it,
/// fsync, rename over `path`, fsync of the directory.
void writeCheckpointFile(const std::string &path, const Checkpoint &checkpoint);

/// Reads and verifies a whole checkpoint file: magic, version, every CRC,
/// sizes, the footer.
Checkpoint readCheckpointFile(const std::string &path);

/// "model.ckpt-<step>.dtf".
std::string checkpointFileName(int64_t step);

/// The checkpoints of one directory.
class CheckpointDirectory {
public:
  explicit CheckpointDirectory(std::string directory);

  const std::string &directory() const { return directory_; }

  struct Entry {
    int64_t step;
    std::string path;
  };
  /// The checkpoint files (by name; not verified), oldest first. Empty if
  /// the directory does not exist.
  std::vector<Entry> list() const;

  /// The path of the checkpoint at `step` (whether or not it exists).
  std::string pathFor(int64_t step) const;

  /// Writes `checkpoint` as model.ckpt-<step>.dtf (creating the directory
  /// if needed), then deletes all but the `keep` newest checkpoint files
  /// (keep <= 0: keeps all). Returns the path written.
  std::string save(const Checkpoint &checkpoint, int keep);

  /// The newest checkpoint that reads back completely; each newer file
  /// that does not (corrupt, truncated, unreadable) is reported through
  /// `warn` and skipped. nullopt if there is none.
  struct Loaded {
    std::string path;
    Checkpoint checkpoint;
  };
  std::optional<Loaded>
  loadNewest(const std::function<void(const std::string &)> &warn) const;

  /// Removes temporary files that a writer killed mid-save left behind.
  void removeTemporaries() const;

private:
  std::string directory_;
};

} // namespace dtf::checkpoint
