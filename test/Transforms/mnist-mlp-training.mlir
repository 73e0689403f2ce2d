// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer %examples/mnist_mlp.mlir | FileCheck %s
// The result is valid IR: printed generically, it parses and verifies again.
// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --mlir-print-op-generic %examples/mnist_mlp.mlir | dtf-opt | FileCheck %s --check-prefix=VALID

// Acceptance check of the training passes on the distributed-MNIST MLP:
// `optimizer.minimize(cross_entropy, global_step)` with Adam becomes the
// backward pass, one apply_adam per variable with its m and v slots, the
// beta-power updates and a single global-step increment.

// CHECK-LABEL: func.func @main
// The variables, each followed by its Adam slots; the beta powers live next
// to hid_b, whose name sorts first.
// CHECK:      %[[STEP:.*]] = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// CHECK-NEXT: %[[HID_W:.*]] = dtf.variable "hid_w"
// CHECK-NEXT: %[[HID_W_M:.*]] = dtf.variable "hid_w/Adam" init(#dtf.zeros) colocate_with("hid_w") {trainable = false} : !dtf.resource<tensor<784x100xf32>>
// CHECK-NEXT: %[[HID_W_V:.*]] = dtf.variable "hid_w/Adam_1" init(#dtf.zeros) colocate_with("hid_w") {trainable = false} : !dtf.resource<tensor<784x100xf32>>
// CHECK-NEXT: %[[HID_B:.*]] = dtf.variable "hid_b"
// CHECK-NEXT: %[[HID_B_M:.*]] = dtf.variable "hid_b/Adam" init(#dtf.zeros) colocate_with("hid_b") {trainable = false} : !dtf.resource<tensor<100xf32>>
// CHECK-NEXT: %[[HID_B_V:.*]] = dtf.variable "hid_b/Adam_1" init(#dtf.zeros) colocate_with("hid_b") {trainable = false} : !dtf.resource<tensor<100xf32>>
// CHECK-NEXT: %[[BETA1:.*]] = dtf.variable "beta1_power" init(#dtf.constant<0.9>) colocate_with("hid_b") {trainable = false} : !dtf.resource<tensor<f32>>
// CHECK-NEXT: %[[BETA2:.*]] = dtf.variable "beta2_power" init(#dtf.constant<0.999>) colocate_with("hid_b") {trainable = false} : !dtf.resource<tensor<f32>>
// CHECK-NEXT: %[[SM_W:.*]] = dtf.variable "sm_w"
// CHECK-NEXT: %[[SM_W_M:.*]] = dtf.variable "sm_w/Adam" init(#dtf.zeros) colocate_with("sm_w") {trainable = false} : !dtf.resource<tensor<100x10xf32>>
// CHECK-NEXT: %[[SM_W_V:.*]] = dtf.variable "sm_w/Adam_1" init(#dtf.zeros) colocate_with("sm_w") {trainable = false} : !dtf.resource<tensor<100x10xf32>>
// CHECK-NEXT: %[[SM_B:.*]] = dtf.variable "sm_b"
// CHECK-NEXT: %[[SM_B_M:.*]] = dtf.variable "sm_b/Adam" init(#dtf.zeros) colocate_with("sm_b") {trainable = false} : !dtf.resource<tensor<10xf32>>
// CHECK-NEXT: %[[SM_B_V:.*]] = dtf.variable "sm_b/Adam_1" init(#dtf.zeros) colocate_with("sm_b") {trainable = false} : !dtf.resource<tensor<10xf32>>
// CHECK-NEXT: %[[X:.*]] = dtf.placeholder "x"
// CHECK-NEXT: %[[Y_:.*]] = dtf.placeholder "y_"

// The forward pass is untouched.
// CHECK:      %[[HID_LIN:.*]] = dtf.bias_add
// CHECK-NEXT: %[[HID:.*]] = dtf.relu %[[HID_LIN]]
// CHECK-NEXT: %[[SM_W_VAL:.*]] = dtf.read %[[SM_W]]
// CHECK:      %[[Y:.*]] = dtf.softmax
// CHECK-NEXT: %[[CLIPPED:.*]] = dtf.clip_by_value %[[Y]], 1.000000e-10, 1.000000e+00
// CHECK:      %[[LOSS:.*]] = dtf.neg

