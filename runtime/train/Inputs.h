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
#include "runtime/data/Streaming.h"
#include "runtime/data/TensorSlices.h"
#include "runtime/train/Tasks.h"

#include "mlir/IR/Operation.h"

#include <map>
#include <string>
#include <vector>

namespace dtf::train {

/// How the training data is read (--input_mode).
enum class InputMode {
  /// Streamed when every binding reads TFRecord files and they hold more
  /// than `streamAboveBytes`, else in memory.
  Auto,
  /// Every example read into memory before the first step, sharded by
  /// example index (TensorSlices): the fastest for data that fits.
  Memory,
  /// Read while training (data::StreamingInput), units of the files handed
  /// out by the data coordinator: memory bounded by the buffers.
  Stream,
};

struct InputOptions {
  /// The training data, one binding per placeholder (--input).
  std::vector<data::InputSpec> train;
  /// The data of the evaluation after training (--eval_input); empty for
  /// none.
  std::vector<data::InputSpec> eval;
  /// Training batches prepared ahead of the step (--prefetch); 0 for none.
  size_t prefetch = 2;
  InputMode mode = InputMode::Auto;
  /// InputMode::Auto streams data of more bytes than this
  /// (--stream_above_mb).
  uint64_t streamAboveBytes = uint64_t{1} << 30;
  /// Streaming: reader threads, interleave, shuffle buffer, bad records
  /// (--reader_threads, --cycle_length, --shuffle_buffer, --input_errors);
  /// the shuffle seed and the accounting are the reader's (DataShard).
  data::StreamingOptions streaming;
  /// Streaming: plain TFRecord files are cut into units of about this many
  /// bytes (--input_unit_mb); a compressed file is one unit.
  uint64_t unitBytes = uint64_t{64} << 20;
  /// Streaming: passes over the data (--num_epochs); 0 for no end.
  int64_t epochs = 0;
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
  /// Seeds the shuffle of each pass over the shard (TensorSlices), or of
  /// the streamed input's shuffle buffer.
  uint64_t shuffleSeed = 0;
  /// Streaming: the reader reports what it trains on to the data
  /// coordinator (between-graph workers), so that each example is trained
  /// on once per epoch whatever fails.
  bool accountExamples = false;
};

/// Worker `workerIndex` of `numWorkers` in between-graph replication reads
/// every numWorkers-th example from its index (TensorFlow's
/// `Dataset.shard(num_workers, task_index)`), so that the workers together
/// read each example once per pass, each shuffled with a seed of its own.
/// Streamed, it reads the units the data coordinator hands it instead, and
/// accounts for what it trains on.
/// Throws std::invalid_argument for an index outside [0, numWorkers).
DataShard betweenGraphDataShard(int workerIndex, int numWorkers);

/// The in-graph master reads all of the data, in the order worker 0 of a
/// one-worker between-graph cluster reads it: one tower in-graph trains on
/// the batches of one between-graph worker.
DataShard inGraphDataShard();

/// Reads the inputs of a model whose placeholders are those of `scope`: the
/// part of the training data that `reader` says, shuffled and prefetched,
/// and all of the evaluation data in order. Streamed training data (see
/// InputMode) is only opened: `streamed` holds its units, and its reader
/// waits for the task to bind the source of units. Throws
/// std::invalid_argument, naming the binding and file, for a placeholder
/// without a binding and for data that does not fit it.
WorkerInputs openInputs(mlir::Operation *scope, const InputOptions &options,
                        const DataShard &reader);

} // namespace dtf::train
