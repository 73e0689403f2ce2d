// The example models parse and verify, print back to text that parses again
// identically (also through the generic form), and keep their structure.

// RUN: dtf-opt %examples/mnist_mlp.mlir > %t.mlp.1.mlir
// RUN: dtf-opt %t.mlp.1.mlir > %t.mlp.2.mlir
// RUN: diff %t.mlp.1.mlir %t.mlp.2.mlir
// RUN: dtf-opt %examples/mnist_mlp.mlir --mlir-print-op-generic | dtf-opt > %t.mlp.3.mlir
// RUN: diff %t.mlp.1.mlir %t.mlp.3.mlir
// RUN: FileCheck %s --check-prefix=MLP < %t.mlp.1.mlir

// RUN: dtf-opt %examples/mnist_cnn.mlir > %t.cnn.1.mlir
// RUN: dtf-opt %t.cnn.1.mlir > %t.cnn.2.mlir
// RUN: diff %t.cnn.1.mlir %t.cnn.2.mlir
// RUN: dtf-opt %examples/mnist_cnn.mlir --mlir-print-op-generic | dtf-opt > %t.cnn.3.mlir
// RUN: diff %t.cnn.1.mlir %t.cnn.3.mlir
// RUN: FileCheck %s --check-prefix=CNN < %t.cnn.1.mlir

// MLP: module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223", "localhost:2224"]>}
// MLP-LABEL: func.func @main() -> (tensor<f32>, tensor<f32>)
// The variables, in TensorFlow's creation order.
// MLP-NEXT: %[[STEP:.*]] = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// MLP-NEXT: %[[HID_W:.*]] = dtf.variable "hid_w" init(#dtf.truncated_normal<stddev = 0.03571428571428571, seed = 1>) : !dtf.resource<tensor<784x100xf32>>
// MLP-NEXT: %[[HID_B:.*]] = dtf.variable "hid_b" init(#dtf.zeros) : !dtf.resource<tensor<100xf32>>
// MLP-NEXT: %[[SM_W:.*]] = dtf.variable "sm_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 2>) : !dtf.resource<tensor<100x10xf32>>
// MLP-NEXT: %[[SM_B:.*]] = dtf.variable "sm_b" init(#dtf.zeros) : !dtf.resource<tensor<10xf32>>
// MLP-NEXT: %[[X:.*]] = dtf.placeholder "x" : tensor<100x784xf32>
// MLP-NEXT: %[[Y_:.*]] = dtf.placeholder "y_" : tensor<100x10xf32>
// MLP-NEXT: %[[HID_W_VALUE:.*]] = dtf.read %[[HID_W]] : !dtf.resource<tensor<784x100xf32>>
// MLP-NEXT: %[[HID_B_VALUE:.*]] = dtf.read %[[HID_B]] : !dtf.resource<tensor<100xf32>>
// MLP-NEXT: %[[HID_MM:.*]] = dtf.matmul %[[X]], %[[HID_W_VALUE]] : tensor<100x784xf32>, tensor<784x100xf32>
// The inferred types show as the operand types of the users.
// MLP-NEXT: %[[HID_LIN:.*]] = dtf.bias_add %[[HID_MM]], %[[HID_B_VALUE]] : tensor<100x100xf32>, tensor<100xf32>
// MLP-NEXT: %[[HID:.*]] = dtf.relu %[[HID_LIN]] : tensor<100x100xf32>
// MLP-NEXT: %[[SM_W_VALUE:.*]] = dtf.read %[[SM_W]] : !dtf.resource<tensor<100x10xf32>>
// MLP-NEXT: %[[SM_B_VALUE:.*]] = dtf.read %[[SM_B]] : !dtf.resource<tensor<10xf32>>
// MLP-NEXT: %[[SM_MM:.*]] = dtf.matmul %[[HID]], %[[SM_W_VALUE]] : tensor<100x100xf32>, tensor<100x10xf32>
// MLP-NEXT: %[[LOGITS:.*]] = dtf.bias_add %[[SM_MM]], %[[SM_B_VALUE]] : tensor<100x10xf32>, tensor<10xf32>
// MLP-NEXT: %[[Y:.*]] = dtf.softmax %[[LOGITS]] : tensor<100x10xf32>
// MLP-NEXT: %[[CLIPPED:.*]] = dtf.clip_by_value %[[Y]], 1.000000e-10, 1.000000e+00 : tensor<100x10xf32>
// MLP-NEXT: %[[LOG_Y:.*]] = dtf.log %[[CLIPPED]] : tensor<100x10xf32>
// MLP-NEXT: %[[WEIGHTED:.*]] = dtf.mul %[[Y_]], %[[LOG_Y]] : tensor<100x10xf32>, tensor<100x10xf32>
// MLP-NEXT: %[[SUM:.*]] = dtf.reduce_sum %[[WEIGHTED]] : tensor<100x10xf32>
// MLP-NEXT: %[[XENT:.*]] = dtf.neg %[[SUM]] : tensor<f32>
// Adam with learning rate 0.01 (printed as written) and the global step.
// MLP-NEXT: dtf.minimize %[[XENT]] : tensor<f32>, #dtf.adam<learning_rate = 0.01> global_step %[[STEP]] : !dtf.resource<tensor<i64>>
// MLP-NEXT: %[[PREDICTED:.*]] = dtf.argmax %[[Y]], 1 : tensor<100x10xf32>
// MLP-NEXT: %[[EXPECTED:.*]] = dtf.argmax %[[Y_]], 1 : tensor<100x10xf32>
// MLP-NEXT: %[[CORRECT:.*]] = dtf.equal %[[PREDICTED]], %[[EXPECTED]] : tensor<100xi64>, tensor<100xi64>
// MLP-NEXT: %[[CORRECT_F:.*]] = dtf.cast %[[CORRECT]] : tensor<100xi1> to tensor<100xf32>
// MLP-NEXT: %[[ACCURACY:.*]] = dtf.reduce_mean %[[CORRECT_F]] : tensor<100xf32>
// MLP-NEXT: return %[[XENT]], %[[ACCURACY]] : tensor<f32>, tensor<f32>

