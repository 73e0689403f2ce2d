//===- GraphDefImport.h - A TF1 GraphDef as a dtf module ---------*- C++
//-*-===//
//
// dtf-translate --import-graphdef: the graph a TensorFlow 1.x script builds
// (placeholders, variables, tf.device pins, the forward ops, an optimizer's
// minimize) as a `dtf` module that dtf-opt verifies and dtf-run trains.
//
// What is imported is the forward graph from the placeholders and variables
// to the loss and the requested outputs. The training part of the graph is
// recognized, not translated: the optimizer's apply ops (ApplyAdam,
// ApplyGradientDescent, ApplyMomentum, ApplyAdagrad, ApplyFtrl, the sparse
// updates of embedding tables and their Resource forms) name the trainable
// variables and the optimizers' hyper-parameters, the `gradients/` subgraph
// they read names the loss (the input of its Shape node), and the AssignAdd
// beside them names the global step. The module gets one `dtf.minimize` of
// that loss (variables of another optimizer carry it as `dtf.optimizer`),
// so that DTF's own autodiff and optimizer expansion take over; the
// gradient ops, the optimizer's slots and the initializers' assignments are
// dropped. Embedding lookups on partitioned tables and SparseTensor inputs
// are recognized as the ops a user writes by hand (EmbeddingLookups.h).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dtf::translate {

struct GraphDefImportOptions {
  /// Nodes (`name` or `name:K`) whose values the function returns after the
  /// loss, e.g. the batch accuracy; the loss alone when empty. The
  /// function's dtf.result_names names them after their nodes (`name_K`),
  /// the loss "loss".
  std::vector<std::string> outputs;
  /// Empty, or the nodes of the predictions and the 0/1 labels whose AUC
  /// validation reports: returned after `outputs`, named by the function's
  /// dtf.auc.
  std::vector<std::string> auc;
  /// L of the padded [batch, L] placeholder a SparseTensor input becomes
  /// (runtime/ABI.md, "Ragged features"); 0 refuses SparseTensor inputs.
  int64_t maxIdsPerExample = 0;
  /// L of the named SparseTensor inputs, instead of maxIdsPerExample (a
  /// feature of up to 5 ids beside a cross of up to 25); each name must be
  /// a SparseTensor input of the graph.
  std::map<std::string, int64_t> maxIdsPerInput;
};

/// Imports the GraphDef in `bytes`, read from `filename`: text format when
/// the name ends in .pbtxt, binary otherwise. Errors are emitted on the
/// context with the file (and the node's line in a text GraphDef) and
/// return null.
///
/// A graph whose import would translate nodes of ops dtf-translate does not
/// import (or that holds the update of an optimizer DTF does not recognize)
/// fails with one error that lists them all, rather than with the first
/// error the translation met.
mlir::OwningOpRef<mlir::ModuleOp>
importGraphDef(llvm::StringRef bytes, llvm::StringRef filename,
               mlir::MLIRContext *context,
               const GraphDefImportOptions &options);

/// Prints the TensorFlow ops importGraphDef imports, and what each becomes,
/// as the markdown page docs/tf-ops.md, which is this output.
void printImportedOps(llvm::raw_ostream &os);

} // namespace dtf::translate
