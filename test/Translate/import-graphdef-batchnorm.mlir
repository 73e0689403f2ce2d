// Batch normalization as tf.compat.v1.layers builds it (graphs written by
// Inputs/make_batchnorm_graphs.py with TensorFlow): FusedBatchNormV3
// decomposed into dtf ops, its two tf.cond branches joined by a select on
// the learning phase, and the moving averages that the train op updates
// through tf.GraphKeys.UPDATE_OPS as dtf.assign_moving_average.
// RUN: dtf-translate --import-graphdef %S/Inputs/batchnorm.pbtxt | FileCheck %s
// RUN: dtf-translate --import-graphdef %S/Inputs/batchnorm_bool.pbtxt | FileCheck %s --check-prefix=BOOL
// RUN: not dtf-translate --import-graphdef %S/Inputs/batchnorm_other_update.pbtxt 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: not dtf-translate --import-graphdef %S/Inputs/batchnorm_avg_factor.pbtxt 2>&1 | FileCheck %s --check-prefix=OWN-AVERAGE
//
// Autodiff's gradients through the batch's statistics, against finite
// differences.
// RUN: dtf-translate --import-graphdef %S/Inputs/batchnorm.pbtxt -o %t.mlir
// RUN: dtf-gradcheck --samples=8 %t.mlir | FileCheck %s --check-prefix=GRADIENTS
//
// TensorFlow's loss, logits and the layer's mean and variance outputs
// (bn/cond/Merge_1 and Merge_2) for one batch, in training and in inference.
// RUN: dtf-translate --import-graphdef %S/Inputs/batchnorm.pbtxt --outputs=logits/BiasAdd,bn/cond/Merge_1,bn/cond/Merge_2 -o %t.values.mlir
// RUN: dtf-eval-model --training --variables=%S/Inputs/batchnorm_values/variables.npz --feed=x=%S/Inputs/batchnorm_values/x.npy --feed=y_=%S/Inputs/batchnorm_values/y_.npy --expect=%S/Inputs/batchnorm_values/expected_training.npz %t.values.mlir | FileCheck %s --check-prefix=VALUES
// RUN: dtf-eval-model --variables=%S/Inputs/batchnorm_values/variables.npz --feed=x=%S/Inputs/batchnorm_values/x.npy --feed=y_=%S/Inputs/batchnorm_values/y_.npy --expect=%S/Inputs/batchnorm_values/expected_inference.npz %t.values.mlir | FileCheck %s --check-prefix=VALUES

