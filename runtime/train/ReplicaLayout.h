//===- ReplicaLayout.h - What a replica step pulls and pushes -------------===//
//
// The shape of a between-graph replica step by name only: which variables
// it pulls from each PS task and which feeds they become, which gradients
// it pushes to each, and where those sit among the step's fetches. The
// compiled program says it (WorkerProgram::layout()); ReplicaStep and its
// tests need nothing else of the program.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Sparse.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace dtf::train {

/// Which variables a replica step pulls from and pushes to each PS task,
/// and where they sit among its feeds and fetches.
/// One shard of a table partitioned by rows.
struct SparseShard {
  kernels::RowPartition partition;
  int64_t shard = 0;
};

struct ReplicaLayout {
  /// The variables read from one PS task, and the feed of each.
  struct PullGroup {
    int psTask = 0;
    std::vector<std::string> variables;
    std::vector<std::string> feedNames;
  };
  /// The names of the gradients pushed to one PS task: the dense ones,
  /// then the sparse ones, each fetched as its ids and its rows (one row
  /// per id) and pushed as the distinct ids and the sum of their rows.
  struct PushGroup {
    int psTask = 0;
    std::vector<std::string> names;
    std::vector<std::string> sparseNames;
    /// For each sparse name, the shard of a partitioned table it is: its
    /// fetched ids are ids of the whole table, and the push carries those
    /// of this shard as rows within it. None for a whole table.
    std::vector<std::optional<SparseShard>> sparseShards;

    /// Tensors of the group among a step's fetches and in its push.
    size_t numTensors() const { return names.size() + 2 * sparseNames.size(); }
    /// The name of each tensor of the push, in order: a sparse gradient's
    /// ids and rows both carry its variable's name.
    std::vector<std::string> tensorNames() const;
  };
  std::vector<PullGroup> pulls;
  std::vector<PushGroup> pushes;
  /// The model's results (loss, accuracy), the first fetches of a step.
  size_t numResults = 0;

  /// Where push group `group`'s step tag is among a training step's
  /// fetches: after the results and the groups before it, each a step tag
  /// and its gradients. Its gradients follow it.
  size_t pushOffset(size_t group) const;
};

} // namespace dtf::train
