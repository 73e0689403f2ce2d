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
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dtf::translate::graphdef {

class ImportContext;

/// Whether `op` declares a variable (a reference or a resource variable).
bool isVariableOp(const std::string &op);

/// The optimizer apply ops whose optimizer DTF recognizes, sorted. A graph
/// with another ([Resource][Sparse]Apply<Optimizer>) uses an op dtf-translate
/// does not import.
llvm::SmallVector<llvm::StringRef> recognizedApplyOps();

/// An update that the train op runs besides the optimizer's, through control
/// dependencies as tf.GraphKeys.UPDATE_OPS makes them: batch normalization's
/// moving mean or variance, assign_moving_average(variable, value, decay).
struct MovingAverageUpdate {
  /// The AssignSub node.
  int assign = 0;
  /// The variable it updates.
  int variable = 0;
  /// The output of the value averaged in.
  int value = 0;
  int valueOutput = 0;
  /// The weight of the old average (batch normalization's momentum).
  double decay = 0;
};

/// The training of the graph, as one dtf.minimize says it.
struct TrainingGraph {
  /// The name scopes of the gradient ops ("gradients", and "gradients_1"
  /// where a second optimizer minimizes the same loss); none without an
  /// optimizer.
  std::set<std::string> gradientScopes;
  /// The variables the optimizers update.
  std::set<int> trainable;
  /// The optimizer of dtf.minimize, with its hyper-parameters: the one that
  /// updates the most variables (the first of those in the graph on a tie);
  /// null without one.
  mlir::Attribute optimizer;
  /// The optimizer that updates each trainable variable: where it is not
  /// `optimizer`, the variable carries it as `dtf.optimizer` (a Wide & Deep
  /// graph trains its linear part with FTRL, its DNN with Adagrad).
  std::map<int, mlir::Attribute> optimizers;
  /// The output of the node the gradients are taken of; none without an
  /// optimizer.
  std::optional<int> lossNode;
  int lossOutput = 0;
  /// The variable minimize(global_step=...) increments, if any.
  std::optional<int> globalStep;
  /// The clip_norm of tf.clip_by_global_norm between the gradients and the
  /// optimizer, if the script clips them.
  std::optional<double> clipByGlobalNorm;
  /// The moving averages the train op updates, in the graph's order.
  std::vector<MovingAverageUpdate> movingAverages;
};

/// Recognizes the optimizer, the trainable variables, the loss and the global
/// step from the optimizer's apply ops, and the moving averages the train op
/// updates; a graph without apply ops trains nothing. An update the train op
/// depends on that is no moving average is an error.
/// The apply ops of other optimizers are recorded as unsupported ops
/// (ImportContext::recordUnsupportedOp).
mlir::FailureOr<TrainingGraph> recognizeTraining(ImportContext &import);

/// Declares variable node `index` as a dtf.variable, with the initializer of
/// its initial value assignment, whether `training` trains it and with which
/// optimizer. A shard of a partitioned table ("name/part_K", as
/// tf.compat.v1.fixed_size_partitioner makes them) declares the whole table
/// once, as one variable "name" of all the shards' rows; the lookups that
/// address the shards give it its dtf.partitioner (EmbeddingLookups.h).
mlir::LogicalResult declareVariable(ImportContext &import,
                                    const TrainingGraph &training, int index);

} // namespace dtf::translate::graphdef
