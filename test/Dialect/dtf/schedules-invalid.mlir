// The verifiers of the learning-rate schedules and of an optimizer's
// schedule parameter.
// RUN: dtf-opt %s -split-input-file -verify-diagnostics

func.func @decay_steps(%loss: tensor<f32>) {
  // expected-error @+2 {{decay_steps must be positive and finite, got 0}}
  // expected-error @+1 {{failed to parse DTF_SGDAttr parameter 'schedule'}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1, schedule = #dtf.exponential_decay<decay_steps = 0.0, decay_rate = 0.9>>
  return
}

// -----

func.func @decay_rate(%loss: tensor<f32>) {
  // expected-error @+2 {{decay_rate must be positive and finite, got -5.000000e-01}}
  // expected-error @+1 {{failed to parse DTF_SGDAttr parameter 'schedule'}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1, schedule = #dtf.exponential_decay<decay_steps = 10.0, decay_rate = -0.5>>
  return
}

// -----

func.func @polynomial_power(%loss: tensor<f32>) {
  // expected-error @+2 {{power must be positive and finite, got 0}}
  // expected-error @+1 {{failed to parse DTF_SGDAttr parameter 'schedule'}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1, schedule = #dtf.polynomial_decay<decay_steps = 10.0, power = 0.0>>
  return
}

// -----

func.func @polynomial_end(%loss: tensor<f32>) {
  // expected-error @+2 {{end_learning_rate must be non-negative and finite, got -1}}
  // expected-error @+1 {{failed to parse DTF_SGDAttr parameter 'schedule'}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1, schedule = #dtf.polynomial_decay<decay_steps = 10.0, end_learning_rate = -1.0>>
  return
}

// -----

func.func @cosine_alpha(%loss: tensor<f32>) {
  // expected-error @+2 {{alpha must be in [0, 1], got 1.500000e+00}}
  // expected-error @+1 {{failed to parse DTF_SGDAttr parameter 'schedule'}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1, schedule = #dtf.cosine_decay<decay_steps = 10.0, alpha = 1.5>>
  return
}

// -----

func.func @piecewise_count(%loss: tensor<f32>) {
  // expected-error @+2 {{piecewise_constant needs one value more than boundaries, got 2 values for 2 boundaries}}
  // expected-error @+1 {{failed to parse DTF_SGDAttr parameter 'schedule'}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1, schedule = #dtf.piecewise_constant<boundaries = [10, 20], values = [0.1, 0.01]>>
  return
}

// -----

func.func @piecewise_order(%loss: tensor<f32>) {
  // expected-error @+2 {{piecewise_constant boundaries must increase, got 20 before 10}}
  // expected-error @+1 {{failed to parse DTF_SGDAttr parameter 'schedule'}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1, schedule = #dtf.piecewise_constant<boundaries = [20, 10], values = [0.1, 0.01, 0.001]>>
  return
}

// -----

func.func @piecewise_value(%loss: tensor<f32>) {
  // expected-error @+2 {{piecewise_constant values must be positive and finite, got 0}}
  // expected-error @+1 {{failed to parse DTF_SGDAttr parameter 'schedule'}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1, schedule = #dtf.piecewise_constant<boundaries = [10], values = [0.1, 0.0]>>
  return
}

// -----

func.func @piecewise_start(%loss: tensor<f32>) {
  // expected-error @+1 {{learning_rate 5.000000e-01 must be the first value of its piecewise_constant schedule, 1.000000e-01}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5, schedule = #dtf.piecewise_constant<boundaries = [10], values = [0.1, 0.01]>>
  return
}

// -----

func.func @not_a_schedule(%loss: tensor<f32>) {
  // expected-error @+1 {{schedule must be a learning-rate schedule (exponential_decay, polynomial_decay, cosine_decay, piecewise_constant), got #dtf.zeros}}
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1, schedule = #dtf.zeros>
  return
}

// -----

func.func @update_schedule(%g: tensor<2xf32>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  // expected-error @+1 {{'dtf.apply_gradient_descent' op attribute 'schedule' failed to satisfy constraint}}
  "dtf.apply_gradient_descent"(%w, %g) <{learning_rate = 0.1 : f64, schedule = #dtf.zeros}> : (!dtf.resource<tensor<2xf32>>, tensor<2xf32>) -> ()
  return
}
