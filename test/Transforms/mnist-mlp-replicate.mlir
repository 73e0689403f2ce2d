// The example has one PS task; as dtf-run does, give it the cluster of the
// run: two PS tasks and the example's two workers.
// RUN: sed -e 's/ps = \["localhost:2222"\]/ps = ["localhost:2222", "localhost:2225"]/' %examples/mnist_mlp.mlir \
// RUN:   | dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables --dtf-replicate=mode=sync \
// RUN:   | FileCheck %s
// The result is valid IR: printed generically, it parses and verifies again.
// RUN: sed -e 's/ps = \["localhost:2222"\]/ps = ["localhost:2222", "localhost:2225"]/' %examples/mnist_mlp.mlir \
// RUN:   | dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables --dtf-replicate=mode=sync --mlir-print-op-generic \
// RUN:   | dtf-opt | FileCheck %s
// Async: one replica's gradients per update, the same worker program.
// RUN: sed -e 's/ps = \["localhost:2222"\]/ps = ["localhost:2222", "localhost:2225"]/' %examples/mnist_mlp.mlir \
// RUN:   | dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables --dtf-replicate \
// RUN:   | FileCheck %s --check-prefix=ASYNC
// Sharded by placement: the worker joins the pulled shards of hid_w and
// pushes the slices of its gradient to their tasks.
// RUN: sed -e 's/ps = \["localhost:2222"\]/ps = ["localhost:2222", "localhost:2225"]/' %examples/mnist_mlp.mlir \
// RUN:   | dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables=min-shard-bytes=200000 --dtf-replicate=mode=sync \
// RUN:   | FileCheck %s --check-prefix=SHARDED
// With the example's own cluster everything lives on ps0.
// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables --dtf-replicate=mode=sync %examples/mnist_mlp.mlir \
// RUN:   | FileCheck %s --check-prefix=ONE-PS

// Acceptance check of between-graph replication on the distributed-MNIST MLP
// trained with Adam, in TensorFlow's SyncReplicasOptimizer mode. Round-robin
// placement puts global_step, hid_b and sm_b on ps0, hid_w and sm_w on ps1,
// each with its Adam slots, and the beta powers beside hid_b (whose name
// sorts first) on ps0.

// CHECK-LABEL: module attributes
// CHECK-SAME:    dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 2, total_replicas = 2>

