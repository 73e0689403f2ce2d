//===- Inference.h - A trained model for serving and prediction -*- C++ -*-===//
//
// What a training leaves is a model file and the checkpoints of its
// --logdir. This is what makes a servable model of them, for
// `dtf-run --export_saved_model` and `dtf-run --predict`:
//
// - loadTrainedModel() reads the newest checkpoint of either format and
//   gives each variable of the model its value there, as the initializer
//   #dtf.dense_init (so that the module alone is the trained model), a
//   dynamic table's rows made a fixed table (DynamicTableServing.h);
// - exportSavedModel() writes its inference graph as a TensorFlow
//   SavedModel (translate/graphdef/SavedModelExport.h);
// - predict() runs the same inference on the CPU, in this process, with
//   the reference Interpreter over the examples of data files bound as
//   --input binds them, in batches, the learning phase false: what the
//   SavedModel computes in TensorFlow, for a quick check.
//
// The outputs are named as SavedModelExport.h's findInferenceOutputs takes
// them (`logits` by default).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"
#include "runtime/data/InputSpec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dtf::train {

/// A model whose variables hold a checkpoint's values.
struct TrainedModel {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// The checkpoint read: a DTF file or a bundle's prefix.
  std::string checkpoint;
  int64_t globalStep = 0;
  /// The checkpoint's value of each variable of the model, by name.
  VariableStore variables;
};

/// Parses the model `modelPath` and reads the value of each of its
/// variables from the newest checkpoint of `logdir` (either format; a
/// variable sharded over PS tasks whole). `warn` hears of newer
/// checkpoints that do not read back. Throws std::invalid_argument naming
/// the model or --logdir (none there, a variable the checkpoint lacks or
/// holds with another type, a dynamic table whose rows or ids it lacks or
/// holds in counts that differ) and checkpoint::CheckpointError naming a
/// file that does not read. Diagnostics of the model go to stderr, one line
/// each. Each dynamic table becomes a fixed table of the rows it created,
/// sorted by id, and a default row for the ids it never created, looked up
/// through dtf.rows_of_ids (translate/graphdef/DynamicTableServing.h).
TrainedModel
loadTrainedModel(mlir::MLIRContext &context, const std::string &modelPath,
                 const std::string &logdir,
                 const std::function<void(const std::string &)> &warn);

/// Writes the SavedModel of `model`'s inference graph with `outputs` to
/// `directory`. Throws std::runtime_error when it does not export; the
/// reasons went to stderr first, one line each, naming the op.
void exportSavedModel(TrainedModel &model,
                      const std::vector<std::string> &outputs,
                      const std::string &directory);

/// One output of predict(): a row per example.
struct Prediction {
  /// The output's signature key (`logits`, `result_1`, a node name).
  std::string key;
  Tensor values;
};

/// Runs `model`'s inference graph on every example of `inputs` (bindings
/// as --input's, `NAME=FORMAT:PATH[,...]`) in batches of `batchSize`
/// (0: 100), the last padded and its padding dropped; a model whose
/// placeholders have a static batch runs in batches of that size. Each
/// output must be per example (dimension 0 the batch). Throws
/// std::invalid_argument naming the binding, the output or the placeholder
/// at fault.
std::vector<Prediction> predict(TrainedModel &model,
                                const std::vector<std::string> &outputs,
                                const std::vector<data::InputSpec> &inputs,
                                int64_t batchSize);

/// Writes `predictions` as NumPy arrays: one output to `path` (.npy);
/// several to the directory `path`, one `<key>.npy` each (a '/' of a key
/// as '_'). Throws std::runtime_error naming the file.
void writePredictions(const std::vector<Prediction> &predictions,
                      const std::string &path);

} // namespace dtf::train