// CNN: module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223", "localhost:2224"]>}
// CNN-LABEL: func.func @main() -> (tensor<f32>, tensor<f32>)
// CNN-NEXT: %[[STEP:.*]] = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// CNN-NEXT: dtf.variable "conv1_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 11>) : !dtf.resource<tensor<5x5x1x32xf32>>
// CNN-NEXT: dtf.variable "conv1_b" init(#dtf.constant<0.1>) : !dtf.resource<tensor<32xf32>>
// CNN-NEXT: dtf.variable "conv2_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 12>) : !dtf.resource<tensor<5x5x32x64xf32>>
// CNN-NEXT: dtf.variable "conv2_b" init(#dtf.constant<0.1>) : !dtf.resource<tensor<64xf32>>
// CNN-NEXT: dtf.variable "fc1_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 13>) : !dtf.resource<tensor<3136x256xf32>>
// CNN-NEXT: dtf.variable "fc1_b" init(#dtf.constant<0.1>) : !dtf.resource<tensor<256xf32>>
// CNN-NEXT: dtf.variable "fc2_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 14>) : !dtf.resource<tensor<256x10xf32>>
// CNN-NEXT: dtf.variable "fc2_b" init(#dtf.constant<0.1>) : !dtf.resource<tensor<10xf32>>
// The inferred conv2d and max_pool types, as the operand types of their
// users: 28x28x32, pooled to 14x14x32, 14x14x64, pooled to 7x7x64.
// CNN: %[[C1:.*]] = dtf.conv2d %{{.*}}, %{{.*}} strides [1, 1, 1, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// CNN-NEXT: %[[C1B:.*]] = dtf.bias_add %[[C1]], %{{.*}} : tensor<100x28x28x32xf32>, tensor<32xf32>
// CNN-NEXT: %[[R1:.*]] = dtf.relu %[[C1B]] : tensor<100x28x28x32xf32>
// CNN-NEXT: %[[P1:.*]] = dtf.max_pool %[[R1]] ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<100x28x28x32xf32>
// CNN: %[[C2:.*]] = dtf.conv2d %[[P1]], %{{.*}} strides [1, 1, 1, 1] padding SAME : tensor<100x14x14x32xf32>, tensor<5x5x32x64xf32>
// CNN-NEXT: %[[C2B:.*]] = dtf.bias_add %[[C2]], %{{.*}} : tensor<100x14x14x64xf32>, tensor<64xf32>
// CNN-NEXT: %[[R2:.*]] = dtf.relu %[[C2B]] : tensor<100x14x14x64xf32>
// CNN-NEXT: %[[P2:.*]] = dtf.max_pool %[[R2]] ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<100x14x14x64xf32>
// CNN-NEXT: dtf.reshape %[[P2]] : tensor<100x7x7x64xf32> -> tensor<100x3136xf32>
// CNN: %[[XENT:.*]] = dtf.softmax_cross_entropy_with_logits %{{.*}}, %{{.*}} : tensor<100x10xf32>, tensor<100x10xf32>
// CNN-NEXT: %[[LOSS:.*]] = dtf.reduce_mean %[[XENT]] : tensor<100xf32>
// Adam with learning rate 0.001, TensorFlow's default: all parameters elided.
// CNN-NEXT: dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.adam<> global_step %[[STEP]] : !dtf.resource<tensor<i64>>
// CNN: return %[[LOSS]], %{{.*}} : tensor<f32>, tensor<f32>