// ps0 takes both workers' gradients of hid_b and sm_b, replica by replica.
// CHECK:       func.func @ps_0(%[[HID_B_0:.*]]: tensor<100xf32>, %[[SM_B_0:.*]]: tensor<10xf32>, %[[HID_B_1:.*]]: tensor<100xf32>, %[[SM_B_1:.*]]: tensor<10xf32>)
// CHECK-SAME:    attributes {dtf.device = #dtf.device<"/job:ps/task:0">, dtf.gradients = ["hid_b", "sm_b"]}
// CHECK-NEXT:    %[[STEP:.*]] = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// CHECK-NEXT:    %[[HID_B:.*]] = dtf.variable "hid_b" init(#dtf.zeros) : !dtf.resource<tensor<100xf32>>
// CHECK-NEXT:    %[[HID_B_M:.*]] = dtf.variable "hid_b/Adam" init(#dtf.zeros) colocate_with("hid_b") {trainable = false}
// CHECK-NEXT:    %[[HID_B_V:.*]] = dtf.variable "hid_b/Adam_1" init(#dtf.zeros) colocate_with("hid_b") {trainable = false}
// CHECK-NEXT:    %[[BETA1:.*]] = dtf.variable "beta1_power" init(#dtf.constant<0.9>) colocate_with("hid_b") {trainable = false} : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    %[[BETA2:.*]] = dtf.variable "beta2_power" init(#dtf.constant<0.999>) colocate_with("hid_b") {trainable = false} : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    %[[SM_B:.*]] = dtf.variable "sm_b" init(#dtf.zeros) : !dtf.resource<tensor<10xf32>>
// CHECK-NEXT:    %[[SM_B_M:.*]] = dtf.variable "sm_b/Adam" init(#dtf.zeros) colocate_with("sm_b")
// CHECK-NEXT:    %[[SM_B_V:.*]] = dtf.variable "sm_b/Adam_1" init(#dtf.zeros) colocate_with("sm_b")
// The average of the two replicas' gradients.
// CHECK-NEXT:    %[[HID_B_SUM:.*]] = dtf.add %[[HID_B_0]], %[[HID_B_1]] : tensor<100xf32>, tensor<100xf32>
// CHECK-NEXT:    %[[HALF:.*]] = dtf.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[D_HID_B:.*]] = dtf.mul %[[HID_B_SUM]], %[[HALF]] : tensor<100xf32>, tensor<f32>
// CHECK-NEXT:    %[[SM_B_SUM:.*]] = dtf.add %[[SM_B_0]], %[[SM_B_1]] : tensor<10xf32>, tensor<10xf32>
// CHECK-NEXT:    %[[D_SM_B:.*]] = dtf.mul %[[SM_B_SUM]], %[[HALF]] : tensor<10xf32>, tensor<f32>
// Adam on the averages, then the beta powers and one global-step increment.
// CHECK-NEXT:    %[[B1:.*]] = dtf.read %[[BETA1]]
// CHECK-NEXT:    %[[B2:.*]] = dtf.read %[[BETA2]]
// CHECK-NEXT:    dtf.apply_adam %[[HID_B]], %[[HID_B_M]], %[[HID_B_V]], %[[B1]], %[[B2]], %[[D_HID_B]] learning_rate 1.000000e-02 beta1 9.000000e-01 beta2 0.99899999999999999 epsilon 1.000000e-08 : !dtf.resource<tensor<100xf32>>, tensor<f32>
// CHECK-NEXT:    dtf.apply_adam %[[SM_B]], %[[SM_B_M]], %[[SM_B_V]], %[[B1]], %[[B2]], %[[D_SM_B]] learning_rate 1.000000e-02 {{.*}} : !dtf.resource<tensor<10xf32>>, tensor<f32>
// CHECK-NEXT:    %[[B1_NOW:.*]] = dtf.read %[[BETA1]]
// CHECK-NEXT:    %[[BETA1_C:.*]] = dtf.constant dense<0.899999976> : tensor<f32>
// CHECK-NEXT:    %[[B1_NEXT:.*]] = dtf.mul %[[B1_NOW]], %[[BETA1_C]]
// CHECK-NEXT:    dtf.assign %[[BETA1]], %[[B1_NEXT]] : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    %[[B2_NOW:.*]] = dtf.read %[[BETA2]]
// CHECK-NEXT:    %[[BETA2_C:.*]] = dtf.constant dense<9.990000e-01> : tensor<f32>
// CHECK-NEXT:    %[[B2_NEXT:.*]] = dtf.mul %[[B2_NOW]], %[[BETA2_C]]
// CHECK-NEXT:    dtf.assign %[[BETA2]], %[[B2_NEXT]] : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    %[[INC:.*]] = dtf.constant dense<1> : tensor<i64>
// CHECK-NEXT:    dtf.assign_add %[[STEP]], %[[INC]] : !dtf.resource<tensor<i64>>
// CHECK-NEXT:    return
// CHECK-NEXT:  }

