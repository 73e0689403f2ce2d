// Optimizers as dtf.minimize prints them: parameters equal to their
// defaults are elided, the others kept in declaration order.
func.func @optimizers(%loss: tensor<f32>) {
  dtf.minimize %loss : tensor<f32>, #dtf.adam<>
  dtf.minimize %loss : tensor<f32>, #dtf.adam<learning_rate = 0.001, beta1 = 0.9, beta2 = 0.999, epsilon = 1.0e-08>
  dtf.minimize %loss : tensor<f32>, #dtf.adam<epsilon = 1.0e-07, learning_rate = 0.01>
  dtf.minimize %loss : tensor<f32>, #dtf.adam<beta2 = 0.98, beta1 = 0.5>
  dtf.minimize %loss : tensor<f32>, #dtf.momentum<learning_rate = 0.05, momentum = 0.0, use_nesterov = false>
  dtf.minimize %loss : tensor<f32>, #dtf.momentum<use_nesterov = true, momentum = 0.9, learning_rate = 0.05>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 5.0e-1>
  return
}
