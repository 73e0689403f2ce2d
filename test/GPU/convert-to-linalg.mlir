// RUN: dtf-opt --dtf-convert-to-linalg --split-input-file %s | FileCheck %s

// NumPy broadcasting is in the indexing maps: a size-1 dimension of an
// operand reads index 0, missing leading dimensions are dropped.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @add_broadcast
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x3x5xf32>
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: outs(%[[INIT]] : tensor<4x3x5xf32>)
// CHECK: arith.addf
func.func @add_broadcast(%a: tensor<4x1x5xf32>, %b: tensor<3x1xf32>) -> tensor<4x3x5xf32> {
  %0 = dtf.add %a, %b : tensor<4x1x5xf32>, tensor<3x1xf32>
  return %0 : tensor<4x3x5xf32>
}

// -----

// relu is x > 0 ? x : 0 (NaN gives 0, as on the CPU); integers negate by
// subtraction from zero.
// CHECK-LABEL: func.func @relu
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[POSITIVE:.*]] = arith.cmpf ogt, %[[IN]], %[[ZERO]] : f32
// CHECK: %[[R:.*]] = arith.select %[[POSITIVE]], %[[IN]], %[[ZERO]] : f32
// CHECK: linalg.yield %[[R]]
func.func @relu(%x: tensor<6xf32>) -> tensor<6xf32> {
  %0 = dtf.relu %x : tensor<6xf32>
  return %0 : tensor<6xf32>
}

// CHECK-LABEL: func.func @neg_int
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: arith.subi %[[ZERO]], %[[IN]] : i32
func.func @neg_int(%x: tensor<6xi32>) -> tensor<6xi32> {
  %0 = dtf.neg %x : tensor<6xi32>
  return %0 : tensor<6xi32>
}

// -----

// A scalar is computed as a one-element loop, which maps to a GPU thread.
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @scalar
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[SCALAR]], #[[ID1]]], iterator_types = ["parallel"]}
// CHECK: arith.negf
// CHECK: -> tensor<1xf32>
// CHECK: %[[S:.*]] = tensor.collapse_shape %[[R]] [] : tensor<1xf32> into tensor<f32>
// CHECK: return %[[S]]
func.func @scalar(%a: tensor<f32>) -> tensor<f32> {
  %0 = dtf.neg %a : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Reductions iterate over the kept dimensions first (parallel), then the
// reduced ones; f32 sums accumulate in f64.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @reduce_sum
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f64) outs(%{{.*}} : tensor<6xf64>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[KEPT]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK-SAME: ins(%{{.*}} : tensor<5x6x7xf32>) outs(%[[ACC]] : tensor<6xf64>)
// CHECK: arith.extf
// CHECK: arith.addf {{.*}} : f64
// CHECK: %[[F32:.*]] = linalg.generic
// CHECK: arith.truncf {{.*}} : f64 to f32
// CHECK: tensor.expand_shape %[[F32]] {{\[\[}}0, 1, 2]] output_shape [1, 6, 1] : tensor<6xf32> into tensor<1x6x1xf32>
func.func @reduce_sum(%x: tensor<5x6x7xf32>) -> tensor<1x6x1xf32> {
  %0 = dtf.reduce_sum %x {axes = array<i64: 0, -1>, keep_dims = true} : tensor<5x6x7xf32>
  return %0 : tensor<1x6x1xf32>
}

// -----

// Reducing everything keeps a unit parallel dimension; the mean divides
// the f64 sum by the count.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[KEPT:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @reduce_mean_all
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[KEPT]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK-SAME: outs(%{{.*}} : tensor<1xf64>)
// CHECK: %[[COUNT:.*]] = arith.constant 1.200000e+01 : f64
// CHECK: arith.divf %{{.*}}, %[[COUNT]] : f64
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1xf32> into tensor<f32>
func.func @reduce_mean_all(%x: tensor<4x3xf32>) -> tensor<f32> {
  %0 = dtf.reduce_mean %x : tensor<4x3xf32>
  return %0 : tensor<f32>
}

// -----

// argmax keeps the first maximum: index 0 is taken unconditionally, a later
// one when strictly greater.
// CHECK-LABEL: func.func @argmax
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[BEST:.*]]: f32, %[[INDEX:.*]]: i64):
// CHECK: %[[K:.*]] = linalg.index 1 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK: %[[GREATER:.*]] = arith.cmpf ogt, %[[IN]], %[[BEST]] : f32
// CHECK: %[[TAKE:.*]] = arith.ori %[[FIRST]], %[[GREATER]] : i1
// CHECK: %[[K64:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK: arith.select %[[TAKE]], %[[IN]], %[[BEST]] : f32
// CHECK: arith.select %[[TAKE]], %[[K64]], %[[INDEX]] : i64
// CHECK: return %[[R]]#1
func.func @argmax(%x: tensor<5x7xf32>) -> tensor<5xi64> {
  %0 = dtf.argmax %x, 1 : tensor<5x7xf32>
  return %0 : tensor<5xi64>
}

// -----

// softmax: the row max, the row sum of exp(x - max), then
// exp(x - max) * (1 / sum).
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @softmax
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf ogt
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}}, %[[MAX]] : tensor<6x10xf32>, tensor<6xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]], #[[ROW]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}}, %[[MAX]], %[[SUM]] : tensor<6x10xf32>, tensor<6xf32>, tensor<6xf32>)
// CHECK: arith.divf
// CHECK: math.exp
// CHECK: arith.mulf
func.func @softmax(%x: tensor<6x10xf32>) -> tensor<6x10xf32> {
  %0 = dtf.softmax %x : tensor<6x10xf32>
  return %0 : tensor<6x10xf32>
}

// -----

// Casts are C++'s static_cast: to bool is != 0, float to int truncates.
// CHECK-LABEL: func.func @cast
// CHECK: arith.cmpf une, %{{.*}}, %{{.*}} : f32
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.uitofp %{{.*}} : i1 to f32
func.func @cast(%x: tensor<4xf32>, %b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi32>, tensor<4xf32>) {
  %0 = dtf.cast %x : tensor<4xf32> to tensor<4xi1>
  %1 = dtf.cast %x : tensor<4xf32> to tensor<4xi32>
  %2 = dtf.cast %b : tensor<4xi1> to tensor<4xf32>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi32>, tensor<4xf32>
}

// -----

// A reshape collapses to one dimension and expands; constants are arith's.
// CHECK-LABEL: func.func @reshape
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<100x784xf32> into tensor<78400xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2, 3]] output_shape [100, 28, 28, 1] : tensor<78400xf32> into tensor<100x28x28x1xf32>
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
func.func @reshape(%x: tensor<100x784xf32>) -> (tensor<100x28x28x1xf32>, tensor<2xf32>) {
  %0 = dtf.reshape %x : tensor<100x784xf32> -> tensor<100x28x28x1xf32>
  %1 = dtf.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %0, %1 : tensor<100x28x28x1xf32>, tensor<2xf32>
}
