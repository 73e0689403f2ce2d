//===- Inputs.h - A worker's inputs opened for a compiled model -----------===//
//
// Joins the data bindings of runtime/data/InputSpec.h to a compiled model:
// the placeholders of the program say what each binding must become (its
// dtype and the shape of one example), every placeholder the data feeds
// must have a binding, and each worker reads its shard of the training
// data, shuffled, with a reader thread preparing the next batches.
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

/// Reads the inputs of worker `shard` of a model whose placeholders are
/// those of `scope`: its shard of the training data, shuffled with
/// `shuffleSeed` and prefetched, and all of the evaluation data in order.
/// Throws std::invalid_argument, naming the binding and file, for a
/// placeholder without a binding and for data that does not fit it.
WorkerInputs openInputs(mlir::Operation *scope, const InputOptions &options,
                        data::Shard shard, uint64_t shuffleSeed);

} // namespace dtf::train
