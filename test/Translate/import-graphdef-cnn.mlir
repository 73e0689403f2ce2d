// The convnet of examples/tf/mnist_graphs.py: resource variables
// (VarHandleOp, AssignVariableOp of the initial value, ReadVariableOp),
// RandomStandardNormal's initializer, Reshape (a Const shape with -1),
// Conv2D and MaxPool (NHWC, SAME and VALID), AddV2, int64 class ids with
// SparseSoftmaxCrossEntropyWithLogits and Mean, and ResourceApplyMomentum;
// --outputs returns the logits too.
// RUN: dtf-translate --import-graphdef %examples/tf/mnist_cnn.pbtxt \
// RUN:   --outputs=logits,accuracy | FileCheck %s

// CHECK-LABEL: func.func @main() -> (tensor<f32>, tensor<?x10xf32>, tensor<f32>)
// CHECK-NEXT: %[[STEP:.*]] = dtf.variable "global_step" init(#dtf.zeros) {{.*}}trainable = false{{.*}} : !dtf.resource<tensor<i64>>
// CHECK-NEXT: %[[CONV_W:.*]] = dtf.variable "conv_w" init(#dtf.truncated_normal<stddev = 0.1, seed = 3>) {{.*}} : !dtf.resource<tensor<5x5x1x16xf32>>
// CHECK-NEXT: dtf.variable "conv_b" init(#dtf.zeros)
// CHECK-NEXT: dtf.variable "fc_w" init(#dtf.random_normal<stddev = 0.01, seed = 4>) {{.*}} : !dtf.resource<tensor<3136x10xf32>>
// CHECK-NEXT: dtf.variable "fc_b"
// CHECK-NEXT: %[[X:.*]] = dtf.placeholder "x" : tensor<?x784xf32>
// CHECK-NEXT: %[[IMAGES:.*]] = dtf.reshape %[[X]] : tensor<?x784xf32> -> tensor<?x28x28x1xf32>
// CHECK-NEXT: %[[FILTER:.*]] = dtf.read %[[CONV_W]]
// CHECK-NEXT: %[[CONV:.*]] = dtf.conv2d %[[IMAGES]], %[[FILTER]] strides [1, 1, 1, 1] padding SAME
// CHECK:      dtf.relu
// CHECK-NEXT: %[[POOL:.*]] = dtf.max_pool %{{.*}} ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding VALID : tensor<?x28x28x16xf32>
// CHECK-NEXT: dtf.reshape %[[POOL]] : tensor<?x14x14x16xf32> -> tensor<?x3136xf32>
// CHECK:      %[[LOGITS:.*]] = dtf.add %{{.*}}, %{{.*}} : tensor<?x10xf32>, tensor<10xf32>
// CHECK-NEXT: %[[LABELS:.*]] = dtf.placeholder "labels" : tensor<?xi64>
// CHECK-NEXT: %[[LOSSES:.*]] = dtf.sparse_softmax_cross_entropy_with_logits %[[LOGITS]], %[[LABELS]] : tensor<?x10xf32>, tensor<?xi64>
// CHECK-NEXT: %[[LOSS:.*]] = dtf.reduce_mean %[[LOSSES]] {axes = array<i64: 0>} : tensor<?xf32>
// CHECK:      dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.momentum<learning_rate = 0.05, momentum = 0.9> global_step %[[STEP]]
// CHECK-NEXT: return %[[LOSS]], %[[LOGITS]], %{{.*}} : tensor<f32>, tensor<?x10xf32>, tensor<f32>