// The backward pass, where the minimize was: -reduce_sum, y_ * log(...),
// clip, softmax, the softmax layer, relu and the hidden layer.
// CHECK-NEXT: %[[ONE:.*]] = dtf.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[D_SUM:.*]] = dtf.neg %[[ONE]] : tensor<f32>
// CHECK-NEXT: %[[D_SUM_KEPT:.*]] = dtf.reshape %[[D_SUM]] : tensor<f32> -> tensor<1x1xf32>
// CHECK-NEXT: %[[D_WEIGHTED:.*]] = dtf.broadcast_to %[[D_SUM_KEPT]] : tensor<1x1xf32> -> tensor<100x10xf32>
// CHECK-NEXT: %[[D_LOG:.*]] = dtf.mul %[[Y_]], %[[D_WEIGHTED]]
// CHECK-NEXT: %[[D_CLIPPED:.*]] = dtf.div %[[D_LOG]], %[[CLIPPED]]
// CHECK-NEXT: %[[D_Y:.*]] = dtf.clip_by_value_grad %[[D_CLIPPED]], %[[Y]], 1.000000e-10, 1.000000e+00
// CHECK-NEXT: %[[D_LOGITS:.*]] = dtf.softmax_grad %[[D_Y]], %[[Y]]
// CHECK-NEXT: %[[D_SM_B:.*]] = dtf.bias_add_grad %[[D_LOGITS]] : tensor<100x10xf32>
// CHECK-NEXT: %[[D_HID:.*]] = dtf.matmul %[[D_LOGITS]], %[[SM_W_VAL]] {transpose_b = true}
// CHECK-NEXT: %[[D_SM_W:.*]] = dtf.matmul %[[HID]], %[[D_LOGITS]] {transpose_a = true}
// CHECK-NEXT: %[[D_HID_LIN:.*]] = dtf.relu_grad %[[D_HID]], %[[HID_LIN]]
// CHECK-NEXT: %[[D_HID_B:.*]] = dtf.bias_add_grad %[[D_HID_LIN]] : tensor<100x100xf32>
// CHECK-NEXT: %[[D_HID_W:.*]] = dtf.matmul %[[X]], %[[D_HID_LIN]] {transpose_a = true}

// Adam's updates, in variable order, with this step's beta powers.
// CHECK-NEXT: %[[B1:.*]] = dtf.read %[[BETA1]]
// CHECK-NEXT: %[[B2:.*]] = dtf.read %[[BETA2]]
// CHECK-NEXT: dtf.apply_adam %[[HID_W]], %[[HID_W_M]], %[[HID_W_V]], %[[B1]], %[[B2]], %[[D_HID_W]] learning_rate 1.000000e-02 beta1 9.000000e-01 beta2 0.99899999999999999 epsilon 1.000000e-08 : !dtf.resource<tensor<784x100xf32>>, tensor<f32>
// CHECK-NEXT: dtf.apply_adam %[[HID_B]], %[[HID_B_M]], %[[HID_B_V]], %[[B1]], %[[B2]], %[[D_HID_B]] learning_rate 1.000000e-02 {{.*}} : !dtf.resource<tensor<100xf32>>, tensor<f32>
// CHECK-NEXT: dtf.apply_adam %[[SM_W]], %[[SM_W_M]], %[[SM_W_V]], %[[B1]], %[[B2]], %[[D_SM_W]] learning_rate 1.000000e-02 {{.*}} : !dtf.resource<tensor<100x10xf32>>, tensor<f32>
// CHECK-NEXT: dtf.apply_adam %[[SM_B]], %[[SM_B_M]], %[[SM_B_V]], %[[B1]], %[[B2]], %[[D_SM_B]] learning_rate 1.000000e-02 {{.*}} : !dtf.resource<tensor<10xf32>>, tensor<f32>

// beta1_power *= beta1, beta2_power *= beta2, then global_step += 1.
// CHECK-NEXT: %[[B1_NOW:.*]] = dtf.read %[[BETA1]]
// CHECK-NEXT: %[[BETA1_C:.*]] = dtf.constant dense<0.899999976> : tensor<f32>
// CHECK-NEXT: %[[B1_NEXT:.*]] = dtf.mul %[[B1_NOW]], %[[BETA1_C]]
// CHECK-NEXT: dtf.assign %[[BETA1]], %[[B1_NEXT]] : !dtf.resource<tensor<f32>>
// CHECK-NEXT: %[[B2_NOW:.*]] = dtf.read %[[BETA2]]
// CHECK-NEXT: %[[BETA2_C:.*]] = dtf.constant dense<9.990000e-01> : tensor<f32>
// CHECK-NEXT: %[[B2_NEXT:.*]] = dtf.mul %[[B2_NOW]], %[[BETA2_C]]
// CHECK-NEXT: dtf.assign %[[BETA2]], %[[B2_NEXT]] : !dtf.resource<tensor<f32>>
// CHECK-NEXT: %[[STEP_ONE:.*]] = dtf.constant dense<1> : tensor<i64>
// CHECK-NEXT: dtf.assign_add %[[STEP]], %[[STEP_ONE]] : !dtf.resource<tensor<i64>>

// The accuracy is left alone and nothing else is updated.
// CHECK-NEXT: dtf.argmax
// CHECK-NOT:  dtf.apply_
// CHECK-NOT:  dtf.assign
// CHECK-NOT:  dtf.minimize
// CHECK:      return %[[LOSS]]

// VALID-LABEL: func.func @main
// VALID-COUNT-4: dtf.apply_adam
// VALID-COUNT-1: dtf.assign_add