// ps1 takes the gradients of hid_w and sm_w and holds its own copy of the
// beta powers, advanced once per update as on ps0; it has no global step.
// CHECK:       func.func @ps_1(%[[HID_W_0:.*]]: tensor<784x100xf32>, %[[SM_W_0:.*]]: tensor<100x10xf32>, %[[HID_W_1:.*]]: tensor<784x100xf32>, %[[SM_W_1:.*]]: tensor<100x10xf32>)
// CHECK-SAME:    attributes {dtf.device = #dtf.device<"/job:ps/task:1">, dtf.gradients = ["hid_w", "sm_w"]}
// CHECK-NEXT:    %[[HID_W:.*]] = dtf.variable "hid_w" init(#dtf.truncated_normal<stddev = 0.03571428571428571, seed = 1>) : !dtf.resource<tensor<784x100xf32>>
// CHECK-NEXT:    %[[HID_W_M:.*]] = dtf.variable "hid_w/Adam" init(#dtf.zeros) colocate_with("hid_w")
// CHECK-NEXT:    %[[HID_W_V:.*]] = dtf.variable "hid_w/Adam_1" init(#dtf.zeros) colocate_with("hid_w")
// The copies are colocated with nothing: hid_b is not here.
// CHECK-NEXT:    %[[BETA1:.*]] = dtf.variable "beta1_power" init(#dtf.constant<0.9>) {trainable = false} : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    %[[BETA2:.*]] = dtf.variable "beta2_power" init(#dtf.constant<0.999>) {trainable = false} : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    %[[SM_W:.*]] = dtf.variable "sm_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 2>) : !dtf.resource<tensor<100x10xf32>>
// CHECK-NEXT:    %[[SM_W_M:.*]] = dtf.variable "sm_w/Adam" init(#dtf.zeros) colocate_with("sm_w")
// CHECK-NEXT:    %[[SM_W_V:.*]] = dtf.variable "sm_w/Adam_1" init(#dtf.zeros) colocate_with("sm_w")
// CHECK-NEXT:    %[[HID_W_SUM:.*]] = dtf.add %[[HID_W_0]], %[[HID_W_1]] : tensor<784x100xf32>, tensor<784x100xf32>
// CHECK-NEXT:    %[[HALF:.*]] = dtf.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[D_HID_W:.*]] = dtf.mul %[[HID_W_SUM]], %[[HALF]] : tensor<784x100xf32>, tensor<f32>
// CHECK-NEXT:    %[[SM_W_SUM:.*]] = dtf.add %[[SM_W_0]], %[[SM_W_1]] : tensor<100x10xf32>, tensor<100x10xf32>
// CHECK-NEXT:    %[[D_SM_W:.*]] = dtf.mul %[[SM_W_SUM]], %[[HALF]] : tensor<100x10xf32>, tensor<f32>
// CHECK-NEXT:    %[[B1:.*]] = dtf.read %[[BETA1]]
// CHECK-NEXT:    %[[B2:.*]] = dtf.read %[[BETA2]]
// CHECK-NEXT:    dtf.apply_adam %[[HID_W]], %[[HID_W_M]], %[[HID_W_V]], %[[B1]], %[[B2]], %[[D_HID_W]] learning_rate 1.000000e-02 {{.*}} : !dtf.resource<tensor<784x100xf32>>, tensor<f32>
// CHECK-NEXT:    dtf.apply_adam %[[SM_W]], %[[SM_W_M]], %[[SM_W_V]], %[[B1]], %[[B2]], %[[D_SM_W]] learning_rate 1.000000e-02 {{.*}} : !dtf.resource<tensor<100x10xf32>>, tensor<f32>
// CHECK-NEXT:    %[[B1_NOW:.*]] = dtf.read %[[BETA1]]
// CHECK-NEXT:    %[[BETA1_C:.*]] = dtf.constant dense<0.899999976> : tensor<f32>
// CHECK-NEXT:    %[[B1_NEXT:.*]] = dtf.mul %[[B1_NOW]], %[[BETA1_C]]
// CHECK-NEXT:    dtf.assign %[[BETA1]], %[[B1_NEXT]] : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    %[[B2_NOW:.*]] = dtf.read %[[BETA2]]
// CHECK-NEXT:    %[[BETA2_C:.*]] = dtf.constant dense<9.990000e-01> : tensor<f32>
// CHECK-NEXT:    %[[B2_NEXT:.*]] = dtf.mul %[[B2_NOW]], %[[BETA2_C]]
// CHECK-NEXT:    dtf.assign %[[BETA2]], %[[B2_NEXT]] : !dtf.resource<tensor<f32>>
// CHECK-NEXT:    return
// CHECK-NEXT:  }

