func.func @apply_gradients_global_step(%dw: tensor<4x2xf32>) {
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<2xi32>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
  // expected-error @+1 {{'dtf.apply_gradients' op global step must hold a scalar integer, got 'tensor<2xi32>'}}
  dtf.apply_gradients #dtf.sgd<learning_rate = 0.5> (%w : !dtf.resource<tensor<4x2xf32>>) grads(%dw : tensor<4x2xf32>) global_step %step : !dtf.resource<tensor<2xi32>>
  return
}
