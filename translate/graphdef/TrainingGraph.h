//===- TrainingGraph.h - The training machinery of a TF1 graph --*- C++ -*-===//
//
// What a graph's training machinery says, recognized rather than translated
// (GraphDefImport.h): the optimizer's apply ops name the trainable variables
// and the hyper-parameters, the gradients they read name the loss, the
// AssignAdd beside them names the global step, and each variable's
// initializer assignment gives its initial value as an attribute.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "mlir/IR/Attributes.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <set>
#include <string>

namespace dtf::translate::graphdef {

class ImportContext;

/// Whether `op` declares a variable (a reference or a resource variable).
bool isVariableOp(const std::string &op);

/// The training of the graph, as one dtf.minimize says it.
struct TrainingGraph {
  /// The name scope of the gradient ops ("gradients"); empty without an
  /// optimizer.
  std::string gradientScope;
  /// The variables the optimizer updates.
  std::set<int> trainable;
  /// The optimizer, with its hyper-parameters; null without one.
  mlir::Attribute optimizer;
  /// The output of the node the gradients are taken of; none without an
  /// optimizer.
  std::optional<int> lossNode;
  int lossOutput = 0;
  /// The variable minimize(global_step=...) increments, if any.
  std::optional<int> globalStep;
};

/// Recognizes the optimizer, the trainable variables, the loss and the global
/// step from the optimizer's apply ops; a graph without them trains nothing.
mlir::FailureOr<TrainingGraph> recognizeTraining(ImportContext &import);

/// Declares variable node `index` as a dtf.variable, with the initializer of
/// its initial value assignment and whether `training` trains it.
mlir::LogicalResult declareVariable(ImportContext &import,
                                    const TrainingGraph &training, int index);

} // namespace dtf::translate::graphdef
