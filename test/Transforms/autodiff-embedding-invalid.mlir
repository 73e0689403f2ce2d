// RUN: dtf-opt --dtf-autodiff --split-input-file --verify-diagnostics %s

func.func @read_whole_and_by_rows() -> tensor<f32> {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<10x2xf32>>
  %ids = dtf.placeholder "ids" : tensor<4xi64>
  // expected-note @+1 {{read whole here}}
  %whole = dtf.read %table : !dtf.resource<tensor<10x2xf32>>
  // expected-error @+1 {{looks up rows of 'table', which the loss also reads whole: its gradient would be dense; look up every use of a table by rows}}
  %rows = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<10x2xf32>>, tensor<4xi64>
  %a = dtf.reduce_sum %whole : tensor<10x2xf32>
  %b = dtf.reduce_sum %rows : tensor<4x2xf32>
  %loss = dtf.add %a, %b : tensor<f32>, tensor<f32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

// -----

func.func @trainable_weights() -> tensor<f32> {
  %table = dtf.variable "table" init(#dtf.zeros) : !dtf.resource<tensor<10x2xf32>>
  %weights = dtf.variable "weights" init(#dtf.zeros) : !dtf.resource<tensor<4x3xf32>>
  %ids = dtf.placeholder "ids" : tensor<4x3xi64>
  %rows = dtf.embedding_lookup %table[%ids] : !dtf.resource<tensor<10x2xf32>>, tensor<4x3xi64>
  %w = dtf.read %weights : !dtf.resource<tensor<4x3xf32>>
  // expected-error @+1 {{weights depend on a trainable variable, but gradients with respect to the weights are unsupported}}
  %e = dtf.embedding_combine sum %rows, %ids weights %w : tensor<4x3x2xf32>, tensor<4x3xi64>, tensor<4x3xf32>
  %loss = dtf.reduce_sum %e : tensor<4x2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

// -----

func.func @trainable_labels() -> tensor<f32> {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4xf32>>
  %x = dtf.placeholder "x" : tensor<4xf32>
  %wv = dtf.read %w : !dtf.resource<tensor<4xf32>>
  // expected-error @+1 {{labels depend on a trainable variable, but gradients with respect to the labels are unsupported}}
  %l = dtf.sigmoid_cross_entropy_with_logits %x, %wv : tensor<4xf32>
  %loss = dtf.reduce_sum %l : tensor<4xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}
