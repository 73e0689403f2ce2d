// RUN: dtf-opt %s | dtf-opt | FileCheck %s
// RUN: dtf-opt %s --mlir-print-op-generic | dtf-opt | FileCheck %s
// RUN: dtf-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// Round trip of every dtf op through its custom and its generic form. The
// custom form of ops with inferred result types does not show them, so the
// GENERIC lines check the inferred types (and the default-valued
// attributes filled in) in the generic form.

// Graph inputs and constants.
// CHECK-LABEL: func.func @placeholder_constant(
// CHECK-SAME:    ) -> (tensor<100x784xf32>, tensor<?x10xi64>, tensor<2xf32>, tensor<2x2xi32>
// GENERIC-LABEL: sym_name = "placeholder_constant"
func.func @placeholder_constant() -> (tensor<100x784xf32>, tensor<?x10xi64>, tensor<2xf32>, tensor<2x2xi32>) {
// CHECK: %[[X:[a-z0-9]+]] = dtf.placeholder "x" : tensor<100x784xf32>
// GENERIC: "dtf.placeholder"() <{name = "x"}> : () -> tensor<100x784xf32>
  %x = dtf.placeholder "x" : tensor<100x784xf32>
// CHECK: %[[Y:[a-z0-9]+]] = dtf.placeholder "labels" : tensor<?x10xi64>
// GENERIC: "dtf.placeholder"() <{name = "labels"}> : () -> tensor<?x10xi64>
  %y = dtf.placeholder "labels" : tensor<?x10xi64>
// CHECK: %[[C:[a-z0-9]+]] = dtf.constant dense<1.500000e+00> : tensor<2xf32>
// GENERIC: "dtf.constant"() <{value = dense<1.500000e+00> : tensor<2xf32>}> : () -> tensor<2xf32>
  %c = dtf.constant dense<1.5> : tensor<2xf32>
// CHECK: %[[D:[a-z0-9]+]] = dtf.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
// GENERIC: "dtf.constant"() <{value = dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  %d = dtf.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK: return %[[X]], %[[Y]], %[[C]], %[[D]] : tensor<100x784xf32>, tensor<?x10xi64>, tensor<2xf32>, tensor<2x2xi32>
  return %x, %y, %c, %d : tensor<100x784xf32>, tensor<?x10xi64>, tensor<2xf32>, tensor<2x2xi32>
}

