// --dtf-in-graph-pipeline is what dtf-run compiles a model with for
// in-graph replication: the same passes as their explicit sequence, with
// gradients colocated with their ops by default.
// RUN: dtf-opt --dtf-in-graph-pipeline %examples/model_parallel_mlp.mlir > %t.pipeline
// RUN: dtf-opt --dtf-autodiff=colocate-gradients-with-ops --dtf-expand-optimizer \
// RUN:   --dtf-place-variables --dtf-add-eval-function --dtf-partition \
// RUN:   --dtf-verify-partitions %examples/model_parallel_mlp.mlir > %t.passes
// RUN: diff %t.pipeline %t.passes
// RUN: FileCheck %s < %t.pipeline
// Between the two workers, only the hidden layer's activations, their
// gradient and the results cross.
// RUN: grep 'dtf.send .* from "/job:worker/task:[01]" to "/job:worker/task:[01]"' %t.pipeline \
// RUN:   | FileCheck %s --check-prefix=CROSS
// Towers: the example MLP replicated over both workers, options passed
// through.
// RUN: dtf-opt --dtf-in-graph-pipeline="towers=/job:worker/task:0,/job:worker/task:1 ps-strategy=greedy-bytes" \
// RUN:   %examples/mnist_mlp.mlir > %t.towers
// RUN: dtf-opt --dtf-autodiff=colocate-gradients-with-ops --dtf-expand-optimizer \
// RUN:   --dtf-place-variables=strategy=greedy-bytes \
// RUN:   --dtf-replicate-towers=devices=/job:worker/task:0,/job:worker/task:1 \
// RUN:   --dtf-add-eval-function --dtf-partition --dtf-verify-partitions \
// RUN:   %examples/mnist_mlp.mlir > %t.towers.passes
// RUN: diff %t.towers %t.towers.passes
// RUN: FileCheck %s --check-prefix=TOWERS < %t.towers
// Without colocation the backward pass stays on worker 0.
// RUN: dtf-opt --dtf-in-graph-pipeline=colocate-gradients-with-ops=false \
// RUN:   %examples/model_parallel_mlp.mlir | FileCheck %s --check-prefix=NOCOLOCATE

// The training function's partitions, then the evaluation function's, each
// in device-name order; worker 0 (the client) returns the results.
// CHECK:      func.func @main_ps_0() attributes {dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK:      func.func @main_ps_1() attributes {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK:      func.func @main_worker_0() -> (tensor<f32>, tensor<f32>) attributes {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK:      func.func @main_worker_1() attributes {dtf.device = #dtf.device<"/job:worker/task:1">}
// The softmax layer's backward pass runs on worker 1 with the layer.
// CHECK:        dtf.softmax_grad {{.*}} {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK:      func.func @main_eval_ps_0() attributes {dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK-NOT:    dtf.apply_adam
// CHECK:      func.func @main_eval_ps_1() attributes {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NOT:    dtf.apply_adam
// CHECK:      func.func @main_eval_worker_0() -> (tensor<f32>, tensor<f32>) attributes {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK:      func.func @main_eval_worker_1() attributes {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NOT:    _grad
// CHECK-NOT:  func.func

// A training step: the activations to worker 1, their gradient back, the
// loss and the accuracy to the client. Then the evaluation step's.
// CROSS:      dtf.send %{{.*}}, "{{edge_[0-9]+_dtf.relu}}" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<100x100xf32>
// CROSS-NEXT: dtf.send %{{.*}}, "{{edge_[0-9]+_dtf.neg}}" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<f32>
// CROSS-NEXT: dtf.send %{{.*}}, "{{edge_[0-9]+_dtf.matmul}}" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<100x100xf32>
// CROSS-NEXT: dtf.send %{{.*}}, "{{edge_[0-9]+_dtf.reduce_mean}}" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<f32>
// CROSS-NEXT: dtf.send %{{.*}}, "{{edge_[0-9]+_dtf.relu}}" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<100x100xf32>
// CROSS-NEXT: dtf.send %{{.*}}, "{{edge_[0-9]+_dtf.neg}}" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<f32>
// CROSS-NEXT: dtf.send %{{.*}}, "{{edge_[0-9]+_dtf.reduce_mean}}" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<f32>
// CROSS-NOT:  dtf.send

// Worker 0 feeds the batch and both towers' partitions; the evaluation
// function has the towers too.
// TOWERS:      func.func @main_ps_0()
// TOWERS:      func.func @main_worker_0() -> (tensor<f32>, tensor<f32>)
// TOWERS:        dtf.matmul {{.*}} : tensor<50x784xf32>, tensor<784x100xf32>
// TOWERS:      func.func @main_worker_1()
// TOWERS:        dtf.matmul {{.*}} : tensor<50x784xf32>, tensor<784x100xf32>
// TOWERS:      func.func @main_eval_ps_0()
// TOWERS:      func.func @main_eval_worker_0() -> (tensor<f32>, tensor<f32>)
// TOWERS:        dtf.matmul {{.*}} : tensor<50x784xf32>, tensor<784x100xf32>
// TOWERS:      func.func @main_eval_worker_1()
// TOWERS:        dtf.matmul {{.*}} : tensor<50x784xf32>, tensor<784x100xf32>

// NOCOLOCATE-LABEL: func.func @main_worker_0()
// NOCOLOCATE:         dtf.softmax_grad {{.*}} {dtf.device = #dtf.device<"/job:worker/task:0">}
