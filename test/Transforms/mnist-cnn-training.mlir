// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer %examples/mnist_cnn.mlir | FileCheck %s
// The result is valid IR: printed generically, it parses and verifies again.
// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --mlir-print-op-generic %examples/mnist_cnn.mlir | dtf-opt | FileCheck %s --check-prefix=VALID

// The convnet through both training passes: convolutions and pooling are
// differentiated with conv2d_backprop_filter/input and max_pool_grad, the
// mean cross-entropy with softmax_cross_entropy_with_logits_grad, and each of
// the eight variables gets an Adam update.

// CHECK-LABEL: func.func @main
// CHECK:      %[[CONV1_W:.*]] = dtf.variable "conv1_w"
// CHECK-NEXT: dtf.variable "conv1_w/Adam"
// CHECK-NEXT: dtf.variable "conv1_w/Adam_1"
// CHECK-NEXT: %[[CONV1_B:.*]] = dtf.variable "conv1_b"
// CHECK-NEXT: dtf.variable "conv1_b/Adam"
// CHECK-NEXT: dtf.variable "conv1_b/Adam_1"
// CHECK-NEXT: dtf.variable "beta1_power"
// CHECK-NEXT: dtf.variable "beta2_power"
// CHECK:      %[[XENT:.*]] = dtf.softmax_cross_entropy_with_logits %[[LOGITS:.*]], %[[LABELS:.*]] :
// CHECK-NEXT: %[[LOSS:.*]] = dtf.reduce_mean %[[XENT]] : tensor<100xf32>
// reduce_mean over the batch: 1/100.
// CHECK-NEXT: dtf.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: dtf.reshape {{.*}} : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT: %[[DB:.*]] = dtf.broadcast_to {{.*}} : tensor<1xf32> -> tensor<100xf32>
// CHECK-NEXT: %[[SCALE:.*]] = dtf.constant dense<0.00999999977> : tensor<f32>
// CHECK-NEXT: %[[DXENT:.*]] = dtf.mul %[[DB]], %[[SCALE]] : tensor<100xf32>, tensor<f32>
// CHECK-NEXT: dtf.softmax_cross_entropy_with_logits_grad %[[DXENT]], %[[LOGITS]], %[[LABELS]]
// CHECK:      dtf.max_pool_grad {{.*}} : tensor<100x14x14x64xf32>, tensor<100x7x7x64xf32>
// CHECK:      dtf.conv2d_backprop_input {{.*}} -> tensor<100x14x14x32xf32>
// CHECK-NEXT: dtf.conv2d_backprop_filter {{.*}} -> tensor<5x5x32x64xf32>
// CHECK-NEXT: dtf.max_pool_grad {{.*}} : tensor<100x28x28x32xf32>, tensor<100x14x14x32xf32>
// The image is a placeholder: no gradient flows into it.
// CHECK-NOT:  dtf.conv2d_backprop_input
// CHECK:      dtf.conv2d_backprop_filter {{.*}} -> tensor<5x5x1x32xf32>
// CHECK-COUNT-8: dtf.apply_adam
// CHECK:      dtf.assign_add
// CHECK-NOT:  dtf.assign_add
// CHECK:      return %[[LOSS]]

// VALID-LABEL: func.func @main
// VALID-COUNT-8: dtf.apply_adam
