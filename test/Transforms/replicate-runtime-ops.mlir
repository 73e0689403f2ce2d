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

// The example models through the whole pipeline of dtf-run, in both modes.
// RUN: sed -e 's/ps = \["localhost:2222"\]/ps = ["localhost:2222", "localhost:2225"]/' %examples/mnist_mlp.mlir \
// RUN:   | dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables=strategy=round-robin \
// RUN:       --dtf-replicate="mode=sync replicas-to-aggregate=2 total-replicas=2" --mlir-print-op-generic \
// RUN:   | %python %S/Inputs/check-replicated-ops.py | FileCheck %s --check-prefix=MLP
// RUN: sed -e 's/ps = \["localhost:2222"\]/ps = ["localhost:2222", "localhost:2225"]/' %examples/mnist_mlp.mlir \
// RUN:   | dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables=strategy=round-robin \
// RUN:       --dtf-replicate=mode=async --mlir-print-op-generic \
// RUN:   | %python %S/Inputs/check-replicated-ops.py | FileCheck %s --check-prefix=MLP
// MLP:      @ps_0: {{.*}}dtf.apply_adam dtf.assign dtf.assign_add dtf.constant dtf.mul dtf.read dtf.variable func.return
// MLP-NEXT: @ps_1: {{.*}}dtf.apply_adam dtf.assign dtf.constant dtf.mul dtf.read dtf.variable func.return
// MLP-NEXT: @worker: dtf.argmax dtf.bias_add dtf.bias_add_grad dtf.broadcast_to dtf.cast dtf.clip_by_value dtf.clip_by_value_grad dtf.constant dtf.div dtf.equal dtf.log dtf.matmul dtf.mul dtf.neg dtf.placeholder dtf.pull dtf.push_gradients dtf.reduce_mean dtf.reduce_sum dtf.relu dtf.relu_grad dtf.reshape dtf.softmax dtf.softmax_grad func.return
// MLP-NOT:  error

// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables --dtf-replicate=mode=sync \
// RUN:     --mlir-print-op-generic %examples/mnist_cnn.mlir \
// RUN:   | %python %S/Inputs/check-replicated-ops.py | FileCheck %s --check-prefix=CNN
// CNN:      @ps_0: dtf.add dtf.apply_adam dtf.assign dtf.assign_add dtf.constant dtf.mul dtf.read dtf.variable func.return
// CNN-NEXT: @worker: {{.*}}dtf.conv2d dtf.conv2d_backprop_filter dtf.conv2d_backprop_input {{.*}}dtf.max_pool dtf.max_pool_grad {{.*}}dtf.pull dtf.push_gradients {{.*}}
// CNN-NOT:  error

// The check is not vacuous: the training function before replication fails
// it.
// RUN: dtf-opt --mlir-print-op-generic %S/replicate-sync.mlir \
// RUN:   | not %python %S/Inputs/check-replicated-ops.py | FileCheck %s --check-prefix=UNREPLICATED
// UNREPLICATED: error: line 2: @main is neither @worker nor @ps_<N>
// UNREPLICATED: error: no @worker function
