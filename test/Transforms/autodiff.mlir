// RUN: dtf-opt --dtf-autodiff %s | FileCheck %s

// One function per differentiable op: the loss reaches a trainable variable
// through that op, and the checks show the backward ops TensorFlow's gradient
// function would build. Ops whose result-type inference needs attributes
// (matmul transposes, reduction axes) are written in generic form.

//===----------------------------------------------------------------------===//
// Seed, placement and the apply_gradients that replaces the minimize.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: () -> tensor<f32>
// CHECK:      %[[W:.*]] = dtf.variable "w"
// CHECK:      %[[X:.*]] = dtf.placeholder "x"
// CHECK:      %[[WV:.*]] = dtf.read %[[W]]
// CHECK:      %[[Y:.*]] = dtf.matmul %[[X]], %[[WV]] :
// CHECK-NEXT: %[[LOSS:.*]] = dtf.reduce_sum %[[Y]]
// The seed dloss = 1, then reduce_sum's gradient: reshape to the keep_dims
// shape and broadcast back.
// CHECK-NEXT: %[[ONE:.*]] = dtf.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[KEPT:.*]] = dtf.reshape %[[ONE]] : tensor<f32> -> tensor<1x1xf32>
// CHECK-NEXT: %[[DY:.*]] = dtf.broadcast_to %[[KEPT]] : tensor<1x1xf32> -> tensor<2x4xf32>
// Only the variable gets a gradient, not the placeholder: dw = x^T dy.
// CHECK-NEXT: %[[DW:.*]] = dtf.matmul %[[X]], %[[DY]] {transpose_a = true} : tensor<2x3xf32>, tensor<2x4xf32>
// CHECK-NEXT: dtf.apply_gradients #dtf.sgd<learning_rate = 0.5>(%[[W]] : !dtf.resource<tensor<3x4xf32>>) grads(%[[DW]] : tensor<3x4xf32>)
// CHECK-NOT:  dtf.minimize
// CHECK-NEXT: return %[[LOSS]]
func.func @matmul() -> tensor<f32> {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3x4xf32>>
  %x = dtf.placeholder "x" : tensor<2x3xf32>
  %wv = dtf.read %w : !dtf.resource<tensor<3x4xf32>>
  %y = dtf.matmul %x, %wv : tensor<2x3xf32>, tensor<3x4xf32>
  %loss = dtf.reduce_sum %y : tensor<2x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return %loss : tensor<f32>
}

//===----------------------------------------------------------------------===//
// matmul with every combination of transposes
//===----------------------------------------------------------------------===//

