// RUN: dtf-opt %s | dtf-opt | FileCheck %s
// RUN: dtf-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The layer math of TF1 models (transpose, log_softmax, one_hot, tile,
// batch_matmul, reduce_prod): round trip, and the result types each op
// infers in the generic form.

// CHECK-LABEL: func.func @transpose(
// GENERIC-LABEL: sym_name = "transpose"
func.func @transpose(%x: tensor<2x3x4xf32>, %batch: tensor<?x5xi32>) {
// CHECK: dtf.transpose %{{.*}} permutation [2, 0, 1] : tensor<2x3x4xf32>
// GENERIC: "dtf.transpose"(%{{.*}}) <{permutation = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %0 = dtf.transpose %x permutation [2, 0, 1] : tensor<2x3x4xf32>
// GENERIC: "dtf.transpose"(%{{.*}}) <{permutation = array<i64: 1, 0>}> : (tensor<?x5xi32>) -> tensor<5x?xi32>
  %1 = dtf.transpose %batch permutation [1, 0] : tensor<?x5xi32>
  return
}

// CHECK-LABEL: func.func @log_softmax(
// GENERIC-LABEL: sym_name = "log_softmax"
func.func @log_softmax(%x: tensor<?x10xf32>) {
// CHECK: dtf.log_softmax %{{.*}} : tensor<?x10xf32>
// GENERIC: "dtf.log_softmax"(%{{.*}}) : (tensor<?x10xf32>) -> tensor<?x10xf32>
  %0 = dtf.log_softmax %x : tensor<?x10xf32>
  return
}

// CHECK-LABEL: func.func @one_hot(
// GENERIC-LABEL: sym_name = "one_hot"
func.func @one_hot(%ids: tensor<?xi64>, %grid: tensor<2x3xi32>) {
// CHECK: dtf.one_hot %{{.*}} depth 10 on 1.000000e+00 off 0.000000e+00 : tensor<?xi64> to f32
// GENERIC: "dtf.one_hot"(%{{.*}}) <{depth = 10 : i64, element_type = f32, off_value = 0.000000e+00 : f64, on_value = 1.000000e+00 : f64}> : (tensor<?xi64>) -> tensor<?x10xf32>
  %0 = dtf.one_hot %ids depth 10 on 1.0 off 0.0 : tensor<?xi64> to f32
// GENERIC: "dtf.one_hot"(%{{.*}}) <{{{.*}}}> : (tensor<2x3xi32>) -> tensor<2x3x4xf64>
  %1 = dtf.one_hot %grid depth 4 on 5.0 off -1.0 : tensor<2x3xi32> to f64
  return
}

// A dynamic dimension stays dynamic, whatever its multiple.
// CHECK-LABEL: func.func @tile(
// GENERIC-LABEL: sym_name = "tile"
func.func @tile(%x: tensor<?x4xf32>, %ids: tensor<3xi64>) {
// CHECK: dtf.tile %{{.*}} multiples [2, 3] : tensor<?x4xf32>
// GENERIC: "dtf.tile"(%{{.*}}) <{multiples = array<i64: 2, 3>}> : (tensor<?x4xf32>) -> tensor<?x12xf32>
  %0 = dtf.tile %x multiples [2, 3] : tensor<?x4xf32>
// GENERIC: "dtf.tile"(%{{.*}}) <{multiples = array<i64: 0>}> : (tensor<3xi64>) -> tensor<0xi64>
  %1 = dtf.tile %ids multiples [0] : tensor<3xi64>
  return
}

// Batch dimensions broadcast; adj_x and adj_y pick the matrices' other
// dimensions.
// CHECK-LABEL: func.func @batch_matmul(
// GENERIC-LABEL: sym_name = "batch_matmul"
func.func @batch_matmul(%q: tensor<?x4x16xf32>, %k: tensor<?x5x16xf32>, %w: tensor<1x3x2xf32>, %v: tensor<6x2x3x7xf32>) {
// CHECK: dtf.batch_matmul %{{.*}}, %{{.*}} {adj_y = true} : tensor<?x4x16xf32>, tensor<?x5x16xf32>
// GENERIC: "dtf.batch_matmul"(%{{.*}}, %{{.*}}) <{adj_x = false, adj_y = true}> : (tensor<?x4x16xf32>, tensor<?x5x16xf32>) -> tensor<?x4x5xf32>
  %0 = dtf.batch_matmul %q, %k {adj_y = true} : tensor<?x4x16xf32>, tensor<?x5x16xf32>
// GENERIC: "dtf.batch_matmul"(%{{.*}}, %{{.*}}) <{adj_x = true, adj_y = false}> : (tensor<1x3x2xf32>, tensor<6x2x3x7xf32>) -> tensor<6x2x2x7xf32>
  %1 = dtf.batch_matmul %w, %v {adj_x = true} : tensor<1x3x2xf32>, tensor<6x2x3x7xf32>
  return
}

// CHECK-LABEL: func.func @reduce_prod(
// GENERIC-LABEL: sym_name = "reduce_prod"
func.func @reduce_prod(%x: tensor<?x3x4xf32>, %dy: tensor<?x1x4xf32>) {
// CHECK: dtf.reduce_prod %{{.*}} {axes = array<i64: 1>, keep_dims = true} : tensor<?x3x4xf32>
// GENERIC: "dtf.reduce_prod"(%{{.*}}) <{axes = array<i64: 1>, keep_dims = true}> : (tensor<?x3x4xf32>) -> tensor<?x1x4xf32>
  %0 = dtf.reduce_prod %x {axes = array<i64: 1>, keep_dims = true} : tensor<?x3x4xf32>
// CHECK: dtf.reduce_prod_grad %{{.*}}, %{{.*}} {axes = array<i64: 1>, keep_dims = true} : tensor<?x3x4xf32>, tensor<?x1x4xf32>
// GENERIC: "dtf.reduce_prod_grad"(%{{.*}}, %{{.*}}) <{axes = array<i64: 1>, keep_dims = true}> : (tensor<?x3x4xf32>, tensor<?x1x4xf32>) -> tensor<?x3x4xf32>
  %1 = dtf.reduce_prod_grad %x, %dy {axes = array<i64: 1>, keep_dims = true} : tensor<?x3x4xf32>, tensor<?x1x4xf32>
  return
}
