//===- SavedModelExport.h - A dtf model's inference graph for serving -----===//
//
// The other direction of GraphDefImport.h: the forward graph of a trained
// dtf model as a TensorFlow SavedModel (saved_model.pb) that
// tf.saved_model.load and TensorFlow Serving load, with one MetaGraphDef
// tagged "serve" and a "serving_default" SignatureDef (method
// tensorflow/serving/predict).
//
// What is exported is the inference graph: the ops from the data
// placeholders to the chosen outputs, with the learning phase false (a
// dtf.select on it keeps its inference branch, so tf.layers' dropout is
// gone), no labels unless an output needs them, no training ops. Each
// variable read becomes a Const holding the variable's value: its
// initializer, which is a constant (#dtf.zeros, #dtf.constant,
// #dtf.dense_init) in a trained model whose values a checkpoint gave
// (runtime/train/Inference.h); a variable of random initial values is an
// error. The signature's inputs are the placeholders the outputs use, by
// their names; its outputs are the values `outputs` names (see
// findInferenceOutputs).
//
// Shapes are the model's: a dynamic batch is -1 in the signature, and a
// dynamic dimension of a shape TensorFlow takes as an input (broadcast_to
// of an RNN's zero state) is the batch size, read from the first input of
// a dynamic batch.
//
// An op without a TensorFlow counterpart here (embedding lookups, random
// ops outside a training branch, losses of labels) is an error at its
// location naming it; nothing is written then.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace dtf::translate {

/// The one function of a dtf model; an error on the module otherwise.
mlir::FailureOr<mlir::func::FuncOp> modelFunction(mlir::ModuleOp model);

/// A value the inference graph returns, under its signature key.
struct InferenceOutput {
  std::string key;
  mlir::Value value;
};

/// The values `names` designates in `function`, each one of:
///   - `logits`: the logits of the model's loss, the first operand of its
///     (sparse) softmax or sigmoid cross entropy with logits, else the
///     input of its one dtf.softmax;
///   - `result:K`: the function's K-th result (0: the loss), key `result_K`;
///   - the name of an op's location (a TensorFlow node name the importer
///     gave, `name` or `name:0`), its first result, key `name`.
/// Empty `names` is `logits`. An unknown name is an error listing the
/// forms.
mlir::FailureOr<std::vector<InferenceOutput>>
findInferenceOutputs(mlir::func::FuncOp function,
                     llvm::ArrayRef<std::string> names);

/// The placeholders `outputs` use at inference, by name, in program order:
/// the signature's inputs.
mlir::FailureOr<std::vector<std::string>>
inferenceInputs(mlir::func::FuncOp function,
                llvm::ArrayRef<InferenceOutput> outputs);

/// Writes `directory`/saved_model.pb (and an empty `variables/`: the
/// variables are frozen into the graph) for the inference graph of
/// `model`'s function with the outputs `outputs` names. Errors are emitted
/// on the model's context.
mlir::LogicalResult exportSavedModel(mlir::ModuleOp model,
                                     llvm::ArrayRef<std::string> outputs,
                                     llvm::StringRef directory);

/// Prints the SavedModel exportSavedModel would write, in protobuf's text
/// format (dtf-translate --export-saved-model).
mlir::LogicalResult printSavedModel(mlir::ModuleOp model,
                                    llvm::ArrayRef<std::string> outputs,
                                    llvm::raw_ostream &os);

} // namespace dtf::translate
