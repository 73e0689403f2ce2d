// RUN: dtf-opt %s | dtf-opt | FileCheck %s
// RUN: dtf-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The elementwise math of TF1 models (activations, losses' masks, learning
// rate schedules, gradient clipping) and average pooling: round trip, and
// the inferred result types in the generic form.

// CHECK-LABEL: func.func @unary(
// GENERIC-LABEL: sym_name = "unary"
func.func @unary(%x: tensor<2x3xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>) {
// CHECK: dtf.exp %{{.*}} : tensor<2x3xf32>
  %0 = dtf.exp %x : tensor<2x3xf32>
// CHECK: dtf.tanh %{{.*}} : tensor<2x3xf32>
  %1 = dtf.tanh %x : tensor<2x3xf32>
// CHECK: dtf.sqrt %{{.*}} : tensor<2x3xf32>
  %2 = dtf.sqrt %x : tensor<2x3xf32>
// CHECK: dtf.rsqrt %{{.*}} : tensor<2x3xf32>
  %3 = dtf.rsqrt %x : tensor<2x3xf32>
// CHECK: dtf.floor %{{.*}} : tensor<2x3xf32>
  %4 = dtf.floor %x : tensor<2x3xf32>
// CHECK: dtf.abs %{{.*}} : tensor<4xi32>
  %5 = dtf.abs %i : tensor<4xi32>
// CHECK: dtf.sign %{{.*}} : tensor<2x3xf32>
  %6 = dtf.sign %x : tensor<2x3xf32>
// CHECK: dtf.logical_not %{{.*}} : tensor<4xi1>
  %7 = dtf.logical_not %b : tensor<4xi1>
// CHECK: dtf.stop_gradient %{{.*}} : tensor<4xi32>
  %8 = dtf.stop_gradient %i : tensor<4xi32>
  return
}

// CHECK-LABEL: func.func @binary(
// GENERIC-LABEL: sym_name = "binary"
func.func @binary(%m: tensor<2x3xf32>, %row: tensor<3xf32>, %s: tensor<f32>, %i: tensor<4xi64>) {
// CHECK: dtf.div_no_nan %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32>
// GENERIC: "dtf.div_no_nan"(%{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = dtf.div_no_nan %m, %row : tensor<2x3xf32>, tensor<3xf32>
// CHECK: dtf.minimum %{{.*}}, %{{.*}} : tensor<f32>, tensor<2x3xf32>
// GENERIC: "dtf.minimum"(%{{.*}}) : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = dtf.minimum %s, %m : tensor<f32>, tensor<2x3xf32>
// CHECK: dtf.maximum %{{.*}}, %{{.*}} : tensor<4xi64>, tensor<4xi64>
// GENERIC: "dtf.maximum"(%{{.*}}) : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = dtf.maximum %i, %i : tensor<4xi64>, tensor<4xi64>
// CHECK: dtf.pow %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<f32>
// GENERIC: "dtf.pow"(%{{.*}}) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = dtf.pow %m, %s : tensor<2x3xf32>, tensor<f32>
  return
}