// The worker: pull the step and the four trained variables (not the
// optimizer state), forward and backward on its own batch, push.
// CHECK:       func.func @worker() -> (tensor<f32>, tensor<f32>) {
// CHECK-NEXT:    %[[P_STEP:.*]] = dtf.pull "global_step" from "/job:ps/task:0" : tensor<i64>
// CHECK-NEXT:    %[[P_HID_W:.*]] = dtf.pull "hid_w" from "/job:ps/task:1" : tensor<784x100xf32>
// CHECK-NEXT:    %[[P_HID_B:.*]] = dtf.pull "hid_b" from "/job:ps/task:0" : tensor<100xf32>
// CHECK-NEXT:    %[[P_SM_W:.*]] = dtf.pull "sm_w" from "/job:ps/task:1" : tensor<100x10xf32>
// CHECK-NEXT:    %[[P_SM_B:.*]] = dtf.pull "sm_b" from "/job:ps/task:0" : tensor<10xf32>
// CHECK-NEXT:    %[[X:.*]] = dtf.placeholder "x" : tensor<100x784xf32>
// CHECK-NEXT:    %[[Y_:.*]] = dtf.placeholder "y_" : tensor<100x10xf32>
// CHECK-NEXT:    %[[HID_MM:.*]] = dtf.matmul %[[X]], %[[P_HID_W]]
// CHECK-NEXT:    %[[HID_LIN:.*]] = dtf.bias_add %[[HID_MM]], %[[P_HID_B]]
// CHECK-NEXT:    %[[HID:.*]] = dtf.relu %[[HID_LIN]]
// CHECK-NEXT:    %[[SM_MM:.*]] = dtf.matmul %[[HID]], %[[P_SM_W]]
// CHECK-NEXT:    %[[LOGITS:.*]] = dtf.bias_add %[[SM_MM]], %[[P_SM_B]]
// CHECK:         %[[LOSS:.*]] = dtf.neg %{{.*}} : tensor<f32>
// CHECK-NOT:     dtf.pull
// CHECK:         %[[D_SM_B:.*]] = dtf.bias_add_grad %{{.*}} : tensor<100x10xf32>
// CHECK-NEXT:    %[[D_HID:.*]] = dtf.matmul %{{.*}}, %[[P_SM_W]] {transpose_b = true}
// CHECK-NEXT:    %[[D_SM_W:.*]] = dtf.matmul %[[HID]], %{{.*}} {transpose_a = true}
// CHECK-NEXT:    %[[D_HID_LIN:.*]] = dtf.relu_grad %[[D_HID]], %[[HID_LIN]]
// CHECK-NEXT:    %[[D_HID_B:.*]] = dtf.bias_add_grad %[[D_HID_LIN]] : tensor<100x100xf32>
// CHECK-NEXT:    %[[D_HID_W:.*]] = dtf.matmul %[[X]], %[[D_HID_LIN]] {transpose_a = true}
// The accuracy, then one push per PS task in the order of its dtf.gradients.
// CHECK:         %[[ACCURACY:.*]] = dtf.reduce_mean %{{.*}} : tensor<100xf32>
// CHECK-NEXT:    dtf.push_gradients to "/job:ps/task:0" step %[[P_STEP]] (%[[D_HID_B]], %[[D_SM_B]]) {names = ["hid_b", "sm_b"]} : tensor<i64>, tensor<100xf32>, tensor<10xf32>
// CHECK-NEXT:    dtf.push_gradients to "/job:ps/task:1" step %[[P_STEP]] (%[[D_HID_W]], %[[D_SM_W]]) {names = ["hid_w", "sm_w"]} : tensor<i64>, tensor<784x100xf32>, tensor<100x10xf32>
// CHECK-NEXT:    return %[[LOSS]], %[[ACCURACY]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:  }
// CHECK-NEXT: }

