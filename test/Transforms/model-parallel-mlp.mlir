// The model-parallel MLP example through the whole pipeline: training
// passes, placement on the PS tasks, partitioning per device.
// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables --dtf-partition \
// RUN:   %examples/model_parallel_mlp.mlir | FileCheck %s
// The partitions, printed and parsed again, keep the partition contract.
// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables --dtf-partition \
// RUN:   --mlir-print-op-generic %examples/model_parallel_mlp.mlir | dtf-opt --dtf-verify-partitions -o /dev/null
// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables --dtf-print-placement \
// RUN:   -o /dev/null %examples/model_parallel_mlp.mlir | FileCheck %s --check-prefix=TABLE

// Round-robin over the two PS tasks, each variable with its Adam slots.
// TABLE:      PS placement: 2 PS tasks, 15 variables, 954136 bytes
// TABLE-NEXT: /job:ps/task:0: 9 variables, 1336 bytes
// TABLE-NEXT:   global_step
// TABLE-NEXT:   hid_b
// TABLE:      /job:ps/task:1: 6 variables, 952800 bytes
// TABLE-NEXT:   hid_w

// One function per device, in device-name order. ps0 holds global_step and
// the biases with their slots and the beta powers; it serves reads and
// applies the updates it receives.
// CHECK-LABEL: func.func @main_ps_0() attributes {dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK-NEXT: dtf.variable "global_step"
// CHECK-NEXT: %[[HID_B:.*]] = dtf.variable "hid_b"
// CHECK-NEXT: dtf.variable "hid_b/Adam"
// CHECK-NEXT: dtf.variable "hid_b/Adam_1"
// CHECK-NEXT: dtf.variable "beta1_power"
// CHECK-NEXT: dtf.variable "beta2_power"
// CHECK-NEXT: dtf.variable "sm_b"
// CHECK-NEXT: dtf.variable "sm_b/Adam"
// CHECK-NEXT: dtf.variable "sm_b/Adam_1"
// CHECK-NEXT: %[[HID_B_VALUE:.*]] = dtf.read %[[HID_B]]
// CHECK-NEXT: dtf.send %[[HID_B_VALUE]], "[[HID_B_KEY:edge_[0-9]+_dtf.read]]" from "/job:ps/task:0" to "/job:worker/task:0"
// CHECK: %[[DB:.*]] = dtf.recv "[[DB_KEY:edge_[0-9]+_dtf.bias_add_grad]]" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<100xf32>
// CHECK-NEXT: dtf.apply_adam %[[HID_B]], {{.*}}, %[[DB]]
// CHECK: dtf.assign_add
// CHECK-NEXT: return

// ps1 holds the weights and their slots.
// CHECK-LABEL: func.func @main_ps_1() attributes {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: %[[HID_W:.*]] = dtf.variable "hid_w"
// CHECK-NEXT: dtf.variable "hid_w/Adam"
// CHECK-NEXT: dtf.variable "hid_w/Adam_1"
// CHECK-NEXT: %[[SM_W:.*]] = dtf.variable "sm_w"
// CHECK: %[[SM_W_VALUE:.*]] = dtf.read %[[SM_W]]
// The softmax weights are read by the forward pass on worker 1 and by the
// backward pass on worker 0: one send to each.
// CHECK-NEXT: dtf.send %[[SM_W_VALUE]], "[[SM_W_KEY:edge_[0-9]+_dtf.read]]" from "/job:ps/task:1" to "/job:worker/task:1"
// CHECK-NEXT: dtf.send %[[SM_W_VALUE]], "[[SM_W_KEY]]" from "/job:ps/task:1" to "/job:worker/task:0"
// CHECK: dtf.apply_adam %[[HID_W]]
// CHECK: return

// Worker 0 is the client: it returns the loss and the accuracy. It runs
// the hidden layer, sends its activations to worker 1 once, runs the
// backward pass (the ops autodiff adds have no device, so they get the
// worker-device) and sends the gradients to the PS tasks.
// CHECK-LABEL: func.func @main_worker_0() -> (tensor<f32>, tensor<f32>) attributes {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK-NEXT: %[[X:.*]] = dtf.placeholder "x"
// CHECK-NEXT: %[[W:.*]] = dtf.recv "{{edge_[0-9]+_dtf.read}}" from "/job:ps/task:1" to "/job:worker/task:0" : tensor<784x100xf32>
// CHECK-NEXT: %[[MM:.*]] = dtf.matmul %[[X]], %[[W]]
// CHECK-NEXT: %[[B:.*]] = dtf.recv "[[HID_B_KEY]]" from "/job:ps/task:0" to "/job:worker/task:0" : tensor<100xf32>
// CHECK-NEXT: %[[LIN:.*]] = dtf.bias_add %[[MM]], %[[B]]
// CHECK-NEXT: %[[HID:.*]] = dtf.relu %[[LIN]]
// CHECK-NEXT: dtf.send %[[HID]], "[[HID_KEY:edge_[0-9]+_dtf.relu]]" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<100x100xf32>
// CHECK-NOT: dtf.send %[[HID]]
// CHECK: dtf.recv "[[SM_W_KEY]]" from "/job:ps/task:1" to "/job:worker/task:0"
// CHECK: dtf.send %{{.*}}, "[[DB_KEY]]" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<100xf32>
// CHECK: %[[LOSS:.*]] = dtf.recv "{{edge_[0-9]+_dtf.neg}}" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<f32>
// CHECK-NEXT: %[[ACCURACY:.*]] = dtf.recv "{{edge_[0-9]+_dtf.reduce_mean}}" from "/job:worker/task:1" to "/job:worker/task:0" : tensor<f32>
// CHECK-NEXT: return %[[LOSS]], %[[ACCURACY]] : tensor<f32>, tensor<f32>

// Worker 1 runs the softmax layer, the loss and the accuracy on the
// activations it receives, in their original order.
// CHECK-LABEL: func.func @main_worker_1() attributes {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK-NEXT: %[[LABELS:.*]] = dtf.placeholder "y_"
// CHECK-NEXT: dtf.send %[[LABELS]]
// CHECK-NEXT: %[[HID1:.*]] = dtf.recv "[[HID_KEY]]" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<100x100xf32>
// CHECK-NEXT: %[[SMW1:.*]] = dtf.recv "[[SM_W_KEY]]" from "/job:ps/task:1" to "/job:worker/task:1"
// CHECK-NEXT: dtf.matmul %[[HID1]], %[[SMW1]] {dtf.device = #dtf.device<"/job:worker/task:1">}
// CHECK: dtf.softmax
// CHECK: dtf.clip_by_value
// CHECK: dtf.log
// CHECK: dtf.reduce_sum
// CHECK: %[[LOSS1:.*]] = dtf.neg
// CHECK-NEXT: dtf.send %[[LOSS1]], "{{edge_[0-9]+_dtf.neg}}" from "/job:worker/task:1" to "/job:worker/task:0"
// CHECK: %[[ACCURACY1:.*]] = dtf.reduce_mean
// CHECK-NEXT: dtf.send %[[ACCURACY1]], "{{edge_[0-9]+_dtf.reduce_mean}}" from "/job:worker/task:1" to "/job:worker/task:0"
// CHECK-NEXT: return
// CHECK-NOT: func.func
