// The replicated programs only use ops the runtime can run: those the
// reference interpreter (runtime/exec/Interpreter.cpp) evaluates, plus
// dtf.pull and dtf.push_gradients, which the runtime implements as RPCs;
// the worker holds and places nothing, and the PS tasks are fed nothing
// (runtime/ABI.md). Inputs/check-replicated-ops.py checks it on the generic
// form and lists the ops of each function.

// RUN: dtf-opt --dtf-replicate=mode=sync --mlir-print-op-generic %S/replicate-sync.mlir \
// RUN:   | %python %S/Inputs/check-replicated-ops.py | FileCheck %s --check-prefix=SYNC
// SYNC:      @ps_0: dtf.add dtf.apply_adam dtf.assign dtf.assign_add dtf.constant dtf.mul dtf.read dtf.variable func.return
// SYNC-NEXT: @ps_1: dtf.add dtf.apply_adam dtf.assign dtf.constant dtf.mul dtf.read dtf.variable func.return
// SYNC-NEXT: @worker: dtf.bias_add dtf.bias_add_grad dtf.constant dtf.matmul dtf.placeholder dtf.pull dtf.push_gradients dtf.reduce_sum func.return
// SYNC-NOT:  error

// RUN: dtf-opt --dtf-replicate -split-input-file --mlir-print-op-generic %S/replicate-async.mlir \
// RUN:   | %python %S/Inputs/check-replicated-ops.py | FileCheck %s --check-prefix=ASYNC
// ASYNC:     @worker: {{.*}}dtf.pull dtf.push_gradients
// ASYNC-NOT: error

// The check is not vacuous: the training function before replication fails
// it.
// RUN: dtf-opt --mlir-print-op-generic %S/replicate-sync.mlir \
// RUN:   | not %python %S/Inputs/check-replicated-ops.py | FileCheck %s --check-prefix=UNREPLICATED
// UNREPLICATED: error: line 2: @main is neither @worker nor @ps_<N>
// UNREPLICATED: error: no @worker function