// ASYNC:       dtf.replication = #dtf.replication<mode = async, replicas_to_aggregate = 2, total_replicas = 2>
// ASYNC:       func.func @ps_0(%[[D_HID_B:.*]]: tensor<100xf32>, %[[D_SM_B:.*]]: tensor<10xf32>)
// ASYNC-NOT:     dtf.add
// ASYNC:         dtf.apply_adam %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[D_HID_B]]
// ASYNC-NEXT:    dtf.apply_adam %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[D_SM_B]]
// ASYNC:         dtf.assign_add
// ASYNC:       func.func @ps_1(%[[D_HID_W:.*]]: tensor<784x100xf32>, %[[D_SM_W:.*]]: tensor<100x10xf32>)
// ASYNC-NOT:     dtf.assign_add
// ASYNC:       func.func @worker()
// ASYNC:         dtf.push_gradients to "/job:ps/task:0" step %{{.*}} ({{.*}}) {names = ["hid_b", "sm_b"]}
// ASYNC-NEXT:    dtf.push_gradients to "/job:ps/task:1" step %{{.*}} ({{.*}}) {names = ["hid_w", "sm_w"]}

// ONE-PS:      func.func @ps_0(%{{.*}}: tensor<784x100xf32>, %{{.*}}: tensor<100xf32>, %{{.*}}: tensor<100x10xf32>, %{{.*}}: tensor<10xf32>, %{{.*}}: tensor<784x100xf32>, %{{.*}}: tensor<100xf32>, %{{.*}}: tensor<100x10xf32>, %{{.*}}: tensor<10xf32>)
// ONE-PS-SAME:   dtf.gradients = ["hid_w", "hid_b", "sm_w", "sm_b"]
// ONE-PS-NOT:  func.func @ps_1
// ONE-PS:      func.func @worker()
// ONE-PS:        dtf.push_gradients to "/job:ps/task:0" step %{{.*}} ({{.*}}) {names = ["hid_w", "hid_b", "sm_w", "sm_b"]}
// ONE-PS-NEXT:   return

// SHARDED:      func.func @ps_0({{.*}}) attributes {dtf.device = #dtf.device<"/job:ps/task:0">, dtf.gradients = ["hid_w/part_1", "sm_w"]}
// SHARDED:        dtf.assign_add
// SHARDED:      func.func @ps_1({{.*}}) attributes {dtf.device = #dtf.device<"/job:ps/task:1">, dtf.gradients = ["hid_w/part_0", "hid_b", "sm_b"]}
// SHARDED-NOT:    dtf.assign_add
// SHARDED:      func.func @worker()
// SHARDED-NEXT:   %[[STEP:.*]] = dtf.pull "global_step" from "/job:ps/task:0" : tensor<i64>
// SHARDED-NEXT:   %[[PART_0:.*]] = dtf.pull "hid_w/part_0" from "/job:ps/task:1" : tensor<392x100xf32>
// SHARDED-NEXT:   %[[PART_1:.*]] = dtf.pull "hid_w/part_1" from "/job:ps/task:0" : tensor<392x100xf32>
// SHARDED:        dtf.concat %[[PART_0]], %[[PART_1]] axis 0
// SHARDED:        %[[D_PART_0:.*]] = dtf.slice %[[D_HID_W:.*]] offsets [0, 0] sizes [392, 100]
// SHARDED-NEXT:   %[[D_PART_1:.*]] = dtf.slice %[[D_HID_W]] offsets [392, 0] sizes [392, 100]
// SHARDED:        dtf.push_gradients to "/job:ps/task:0" step %[[STEP]] (%[[D_PART_1]], %{{.*}}) {names = ["hid_w/part_1", "sm_w"]}
// SHARDED-NEXT:   dtf.push_gradients to "/job:ps/task:1" step %[[STEP]] (%[[D_PART_0]], %{{.*}}, %{{.*}}) {names = ["hid_w/part_0", "hid_b", "sm_b"]}
