// RUN: dtf-opt --dtf-autodiff %s | FileCheck %s

// tf.clip_by_global_norm(gradients, 5.0) before the update: the gradients
// (here x1 and x2, of loss = sum(w1 * x1) + sum(w2 * x2)) scaled by
// 5 * min(1 / norm, 1 / 5) + (norm - norm), norm = sqrt of the sum of their
// squares, as TensorFlow's graph computes it.
// CHECK-LABEL: func.func @clip
// CHECK-SAME:  (%[[X1:.*]]: tensor<2xf32>, %[[X2:.*]]: tensor<3x2xf32>)
// CHECK:       %[[SQ1:.*]] = dtf.mul %[[G1:.*]], %[[G1]] : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT:  %[[SUM1:.*]] = dtf.reduce_sum %[[SQ1]] {axes = array<i64: 0>} : tensor<2xf32>
// CHECK-NEXT:  %[[SQ2:.*]] = dtf.mul %[[G2:.*]], %[[G2]] : tensor<3x2xf32>, tensor<3x2xf32>
// CHECK-NEXT:  %[[SUM2:.*]] = dtf.reduce_sum %[[SQ2]] {axes = array<i64: 0, 1>} : tensor<3x2xf32>
// CHECK-NEXT:  %[[TOTAL:.*]] = dtf.add %[[SUM1]], %[[SUM2]] : tensor<f32>, tensor<f32>
// CHECK-NEXT:  %[[NORM:.*]] = dtf.sqrt %[[TOTAL]] : tensor<f32>
// CHECK-NEXT:  %[[ONE:.*]] = dtf.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:  %[[INV:.*]] = dtf.div %[[ONE]], %[[NORM]]
// CHECK-NEXT:  %[[INVCLIP:.*]] = dtf.constant dense<2.000000e-01> : tensor<f32>
// CHECK-NEXT:  %[[MIN:.*]] = dtf.minimum %[[INV]], %[[INVCLIP]]
// CHECK-NEXT:  %[[CLIP:.*]] = dtf.constant dense<5.000000e+00> : tensor<f32>
// CHECK-NEXT:  %[[SCALE:.*]] = dtf.mul %[[CLIP]], %[[MIN]]
// CHECK-NEXT:  %[[ZERO:.*]] = dtf.sub %[[NORM]], %[[NORM]]
// CHECK-NEXT:  %[[GUARDED:.*]] = dtf.add %[[SCALE]], %[[ZERO]]
// CHECK-NEXT:  %[[C1:.*]] = dtf.mul %[[G1]], %[[GUARDED]] : tensor<2xf32>, tensor<f32>
// CHECK-NEXT:  %[[C2:.*]] = dtf.mul %[[G2]], %[[GUARDED]] : tensor<3x2xf32>, tensor<f32>
// CHECK-NEXT:  dtf.apply_gradients #dtf.adam<>(%{{.*}}, %{{.*}} : !dtf.resource<tensor<2xf32>>, !dtf.resource<tensor<3x2xf32>>) grads(%[[C1]], %[[C2]] : tensor<2xf32>, tensor<3x2xf32>)
func.func @clip(%x1: tensor<2xf32>, %x2: tensor<3x2xf32>) -> tensor<f32> {
  %w1 = dtf.variable "w1" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  %w2 = dtf.variable "w2" init(#dtf.zeros) : !dtf.resource<tensor<3x2xf32>>
  %v1 = dtf.read %w1 : !dtf.resource<tensor<2xf32>>
  %v2 = dtf.read %w2 : !dtf.resource<tensor<3x2xf32>>
  %p1 = dtf.mul %v1, %x1 : tensor<2xf32>, tensor<2xf32>
  %p2 = dtf.mul %v2, %x2 : tensor<3x2xf32>, tensor<3x2xf32>
  %s1 = dtf.reduce_sum %p1 : tensor<2xf32>
  %s2 = dtf.reduce_sum %p2 : tensor<3x2xf32>
  %loss = dtf.add %s1, %s2 : tensor<f32>, tensor<f32>
  dtf.minimize %loss : tensor<f32>, #dtf.adam<> clip_by_global_norm 5.0
  return %loss : tensor<f32>
}
