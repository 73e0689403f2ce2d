//===- WarmStart.h - A PS task's variables from another job's checkpoint --===//
//
// dtf-run's --init_from_checkpoint and --init_assignment_map, as
// tf.compat.v1.train.init_from_checkpoint: a job whose --logdir holds no
// checkpoint of its own starts the variables the map covers from a
// checkpoint of another job (TensorFlow's bundle or DTF's format, from any
// number of PS tasks), and the others from their initializers. Each PS
// task reads its own variables, or its shards' rows of them, at start-up,
// as it restores a checkpoint of --logdir (restoreAtStart); the chief then
// confirms the values on every task (Supervisor::start) and saves them as
// the job's first checkpoint. The global step starts at 0 unless the map
// names it. runtime/checkpoint/WarmStart.h has the map's rules and the
// readers.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/train/Reliability.h"

#include "runtime/checkpoint/WarmStart.h"
#include "runtime/ps/ParameterServer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace dtf::train {

/// The variables of the PS functions (@ps_N) of the compiled `program` as
/// the model declares them: each variable once (a copy on several tasks,
/// as Adam's beta powers, too), each shard `name/part_K` with its rows of
/// `name` (div: a range; mod: every N-th row).
std::vector<checkpoint::VariablePart> variablePartsOf(mlir::ModuleOp program);

/// The parts of variablePartsOf(program) that PS task function `function`
/// holds.
std::vector<checkpoint::VariablePart>
variablePartsHeldBy(mlir::ModuleOp program, mlir::func::FuncOp function);

/// The variables that the PS task functions before `function` hold
/// (@ps_0 .. @ps_{K-1} for @ps_K): of a variable copied to several tasks
/// (Adam's beta powers), a checkpoint holds the first task's copy.
std::set<std::string> variablesHeldBefore(mlir::ModuleOp program,
                                          mlir::func::FuncOp function);

/// The model variables among variablePartsOf(program) whose shards are
/// partitions by id modulo, their optimizer slots (`name/<slot>`) included.
std::set<std::string> interleavedVariablesOf(mlir::ModuleOp program);

/// Whether --init_from_checkpoint applies: it is given, and --logdir holds
/// no checkpoint of the job's own (which is restored instead).
bool warmStartApplies(const ReliabilityOptions &options);

/// What a warm start of `program` loads: the checkpoint opened and the
/// assignment map matched against every variable of the model, so that
/// every task reports the same error for a bad map.
struct WarmStartPlan {
  checkpoint::WarmStartCheckpoint checkpoint;
  /// Model variable -> checkpoint tensor.
  std::map<std::string, std::string> assignments;
  std::vector<checkpoint::VariablePart> parts;
};

/// Opens --init_from_checkpoint and matches --init_assignment_map; throws
/// checkpoint::CheckpointError or std::invalid_argument naming the flag
/// at fault, also for a dynamic table the map covers (its rows are keyed
/// by ids no checkpoint of another job shares). `warn` hears of corrupt
/// DTF checkpoints skipped.
WarmStartPlan
planWarmStart(mlir::ModuleOp program, const ReliabilityOptions &options,
              const std::function<void(const std::string &)> &warn);

/// The values of PS task function `function` of `plan`'s program: the
/// covered variables (or their shards) from the checkpoint, the others
/// from their initializers; the state's step is the global step the
/// variable `globalStepName` gets (0 unless the map covers it).
/// `described` receives a line saying what came from where.
ps::ModelState warmStartState(const WarmStartPlan &plan,
                              mlir::func::FuncOp function,
                              const std::string &globalStepName,
                              std::string &described);

/// The loader of a PS task's warm-start values (restoreAtStart, and
/// configureCheckpointRestore for a later restore of them): it reads the
/// checkpoint each time it is called. Null when warm start does not apply.
WarmStartLoader warmStartLoaderFor(mlir::ModuleOp program,
                                   mlir::func::FuncOp function,
                                   const ReliabilityOptions &options,
                                   const std::string &globalStepName,
                                   const std::string &taskLabel,
                                   std::ostream &log);

} // namespace dtf::train
