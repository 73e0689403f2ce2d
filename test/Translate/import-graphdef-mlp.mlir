// The classic distributed-MNIST MLP as tf.compat.v1 builds it
// (examples/tf/mnist_graphs.py): reference variables with their initializers
// (TruncatedNormal's Add(Mul(sample, stddev), mean), Const zeros), reads
// through Identity, Placeholder with a dynamic batch, MatMul and BiasAdd
// (xw_plus_b), Relu, Softmax, clip_by_value as Maximum(Minimum(...)), Log,
// Mul, Sum, Neg, ArgMax, Equal, Cast and Mean. ApplyAdam names the trainable
// variables and the optimizer, the gradients/ subgraph the loss, and
// AssignAdd the global step (int32 in the script, int64 in DTF); none of
// them, nor Adam's slots, is imported.
// RUN: dtf-translate --import-graphdef %examples/tf/mnist_mlp.pbtxt \
// RUN:   --outputs=accuracy | FileCheck %s
// The module verifies and prints back the same.
// RUN: dtf-translate --import-graphdef %examples/tf/mnist_mlp.pbtxt \
// RUN:   --outputs=accuracy | dtf-opt | FileCheck %s

// CHECK: module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>}
// The results are named as validation reports them: the loss, then each
// output by its node.
// CHECK-LABEL: func.func @main() -> (tensor<f32>, tensor<f32>)
// CHECK-SAME: attributes {dtf.result_names = ["loss", "accuracy"]}
// CHECK-NEXT: %[[STEP:.*]] = dtf.variable "global_step" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<i64>>
// CHECK-NEXT: %[[HID_W:.*]] = dtf.variable "hid_w" init(#dtf.truncated_normal<stddev = 0.035714287, seed = 1>) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<784x100xf32>>
// CHECK-NEXT: %[[HID_B:.*]] = dtf.variable "hid_b" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<100xf32>>
// CHECK-NEXT: %[[SM_W:.*]] = dtf.variable "sm_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 2>)
// CHECK-NEXT: %[[SM_B:.*]] = dtf.variable "sm_b" init(#dtf.zeros)
// CHECK-NEXT: %[[Y_:.*]] = dtf.placeholder "y_" : tensor<?x10xf32>
// CHECK-NEXT: %[[X:.*]] = dtf.placeholder "x" : tensor<?x784xf32>
// CHECK-NEXT: %[[W1:.*]] = dtf.read %[[HID_W]]
// CHECK-NEXT: %[[MM1:.*]] = dtf.matmul %[[X]], %[[W1]] : tensor<?x784xf32>, tensor<784x100xf32>
// CHECK-NEXT: %[[B1:.*]] = dtf.read %[[HID_B]]
// CHECK-NEXT: %[[LIN1:.*]] = dtf.bias_add %[[MM1]], %[[B1]] : tensor<?x100xf32>, tensor<100xf32>
// CHECK-NEXT: %[[HID:.*]] = dtf.relu %[[LIN1]] : tensor<?x100xf32>
// CHECK-NEXT: %[[W2:.*]] = dtf.read %[[SM_W]]
// CHECK-NEXT: %[[MM2:.*]] = dtf.matmul %[[HID]], %[[W2]]
// CHECK-NEXT: %[[B2:.*]] = dtf.read %[[SM_B]]
// CHECK-NEXT: %[[LOGITS:.*]] = dtf.bias_add %[[MM2]], %[[B2]]
// CHECK-NEXT: %[[Y:.*]] = dtf.softmax %[[LOGITS]] : tensor<?x10xf32>
// CHECK-NEXT: %[[CLIPPED:.*]] = dtf.clip_by_value %[[Y]], 1.000000e-10, 1.000000e+00 : tensor<?x10xf32>
// CHECK-NEXT: %[[LOG:.*]] = dtf.log %[[CLIPPED]]
// CHECK-NEXT: %[[PRODUCT:.*]] = dtf.mul %[[Y_]], %[[LOG]]
// CHECK-NEXT: %[[SUM:.*]] = dtf.reduce_sum %[[PRODUCT]] {axes = array<i64: 0, 1>} : tensor<?x10xf32>
// CHECK-NEXT: %[[LOSS:.*]] = dtf.neg %[[SUM]] : tensor<f32>
// CHECK-NEXT: %[[PREDICTED:.*]] = dtf.argmax %[[Y]], 1
// CHECK-NEXT: %[[EXPECTED:.*]] = dtf.argmax %[[Y_]], 1
// CHECK-NEXT: %[[CORRECT:.*]] = dtf.equal %[[PREDICTED]], %[[EXPECTED]] : tensor<?xi64>, tensor<?xi64>
// CHECK-NEXT: %[[CORRECT_F:.*]] = dtf.cast %[[CORRECT]] : tensor<?xi1> to tensor<?xf32>
// CHECK-NEXT: %[[ACCURACY:.*]] = dtf.reduce_mean %[[CORRECT_F]] {axes = array<i64: 0>}
// CHECK-NEXT: dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.adam<learning_rate = 0.01> global_step %[[STEP]]
// CHECK-NEXT: return %[[LOSS]], %[[ACCURACY]] : tensor<f32>, tensor<f32>
// CHECK-NOT: dtf.variable
