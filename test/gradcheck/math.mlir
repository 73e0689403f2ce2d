// RUN: dtf-gradcheck %s | FileCheck %s
// exp, tanh, sqrt, rsqrt, abs, pow, minimum, maximum, select, div_no_nan,
// reduce_max and reduce_min:
// the analytic gradients of --dtf-autodiff against central differences.

// CHECK-DAG: @exp x: 6 of 6
// CHECK-DAG: @tanh x: 6 of 6
// CHECK-DAG: @sqrt x: 6 of 6
// CHECK-DAG: @rsqrt x: 6 of 6
// CHECK-DAG: @abs x: 6 of 6
// CHECK-DAG: @pow x: 6 of 6
// CHECK-DAG: @pow y: 3 of 3
// CHECK-DAG: @minimum x: 6 of 6
// CHECK-DAG: @minimum y: 3 of 3
// CHECK-DAG: @maximum x: 2 of 2
// CHECK-DAG: @maximum y: 3 of 3
// CHECK-DAG: @div_no_nan x: 6 of 6
// CHECK-DAG: @div_no_nan y: 6 of 6
// CHECK-DAG: @select x: 6 of 6
// CHECK-DAG: @select y: 3 of 3
// CHECK-DAG: @reduce_max x: 6 of 6
// CHECK-DAG: @reduce_min x: 6 of 6
// CHECK: gradient check passed

func.func @exp() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 1>) : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.exp %xv : tensor<2x3xf32>
  %p = dtf.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @tanh() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 2>) : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.tanh %xv : tensor<2x3xf32>
  %p = dtf.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @sqrt() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<mean = 2.0, stddev = 0.3, seed = 3>) : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.sqrt %xv : tensor<2x3xf32>
  %p = dtf.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @rsqrt() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<mean = 2.0, stddev = 0.3, seed = 4>) : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.rsqrt %xv : tensor<2x3xf32>
  %p = dtf.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @abs() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 5>) : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.abs %xv : tensor<2x3xf32>
  %p = dtf.mul %y, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @pow() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<mean = 2.0, stddev = 0.3, seed = 6>) : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.variable "y" init(#dtf.random_normal<stddev = 1.0, seed = 7>) : !dtf.resource<tensor<3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %yv = dtf.read %y : !dtf.resource<tensor<3xf32>>
  %z = dtf.pow %xv, %yv : tensor<2x3xf32>, tensor<3xf32>
  %p = dtf.mul %z, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @minimum() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 8>) : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.variable "y" init(#dtf.random_normal<stddev = 1.0, seed = 9>) : !dtf.resource<tensor<3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %yv = dtf.read %y : !dtf.resource<tensor<3xf32>>
  %z = dtf.minimum %xv, %yv : tensor<2x3xf32>, tensor<3xf32>
  %p = dtf.mul %z, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @maximum() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 10>) : !dtf.resource<tensor<2x1xf32>>
  %y = dtf.variable "y" init(#dtf.random_normal<stddev = 1.0, seed = 11>) : !dtf.resource<tensor<3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x1xf32>>
  %yv = dtf.read %y : !dtf.resource<tensor<3xf32>>
  %z = dtf.maximum %xv, %yv : tensor<2x1xf32>, tensor<3xf32>
  %p = dtf.mul %z, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @div_no_nan() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 12>) : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.variable "y" init(#dtf.random_normal<mean = 2.0, stddev = 0.3, seed = 13>) : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %yv = dtf.read %y : !dtf.resource<tensor<2x3xf32>>
  %z = dtf.div_no_nan %xv, %yv : tensor<2x3xf32>, tensor<2x3xf32>
  %p = dtf.mul %z, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @select() -> tensor<f32> {
  // The condition comes from a fed placeholder (rows of probabilities,
  // about 1/3 each): some elements come from each value.
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 14>) : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.variable "y" init(#dtf.random_normal<stddev = 1.0, seed = 15>) : !dtf.resource<tensor<3xf32>>
  %c = dtf.placeholder "c" : tensor<2x3xf32>
  %r = dtf.placeholder "r" : tensor<2x3xf32>
  %third = dtf.constant dense<0.333> : tensor<f32>
  %mask = dtf.greater %c, %third : tensor<2x3xf32>, tensor<f32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %yv = dtf.read %y : !dtf.resource<tensor<3xf32>>
  %z = dtf.select %mask, %xv, %yv : tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>
  %p = dtf.mul %z, %r : tensor<2x3xf32>, tensor<2x3xf32>
  %loss = dtf.reduce_sum %p : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

// reduce_max and reduce_min over rows and over everything.
func.func @reduce_max() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 16>) : !dtf.resource<tensor<2x3xf32>>
  %r = dtf.placeholder "r" : tensor<2xf32>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %m = "dtf.reduce_max"(%xv) <{axes = array<i64: 1>, keep_dims = false}> : (tensor<2x3xf32>) -> tensor<2xf32>
  %p = dtf.mul %m, %r : tensor<2xf32>, tensor<2xf32>
  %loss = dtf.reduce_sum %p : tensor<2xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}

func.func @reduce_min() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.random_normal<stddev = 1.0, seed = 17>) : !dtf.resource<tensor<2x3xf32>>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %loss = dtf.reduce_min %xv : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
  return %loss : tensor<f32>
}
