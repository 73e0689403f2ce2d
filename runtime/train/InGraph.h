//===- InGraph.h - In-graph replication: the master and its tasks ---------===//
//
// TensorFlow 1.x's other way to use a cluster. One client builds one graph
// whose ops are pinned to devices of several tasks (`tf.device`), and the
// tasks only serve (`server.join()`). Here the model is compiled by
// --dtf-in-graph-pipeline into one function per device, with a dtf.send /
// dtf.recv pair at every edge between devices, plus the same for a
// forward-only copy used for validation.
//
// Every task, PS tasks included, serves the partitions of its devices:
// runtime/rpc/WorkerService.h over an exec::ExecutorWorker, which holds the
// task's variables. The chief (worker 0) is also the master, as TensorFlow's
// client talks to one master: it registers each task's partitions with
// that task, then runs each step by step id on every partition at once.
// Tensors cross between tasks through their rendezvous (RecvTensor), never
// through the master; the master sends each task only the feeds of the
// placeholders its partitions hold, and gets back the results of the
// partition that returns them.
//
// A step that fails on one task is aborted on all of them, so that no
// partition is left waiting for a tensor; the master's error names the
// task where it failed first.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/train/Tasks.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace dtf::train {

/// Serves this task's partitions until the master stops it (StopTask), like
/// tf.train.Server.join(). A task that hears nothing from the master for
/// longer than --connect_timeout_ms before its graphs are registered, or
/// --worker_timeout_ms after (--recovery_timeout_ms plus --rpc_deadline_ms
/// when that is longer: the master is silent while it waits for a task to
/// come back), gives up with an error rather than serve a master that is
/// gone. With --trace, writes the ops of its first --trace_steps steps.
/// Returns the exit status.
int serveInGraphTask(const TaskOptions &options);

/// The chief: serves its own partitions and, as the master, trains the
/// partitions of `program`'s function `function` on `inputs.train` until
/// options.trainSteps steps have run, then validates with the partitions
/// of `<function>_eval` on `inputs.validation` and stops every task.
/// Returns the exit status; throws on errors.
int runInGraphMaster(mlir::ModuleOp program, const std::string &function,
                     const TaskOptions &options, WorkerInputs inputs);

} // namespace dtf::train