// Comparisons give i1 of the broadcast shape; select broadcasts its three
// operands.
// CHECK-LABEL: func.func @compare_select(
// GENERIC-LABEL: sym_name = "compare_select"
func.func @compare_select(%m: tensor<2x3xf32>, %row: tensor<3xf32>, %s: tensor<f32>, %c: tensor<2x1xi1>) {
// CHECK: dtf.not_equal %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32>
// GENERIC: "dtf.not_equal"(%{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %0 = dtf.not_equal %m, %row : tensor<2x3xf32>, tensor<3xf32>
// CHECK: dtf.greater %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<f32>
// GENERIC: "dtf.greater"(%{{.*}}) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
  %1 = dtf.greater %m, %s : tensor<2x3xf32>, tensor<f32>
// CHECK: dtf.greater_equal %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<2x3xf32>
// GENERIC: "dtf.greater_equal"(%{{.*}}) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %2 = dtf.greater_equal %row, %m : tensor<3xf32>, tensor<2x3xf32>
// CHECK: dtf.less %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>
// GENERIC: "dtf.less"(%{{.*}}) : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %3 = dtf.less %s, %s : tensor<f32>, tensor<f32>
// CHECK: dtf.less_equal %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2x3xf32>
// GENERIC: "dtf.less_equal"(%{{.*}}) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %4 = dtf.less_equal %m, %m : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: dtf.logical_and %{{.*}}, %{{.*}} : tensor<2x3xi1>, tensor<2x1xi1>
// GENERIC: "dtf.logical_and"(%{{.*}}) : (tensor<2x3xi1>, tensor<2x1xi1>) -> tensor<2x3xi1>
  %5 = dtf.logical_and %4, %c : tensor<2x3xi1>, tensor<2x1xi1>
// CHECK: dtf.logical_or %{{.*}}, %{{.*}} : tensor<2x3xi1>, tensor<2x3xi1>
  %6 = dtf.logical_or %5, %1 : tensor<2x3xi1>, tensor<2x3xi1>
// CHECK: dtf.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x1xi1>, tensor<3xf32>, tensor<f32>
// GENERIC: "dtf.select"(%{{.*}}) : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %7 = dtf.select %c, %row, %s : tensor<2x1xi1>, tensor<3xf32>, tensor<f32>
  return
}

// reduce_max and reduce_min infer their types as reduce_sum does.
// CHECK-LABEL: func.func @extrema(
// GENERIC-LABEL: sym_name = "extrema"
func.func @extrema(%x: tensor<2x3xf32>, %i: tensor<4x5xi32>) {
// CHECK: dtf.reduce_max %{{.*}} {axes = array<i64: 1>, keep_dims = true} : tensor<2x3xf32>
// GENERIC: "dtf.reduce_max"(%{{.*}}) <{axes = array<i64: 1>, keep_dims = true}> : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %0 = dtf.reduce_max %x {axes = array<i64: 1>, keep_dims = true} : tensor<2x3xf32>
// CHECK: dtf.reduce_min %{{.*}} : tensor<4x5xi32>
// GENERIC: "dtf.reduce_min"(%{{.*}}) <{axes = array<i64>, keep_dims = false}> : (tensor<4x5xi32>) -> tensor<i32>
  %1 = dtf.reduce_min %i : tensor<4x5xi32>
  return
}

// CHECK-LABEL: func.func @learning_phase(
func.func @learning_phase() -> tensor<i1> {
// CHECK: %[[PHASE:.*]] = dtf.learning_phase : tensor<i1>
  %0 = dtf.learning_phase : tensor<i1>
  return %0 : tensor<i1>
}

// avg_pool infers its pooled type as max_pool does; its gradient names the
// input's type.
// CHECK-LABEL: func.func @avg_pool(
// GENERIC-LABEL: sym_name = "avg_pool"
func.func @avg_pool(%x: tensor<2x5x5x3xf32>, %dy: tensor<2x2x2x3xf32>) {
// CHECK: dtf.avg_pool %{{.*}} ksize [1, 3, 3, 1] strides [1, 3, 3, 1] padding SAME : tensor<2x5x5x3xf32>
// GENERIC: "dtf.avg_pool"(%{{.*}}) <{{{.*}}}> : (tensor<2x5x5x3xf32>) -> tensor<2x2x2x3xf32>
  %0 = dtf.avg_pool %x ksize [1, 3, 3, 1] strides [1, 3, 3, 1] padding SAME : tensor<2x5x5x3xf32>
// CHECK: dtf.avg_pool_grad %{{.*}} ksize [1, 3, 3, 1] strides [1, 3, 3, 1] padding SAME : tensor<2x2x2x3xf32> -> tensor<2x5x5x3xf32>
  %1 = dtf.avg_pool_grad %dy ksize [1, 3, 3, 1] strides [1, 3, 3, 1] padding SAME : tensor<2x2x2x3xf32> -> tensor<2x5x5x3xf32>
  return
}
