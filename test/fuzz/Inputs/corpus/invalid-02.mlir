func.func @sgd_zero_learning_rate(%loss: tensor<f32>) {
  // expected-error @+1 {{learning_rate must be positive and finite, got 0.000000e+00}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.0>
  return
}