// da = dy b^T, db = a^T dy.
// CHECK-LABEL: func.func @matmul_both
// CHECK:      %[[A:.*]] = dtf.read
// CHECK-NEXT: %[[B:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to
// CHECK-NEXT: %[[DA:.*]] = dtf.matmul %[[DY]], %[[B]] {transpose_b = true} : tensor<2x4xf32>, tensor<3x4xf32>
// CHECK-NEXT: %[[DB:.*]] = dtf.matmul %[[A]], %[[DY]] {transpose_a = true} : tensor<2x3xf32>, tensor<2x4xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DA]], %[[DB]] : tensor<2x3xf32>, tensor<3x4xf32>)
func.func @matmul_both() {
  %a = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<3x4xf32>>
  %av = dtf.read %a : !dtf.resource<tensor<2x3xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<3x4xf32>>
  %y = dtf.matmul %av, %bv : tensor<2x3xf32>, tensor<3x4xf32>
  %loss = dtf.reduce_sum %y : tensor<2x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// c = a^T b: da = b dy^T, db = a dy.
// CHECK-LABEL: func.func @matmul_transpose_a
// CHECK:      %[[A:.*]] = dtf.read
// CHECK-NEXT: %[[B:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to
// CHECK-NEXT: %[[DA:.*]] = dtf.matmul %[[B]], %[[DY]] {transpose_b = true} : tensor<3x4xf32>, tensor<2x4xf32>
// CHECK-NEXT: %[[DB:.*]] = dtf.matmul %[[A]], %[[DY]] : tensor<3x2xf32>, tensor<2x4xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DA]], %[[DB]] : tensor<3x2xf32>, tensor<3x4xf32>)
func.func @matmul_transpose_a() {
  %a = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<3x2xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<3x4xf32>>
  %av = dtf.read %a : !dtf.resource<tensor<3x2xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<3x4xf32>>
  %y = "dtf.matmul"(%av, %bv) <{transpose_a = true}> : (tensor<3x2xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %loss = dtf.reduce_sum %y : tensor<2x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// c = a b^T: da = dy b, db = dy^T a.
// CHECK-LABEL: func.func @matmul_transpose_b
// CHECK:      %[[A:.*]] = dtf.read
// CHECK-NEXT: %[[B:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to
// CHECK-NEXT: %[[DA:.*]] = dtf.matmul %[[DY]], %[[B]] : tensor<2x4xf32>, tensor<4x3xf32>
// CHECK-NEXT: %[[DB:.*]] = dtf.matmul %[[DY]], %[[A]] {transpose_a = true} : tensor<2x4xf32>, tensor<2x3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DA]], %[[DB]] : tensor<2x3xf32>, tensor<4x3xf32>)
func.func @matmul_transpose_b() {
  %a = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<4x3xf32>>
  %av = dtf.read %a : !dtf.resource<tensor<2x3xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<4x3xf32>>
  %y = "dtf.matmul"(%av, %bv) <{transpose_b = true}> : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %loss = dtf.reduce_sum %y : tensor<2x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// c = a^T b^T: da = b^T dy^T, db = dy^T a^T.
// CHECK-LABEL: func.func @matmul_transpose_both
// CHECK:      %[[A:.*]] = dtf.read
// CHECK-NEXT: %[[B:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to
// CHECK-NEXT: %[[DA:.*]] = dtf.matmul %[[B]], %[[DY]] {transpose_a = true, transpose_b = true} : tensor<4x3xf32>, tensor<2x4xf32>
// CHECK-NEXT: %[[DB:.*]] = dtf.matmul %[[DY]], %[[A]] {transpose_a = true, transpose_b = true} : tensor<2x4xf32>, tensor<3x2xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DA]], %[[DB]] : tensor<3x2xf32>, tensor<4x3xf32>)
func.func @matmul_transpose_both() {
  %a = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<3x2xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<4x3xf32>>
  %av = dtf.read %a : !dtf.resource<tensor<3x2xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<4x3xf32>>
  %y = "dtf.matmul"(%av, %bv) <{transpose_a = true, transpose_b = true}> : (tensor<3x2xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %loss = dtf.reduce_sum %y : tensor<2x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

//===----------------------------------------------------------------------===//
// Broadcasting binary ops: the gradient is summed back to each operand shape.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @add_broadcast
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<2x3xf32>
// c (2x1) was broadcast along its size-1 dimension: keep_dims gives its shape.
// CHECK-NEXT: %[[DC:.*]] = dtf.reduce_sum %[[DY]] {axes = array<i64: 1>, keep_dims = true} : tensor<2x3xf32>
// b (3) was broadcast along the leading dimension it lacks: reshape back.
// CHECK-NEXT: %[[SB:.*]] = dtf.reduce_sum %[[DY]] {axes = array<i64: 0>, keep_dims = true} : tensor<2x3xf32>
// CHECK-NEXT: %[[DB:.*]] = dtf.reshape %[[SB]] : tensor<1x3xf32> -> tensor<3xf32>
// a has the result's shape: dy as is.
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DY]], %[[DB]], %[[DC]] : tensor<2x3xf32>, tensor<3xf32>, tensor<2x1xf32>)
func.func @add_broadcast() {
  %a = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %c = dtf.variable "c" init(#dtf.zeros) : !dtf.resource<tensor<2x1xf32>>
  %av = dtf.read %a : !dtf.resource<tensor<2x3xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<3xf32>>
  %cv = dtf.read %c : !dtf.resource<tensor<2x1xf32>>
  %ab = dtf.add %av, %bv : tensor<2x3xf32>, tensor<3xf32>
  %abc = dtf.add %cv, %ab : tensor<2x1xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %abc : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// CHECK-LABEL: func.func @sub
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<2x3xf32>
// CHECK-NEXT: %[[SB:.*]] = dtf.reduce_sum %[[DY]] {axes = array<i64: 0>, keep_dims = true} : tensor<2x3xf32>
// CHECK-NEXT: %[[RB:.*]] = dtf.reshape %[[SB]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK-NEXT: %[[DB:.*]] = dtf.neg %[[RB]] : tensor<3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DY]], %[[DB]] : tensor<2x3xf32>, tensor<3xf32>)
func.func @sub() {
  %a = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %av = dtf.read %a : !dtf.resource<tensor<2x3xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<3xf32>>
  %d = dtf.sub %av, %bv : tensor<2x3xf32>, tensor<3xf32>
  %loss = dtf.reduce_sum %d : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// da = dy * b, db = sum_to_shape(a * dy).
// CHECK-LABEL: func.func @mul
// CHECK:      %[[A:.*]] = dtf.read
// CHECK-NEXT: %[[B:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<2x3xf32>
// CHECK-NEXT: %[[DA:.*]] = dtf.mul %[[DY]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>
// CHECK-NEXT: %[[P:.*]] = dtf.mul %[[A]], %[[DY]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK-NEXT: %[[SB:.*]] = dtf.reduce_sum %[[P]] {axes = array<i64: 0>, keep_dims = true}
// CHECK-NEXT: %[[DB:.*]] = dtf.reshape %[[SB]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DA]], %[[DB]] : tensor<2x3xf32>, tensor<3xf32>)
func.func @mul() {
  %a = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %av = dtf.read %a : !dtf.resource<tensor<2x3xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<3xf32>>
  %p = dtf.mul %av, %bv : tensor<2x3xf32>, tensor<3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// da = dy / b, db = sum_to_shape(dy * ((-a / b) / b)).
// CHECK-LABEL: func.func @div
// CHECK:      %[[A:.*]] = dtf.read
// CHECK-NEXT: %[[B:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<2x3xf32>
// CHECK-NEXT: %[[DA:.*]] = dtf.div %[[DY]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>
// CHECK-NEXT: %[[NA:.*]] = dtf.neg %[[A]] : tensor<2x3xf32>
// CHECK-NEXT: %[[Q1:.*]] = dtf.div %[[NA]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>
// CHECK-NEXT: %[[Q2:.*]] = dtf.div %[[Q1]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>
// CHECK-NEXT: %[[P:.*]] = dtf.mul %[[DY]], %[[Q2]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK-NEXT: %[[SB:.*]] = dtf.reduce_sum %[[P]] {axes = array<i64: 0>, keep_dims = true}
// CHECK-NEXT: %[[DB:.*]] = dtf.reshape %[[SB]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DA]], %[[DB]] : tensor<2x3xf32>, tensor<3xf32>)
func.func @div() {
  %a = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %b = dtf.variable "b" init(#dtf.constant<1.0>) : !dtf.resource<tensor<3xf32>>
  %av = dtf.read %a : !dtf.resource<tensor<2x3xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<3xf32>>
  %q = dtf.div %av, %bv : tensor<2x3xf32>, tensor<3xf32>
  %loss = dtf.reduce_sum %q : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// A scalar broadcast against a matrix is summed over both dimensions.
// CHECK-LABEL: func.func @mul_scalar
// CHECK:      %[[S:.*]] = dtf.read
// CHECK-NEXT: %[[M:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<2x3xf32>
// CHECK-NEXT: %[[P:.*]] = dtf.mul %[[DY]], %[[M]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK-NEXT: %[[SS:.*]] = dtf.reduce_sum %[[P]] {axes = array<i64: 0, 1>, keep_dims = true} : tensor<2x3xf32>
// CHECK-NEXT: %[[DS:.*]] = dtf.reshape %[[SS]] : tensor<1x1xf32> -> tensor<f32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DS]] : tensor<f32>)
func.func @mul_scalar() {
  %s = dtf.variable "s" init(#dtf.zeros) : !dtf.resource<tensor<f32>>
  %m = dtf.variable "m" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<2x3xf32>>
  %sv = dtf.read %s : !dtf.resource<tensor<f32>>
  %mv = dtf.read %m : !dtf.resource<tensor<2x3xf32>>
  %p = dtf.mul %sv, %mv : tensor<f32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

//===----------------------------------------------------------------------===//
// Elementwise and neural-network ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @bias_add
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<2x3xf32>
// CHECK-NEXT: %[[DB:.*]] = dtf.bias_add_grad %[[DY]] : tensor<2x3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DY]], %[[DB]] : tensor<2x3xf32>, tensor<3xf32>)
func.func @bias_add() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<2x3xf32>>
  %bv = dtf.read %b : !dtf.resource<tensor<3xf32>>
  %y = dtf.bias_add %wv, %bv : tensor<2x3xf32>, tensor<3xf32>
  %loss = dtf.reduce_sum %y : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// The loss is the negated variable itself: no reduction in between.
// CHECK-LABEL: func.func @neg
// CHECK:      %[[ONE:.*]] = dtf.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DW:.*]] = dtf.neg %[[ONE]] : tensor<f32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DW]] : tensor<f32>)
func.func @neg() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<f32>>
  %wv = dtf.read %w : !dtf.resource<tensor<f32>>
  %loss = dtf.neg %wv : tensor<f32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// relu_grad masks with the relu's input.
// CHECK-LABEL: func.func @relu
// CHECK:      %[[X:.*]] = dtf.read
// CHECK-NEXT: dtf.relu %[[X]]
// CHECK:      %[[DY:.*]] = dtf.broadcast_to
// CHECK-NEXT: %[[DX:.*]] = dtf.relu_grad %[[DY]], %[[X]] : tensor<2x3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<2x3xf32>)
func.func @relu() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.relu %wv : tensor<2x3xf32>
  %loss = dtf.reduce_sum %y : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// softmax_grad takes the softmax's output.
// CHECK-LABEL: func.func @softmax
// CHECK:      %[[Y:.*]] = dtf.softmax
// CHECK:      %[[DY:.*]] = dtf.broadcast_to
// CHECK-NEXT: %[[DX:.*]] = dtf.softmax_grad %[[DY]], %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<2x3xf32>)
func.func @softmax() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.softmax %wv : tensor<2x3xf32>
  %loss = dtf.reduce_sum %y : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// CHECK-LABEL: func.func @log
// CHECK:      %[[X:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to
// CHECK-NEXT: %[[DX:.*]] = dtf.div %[[DY]], %[[X]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<2x3xf32>)
func.func @log() {
  %w = dtf.variable "w" init(#dtf.constant<1.0>) : !dtf.resource<tensor<2x3xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.log %wv : tensor<2x3xf32>
  %loss = dtf.reduce_sum %y : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// CHECK-LABEL: func.func @clip_by_value
// CHECK:      %[[X:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to
// CHECK-NEXT: %[[DX:.*]] = dtf.clip_by_value_grad %[[DY]], %[[X]], -1.000000e+00, 2.500000e+00 : tensor<2x3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<2x3xf32>)
func.func @clip_by_value() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.clip_by_value %wv, -1.0, 2.5 : tensor<2x3xf32>
  %loss = dtf.reduce_sum %y : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// The labels are a placeholder: only the logits get a gradient.
// CHECK-LABEL: func.func @softmax_cross_entropy_with_logits
// CHECK:      %[[LABELS:.*]] = dtf.placeholder "labels"
// CHECK-NEXT: %[[LOGITS:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<4xf32>
// CHECK-NEXT: %[[DX:.*]] = dtf.softmax_cross_entropy_with_logits_grad %[[DY]], %[[LOGITS]], %[[LABELS]] : tensor<4xf32>, tensor<4x10xf32>, tensor<4x10xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<4x10xf32>)
func.func @softmax_cross_entropy_with_logits() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x10xf32>>
  %labels = dtf.placeholder "labels" : tensor<4x10xf32>
  %logits = dtf.read %w : !dtf.resource<tensor<4x10xf32>>
  %xent = dtf.softmax_cross_entropy_with_logits %logits, %labels : tensor<4x10xf32>, tensor<4x10xf32>
  %loss = dtf.reduce_sum %xent : tensor<4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// Class ids carry no gradient: the logits get softmax - one_hot(ids).
// CHECK-LABEL: func.func @sparse_softmax_cross_entropy_with_logits
// CHECK:      %[[IDS:.*]] = dtf.placeholder "ids"
// CHECK-NEXT: %[[LOGITS:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<4xf32>
// CHECK-NEXT: %[[DX:.*]] = dtf.sparse_softmax_cross_entropy_with_logits_grad %[[DY]], %[[LOGITS]], %[[IDS]] : tensor<4xf32>, tensor<4x10xf32>, tensor<4xi64>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<4x10xf32>)
func.func @sparse_softmax_cross_entropy_with_logits() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x10xf32>>
  %ids = dtf.placeholder "ids" : tensor<4xi64>
  %logits = dtf.read %w : !dtf.resource<tensor<4x10xf32>>
  %xent = dtf.sparse_softmax_cross_entropy_with_logits %logits, %ids : tensor<4x10xf32>, tensor<4xi64>
  %loss = dtf.reduce_sum %xent : tensor<4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

//===----------------------------------------------------------------------===//
// Reductions and shapes
//===----------------------------------------------------------------------===//

// Negative axes count from the end; with keep_dims the gradient already has
// the kept shape and is only broadcast.
// CHECK-LABEL: func.func @reduce_sum_axes
// CHECK:      %[[ONE:.*]] = dtf.constant dense<1.000000e+00> : tensor<f32>
// reshape back through the final reshape (tensor<1xf32> -> tensor<f32>)...
// CHECK-NEXT: %[[D1:.*]] = dtf.reshape %[[ONE]] : tensor<f32> -> tensor<1xf32>
// ...then the keep_dims reduce_sum: a broadcast only...
// CHECK-NEXT: %[[D2:.*]] = dtf.broadcast_to %[[D1]] : tensor<1xf32> -> tensor<3xf32>
// ...then the reduction over axes -1 and 0.
// CHECK-NEXT: %[[D3:.*]] = dtf.reshape %[[D2]] : tensor<3xf32> -> tensor<1x3x1xf32>
// CHECK-NEXT: %[[DX:.*]] = dtf.broadcast_to %[[D3]] : tensor<1x3x1xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<2x3x4xf32>)
func.func @reduce_sum_axes() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2x3x4xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<2x3x4xf32>>
  %s = "dtf.reduce_sum"(%wv) <{axes = array<i64: -1, 0>}> : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %loss = "dtf.reduce_sum"(%s) <{keep_dims = true}> : (tensor<3xf32>) -> tensor<1xf32>
  %scalar = dtf.reshape %loss : tensor<1xf32> -> tensor<f32>
  dtf.minimize %scalar : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// reduce_mean is reduce_sum's gradient times 1/N, N the number of elements
// averaged: 2 for the outer mean, 3 for the inner one.
// CHECK-LABEL: func.func @reduce_mean
// CHECK:      %[[ONE:.*]] = dtf.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[K1:.*]] = dtf.reshape %[[ONE]] : tensor<f32> -> tensor<1xf32>
// CHECK-NEXT: %[[B1:.*]] = dtf.broadcast_to %[[K1]] : tensor<1xf32> -> tensor<2xf32>
// CHECK-NEXT: %[[HALF:.*]] = dtf.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[DM:.*]] = dtf.mul %[[B1]], %[[HALF]] : tensor<2xf32>, tensor<f32>
// CHECK-NEXT: %[[K2:.*]] = dtf.reshape %[[DM]] : tensor<2xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[B2:.*]] = dtf.broadcast_to %[[K2]] : tensor<2x1xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[THIRD:.*]] = dtf.constant dense<0.333333343> : tensor<f32>
// CHECK-NEXT: %[[DX:.*]] = dtf.mul %[[B2]], %[[THIRD]] : tensor<2x3xf32>, tensor<f32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<2x3xf32>)
func.func @reduce_mean() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<2x3xf32>>
  %m = "dtf.reduce_mean"(%wv) <{axes = array<i64: 1>}> : (tensor<2x3xf32>) -> tensor<2xf32>
  %loss = dtf.reduce_mean %m : tensor<2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// CHECK-LABEL: func.func @reshape
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<6xf32>
// CHECK-NEXT: %[[DX:.*]] = dtf.reshape %[[DY]] : tensor<6xf32> -> tensor<2x3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<2x3xf32>)
func.func @reshape() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.reshape %wv : tensor<2x3xf32> -> tensor<6xf32>
  %loss = dtf.reduce_sum %r : tensor<6xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// CHECK-LABEL: func.func @broadcast_to
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} : tensor<1x1x1xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT: %[[S:.*]] = dtf.reduce_sum %[[DY]] {axes = array<i64: 0, 2>, keep_dims = true} : tensor<2x3x4xf32>
// CHECK-NEXT: %[[DX:.*]] = dtf.reshape %[[S]] : tensor<1x3x1xf32> -> tensor<3x1xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<3x1xf32>)
func.func @broadcast_to() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3x1xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<3x1xf32>>
  %b = dtf.broadcast_to %wv : tensor<3x1xf32> -> tensor<2x3x4xf32>
  %loss = dtf.reduce_sum %b : tensor<2x3x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// A cast between float types passes the gradient back through the inverse
// cast; the seed has the loss's type.
// CHECK-LABEL: func.func @cast
// CHECK:      dtf.constant dense<1.000000e+00> : tensor<f16>
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<2xf16>
// CHECK-NEXT: %[[DX:.*]] = dtf.cast %[[DY]] : tensor<2xf16> to tensor<2xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<2xf32>)
func.func @cast() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<2xf32>>
  %h = dtf.cast %wv : tensor<2xf32> to tensor<2xf16>
  %loss = dtf.reduce_sum %h : tensor<2xf16>
  dtf.minimize %loss : tensor<f16>, #dtf.sgd<learning_rate = 0.5>
  return
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @conv2d
// CHECK:      %[[F:.*]] = dtf.read
// CHECK-NEXT: %[[I:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<1x2x2x4xf32>
// CHECK-NEXT: %[[DI:.*]] = dtf.conv2d_backprop_input %[[F]], %[[DY]] strides [1, 2, 2, 1] padding VALID : tensor<3x3x2x4xf32>, tensor<1x2x2x4xf32> -> tensor<1x5x5x2xf32>
// CHECK-NEXT: %[[DF:.*]] = dtf.conv2d_backprop_filter %[[I]], %[[DY]] strides [1, 2, 2, 1] padding VALID : tensor<1x5x5x2xf32>, tensor<1x2x2x4xf32> -> tensor<3x3x2x4xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DF]], %[[DI]] : tensor<3x3x2x4xf32>, tensor<1x5x5x2xf32>)
func.func @conv2d() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3x3x2x4xf32>>
  %i = dtf.variable "i" init(#dtf.zeros) : !dtf.resource<tensor<1x5x5x2xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<3x3x2x4xf32>>
  %iv = dtf.read %i : !dtf.resource<tensor<1x5x5x2xf32>>
  %y = dtf.conv2d %iv, %wv strides [1, 2, 2, 1] padding VALID : tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>
  %loss = dtf.reduce_sum %y : tensor<1x2x2x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// An input that is a placeholder gets no conv2d_backprop_input.
// CHECK-LABEL: func.func @conv2d_filter_only
// CHECK-NOT:  dtf.conv2d_backprop_input
// CHECK:      dtf.conv2d_backprop_filter
// CHECK-NOT:  dtf.conv2d_backprop_input
// CHECK:      return
func.func @conv2d_filter_only() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3x3x2x4xf32>>
  %x = dtf.placeholder "x" : tensor<1x5x5x2xf32>
  %wv = dtf.read %w : !dtf.resource<tensor<3x3x2x4xf32>>
  %y = dtf.conv2d %x, %wv strides [1, 1, 1, 1] padding SAME : tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>
  %loss = dtf.reduce_sum %y : tensor<1x5x5x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// The gradients of a dilated convolution are dilated alike.
// CHECK-LABEL: func.func @conv2d_dilated
// CHECK:      %[[F:.*]] = dtf.read
// CHECK-NEXT: %[[I:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<1x1x3x4xf32>
// CHECK-NEXT: %[[DI:.*]] = dtf.conv2d_backprop_input %[[F]], %[[DY]] strides [1, 1, 1, 1] dilations [1, 2, 1, 1] padding VALID : tensor<3x3x2x4xf32>, tensor<1x1x3x4xf32> -> tensor<1x5x5x2xf32>
// CHECK-NEXT: %[[DF:.*]] = dtf.conv2d_backprop_filter %[[I]], %[[DY]] strides [1, 1, 1, 1] dilations [1, 2, 1, 1] padding VALID : tensor<1x5x5x2xf32>, tensor<1x1x3x4xf32> -> tensor<3x3x2x4xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DF]], %[[DI]] : tensor<3x3x2x4xf32>, tensor<1x5x5x2xf32>)
func.func @conv2d_dilated() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3x3x2x4xf32>>
  %i = dtf.variable "i" init(#dtf.zeros) : !dtf.resource<tensor<1x5x5x2xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<3x3x2x4xf32>>
  %iv = dtf.read %i : !dtf.resource<tensor<1x5x5x2xf32>>
  %y = dtf.conv2d %iv, %wv strides [1, 1, 1, 1] dilations [1, 2, 1, 1] padding VALID : tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>
  %loss = dtf.reduce_sum %y : tensor<1x1x3x4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// tf.nn.conv2d_transpose dilated: its gradients are the dilated convolution
// it transposes and that convolution's dilated filter gradient.
// CHECK-LABEL: func.func @conv2d_transpose_dilated
// CHECK:      dtf.conv2d %{{.*}}, %{{.*}} strides [1, 1, 1, 1] dilations [1, 2, 2, 1] padding SAME
// CHECK:      dtf.conv2d_backprop_filter %{{.*}}, %{{.*}} strides [1, 1, 1, 1] dilations [1, 2, 2, 1] padding SAME
func.func @conv2d_transpose_dilated() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3x3x2x4xf32>>
  %v = dtf.variable "v" init(#dtf.zeros) : !dtf.resource<tensor<1x5x5x4xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<3x3x2x4xf32>>
  %vv = dtf.read %v : !dtf.resource<tensor<1x5x5x4xf32>>
  %y = dtf.conv2d_backprop_input %wv, %vv strides [1, 1, 1, 1] dilations [1, 2, 2, 1] padding SAME : tensor<3x3x2x4xf32>, tensor<1x5x5x4xf32> -> tensor<1x5x5x2xf32>
  %loss = dtf.reduce_sum %y : tensor<1x5x5x2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// CHECK-LABEL: func.func @max_pool
// CHECK:      %[[X:.*]] = dtf.read
// CHECK-NEXT: %[[Y:.*]] = dtf.max_pool %[[X]]
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<1x2x2x2xf32>
// CHECK-NEXT: %[[DX:.*]] = dtf.max_pool_grad %[[X]], %[[Y]], %[[DY]] ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<1x4x4x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<1x4x4x2xf32>)
func.func @max_pool() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<1x4x4x2xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<1x4x4x2xf32>>
  %p = dtf.max_pool %wv ksize [1, 2, 2, 1] strides [1, 2, 2, 1] padding SAME : tensor<1x4x4x2xf32>
  %loss = dtf.reduce_sum %p : tensor<1x2x2x2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

//===----------------------------------------------------------------------===//
// Accumulation, cuts and variable selection
//===----------------------------------------------------------------------===//

// A value used several times gets the sum of its uses' gradients: here w
// feeds both operands of the mul and the add.
// CHECK-LABEL: func.func @summed_uses
// CHECK:      %[[W:.*]] = dtf.read
// CHECK:      %[[DY:.*]] = dtf.broadcast_to {{.*}} -> tensor<3xf32>
// CHECK-NEXT: %[[DL:.*]] = dtf.mul %[[DY]], %[[W]] : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT: %[[S1:.*]] = dtf.add %[[DY]], %[[DL]] : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT: %[[DR:.*]] = dtf.mul %[[W]], %[[DY]] : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT: %[[S2:.*]] = dtf.add %[[S1]], %[[DR]] : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[S2]] : tensor<3xf32>)
func.func @summed_uses() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<3xf32>>
  %sq = dtf.mul %wv, %wv : tensor<3xf32>, tensor<3xf32>
  %y = dtf.add %sq, %wv : tensor<3xf32>, tensor<3xf32>
  %loss = dtf.reduce_sum %y : tensor<3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// A variable read twice gets the sum of both reads' gradients.
// CHECK-LABEL: func.func @read_twice
// CHECK:      %[[V:.*]] = dtf.variable "w"
// CHECK-NEXT: %[[R1:.*]] = dtf.read %[[V]]
// CHECK-NEXT: %[[R2:.*]] = dtf.read %[[V]]
// CHECK:      %[[DY:.*]] = dtf.broadcast_to
// CHECK-NEXT: %[[D1:.*]] = dtf.mul %[[DY]], %[[R2]]
// CHECK-NEXT: %[[D2:.*]] = dtf.mul %[[R1]], %[[DY]]
// CHECK-NEXT: %[[SUM:.*]] = dtf.add %[[D2]], %[[D1]] : tensor<3xf32>, tensor<3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}}(%[[V]] : !dtf.resource<tensor<3xf32>>) grads(%[[SUM]] : tensor<3xf32>)
func.func @read_twice() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %r1 = dtf.read %w : !dtf.resource<tensor<3xf32>>
  %r2 = dtf.read %w : !dtf.resource<tensor<3xf32>>
  %y = dtf.mul %r1, %r2 : tensor<3xf32>, tensor<3xf32>
  %loss = dtf.reduce_sum %y : tensor<3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// The argmax/equal/cast path carries no gradient, nor do the constant, the
// argument, the non-trainable variable and the trainable variable the loss
// does not read: only w is updated, and no op is emitted for the rest.
// CHECK-LABEL: func.func @cut
// CHECK-SAME: (%[[SCALE:.*]]: tensor<f32>)
// CHECK:      %[[W:.*]] = dtf.variable "w"
// CHECK:      %[[C:.*]] = dtf.constant dense<2.000000e+00>
// CHECK:      %[[LOSS:.*]] = dtf.mul {{.*}}, %[[SCALE]] : tensor<f32>, tensor<f32>
// CHECK-NEXT: %[[ONE:.*]] = dtf.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DT:.*]] = dtf.mul %[[ONE]], %[[SCALE]] : tensor<f32>, tensor<f32>
// CHECK-NEXT: %[[K:.*]] = dtf.reshape %[[DT]] : tensor<f32> -> tensor<1x1xf32>
// CHECK-NEXT: %[[DWF:.*]] = dtf.broadcast_to %[[K]] : tensor<1x1xf32> -> tensor<2x3xf32>
// CHECK-NEXT: %[[DW:.*]] = dtf.mul %[[DWF]], %[[C]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK-NEXT: dtf.apply_gradients #dtf.sgd<learning_rate = 0.5>(%[[W]] : !dtf.resource<tensor<2x3xf32>>) grads(%[[DW]] : tensor<2x3xf32>)
// CHECK-NEXT: return %[[LOSS]]
func.func @cut(%scale: tensor<f32>) -> tensor<f32> {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %frozen = dtf.variable "frozen" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<3xf32>>
  %unused = dtf.variable "unused" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %c = dtf.constant dense<2.0> : tensor<2x3xf32>
  %wv = dtf.read %w : !dtf.resource<tensor<2x3xf32>>
  %fv = dtf.read %frozen : !dtf.resource<tensor<3xf32>>
  %uv = dtf.read %unused : !dtf.resource<tensor<3xf32>>
  %idx = dtf.argmax %wv, 1 : tensor<2x3xf32>
  %eq = dtf.equal %idx, %idx : tensor<2xi64>, tensor<2xi64>
  %acc = dtf.cast %eq : tensor<2xi1> to tensor<2xf32>
  %hits = dtf.reduce_sum %acc : tensor<2xf32>
  %wc = dtf.mul %wv, %c : tensor<2x3xf32>, tensor<2x3xf32>
  %wf = dtf.add %wc, %fv : tensor<2x3xf32>, tensor<3xf32>
  %s = dtf.reduce_sum %wf : tensor<2x3xf32>
  %t = dtf.add %s, %hits : tensor<f32>, tensor<f32>
  %loss = dtf.mul %t, %scale : tensor<f32>, tensor<f32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return %loss : tensor<f32>
}

// Variables are listed in creation order, whatever the order of their reads;
// the optimizer and the global step are carried over.
// CHECK-LABEL: func.func @creation_order_and_global_step
// CHECK:      %[[STEP:.*]] = dtf.variable "global_step"
// CHECK-NEXT: %[[A:.*]] = dtf.variable "a"
// CHECK-NEXT: %[[B:.*]] = dtf.variable "b"
// CHECK:      %[[ONE:.*]] = dtf.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DA:.*]] = dtf.neg %[[ONE]] : tensor<f32>
// CHECK-NEXT: dtf.apply_gradients #dtf.momentum<learning_rate = 0.1, momentum = 0.9, use_nesterov = true>(%[[A]], %[[B]] : !dtf.resource<tensor<f32>>, !dtf.resource<tensor<f32>>) grads(%[[DA]], %[[ONE]] : tensor<f32>, tensor<f32>) global_step %[[STEP]] : !dtf.resource<tensor<i64>>
func.func @creation_order_and_global_step() {
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
  %a = dtf.variable "a" init(#dtf.zeros) : !dtf.resource<tensor<f32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<f32>>
  %bv = dtf.read %b : !dtf.resource<tensor<f32>>
  %av = dtf.read %a : !dtf.resource<tensor<f32>>
  %loss = dtf.sub %bv, %av : tensor<f32>, tensor<f32>
  dtf.minimize %loss : tensor<f32>, #dtf.momentum<learning_rate = 0.1, momentum = 0.9, use_nesterov = true>
      global_step %step : !dtf.resource<tensor<i64>>
  return
}
