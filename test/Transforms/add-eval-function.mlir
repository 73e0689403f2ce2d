// --dtf-add-eval-function on the placed example MLP: @main_eval computes
// the loss and the accuracy from the variables and changes none of them.
// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables \
// RUN:   --dtf-add-eval-function %examples/mnist_mlp.mlir | FileCheck %s
// Partitioning splits both functions, with distinct rendezvous keys.
// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables \
// RUN:   --dtf-add-eval-function --dtf-partition --dtf-verify-partitions \
// RUN:   %examples/mnist_mlp.mlir | FileCheck %s --check-prefix=PART

// The training function is kept as it was, updates included.
// CHECK-LABEL: func.func @main() -> (tensor<f32>, tensor<f32>)
// CHECK:         dtf.apply_adam
// CHECK:         dtf.assign_add

// Right after it, the same placement without the updates, the backward pass,
// the optimizer's state and the global step.
// CHECK-LABEL: func.func @main_eval() -> (tensor<f32>, tensor<f32>)
// CHECK-NEXT:    %[[HID_W:.*]] = dtf.variable "hid_w" {{.*}} {dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK-NEXT:    dtf.variable "hid_b"
// CHECK-NEXT:    dtf.variable "sm_w"
// CHECK-NEXT:    dtf.variable "sm_b"
// CHECK-NEXT:    %[[X:.*]] = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK-NEXT:    dtf.placeholder "y_"
// CHECK-NEXT:    %[[W:.*]] = dtf.read %[[HID_W]] {dtf.device = #dtf.device<"/job:ps/task:0">}
// CHECK-NEXT:    dtf.read
// CHECK-NEXT:    dtf.matmul %[[X]], %[[W]] {dtf.device = #dtf.device<"/job:worker/task:0">}
// CHECK-NOT:     dtf.variable
// CHECK-NOT:     _grad
// CHECK-NOT:     dtf.apply_
// CHECK-NOT:     dtf.assign
// CHECK:         %[[LOSS:.*]] = dtf.neg
// CHECK:         %[[ACCURACY:.*]] = dtf.reduce_mean
// CHECK-NEXT:    return %[[LOSS]], %[[ACCURACY]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:  }

// PART-DAG: func.func @main_ps_0()
// PART-DAG: func.func @main_worker_0() -> (tensor<f32>, tensor<f32>)
// PART-DAG: func.func @main_eval_ps_0()
// PART-DAG: func.func @main_eval_worker_0() -> (tensor<f32>, tensor<f32>)
// PART-NOT: func.func @main()
// PART-NOT: func.func @main_eval()
