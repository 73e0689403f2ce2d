// The ops of test/Translate/Inputs/ops.pbtxt (make_graphs.py) that the
// example models do not use: Sub and RealDiv with a Const operand, MatMul's
// transpose_b, Add, the ClipByValue op, SoftmaxCrossEntropyWithLogits
// (whose reshapes TensorFlow computes from Shape, Slice and ConcatV2: those
// that keep the shape vanish), Reshape, Sum with keep_dims, a Fill and a
// non-zero Const as initial values, and ApplyGradientDescent.
// RUN: dtf-translate --import-graphdef %S/Inputs/ops.pbtxt --outputs=accuracy \
// RUN:   | FileCheck %s
// The same graph in binary gives the same module.
// RUN: dtf-translate --import-graphdef %S/Inputs/ops.pb --outputs=accuracy \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @main() -> (tensor<f32>, tensor<f32>)
// CHECK-NEXT: %[[STEP:.*]] = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// CHECK-NEXT: %[[W:.*]] = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<10x784xf32>>
// CHECK-NEXT: %[[B:.*]] = dtf.variable "b" init(#dtf.constant<0.1>) : !dtf.resource<tensor<10xf32>>
// CHECK-NEXT: %[[X:.*]] = dtf.placeholder "x" : tensor<?x784xf32>
// CHECK-NEXT: %[[HALF:.*]] = dtf.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[CENTERED:.*]] = dtf.sub %[[X]], %[[HALF]] : tensor<?x784xf32>, tensor<f32>
// CHECK-NEXT: %[[QUARTER:.*]] = dtf.constant dense<2.500000e-01> : tensor<f32>
// CHECK-NEXT: %[[NORMALIZED:.*]] = dtf.div %[[CENTERED]], %[[QUARTER]]
// CHECK-NEXT: %[[WV:.*]] = dtf.read %[[W]]
// CHECK-NEXT: %[[MM:.*]] = dtf.matmul %[[NORMALIZED]], %[[WV]] {transpose_b = true} : tensor<?x784xf32>, tensor<10x784xf32>
// CHECK-NEXT: %[[BV:.*]] = dtf.read %[[B]]
// CHECK-NEXT: %[[LOGITS:.*]] = dtf.add %[[MM]], %[[BV]] : tensor<?x10xf32>, tensor<10xf32>
// CHECK-NEXT: %[[CLIPPED:.*]] = dtf.clip_by_value %[[LOGITS]], -3.000000e+01, 3.000000e+01
// CHECK-NEXT: %[[Y_:.*]] = dtf.placeholder "y_" : tensor<?x10xf32>
// CHECK-NEXT: %[[LOSSES:.*]] = dtf.softmax_cross_entropy_with_logits %[[CLIPPED]], %[[Y_]] : tensor<?x10xf32>, tensor<?x10xf32>
// CHECK-NEXT: %[[COLUMN:.*]] = dtf.reshape %[[LOSSES]] : tensor<?xf32> -> tensor<?x1xf32>
// CHECK-NEXT: %[[TOTAL:.*]] = dtf.reduce_sum %[[COLUMN]] {axes = array<i64: 0>, keep_dims = true} : tensor<?x1xf32>
// CHECK-NEXT: %[[LOSS:.*]] = dtf.reshape %[[TOTAL]] : tensor<1x1xf32> -> tensor<f32>
// CHECK:      dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.sgd<learning_rate = 0.5> global_step %[[STEP]]