// Variables with each initializer (mean elided when 0.0, trainable when
// true), and the ops that read and write them.
// CHECK-LABEL: func.func @variables(
// CHECK-SAME:    %[[V:[a-z0-9]+]]: tensor<784x100xf32>
// GENERIC-LABEL: sym_name = "variables"
func.func @variables(%v: tensor<784x100xf32>) -> tensor<784x100xf32> {
// CHECK: %{{.*}} = dtf.variable "zeros" init(#dtf.zeros) : !dtf.resource<tensor<10xf32>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.zeros, name = "zeros", trainable = true}> : () -> !dtf.resource<tensor<10xf32>>
  %zeros = dtf.variable "zeros" init(#dtf.zeros) : !dtf.resource<tensor<10xf32>>
// CHECK: %{{.*}} = dtf.variable "const" init(#dtf.constant<0.1>) : !dtf.resource<tensor<32xf32>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.constant<0.1>, name = "const", trainable = true}> : () -> !dtf.resource<tensor<32xf32>>
  %const = dtf.variable "const" init(#dtf.constant<0.1>) : !dtf.resource<tensor<32xf32>>
// CHECK: %[[TN:[a-z0-9]+]] = dtf.variable "tn" init(#dtf.truncated_normal<stddev = 0.1, seed = 1>) : !dtf.resource<tensor<784x100xf32>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.truncated_normal<stddev = 0.1, seed = 1>, name = "tn", trainable = true}> : () -> !dtf.resource<tensor<784x100xf32>>
  %tn = dtf.variable "tn" init(#dtf.truncated_normal<stddev = 0.1, seed = 1>) : !dtf.resource<tensor<784x100xf32>>
// CHECK: %{{.*}} = dtf.variable "tn2" init(#dtf.truncated_normal<mean = 0.5, stddev = 2.0, seed = 7>) : !dtf.resource<tensor<3xf64>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.truncated_normal<mean = 0.5, stddev = 2.0, seed = 7>, name = "tn2", trainable = true}> : () -> !dtf.resource<tensor<3xf64>>
  %tn2 = dtf.variable "tn2" init(#dtf.truncated_normal<mean = 0.5, stddev = 2.0, seed = 7>) : !dtf.resource<tensor<3xf64>>
// CHECK: %{{.*}} = dtf.variable "rn" init(#dtf.random_normal<stddev = 0.01, seed = 3>) : !dtf.resource<tensor<4x4xbf16>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.random_normal<stddev = 0.01, seed = 3>, name = "rn", trainable = true}> : () -> !dtf.resource<tensor<4x4xbf16>>
  %rn = dtf.variable "rn" init(#dtf.random_normal<stddev = 0.01, seed = 3>) : !dtf.resource<tensor<4x4xbf16>>
// CHECK: %{{.*}} = dtf.variable "rn2" init(#dtf.random_normal<mean = -1.0, stddev = 1.0, seed = 0>) : !dtf.resource<tensor<4xf32>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.random_normal<mean = -1.0, stddev = 1.0, seed = 0>, name = "rn2", trainable = true}> : () -> !dtf.resource<tensor<4xf32>>
  %rn2 = dtf.variable "rn2" init(#dtf.random_normal<mean = -1.0, stddev = 1.0, seed = 0>) : !dtf.resource<tensor<4xf32>>
// CHECK: %{{.*}} = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.zeros, name = "global_step", trainable = false}> : () -> !dtf.resource<tensor<i64>>
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// CHECK: %{{.*}} = dtf.variable "explicitly_trainable" init(#dtf.constant<3.0>) : !dtf.resource<tensor<i32>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.constant<3.0>, name = "explicitly_trainable", trainable = true}> : () -> !dtf.resource<tensor<i32>>
  %trainable = dtf.variable "explicitly_trainable" init(#dtf.constant<3.0>) {trainable = true} : !dtf.resource<tensor<i32>>
// CHECK: %[[R:[a-z0-9]+]] = dtf.read %[[TN]] : !dtf.resource<tensor<784x100xf32>>
// GENERIC: "dtf.read"(%{{.*}}) : (!dtf.resource<tensor<784x100xf32>>) -> tensor<784x100xf32>
  %r = dtf.read %tn : !dtf.resource<tensor<784x100xf32>>
// CHECK: dtf.assign %[[TN]], %[[V]] : !dtf.resource<tensor<784x100xf32>>
// GENERIC: "dtf.assign"(%{{.*}}) : (!dtf.resource<tensor<784x100xf32>>, tensor<784x100xf32>) -> ()
  dtf.assign %tn, %v : !dtf.resource<tensor<784x100xf32>>
// CHECK: dtf.assign_add %[[TN]], %[[V]] : !dtf.resource<tensor<784x100xf32>>
// GENERIC: "dtf.assign_add"(%{{.*}}) : (!dtf.resource<tensor<784x100xf32>>, tensor<784x100xf32>) -> ()
  dtf.assign_add %tn, %v : !dtf.resource<tensor<784x100xf32>>
// CHECK: return %[[R]] : tensor<784x100xf32>
  return %r : tensor<784x100xf32>
}

// transpose_a/transpose_b come from attr-dict: the shape function must see
// them while the custom form is parsed.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[A:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME:    %[[B:[a-z0-9]+]]: tensor<3x4xf32>
// CHECK-SAME:    %[[AT:[a-z0-9]+]]: tensor<3x2xf32>
// CHECK-SAME:    %[[BT:[a-z0-9]+]]: tensor<4x3xf32>
// CHECK-SAME:    %[[D:[a-z0-9]+]]: tensor<?x3xf16>
// CHECK-SAME:    %[[E:[a-z0-9]+]]: tensor<3x?xf16>
// GENERIC-LABEL: sym_name = "matmul"
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %at: tensor<3x2xf32>, %bt: tensor<4x3xf32>, %d: tensor<?x3xf16>, %e: tensor<3x?xf16>) {
// CHECK: %{{.*}} = dtf.matmul %[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>
// GENERIC: "dtf.matmul"(%{{.*}}) <{transpose_a = false, transpose_b = false}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %0 = dtf.matmul %a, %b : tensor<2x3xf32>, tensor<3x4xf32>
// CHECK: %{{.*}} = dtf.matmul %[[AT]], %[[B]] {transpose_a = true} : tensor<3x2xf32>, tensor<3x4xf32>
// GENERIC: "dtf.matmul"(%{{.*}}) <{transpose_a = true, transpose_b = false}> : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = dtf.matmul %at, %b {transpose_a = true} : tensor<3x2xf32>, tensor<3x4xf32>
// CHECK: %{{.*}} = dtf.matmul %[[A]], %[[BT]] {transpose_b = true} : tensor<2x3xf32>, tensor<4x3xf32>
// GENERIC: "dtf.matmul"(%{{.*}}) <{transpose_a = false, transpose_b = true}> : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %2 = dtf.matmul %a, %bt {transpose_b = true} : tensor<2x3xf32>, tensor<4x3xf32>
// CHECK: %{{.*}} = dtf.matmul %[[AT]], %[[BT]] {transpose_a = true, transpose_b = true} : tensor<3x2xf32>, tensor<4x3xf32>
// GENERIC: "dtf.matmul"(%{{.*}}) <{transpose_a = true, transpose_b = true}> : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %3 = dtf.matmul %at, %bt {transpose_a = true, transpose_b = true} : tensor<3x2xf32>, tensor<4x3xf32>
// CHECK: %{{.*}} = dtf.matmul %[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>
// GENERIC: "dtf.matmul"(%{{.*}}) <{transpose_a = false, transpose_b = false}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %4 = dtf.matmul %a, %b {transpose_a = false, transpose_b = false} : tensor<2x3xf32>, tensor<3x4xf32>
// CHECK: %{{.*}} = dtf.matmul %[[D]], %[[E]] : tensor<?x3xf16>, tensor<3x?xf16>
// GENERIC: "dtf.matmul"(%{{.*}}) <{transpose_a = false, transpose_b = false}> : (tensor<?x3xf16>, tensor<3x?xf16>) -> tensor<?x?xf16>
  %5 = dtf.matmul %d, %e : tensor<?x3xf16>, tensor<3x?xf16>
// CHECK: return
  return
}

// NumPy broadcasting; dtf.equal gives i1 of the broadcast shape.
// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME:    %[[M:[a-z0-9]+]]: tensor<2x3xf32>
// CHECK-SAME:    %[[ROW:[a-z0-9]+]]: tensor<3xf32>
// CHECK-SAME:    %[[COL:[a-z0-9]+]]: tensor<2x1xf32>
// CHECK-SAME:    %[[S:[a-z0-9]+]]: tensor<f32>
// CHECK-SAME:    %[[T:[a-z0-9]+]]: tensor<4x1x3xf32>
// CHECK-SAME:    %[[I:[a-z0-9]+]]: tensor<5xi32>
// CHECK-SAME:    %[[J:[a-z0-9]+]]: tensor<1xi32>
// CHECK-SAME:    %[[DYN:[a-z0-9]+]]: tensor<?x3xf32>
// GENERIC-LABEL: sym_name = "broadcast"
func.func @broadcast(%m: tensor<2x3xf32>, %row: tensor<3xf32>, %col: tensor<2x1xf32>, %s: tensor<f32>, %t: tensor<4x1x3xf32>, %i: tensor<5xi32>, %j: tensor<1xi32>, %dyn: tensor<?x3xf32>) {
// CHECK: %{{.*}} = dtf.add %[[M]], %[[ROW]] : tensor<2x3xf32>, tensor<3xf32>
// GENERIC: "dtf.add"(%{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = dtf.add %m, %row : tensor<2x3xf32>, tensor<3xf32>
// CHECK: %{{.*}} = dtf.sub %[[COL]], %[[ROW]] : tensor<2x1xf32>, tensor<3xf32>
// GENERIC: "dtf.sub"(%{{.*}}) : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = dtf.sub %col, %row : tensor<2x1xf32>, tensor<3xf32>
// CHECK: %{{.*}} = dtf.mul %[[S]], %[[M]] : tensor<f32>, tensor<2x3xf32>
// GENERIC: "dtf.mul"(%{{.*}}) : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = dtf.mul %s, %m : tensor<f32>, tensor<2x3xf32>
// CHECK: %{{.*}} = dtf.div %[[T]], %[[COL]] : tensor<4x1x3xf32>, tensor<2x1xf32>
// GENERIC: "dtf.div"(%{{.*}}) : (tensor<4x1x3xf32>, tensor<2x1xf32>) -> tensor<4x2x3xf32>
  %3 = dtf.div %t, %col : tensor<4x1x3xf32>, tensor<2x1xf32>
// CHECK: %{{.*}} = dtf.add %[[I]], %[[J]] : tensor<5xi32>, tensor<1xi32>
// GENERIC: "dtf.add"(%{{.*}}) : (tensor<5xi32>, tensor<1xi32>) -> tensor<5xi32>
  %4 = dtf.add %i, %j : tensor<5xi32>, tensor<1xi32>
// CHECK: %{{.*}} = dtf.mul %[[DYN]], %[[ROW]] : tensor<?x3xf32>, tensor<3xf32>
// GENERIC: "dtf.mul"(%{{.*}}) : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %5 = dtf.mul %dyn, %row : tensor<?x3xf32>, tensor<3xf32>
// CHECK: %{{.*}} = dtf.equal %[[M]], %[[ROW]] : tensor<2x3xf32>, tensor<3xf32>
// GENERIC: "dtf.equal"(%{{.*}}) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %6 = dtf.equal %m, %row : tensor<2x3xf32>, tensor<3xf32>
// CHECK: %{{.*}} = dtf.equal %[[I]], %[[J]] : tensor<5xi32>, tensor<1xi32>
// GENERIC: "dtf.equal"(%{{.*}}) : (tensor<5xi32>, tensor<1xi32>) -> tensor<5xi1>
  %7 = dtf.equal %i, %j : tensor<5xi32>, tensor<1xi32>
// CHECK: return
  return
}

// CHECK-LABEL: func.func @bias_add(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<100x28x28x32xf32>
// CHECK-SAME:    %[[B:[a-z0-9]+]]: tensor<32xf32>
// CHECK-SAME:    %[[Y:[a-z0-9]+]]: tensor<?x10xf32>
// CHECK-SAME:    %[[C:[a-z0-9]+]]: tensor<10xf32>
// GENERIC-LABEL: sym_name = "bias_add"
func.func @bias_add(%x: tensor<100x28x28x32xf32>, %b: tensor<32xf32>, %y: tensor<?x10xf32>, %c: tensor<10xf32>) {
// CHECK: %{{.*}} = dtf.bias_add %[[X]], %[[B]] : tensor<100x28x28x32xf32>, tensor<32xf32>
// GENERIC: "dtf.bias_add"(%{{.*}}) : (tensor<100x28x28x32xf32>, tensor<32xf32>) -> tensor<100x28x28x32xf32>
  %0 = dtf.bias_add %x, %b : tensor<100x28x28x32xf32>, tensor<32xf32>
// CHECK: %{{.*}} = dtf.bias_add %[[Y]], %[[C]] : tensor<?x10xf32>, tensor<10xf32>
// GENERIC: "dtf.bias_add"(%{{.*}}) : (tensor<?x10xf32>, tensor<10xf32>) -> tensor<?x10xf32>
  %1 = dtf.bias_add %y, %c : tensor<?x10xf32>, tensor<10xf32>
// CHECK: return
  return
}

// CHECK-LABEL: func.func @unary(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<100x10xf32>
// CHECK-SAME:    %[[I:[a-z0-9]+]]: tensor<3xi64>
// CHECK-SAME:    %[[S:[a-z0-9]+]]: tensor<f32>
// GENERIC-LABEL: sym_name = "unary"
func.func @unary(%x: tensor<100x10xf32>, %i: tensor<3xi64>, %s: tensor<f32>) {
// CHECK: %{{.*}} = dtf.neg %[[X]] : tensor<100x10xf32>
// GENERIC: "dtf.neg"(%{{.*}}) : (tensor<100x10xf32>) -> tensor<100x10xf32>
  %0 = dtf.neg %x : tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.neg %[[I]] : tensor<3xi64>
// GENERIC: "dtf.neg"(%{{.*}}) : (tensor<3xi64>) -> tensor<3xi64>
  %1 = dtf.neg %i : tensor<3xi64>
// CHECK: %{{.*}} = dtf.neg %[[S]] : tensor<f32>
// GENERIC: "dtf.neg"(%{{.*}}) : (tensor<f32>) -> tensor<f32>
  %2 = dtf.neg %s : tensor<f32>
// CHECK: %{{.*}} = dtf.relu %[[X]] : tensor<100x10xf32>
// GENERIC: "dtf.relu"(%{{.*}}) : (tensor<100x10xf32>) -> tensor<100x10xf32>
  %3 = dtf.relu %x : tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.log %[[X]] : tensor<100x10xf32>
// GENERIC: "dtf.log"(%{{.*}}) : (tensor<100x10xf32>) -> tensor<100x10xf32>
  %4 = dtf.log %x : tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.softmax %[[X]] : tensor<100x10xf32>
// GENERIC: "dtf.softmax"(%{{.*}}) : (tensor<100x10xf32>) -> tensor<100x10xf32>
  %5 = dtf.softmax %x : tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.clip_by_value %[[X]], 1.000000e-10, 1.000000e+00 : tensor<100x10xf32>
// GENERIC: "dtf.clip_by_value"(%{{.*}}) <{max = 1.000000e+00 : f64, min = 1.000000e-10 : f64}> : (tensor<100x10xf32>) -> tensor<100x10xf32>
  %6 = dtf.clip_by_value %x, 1.0e-10, 1.0 : tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.clip_by_value %[[X]], -2.500000e+00, -2.500000e+00 : tensor<100x10xf32>
// GENERIC: "dtf.clip_by_value"(%{{.*}}) <{max = -2.500000e+00 : f64, min = -2.500000e+00 : f64}> : (tensor<100x10xf32>) -> tensor<100x10xf32>
  %7 = dtf.clip_by_value %x, -2.5, -2.5 : tensor<100x10xf32>
// CHECK: return
  return
}

// CHECK-LABEL: func.func @softmax_cross_entropy(
// CHECK-SAME:    %[[LOGITS:[a-z0-9]+]]: tensor<100x10xf32>
// CHECK-SAME:    %[[LABELS:[a-z0-9]+]]: tensor<100x10xf32>
// CHECK-SAME:    %[[DL:[a-z0-9]+]]: tensor<?x10xf64>
// CHECK-SAME:    %[[DM:[a-z0-9]+]]: tensor<?x10xf64>
// GENERIC-LABEL: sym_name = "softmax_cross_entropy"
func.func @softmax_cross_entropy(%logits: tensor<100x10xf32>, %labels: tensor<100x10xf32>, %dl: tensor<?x10xf64>, %dm: tensor<?x10xf64>) {
// CHECK: %{{.*}} = dtf.softmax_cross_entropy_with_logits %[[LOGITS]], %[[LABELS]] : tensor<100x10xf32>, tensor<100x10xf32>
// GENERIC: "dtf.softmax_cross_entropy_with_logits"(%{{.*}}) : (tensor<100x10xf32>, tensor<100x10xf32>) -> tensor<100xf32>
  %0 = dtf.softmax_cross_entropy_with_logits %logits, %labels : tensor<100x10xf32>, tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.softmax_cross_entropy_with_logits %[[DL]], %[[DM]] : tensor<?x10xf64>, tensor<?x10xf64>
// GENERIC: "dtf.softmax_cross_entropy_with_logits"(%{{.*}}) : (tensor<?x10xf64>, tensor<?x10xf64>) -> tensor<?xf64>
  %1 = dtf.softmax_cross_entropy_with_logits %dl, %dm : tensor<?x10xf64>, tensor<?x10xf64>
// CHECK: return
  return
}

// CHECK-LABEL: func.func @sparse_softmax_cross_entropy(
// GENERIC-LABEL: sym_name = "sparse_softmax_cross_entropy"
func.func @sparse_softmax_cross_entropy(%logits: tensor<?x10xf32>, %ids: tensor<?xi64>, %ids32: tensor<4xi32>, %l4: tensor<4x10xf32>, %dloss: tensor<4xf32>) {
// CHECK: dtf.sparse_softmax_cross_entropy_with_logits %{{.*}}, %{{.*}} : tensor<?x10xf32>, tensor<?xi64>
// GENERIC: "dtf.sparse_softmax_cross_entropy_with_logits"(%{{.*}}) : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<?xf32>
  %0 = dtf.sparse_softmax_cross_entropy_with_logits %logits, %ids : tensor<?x10xf32>, tensor<?xi64>
// CHECK: dtf.sparse_softmax_cross_entropy_with_logits_grad %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4x10xf32>, tensor<4xi32>
// GENERIC: "dtf.sparse_softmax_cross_entropy_with_logits_grad"(%{{.*}}) : (tensor<4xf32>, tensor<4x10xf32>, tensor<4xi32>) -> tensor<4x10xf32>
  %1 = dtf.sparse_softmax_cross_entropy_with_logits_grad %dloss, %l4, %ids32 : tensor<4xf32>, tensor<4x10xf32>, tensor<4xi32>
  return
}

// All axes when none are given, negative axes counted from the end,
// keep_dims keeping reduced dimensions as 1.
// CHECK-LABEL: func.func @reductions(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x3x4xf32>
// CHECK-SAME:    %[[I:[a-z0-9]+]]: tensor<5xi32>
// GENERIC-LABEL: sym_name = "reductions"
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<5xi32>) {
// CHECK: %{{.*}} = dtf.reduce_sum %[[X]] : tensor<2x3x4xf32>
// GENERIC: "dtf.reduce_sum"(%{{.*}}) <{axes = array<i64>, keep_dims = false}> : (tensor<2x3x4xf32>) -> tensor<f32>
  %0 = dtf.reduce_sum %x : tensor<2x3x4xf32>
// CHECK: %{{.*}} = dtf.reduce_sum %[[X]] {axes = array<i64: 1>} : tensor<2x3x4xf32>
// GENERIC: "dtf.reduce_sum"(%{{.*}}) <{axes = array<i64: 1>, keep_dims = false}> : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %1 = dtf.reduce_sum %x {axes = array<i64: 1>} : tensor<2x3x4xf32>
// CHECK: %{{.*}} = dtf.reduce_sum %[[X]] {axes = array<i64: 0, 2>, keep_dims = true} : tensor<2x3x4xf32>
// GENERIC: "dtf.reduce_sum"(%{{.*}}) <{axes = array<i64: 0, 2>, keep_dims = true}> : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %2 = dtf.reduce_sum %x {axes = array<i64: 0, 2>, keep_dims = true} : tensor<2x3x4xf32>
// CHECK: %{{.*}} = dtf.reduce_sum %[[X]] {axes = array<i64: -1>} : tensor<2x3x4xf32>
// GENERIC: "dtf.reduce_sum"(%{{.*}}) <{axes = array<i64: -1>, keep_dims = false}> : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %3 = dtf.reduce_sum %x {axes = array<i64: -1>} : tensor<2x3x4xf32>
// CHECK: %{{.*}} = dtf.reduce_sum %[[X]] {keep_dims = true} : tensor<2x3x4xf32>
// GENERIC: "dtf.reduce_sum"(%{{.*}}) <{axes = array<i64>, keep_dims = true}> : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  %4 = dtf.reduce_sum %x {keep_dims = true} : tensor<2x3x4xf32>
// CHECK: %{{.*}} = dtf.reduce_mean %[[X]] : tensor<2x3x4xf32>
// GENERIC: "dtf.reduce_mean"(%{{.*}}) <{axes = array<i64>, keep_dims = false}> : (tensor<2x3x4xf32>) -> tensor<f32>
  %5 = dtf.reduce_mean %x : tensor<2x3x4xf32>
// CHECK: %{{.*}} = dtf.reduce_mean %[[X]] {axes = array<i64: -3, 1>} : tensor<2x3x4xf32>
// GENERIC: "dtf.reduce_mean"(%{{.*}}) <{axes = array<i64: -3, 1>, keep_dims = false}> : (tensor<2x3x4xf32>) -> tensor<4xf32>
  %6 = dtf.reduce_mean %x {axes = array<i64: -3, 1>} : tensor<2x3x4xf32>
// CHECK: %{{.*}} = dtf.reduce_mean %[[X]] {axes = array<i64: -2>, keep_dims = true} : tensor<2x3x4xf32>
// GENERIC: "dtf.reduce_mean"(%{{.*}}) <{axes = array<i64: -2>, keep_dims = true}> : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %7 = dtf.reduce_mean %x {axes = array<i64: -2>, keep_dims = true} : tensor<2x3x4xf32>
// CHECK: %{{.*}} = dtf.reduce_sum %[[I]] {axes = array<i64: 0>} : tensor<5xi32>
// GENERIC: "dtf.reduce_sum"(%{{.*}}) <{axes = array<i64: 0>, keep_dims = false}> : (tensor<5xi32>) -> tensor<i32>
  %8 = dtf.reduce_sum %i {axes = array<i64: 0>, keep_dims = false} : tensor<5xi32>
// CHECK: return
  return
}

// CHECK-LABEL: func.func @shapes(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<100x784xf32>
// CHECK-SAME:    %[[Y:[a-z0-9]+]]: tensor<100x10xf32>
// CHECK-SAME:    %[[B:[a-z0-9]+]]: tensor<100xi1>
// CHECK-SAME:    %[[Z:[a-z0-9]+]]: tensor<2x3x4xi32>
// GENERIC-LABEL: sym_name = "shapes"
func.func @shapes(%x: tensor<100x784xf32>, %y: tensor<100x10xf32>, %b: tensor<100xi1>, %z: tensor<2x3x4xi32>) {
// CHECK: %{{.*}} = dtf.reshape %[[X]] : tensor<100x784xf32> -> tensor<100x28x28x1xf32>
// GENERIC: "dtf.reshape"(%{{.*}}) : (tensor<100x784xf32>) -> tensor<100x28x28x1xf32>
  %0 = dtf.reshape %x : tensor<100x784xf32> -> tensor<100x28x28x1xf32>
// CHECK: %{{.*}} = dtf.reshape %[[X]] : tensor<100x784xf32> -> tensor<?x784xf32>
// GENERIC: "dtf.reshape"(%{{.*}}) : (tensor<100x784xf32>) -> tensor<?x784xf32>
  %1 = dtf.reshape %x : tensor<100x784xf32> -> tensor<?x784xf32>
// CHECK: %{{.*}} = dtf.argmax %[[Y]], 1 : tensor<100x10xf32>
// GENERIC: "dtf.argmax"(%{{.*}}) <{axis = 1 : i64}> : (tensor<100x10xf32>) -> tensor<100xi64>
  %2 = dtf.argmax %y, 1 : tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.argmax %[[Y]], -2 : tensor<100x10xf32>
// GENERIC: "dtf.argmax"(%{{.*}}) <{axis = -2 : i64}> : (tensor<100x10xf32>) -> tensor<10xi64>
  %3 = dtf.argmax %y, -2 : tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.argmax %[[Z]], 1 : tensor<2x3x4xi32>
// GENERIC: "dtf.argmax"(%{{.*}}) <{axis = 1 : i64}> : (tensor<2x3x4xi32>) -> tensor<2x4xi64>
  %4 = dtf.argmax %z, 1 : tensor<2x3x4xi32>
// CHECK: %{{.*}} = dtf.cast %[[B]] : tensor<100xi1> to tensor<100xf32>
// GENERIC: "dtf.cast"(%{{.*}}) : (tensor<100xi1>) -> tensor<100xf32>
  %5 = dtf.cast %b : tensor<100xi1> to tensor<100xf32>
// CHECK: %{{.*}} = dtf.cast %[[X]] : tensor<100x784xf32> to tensor<?x784xf16>
// GENERIC: "dtf.cast"(%{{.*}}) : (tensor<100x784xf32>) -> tensor<?x784xf16>
  %6 = dtf.cast %x : tensor<100x784xf32> to tensor<?x784xf16>
// CHECK: return
  return
}

// SAME: ceil(in / stride); VALID: ceil((in - k + 1) / stride). A dynamic
// window gives a dynamic VALID size, not an overflowed one.
// CHECK-LABEL: func.func @conv2d(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<100x28x28x1xf32>
// CHECK-SAME:    %[[F:[a-z0-9]+]]: tensor<5x5x1x32xf32>
// CHECK-SAME:    %[[G:[a-z0-9]+]]: tensor<?x5x1x32xf32>
// CHECK-SAME:    %[[D:[a-z0-9]+]]: tensor<?x28x?x1xf32>
// GENERIC-LABEL: sym_name = "conv2d"
func.func @conv2d(%x: tensor<100x28x28x1xf32>, %f: tensor<5x5x1x32xf32>, %g: tensor<?x5x1x32xf32>, %d: tensor<?x28x?x1xf32>) {
// CHECK: %{{.*}} = dtf.conv2d %[[X]], %[[F]] strides [1, 1, 1, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// GENERIC: "dtf.conv2d"(%{{.*}}) <{padding = #dtf<padding SAME>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>) -> tensor<100x28x28x32xf32>
  %0 = dtf.conv2d %x, %f strides [1, 1, 1, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// CHECK: %{{.*}} = dtf.conv2d %[[X]], %[[F]] strides [1, 1, 1, 1] padding VALID : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// GENERIC: "dtf.conv2d"(%{{.*}}) <{padding = #dtf<padding VALID>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>) -> tensor<100x24x24x32xf32>
  %1 = dtf.conv2d %x, %f strides [1, 1, 1, 1] padding VALID : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// CHECK: %{{.*}} = dtf.conv2d %[[X]], %[[F]] strides [1, 2, 2, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// GENERIC: "dtf.conv2d"(%{{.*}}) <{padding = #dtf<padding SAME>, strides = array<i64: 1, 2, 2, 1>}> : (tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>) -> tensor<100x14x14x32xf32>
  %2 = dtf.conv2d %x, %f strides [1, 2, 2, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// CHECK: %{{.*}} = dtf.conv2d %[[X]], %[[F]] strides [1, 3, 2, 1] padding VALID : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// GENERIC: "dtf.conv2d"(%{{.*}}) <{padding = #dtf<padding VALID>, strides = array<i64: 1, 3, 2, 1>}> : (tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>) -> tensor<100x8x12x32xf32>
  %3 = dtf.conv2d %x, %f strides [1, 3, 2, 1] padding VALID : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// CHECK: %{{.*}} = dtf.conv2d %[[X]], %[[G]] strides [1, 1, 1, 1] padding VALID : tensor<100x28x28x1xf32>, tensor<?x5x1x32xf32>
// GENERIC: "dtf.conv2d"(%{{.*}}) <{padding = #dtf<padding VALID>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<100x28x28x1xf32>, tensor<?x5x1x32xf32>) -> tensor<100x?x24x32xf32>
  %4 = dtf.conv2d %x, %g strides [1, 1, 1, 1] padding VALID : tensor<100x28x28x1xf32>, tensor<?x5x1x32xf32>
// CHECK: %{{.*}} = dtf.conv2d %[[X]], %[[G]] strides [1, 2, 2, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<?x5x1x32xf32>
// GENERIC: "dtf.conv2d"(%{{.*}}) <{padding = #dtf<padding SAME>, strides = array<i64: 1, 2, 2, 1>}> : (tensor<100x28x28x1xf32>, tensor<?x5x1x32xf32>) -> tensor<100x14x14x32xf32>
  %5 = dtf.conv2d %x, %g strides [1, 2, 2, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<?x5x1x32xf32>
// CHECK: %{{.*}} = dtf.conv2d %[[D]], %[[F]] strides [1, 1, 1, 1] padding VALID : tensor<?x28x?x1xf32>, tensor<5x5x1x32xf32>
// GENERIC: "dtf.conv2d"(%{{.*}}) <{padding = #dtf<padding VALID>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<?x28x?x1xf32>, tensor<5x5x1x32xf32>) -> tensor<?x24x?x32xf32>
  %6 = dtf.conv2d %d, %f strides [1, 1, 1, 1] padding VALID : tensor<?x28x?x1xf32>, tensor<5x5x1x32xf32>
// CHECK: return
  return
}

// Dilated: a k-tap filter spans (k - 1) * dilation + 1 cells, here 9x13
// for VALID; SAME keeps the input's size. Absent dilations are all 1 and
// not printed (above); explicit ones round-trip. The gradients carry them.
// CHECK-LABEL: func.func @conv2d_dilated(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<100x28x28x1xf32>
// CHECK-SAME:    %[[F:[a-z0-9]+]]: tensor<5x5x1x32xf32>
// CHECK-SAME:    %[[G:[a-z0-9]+]]: tensor<?x5x1x32xf32>
// CHECK-SAME:    %[[DY:[a-z0-9]+]]: tensor<100x20x16x32xf32>
// GENERIC-LABEL: sym_name = "conv2d_dilated"
func.func @conv2d_dilated(%x: tensor<100x28x28x1xf32>, %f: tensor<5x5x1x32xf32>, %g: tensor<?x5x1x32xf32>, %dy: tensor<100x20x16x32xf32>) {
// CHECK: %{{.*}} = dtf.conv2d %[[X]], %[[F]] strides [1, 1, 1, 1] dilations [1, 2, 3, 1] padding VALID : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// GENERIC: "dtf.conv2d"(%{{.*}}) <{dilations = array<i64: 1, 2, 3, 1>, padding = #dtf<padding VALID>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>) -> tensor<100x20x16x32xf32>
  %0 = dtf.conv2d %x, %f strides [1, 1, 1, 1] dilations [1, 2, 3, 1] padding VALID : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// CHECK: %{{.*}} = dtf.conv2d %[[X]], %[[F]] strides [1, 1, 1, 1] dilations [1, 2, 2, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// GENERIC: "dtf.conv2d"(%{{.*}}) <{dilations = array<i64: 1, 2, 2, 1>, padding = #dtf<padding SAME>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>) -> tensor<100x28x28x32xf32>
  %1 = dtf.conv2d %x, %f strides [1, 1, 1, 1] dilations [1, 2, 2, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// CHECK: %{{.*}} = dtf.conv2d %[[X]], %[[G]] strides [1, 1, 1, 1] dilations [1, 2, 3, 1] padding VALID : tensor<100x28x28x1xf32>, tensor<?x5x1x32xf32>
// GENERIC: "dtf.conv2d"(%{{.*}}) <{dilations = array<i64: 1, 2, 3, 1>, padding = #dtf<padding VALID>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<100x28x28x1xf32>, tensor<?x5x1x32xf32>) -> tensor<100x?x16x32xf32>
  %2 = dtf.conv2d %x, %g strides [1, 1, 1, 1] dilations [1, 2, 3, 1] padding VALID : tensor<100x28x28x1xf32>, tensor<?x5x1x32xf32>
// CHECK: %{{.*}} = dtf.conv2d %[[X]], %[[F]] strides [1, 2, 2, 1] dilations [1, 1, 1, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// GENERIC: "dtf.conv2d"(%{{.*}}) <{dilations = array<i64: 1, 1, 1, 1>, padding = #dtf<padding SAME>, strides = array<i64: 1, 2, 2, 1>}> : (tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>) -> tensor<100x14x14x32xf32>
  %3 = dtf.conv2d %x, %f strides [1, 2, 2, 1] dilations [1, 1, 1, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<5x5x1x32xf32>
// CHECK: %{{.*}} = dtf.conv2d_backprop_input %[[F]], %[[DY]] strides [1, 1, 1, 1] dilations [1, 2, 3, 1] padding VALID : tensor<5x5x1x32xf32>, tensor<100x20x16x32xf32> -> tensor<100x28x28x1xf32>
// GENERIC: "dtf.conv2d_backprop_input"(%{{.*}}) <{dilations = array<i64: 1, 2, 3, 1>, padding = #dtf<padding VALID>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<5x5x1x32xf32>, tensor<100x20x16x32xf32>) -> tensor<100x28x28x1xf32>
  %4 = dtf.conv2d_backprop_input %f, %dy strides [1, 1, 1, 1] dilations [1, 2, 3, 1] padding VALID : tensor<5x5x1x32xf32>, tensor<100x20x16x32xf32> -> tensor<100x28x28x1xf32>
// CHECK: %{{.*}} = dtf.conv2d_backprop_filter %[[X]], %[[DY]] strides [1, 1, 1, 1] dilations [1, 2, 3, 1] padding VALID : tensor<100x28x28x1xf32>, tensor<100x20x16x32xf32> -> tensor<5x5x1x32xf32>
// GENERIC: "dtf.conv2d_backprop_filter"(%{{.*}}) <{dilations = array<i64: 1, 2, 3, 1>, padding = #dtf<padding VALID>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<100x28x28x1xf32>, tensor<100x20x16x32xf32>) -> tensor<5x5x1x32xf32>
  %5 = dtf.conv2d_backprop_filter %x, %dy strides [1, 1, 1, 1] dilations [1, 2, 3, 1] padding VALID : tensor<100x28x28x1xf32>, tensor<100x20x16x32xf32> -> tensor<5x5x1x32xf32>
// CHECK: return
  return
}

// With SAME padding an empty dimension stays empty.
// CHECK-LABEL: func.func @max_pool(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<100x28x28x32xf32>
// CHECK-SAME:    %[[O:[a-z0-9]+]]: tensor<1x7x7x3xf32>
// CHECK-SAME:    %[[E:[a-z0-9]+]]: tensor<1x0x4x3xf32>
// GENERIC-LABEL: sym_name = "max_pool"
func.func @max_pool(%x: tensor<100x28x28x32xf32>, %o: tensor<1x7x7x3xf32>, %e: tensor<1x0x4x3xf32>) {
// CHECK: %{{.*}} = dtf.max_pool %[[X]] ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<100x28x28x32xf32>
// GENERIC: "dtf.max_pool"(%{{.*}}) <{ksize = array<i64: 1, 2, 2, 1>, padding = #dtf<padding SAME>, strides = array<i64: 1, 2, 2, 1>}> : (tensor<100x28x28x32xf32>) -> tensor<100x14x14x32xf32>
  %0 = dtf.max_pool %x ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<100x28x28x32xf32>
// CHECK: %{{.*}} = dtf.max_pool %[[O]] ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<1x7x7x3xf32>
// GENERIC: "dtf.max_pool"(%{{.*}}) <{ksize = array<i64: 1, 2, 2, 1>, padding = #dtf<padding SAME>, strides = array<i64: 1, 2, 2, 1>}> : (tensor<1x7x7x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = dtf.max_pool %o ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<1x7x7x3xf32>
// CHECK: %{{.*}} = dtf.max_pool %[[O]] ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding VALID : tensor<1x7x7x3xf32>
// GENERIC: "dtf.max_pool"(%{{.*}}) <{ksize = array<i64: 1, 2, 2, 1>, padding = #dtf<padding VALID>, strides = array<i64: 1, 2, 2, 1>}> : (tensor<1x7x7x3xf32>) -> tensor<1x3x3x3xf32>
  %2 = dtf.max_pool %o ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding VALID : tensor<1x7x7x3xf32>
// CHECK: %{{.*}} = dtf.max_pool %[[O]] ksize [1, 3, 1, 1] strides [1, 1, 1, 1] padding VALID : tensor<1x7x7x3xf32>
// GENERIC: "dtf.max_pool"(%{{.*}}) <{ksize = array<i64: 1, 3, 1, 1>, padding = #dtf<padding VALID>, strides = array<i64: 1, 1, 1, 1>}> : (tensor<1x7x7x3xf32>) -> tensor<1x5x7x3xf32>
  %3 = dtf.max_pool %o ksize [1, 3, 1, 1] strides [1, 1, 1, 1] padding VALID : tensor<1x7x7x3xf32>
// CHECK: %{{.*}} = dtf.max_pool %[[E]] ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<1x0x4x3xf32>
// GENERIC: "dtf.max_pool"(%{{.*}}) <{ksize = array<i64: 1, 2, 2, 1>, padding = #dtf<padding SAME>, strides = array<i64: 1, 2, 2, 1>}> : (tensor<1x0x4x3xf32>) -> tensor<1x0x2x3xf32>
  %4 = dtf.max_pool %e ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<1x0x4x3xf32>
// CHECK: return
  return
}

// Each optimizer, with and without a global step; defaults are elided.
// CHECK-LABEL: func.func @minimize(
// CHECK-SAME:    %[[LOSS:[a-z0-9]+]]: tensor<f32>
// GENERIC-LABEL: sym_name = "minimize"
func.func @minimize(%loss: tensor<f32>) {
// CHECK: %[[STEP:[a-z0-9]+]] = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.zeros, name = "global_step", trainable = false}> : () -> !dtf.resource<tensor<i64>>
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// CHECK: %[[STEP32:[a-z0-9]+]] = dtf.variable "step32" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i32>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.zeros, name = "step32", trainable = false}> : () -> !dtf.resource<tensor<i32>>
  %step32 = dtf.variable "step32" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i32>>
// CHECK: dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
// GENERIC: "dtf.minimize"(%{{.*}}) <{optimizer = #dtf.sgd<learning_rate = 0.5>}> : (tensor<f32>) -> ()
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
// CHECK: dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.sgd<learning_rate = 0.5> global_step %[[STEP]] : !dtf.resource<tensor<i64>>
// GENERIC: "dtf.minimize"(%{{.*}}) <{optimizer = #dtf.sgd<learning_rate = 0.5>}> : (tensor<f32>, !dtf.resource<tensor<i64>>) -> ()
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5> global_step %step : !dtf.resource<tensor<i64>>
// CHECK: dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.momentum<learning_rate = 0.01, momentum = 0.9>
// GENERIC: "dtf.minimize"(%{{.*}}) <{optimizer = #dtf.momentum<learning_rate = 0.01, momentum = 0.9>}> : (tensor<f32>) -> ()
  dtf.minimize %loss : tensor<f32>, #dtf.momentum<learning_rate = 0.01, momentum = 0.9>
// CHECK: dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.momentum<learning_rate = 0.01, momentum = 0.9, use_nesterov = true> global_step %[[STEP32]] : !dtf.resource<tensor<i32>>
// GENERIC: "dtf.minimize"(%{{.*}}) <{optimizer = #dtf.momentum<learning_rate = 0.01, momentum = 0.9, use_nesterov = true>}> : (tensor<f32>, !dtf.resource<tensor<i32>>) -> ()
  dtf.minimize %loss : tensor<f32>, #dtf.momentum<learning_rate = 0.01, momentum = 0.9, use_nesterov = true> global_step %step32 : !dtf.resource<tensor<i32>>
// CHECK: dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.adam<>
// GENERIC: "dtf.minimize"(%{{.*}}) <{optimizer = #dtf.adam<>}> : (tensor<f32>) -> ()
  dtf.minimize %loss : tensor<f32>, #dtf.adam<>
// CHECK: dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.adam<learning_rate = 0.01> global_step %[[STEP]] : !dtf.resource<tensor<i64>>
// GENERIC: "dtf.minimize"(%{{.*}}) <{optimizer = #dtf.adam<learning_rate = 0.01>}> : (tensor<f32>, !dtf.resource<tensor<i64>>) -> ()
  dtf.minimize %loss : tensor<f32>, #dtf.adam<learning_rate = 0.01> global_step %step : !dtf.resource<tensor<i64>>
// CHECK: dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.adam<learning_rate = 0.002, beta1 = 0.8, beta2 = 0.99, epsilon = 1.0e-07>
// GENERIC: "dtf.minimize"(%{{.*}}) <{optimizer = #dtf.adam<learning_rate = 0.002, beta1 = 0.8, beta2 = 0.99, epsilon = 1.0e-07>}> : (tensor<f32>) -> ()
  dtf.minimize %loss : tensor<f32>, #dtf.adam<learning_rate = 0.002, beta1 = 0.8, beta2 = 0.99, epsilon = 1.0e-07>
// CHECK: return
  return
}

// CHECK-LABEL: func.func @apply_gradients(
// CHECK-SAME:    %[[DW:[a-z0-9]+]]: tensor<4x2xf32>
// CHECK-SAME:    %[[DB:[a-z0-9]+]]: tensor<2xf32>
// GENERIC-LABEL: sym_name = "apply_gradients"
func.func @apply_gradients(%dw: tensor<4x2xf32>, %db: tensor<2xf32>) {
// CHECK: %[[STEP:[a-z0-9]+]] = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.zeros, name = "global_step", trainable = false}> : () -> !dtf.resource<tensor<i64>>
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
// CHECK: %[[W:[a-z0-9]+]] = dtf.variable "w" init(#dtf.truncated_normal<stddev = 0.1, seed = 1>) : !dtf.resource<tensor<4x2xf32>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.truncated_normal<stddev = 0.1, seed = 1>, name = "w", trainable = true}> : () -> !dtf.resource<tensor<4x2xf32>>
  %w = dtf.variable "w" init(#dtf.truncated_normal<stddev = 0.1, seed = 1>) : !dtf.resource<tensor<4x2xf32>>
// CHECK: %[[B:[a-z0-9]+]] = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.zeros, name = "b", trainable = true}> : () -> !dtf.resource<tensor<2xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
// CHECK: dtf.apply_gradients #dtf.sgd<learning_rate = 0.5>(%[[W]], %[[B]] : !dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<2xf32>>) grads(%[[DW]], %[[DB]] : tensor<4x2xf32>, tensor<2xf32>)
// GENERIC: "dtf.apply_gradients"(%{{.*}}) <{operandSegmentSizes = array<i32: 2, 2, 0, 0, 0, 0>, optimizer = #dtf.sgd<learning_rate = 0.5>}> : (!dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<2xf32>>, tensor<4x2xf32>, tensor<2xf32>) -> ()
  dtf.apply_gradients #dtf.sgd<learning_rate = 0.5> (%w, %b : !dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<2xf32>>) grads(%dw, %db : tensor<4x2xf32>, tensor<2xf32>)
// CHECK: dtf.apply_gradients #dtf.adam<learning_rate = 0.01>(%[[W]] : !dtf.resource<tensor<4x2xf32>>) grads(%[[DW]] : tensor<4x2xf32>) global_step %[[STEP]] : !dtf.resource<tensor<i64>>
// GENERIC: "dtf.apply_gradients"(%{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 1>, optimizer = #dtf.adam<learning_rate = 0.01>}> : (!dtf.resource<tensor<4x2xf32>>, tensor<4x2xf32>, !dtf.resource<tensor<i64>>) -> ()
  dtf.apply_gradients #dtf.adam<learning_rate = 0.01> (%w : !dtf.resource<tensor<4x2xf32>>) grads(%dw : tensor<4x2xf32>) global_step %step : !dtf.resource<tensor<i64>>
// CHECK: return
  return
}

// The ops of the backward pass.
// CHECK-LABEL: func.func @gradients(
// CHECK-SAME:    %[[DY:[a-z0-9]+]]: tensor<100x10xf32>
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<100x10xf32>
// CHECK-SAME:    %[[DL:[a-z0-9]+]]: tensor<100xf32>
// CHECK-SAME:    %[[IMG:[a-z0-9]+]]: tensor<100x28x28x1xf32>
// CHECK-SAME:    %[[F:[a-z0-9]+]]: tensor<5x5x1x32xf32>
// CHECK-SAME:    %[[DC:[a-z0-9]+]]: tensor<100x14x14x32xf32>
// CHECK-SAME:    %[[P:[a-z0-9]+]]: tensor<100x28x28x32xf32>
// CHECK-SAME:    %[[PO:[a-z0-9]+]]: tensor<100x14x14x32xf32>
// CHECK-SAME:    %[[B:[a-z0-9]+]]: tensor<10xf32>
// CHECK-SAME:    %[[D4:[a-z0-9]+]]: tensor<2x3x4x5xf32>
// GENERIC-LABEL: sym_name = "gradients"
func.func @gradients(%dy: tensor<100x10xf32>, %x: tensor<100x10xf32>, %dl: tensor<100xf32>, %img: tensor<100x28x28x1xf32>, %f: tensor<5x5x1x32xf32>, %dc: tensor<100x14x14x32xf32>, %p: tensor<100x28x28x32xf32>, %po: tensor<100x14x14x32xf32>, %b: tensor<10xf32>, %d4: tensor<2x3x4x5xf32>) {
// CHECK: %{{.*}} = dtf.relu_grad %[[DY]], %[[X]] : tensor<100x10xf32>
// GENERIC: "dtf.relu_grad"(%{{.*}}) : (tensor<100x10xf32>, tensor<100x10xf32>) -> tensor<100x10xf32>
  %0 = dtf.relu_grad %dy, %x : tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.softmax_grad %[[DY]], %[[X]] : tensor<100x10xf32>
// GENERIC: "dtf.softmax_grad"(%{{.*}}) : (tensor<100x10xf32>, tensor<100x10xf32>) -> tensor<100x10xf32>
  %1 = dtf.softmax_grad %dy, %x : tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.clip_by_value_grad %[[DY]], %[[X]], 1.000000e-10, 1.000000e+00 : tensor<100x10xf32>
// GENERIC: "dtf.clip_by_value_grad"(%{{.*}}) <{max = 1.000000e+00 : f64, min = 1.000000e-10 : f64}> : (tensor<100x10xf32>, tensor<100x10xf32>) -> tensor<100x10xf32>
  %2 = dtf.clip_by_value_grad %dy, %x, 1.0e-10, 1.0 : tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.softmax_cross_entropy_with_logits_grad %[[DL]], %[[X]], %[[DY]] : tensor<100xf32>, tensor<100x10xf32>, tensor<100x10xf32>
// GENERIC: "dtf.softmax_cross_entropy_with_logits_grad"(%{{.*}}) : (tensor<100xf32>, tensor<100x10xf32>, tensor<100x10xf32>) -> tensor<100x10xf32>
  %3 = dtf.softmax_cross_entropy_with_logits_grad %dl, %x, %dy : tensor<100xf32>, tensor<100x10xf32>, tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.bias_add_grad %[[DY]] : tensor<100x10xf32>
// GENERIC: "dtf.bias_add_grad"(%{{.*}}) : (tensor<100x10xf32>) -> tensor<10xf32>
  %4 = dtf.bias_add_grad %dy : tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.bias_add_grad %[[D4]] : tensor<2x3x4x5xf32>
// GENERIC: "dtf.bias_add_grad"(%{{.*}}) : (tensor<2x3x4x5xf32>) -> tensor<5xf32>
  %5 = dtf.bias_add_grad %d4 : tensor<2x3x4x5xf32>
// CHECK: %{{.*}} = dtf.broadcast_to %[[B]] : tensor<10xf32> -> tensor<100x10xf32>
// GENERIC: "dtf.broadcast_to"(%{{.*}}) : (tensor<10xf32>) -> tensor<100x10xf32>
  %6 = dtf.broadcast_to %b : tensor<10xf32> -> tensor<100x10xf32>
// CHECK: %{{.*}} = dtf.broadcast_to %[[DL]] : tensor<100xf32> -> tensor<100xf32>
// GENERIC: "dtf.broadcast_to"(%{{.*}}) : (tensor<100xf32>) -> tensor<100xf32>
  %7 = dtf.broadcast_to %dl : tensor<100xf32> -> tensor<100xf32>
// CHECK: %{{.*}} = dtf.conv2d_backprop_input %[[F]], %[[DC]] strides [1, 2, 2, 1] padding SAME : tensor<5x5x1x32xf32>, tensor<100x14x14x32xf32> -> tensor<100x28x28x1xf32>
// GENERIC: "dtf.conv2d_backprop_input"(%{{.*}}) <{padding = #dtf<padding SAME>, strides = array<i64: 1, 2, 2, 1>}> : (tensor<5x5x1x32xf32>, tensor<100x14x14x32xf32>) -> tensor<100x28x28x1xf32>
  %8 = dtf.conv2d_backprop_input %f, %dc strides [1, 2, 2, 1] padding SAME : tensor<5x5x1x32xf32>, tensor<100x14x14x32xf32> -> tensor<100x28x28x1xf32>
// CHECK: %{{.*}} = dtf.conv2d_backprop_filter %[[IMG]], %[[DC]] strides [1, 2, 2, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<100x14x14x32xf32> -> tensor<5x5x1x32xf32>
// GENERIC: "dtf.conv2d_backprop_filter"(%{{.*}}) <{padding = #dtf<padding SAME>, strides = array<i64: 1, 2, 2, 1>}> : (tensor<100x28x28x1xf32>, tensor<100x14x14x32xf32>) -> tensor<5x5x1x32xf32>
  %9 = dtf.conv2d_backprop_filter %img, %dc strides [1, 2, 2, 1] padding SAME : tensor<100x28x28x1xf32>, tensor<100x14x14x32xf32> -> tensor<5x5x1x32xf32>
// CHECK: %{{.*}} = dtf.max_pool_grad %[[P]], %[[PO]], %[[DC]] ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding VALID : tensor<100x28x28x32xf32>, tensor<100x14x14x32xf32>
// GENERIC: "dtf.max_pool_grad"(%{{.*}}) <{ksize = array<i64: 1, 2, 2, 1>, padding = #dtf<padding VALID>, strides = array<i64: 1, 2, 2, 1>}> : (tensor<100x28x28x32xf32>, tensor<100x14x14x32xf32>, tensor<100x14x14x32xf32>) -> tensor<100x28x28x32xf32>
  %10 = dtf.max_pool_grad %p, %po, %dc ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding VALID : tensor<100x28x28x32xf32>, tensor<100x14x14x32xf32>
// CHECK: return
  return
}

// The fused optimizer updates.
// CHECK-LABEL: func.func @optimizer_updates(
// CHECK-SAME:    %[[G:[a-z0-9]+]]: tensor<4x2xf32>
// CHECK-SAME:    %[[B1P:[a-z0-9]+]]: tensor<f32>
// CHECK-SAME:    %[[B2P:[a-z0-9]+]]: tensor<f32>
// GENERIC-LABEL: sym_name = "optimizer_updates"
func.func @optimizer_updates(%g: tensor<4x2xf32>, %b1p: tensor<f32>, %b2p: tensor<f32>) {
// CHECK: %[[W:[a-z0-9]+]] = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.zeros, name = "w", trainable = true}> : () -> !dtf.resource<tensor<4x2xf32>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
// CHECK: %[[ACCUM:[a-z0-9]+]] = dtf.variable "w/Momentum" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<4x2xf32>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.zeros, name = "w/Momentum", trainable = false}> : () -> !dtf.resource<tensor<4x2xf32>>
  %accum = dtf.variable "w/Momentum" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<4x2xf32>>
// CHECK: %[[M:[a-z0-9]+]] = dtf.variable "w/Adam" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<4x2xf32>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.zeros, name = "w/Adam", trainable = false}> : () -> !dtf.resource<tensor<4x2xf32>>
  %m = dtf.variable "w/Adam" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<4x2xf32>>
// CHECK: %[[V:[a-z0-9]+]] = dtf.variable "w/Adam_1" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<4x2xf32>>
// GENERIC: "dtf.variable"() <{initializer = #dtf.zeros, name = "w/Adam_1", trainable = false}> : () -> !dtf.resource<tensor<4x2xf32>>
  %v = dtf.variable "w/Adam_1" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<4x2xf32>>
// CHECK: dtf.apply_gradient_descent %[[W]], %[[G]] learning_rate 5.000000e-01 : !dtf.resource<tensor<4x2xf32>>
// GENERIC: "dtf.apply_gradient_descent"(%{{.*}}) <{learning_rate = 5.000000e-01 : f64}> : (!dtf.resource<tensor<4x2xf32>>, tensor<4x2xf32>) -> ()
  dtf.apply_gradient_descent %w, %g learning_rate 5.000000e-01 : !dtf.resource<tensor<4x2xf32>>
// CHECK: dtf.apply_momentum %[[W]], %[[ACCUM]], %[[G]] learning_rate 1.000000e-02 momentum 9.000000e-01 : !dtf.resource<tensor<4x2xf32>>
// GENERIC: "dtf.apply_momentum"(%{{.*}}) <{learning_rate = 1.000000e-02 : f64, momentum = 9.000000e-01 : f64, use_nesterov = false}> : (!dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<4x2xf32>>, tensor<4x2xf32>) -> ()
  dtf.apply_momentum %w, %accum, %g learning_rate 0.01 momentum 0.9 : !dtf.resource<tensor<4x2xf32>>
// CHECK: dtf.apply_momentum %[[W]], %[[ACCUM]], %[[G]] learning_rate 1.000000e-02 momentum 9.000000e-01 {use_nesterov = true} : !dtf.resource<tensor<4x2xf32>>
// GENERIC: "dtf.apply_momentum"(%{{.*}}) <{learning_rate = 1.000000e-02 : f64, momentum = 9.000000e-01 : f64, use_nesterov = true}> : (!dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<4x2xf32>>, tensor<4x2xf32>) -> ()
  dtf.apply_momentum %w, %accum, %g learning_rate 0.01 momentum 0.9 {use_nesterov = true} : !dtf.resource<tensor<4x2xf32>>
// CHECK: dtf.apply_adam %[[W]], %[[M]], %[[V]], %[[B1P]], %[[B2P]], %[[G]] learning_rate 1.000000e-03 beta1 9.000000e-01 beta2 0.99899999999999999 epsilon 1.000000e-08 : !dtf.resource<tensor<4x2xf32>>, tensor<f32>
// GENERIC: "dtf.apply_adam"(%{{.*}}) <{beta1 = 9.000000e-01 : f64, beta2 = 0.99899999999999999 : f64, epsilon = 1.000000e-08 : f64, learning_rate = 1.000000e-03 : f64}> : (!dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<4x2xf32>>, tensor<f32>, tensor<f32>, tensor<4x2xf32>) -> ()
  dtf.apply_adam %w, %m, %v, %b1p, %b2p, %g learning_rate 0.001 beta1 0.9 beta2 0.999 epsilon 1.0e-08 : !dtf.resource<tensor<4x2xf32>>, tensor<f32>
// CHECK: return
  return
}
