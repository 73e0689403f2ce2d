// Learning-rate schedules: each #dtf.*_decay in an optimizer prints back as
// written, its defaults omitted, and an update op carries it after its
// hyper-parameters.
// RUN: dtf-opt %s -split-input-file | dtf-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @optimizers
func.func @optimizers(%loss: tensor<f32>) {
  // CHECK: #dtf.momentum<learning_rate = 0.05, momentum = 0.9, schedule = #dtf.exponential_decay<decay_steps = 1000.0, decay_rate = 0.9, staircase = true>>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.momentum<learning_rate = 0.05, momentum = 0.9, schedule = #dtf.exponential_decay<decay_steps = 1000.0, decay_rate = 0.9, staircase = true>>
  // CHECK: #dtf.sgd<learning_rate = 0.1, schedule = #dtf.exponential_decay<decay_steps = 500.0, decay_rate = 0.5>>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1, schedule = #dtf.exponential_decay<decay_steps = 500.0, decay_rate = 0.5, staircase = false>>
  // CHECK: #dtf.adam<learning_rate = 0.1, schedule = #dtf.polynomial_decay<decay_steps = 2000.0, end_learning_rate = 0.001, power = 2.0>>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.adam<learning_rate = 0.1, schedule = #dtf.polynomial_decay<decay_steps = 2000.0, end_learning_rate = 0.001, power = 2.0>>
  // CHECK: #dtf.adagrad<learning_rate = 0.1, schedule = #dtf.polynomial_decay<decay_steps = 2000.0, cycle = true>>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.adagrad<learning_rate = 0.1, schedule = #dtf.polynomial_decay<decay_steps = 2000.0, end_learning_rate = 0.0001, power = 1.0, cycle = true>>
  // CHECK: #dtf.rmsprop<learning_rate = 0.001, schedule = #dtf.cosine_decay<decay_steps = 3000.0, alpha = 0.1>>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.rmsprop<learning_rate = 0.001, schedule = #dtf.cosine_decay<decay_steps = 3000.0, alpha = 0.1>>
  // CHECK: #dtf.ftrl<learning_rate = 0.1, schedule = #dtf.piecewise_constant<boundaries = [1000, 2000], values = [1.000000e-01, 1.000000e-02, 1.000000e-03]>>{{$}}
  dtf.minimize %loss : tensor<f32>, #dtf.ftrl<learning_rate = 0.1, schedule = #dtf.piecewise_constant<boundaries = [1000, 2000], values = [0.1, 0.01, 0.001]>>
  return
}

// -----

// CHECK-LABEL: func.func @updates
func.func @updates(%g: tensor<2xf32>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  %acc = dtf.variable "w/Momentum" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  // CHECK: dtf.apply_gradient_descent %{{.*}}, %{{.*}} learning_rate 1.000000e-01 schedule(#dtf.cosine_decay<decay_steps = 10.0>) : !dtf.resource<tensor<2xf32>>
  dtf.apply_gradient_descent %w, %g learning_rate 0.1 schedule(#dtf.cosine_decay<decay_steps = 10.0>) : !dtf.resource<tensor<2xf32>>
  // CHECK: dtf.apply_momentum %{{.*}}, %{{.*}}, %{{.*}} learning_rate 5.000000e-02 momentum 9.000000e-01 schedule(#dtf.exponential_decay<decay_steps = 1000.0, decay_rate = 0.9, staircase = true>) {use_nesterov = true} : !dtf.resource<tensor<2xf32>>
  dtf.apply_momentum %w, %acc, %g learning_rate 0.05 momentum 0.9 schedule(#dtf.exponential_decay<decay_steps = 1000.0, decay_rate = 0.9, staircase = true>) {use_nesterov = true} : !dtf.resource<tensor<2xf32>>
  return
}
