// RUN: dtf-opt --dtf-autodiff --split-input-file --verify-diagnostics %s

// Inputs and non-trainable state only: there is nothing to differentiate.
func.func @no_trainable_variable() {
  %frozen = dtf.variable "frozen" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<3xf32>>
  %x = dtf.placeholder "x" : tensor<3xf32>
  %fv = dtf.read %frozen : !dtf.resource<tensor<3xf32>>
  %y = dtf.mul %x, %fv : tensor<3xf32>, tensor<3xf32>
  %loss = dtf.reduce_sum %y : tensor<3xf32>
  // expected-error @+1 {{'dtf.minimize' op loss does not depend on any trainable variable}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// -----

// The only path from the variable to the loss goes through integers.
func.func @only_through_argmax() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<2x3xf32>>
  // expected-note @+1 {{the gradient stops at this 'dtf.argmax'}}
  %idx = dtf.argmax %wv, 1 : tensor<2x3xf32>
  %f = dtf.cast %idx : tensor<2xi64> to tensor<2xf32>
  %loss = dtf.reduce_sum %f : tensor<2xf32>
  // expected-error @+1 {{'dtf.minimize' op loss depends on trainable variables only through non-differentiable values}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// -----

// A gradient op has no gradient of its own.
func.func @no_rule_dtf() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %x = dtf.placeholder "x" : tensor<3xf32>
  %wv = dtf.read %w : !dtf.resource<tensor<3xf32>>
  // expected-error @+1 {{'dtf.relu_grad' op has no gradient rule, but the loss depends on a trainable variable through it}}
  %g = dtf.relu_grad %x, %wv : tensor<3xf32>
  %loss = dtf.reduce_sum %g : tensor<3xf32>
  // expected-note @+1 {{differentiating this loss}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// -----

func.func private @opaque(tensor<3xf32>) -> tensor<3xf32>

// Nor does a call.
func.func @no_rule_call() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<3xf32>>
  // expected-error @+1 {{'func.call' op has no gradient rule, but the loss depends on a trainable variable through it}}
  %y = func.call @opaque(%wv) : (tensor<3xf32>) -> tensor<3xf32>
  %loss = dtf.reduce_sum %y : tensor<3xf32>
  // expected-note @+1 {{differentiating this loss}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// -----

// An op without a rule is fine when the loss does not reach a variable
// through it.
func.func private @opaque(tensor<3xf32>) -> tensor<3xf32>

func.func @no_rule_off_the_path() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %x = dtf.placeholder "x" : tensor<3xf32>
  %wv = dtf.read %w : !dtf.resource<tensor<3xf32>>
  %xs = func.call @opaque(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %y = dtf.mul %xs, %wv : tensor<3xf32>, tensor<3xf32>
  %loss = dtf.reduce_sum %y : tensor<3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// -----

func.func @labels_depend_on_variable() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x10xf32>>
  %logits = dtf.placeholder "logits" : tensor<4x10xf32>
  %wv = dtf.read %w : !dtf.resource<tensor<4x10xf32>>
  %labels = dtf.softmax %wv : tensor<4x10xf32>
  // expected-error @+1 {{'dtf.softmax_cross_entropy_with_logits' op labels depend on a trainable variable, but gradients with respect to the labels are unsupported}}
  %xent = dtf.softmax_cross_entropy_with_logits %logits, %labels : tensor<4x10xf32>, tensor<4x10xf32>
  %loss = dtf.reduce_sum %xent : tensor<4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// -----

// Summing a broadcast gradient back needs the shapes.
func.func @dynamic_broadcast() {
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %x = dtf.placeholder "x" : tensor<?x3xf32>
  %bv = dtf.read %b : !dtf.resource<tensor<3xf32>>
  // expected-error @+1 {{'dtf.add' op gradient needs static shapes, got 'tensor<?x3xf32>' (a dynamic batch is given its size by --dtf-specialize-batch first)}}
  %y = dtf.add %x, %bv : tensor<?x3xf32>, tensor<3xf32>
  %loss = dtf.reduce_sum %y : tensor<?x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return
}

// -----

// Floor has no gradient (TensorFlow registers None): a loss that reaches
// the variable only through it has nothing to train.
func.func @only_through_floor() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %wv = dtf.read %w : !dtf.resource<tensor<3xf32>>
  // expected-note @+1 {{the gradient stops at this 'dtf.floor'}}
  %f = dtf.floor %wv : tensor<3xf32>
  %loss = dtf.reduce_sum %f : tensor<3xf32>
  // expected-error @+1 {{'dtf.minimize' op loss depends on trainable variables only through non-differentiable values}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return
}