// CHECK:      %[[MEAN:.*]] = dtf.variable "bn/moving_mean" init(#dtf.zeros) {trainable = false}
// CHECK-NEXT: %[[VARIANCE:.*]] = dtf.variable "bn/moving_variance" init(#dtf.constant<1.0>) {trainable = false}
// CHECK:      %[[PHASE:.*]] = dtf.learning_phase
// CHECK:      %[[X:.*]] = dtf.conv2d
// CHECK:      %[[GAMMA:.*]] = dtf.read %{{.*}} : !dtf.resource<tensor<5xf32>>
// CHECK-NEXT: %[[BETA:.*]] = dtf.read %{{.*}} : !dtf.resource<tensor<5xf32>>
// In training: the batch's mean and biased variance over N, H and W.
// CHECK-NEXT: %[[BATCH_MEAN:.*]] = dtf.reduce_mean %[[X]] {axes = array<i64: 0, 1, 2>} : tensor<8x6x6x5xf32>
// CHECK-NEXT: %[[CENTERED:.*]] = dtf.sub %[[X]], %[[BATCH_MEAN]]
// CHECK-NEXT: %[[SQUARES:.*]] = dtf.mul %[[CENTERED]], %[[CENTERED]]
// CHECK-NEXT: %[[BATCH_VARIANCE:.*]] = dtf.reduce_mean %[[SQUARES]] {axes = array<i64: 0, 1, 2>}
// The variance output with Bessel's correction: n / max(n - 1, 1), n = 8 * 6 * 6.
// CHECK-NEXT: %[[ONE:.*]] = dtf.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[ONES:.*]] = dtf.broadcast_to %[[ONE]] : tensor<f32> -> tensor<8x6x6x1xf32>
// CHECK-NEXT: %[[N:.*]] = dtf.reduce_sum %[[ONES]]
// CHECK-NEXT: %[[N_1:.*]] = dtf.sub %[[N]], %[[ONE]]
// CHECK-NEXT: %[[DIVISOR:.*]] = dtf.maximum %[[N_1]], %[[ONE]]
// CHECK-NEXT: %[[CORRECTION:.*]] = dtf.div %[[N]], %[[DIVISOR]]
// CHECK-NEXT: %[[UNBIASED:.*]] = dtf.mul %[[BATCH_VARIANCE]], %[[CORRECTION]]
// y = (x - mean) * (rsqrt(variance + epsilon) * gamma) + beta.
// CHECK-NEXT: %[[EPSILON:.*]] = dtf.constant dense<1.000000e-03> : tensor<f32>
// CHECK-NEXT: %[[SHIFTED:.*]] = dtf.add %[[BATCH_VARIANCE]], %[[EPSILON]]
// CHECK-NEXT: %[[INVERSE:.*]] = dtf.rsqrt %[[SHIFTED]]
// CHECK-NEXT: %[[FACTOR:.*]] = dtf.mul %[[INVERSE]], %[[GAMMA]]
// CHECK-NEXT: %[[SCALED:.*]] = dtf.mul %[[CENTERED]], %[[FACTOR]]
// CHECK-NEXT: %[[Y_TRAINING:.*]] = dtf.add %[[SCALED]], %[[BETA]]
// In inference: the moving averages.
// CHECK-NEXT: %[[MOVING_MEAN:.*]] = dtf.read %[[MEAN]]
// CHECK-NEXT: %[[MOVING_VARIANCE:.*]] = dtf.read %[[VARIANCE]]
// CHECK-NEXT: dtf.sub %[[X]], %[[MOVING_MEAN]]
// CHECK-NEXT: dtf.constant dense<1.000000e-03>
// CHECK-NEXT: dtf.add %[[MOVING_VARIANCE]]
// CHECK:      %[[Y_INFERENCE:.*]] = dtf.add %{{.*}}, %[[BETA]]
// CHECK-NEXT: %[[Y:.*]] = dtf.select %[[PHASE]], %[[Y_TRAINING]], %[[Y_INFERENCE]]
// CHECK-NEXT: dtf.tanh %[[Y]]
// CHECK:      dtf.minimize
// The train op's update ops: the batch's statistics in training.
// CHECK-NEXT: %[[NEW_MEAN:.*]] = dtf.select %[[PHASE]], %[[BATCH_MEAN]], %[[MOVING_MEAN]]
// CHECK-NEXT: dtf.assign_moving_average %[[MEAN]], %[[NEW_MEAN]] decay 0.98999999999999999 : !dtf.resource<tensor<5xf32>>
// CHECK-NEXT: %[[NEW_VARIANCE:.*]] = dtf.select %[[PHASE]], %[[UNBIASED]], %[[MOVING_VARIANCE]]
// CHECK-NEXT: dtf.assign_moving_average %[[VARIANCE]], %[[NEW_VARIANCE]] decay 0.98999999999999999 : !dtf.resource<tensor<5xf32>>
// CHECK-NEXT: return

// training=True in Python: no cond, the decay a Const (1 - momentum).
// BOOL-NOT:   dtf.select
// BOOL:       %[[BATCH_MEAN:.*]] = dtf.reduce_mean %{{.*}} {axes = array<i64: 0, 1, 2>}
// BOOL:       dtf.minimize
// BOOL-NEXT:  dtf.assign_moving_average %{{.*}}, %[[BATCH_MEAN]] decay 0.98999999999999999
// BOOL-NEXT:  dtf.assign_moving_average

// OTHER: error: node 'count_batches' (AssignAdd): is an update the train op runs (a control dependency, as tf.GraphKeys.UPDATE_OPS makes them); DTF imports only assign_moving_average's AssignSub there

// OWN-AVERAGE: error: node 'FusedBatchNormV3' (FusedBatchNormV3): keeps its moving averages itself (exponential_avg_factor 5.000000e-01); DTF imports the factor 1 of tf.compat.v1.layers, whose moving averages are the graph's AssignMovingAvg updates

// GRADIENTS-DAG: @main conv/kernel: 8 of 135 elements
// GRADIENTS-DAG: @main bn/gamma: 5 of 5 elements
// GRADIENTS-DAG: @main bn/beta: 5 of 5 elements
// GRADIENTS: gradient check passed

// VALUES:      result_0: f32[]
// VALUES-NEXT: result_1: f32[8,4]
// VALUES-NEXT: result_2: f32[5]
// VALUES-NEXT: result_3: f32[5]
// VALUES-NEXT: equal to the expected values (tolerance 1e-05)
