//===- Inputs.h - A worker's inputs opened for a compiled model -----------===//
//
// Joins the data bindings of runtime/data/InputSpec.h to a compiled model:
// the placeholders of the program say what each binding must become (its
// dtype and the shape of one example), every placeholder the data feeds
// must have a binding, and each worker reads its shard of the training
// data, shuffled, with a reader thread preparing the next batches. Ids
// read from TFRecord files are checked against the tables the program
// looks them up in as they are read, so that a bad id is refused naming
// its file and record rather than its place in a batch (RowPulls.h checks
// the ids of other inputs).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/data/InputSpec.h"
#include "runtime/data/Inputs.h"
#include "runtime/data/TensorSlices.h"
#include "runtime/train/Tasks.h"

#include "mlir/IR/Operation.h"

#include <map>
#include <string>
#include <vector>

namespace dtf::train {

struct InputOptions {
  /// The training data, one binding per placeholder (--input).
  std::vector<data::InputSpec> train;
  /// The data of the evaluation after training (--eval_input); empty for
  /// none.
  std::vector<data::InputSpec> eval;
  /// Training batches prepared ahead of the step (--prefetch); 0 for none.
  size_t prefetch = 2;
};

/// The placeholders of `scope` that data feeds (not the pulled variables
/// of runtime/ABI.md), by name, with the type of one example. Throws
/// std::invalid_argument for a placeholder whose element type no kernel
/// takes.
std::map<std::string, data::ExampleType>
dataPlaceholders(mlir::Operation *scope);

/// The placeholders of `scope` whose ids a dtf.pull_rows looks up, by
/// name, each with the table its ids must be rows of: of the tables it
/// feeds, the one of fewest rows (`table_rows`), or a dynamic table (no
/// `table_rows`, no upper bound) when it feeds no fixed one. A shard's
/// pull names its whole table.
std::map<std::string, data::IdTable>
lookedUpPlaceholders(mlir::Operation *scope);

/// What one reader of the training data reads of it, and in which order.
struct DataShard {
  data::Shard shard;
  /// Seeds the shuffle of each pass over the shard (TensorSlices).
  uint64_t shuffleSeed = 0;
};

/// Worker `workerIndex` of `numWorkers` in between-graph replication reads
/// every numWorkers-th example from its index (TensorFlow's
/// `Dataset.shard(num_workers, task_index)`), so that the workers together
/// read each example once per pass, each shuffled with a seed of its own.
/// Throws std::invalid_argument for an index outside [0, numWorkers).
DataShard betweenGraphDataShard(int workerIndex, int numWorkers);

/// The in-graph master reads all of the data, in the order worker 0 of a
/// one-worker between-graph cluster reads it: one tower in-graph trains on
/// the batches of one between-graph worker.
DataShard inGraphDataShard();

/// Reads the inputs of a model whose placeholders are those of `scope`: the
/// part of the training data that `reader` says, shuffled and prefetched,
/// and all of the evaluation data in order. Throws std::invalid_argument,
/// naming the binding and file, for a placeholder without a binding and for
/// data that does not fit it.
WorkerInputs openInputs(mlir::Operation *scope, const InputOptions &options,
                        const DataShard &reader);

} // namespace dtf::train
