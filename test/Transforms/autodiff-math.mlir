// RUN: dtf-opt --dtf-autodiff %s | FileCheck %s

// The backward ops of the elementwise math ops whose rules are more than a
// product (test/gradcheck/math.mlir checks every rule numerically): the
// ones that must not produce NaN or reach through a stop_gradient.

// tanh's gradient uses its output: dy * (1 - y * y).
// CHECK-LABEL: func.func @tanh
// CHECK:      %[[Y:.*]] = dtf.tanh %[[XV:.*]] : tensor<3xf32>
// CHECK:      dtf.broadcast_to
// CHECK-NEXT: %[[ONE:.*]] = dtf.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SQ:.*]] = dtf.mul %[[Y]], %[[Y]]
// CHECK-NEXT: %[[D:.*]] = dtf.sub %[[ONE]], %[[SQ]]
// CHECK-NEXT: %[[DX:.*]] = dtf.mul %{{.*}}, %[[D]]
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<3xf32>)
func.func @tanh() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %xv = dtf.read %x : !dtf.resource<tensor<3xf32>>
  %y = dtf.tanh %xv : tensor<3xf32>
  %loss = dtf.reduce_sum %y : tensor<3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return %loss : tensor<f32>
}

// The gradient stops at stop_gradient: of x * stop_gradient(x), x gets
// dy * stop_gradient(x) only, as batch normalization's moments need.
// CHECK-LABEL: func.func @stop_gradient
// CHECK:      %[[XV:.*]] = dtf.read
// CHECK-NEXT: %[[S:.*]] = dtf.stop_gradient %[[XV]]
// CHECK-NEXT: %[[P:.*]] = dtf.mul %[[XV]], %[[S]]
// CHECK:      %[[DX:.*]] = dtf.mul %{{.*}}, %[[S]]
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<3xf32>)
func.func @stop_gradient() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %xv = dtf.read %x : !dtf.resource<tensor<3xf32>>
  %s = dtf.stop_gradient %xv : tensor<3xf32>
  %p = dtf.mul %xv, %s : tensor<3xf32>, tensor<3xf32>
  %loss = dtf.reduce_sum %p : tensor<3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return %loss : tensor<f32>
}

// div_no_nan's gradients are div_no_nans themselves, so that a zero
// divisor (tf.losses' mean over no weights) gives zeros, never NaN.
// CHECK-LABEL: func.func @div_no_nan
// CHECK:      %[[Q:.*]] = dtf.div_no_nan %[[XV:.*]], %[[W:.*]] : tensor<3xf32>, tensor<f32>
// CHECK:      %[[DX:.*]] = dtf.div_no_nan %[[DY:.*]], %[[W]]
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]] : tensor<3xf32>)
func.func @div_no_nan() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %w = dtf.placeholder "w" : tensor<f32>
  %xv = dtf.read %x : !dtf.resource<tensor<3xf32>>
  %q = dtf.div_no_nan %xv, %w : tensor<3xf32>, tensor<f32>
  %loss = dtf.reduce_sum %q : tensor<3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return %loss : tensor<f32>
}

// maximum: dy goes to x where x >= y (ties to x), to y elsewhere, each
// summed back to its operand's shape.
// CHECK-LABEL: func.func @maximum
// CHECK:      %[[M:.*]] = dtf.maximum %[[XV:.*]], %[[YV:.*]] : tensor<2x3xf32>, tensor<3xf32>
// CHECK:      %[[WINS:.*]] = dtf.greater_equal %[[XV]], %[[YV]]
// CHECK-NEXT: %[[ZERO:.*]] = dtf.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[DX:.*]] = dtf.select %[[WINS]], %[[DY:.*]], %[[ZERO]]
// CHECK-NEXT: %[[DYFULL:.*]] = dtf.select %[[WINS]], %[[ZERO]], %[[DY]]
// CHECK-NEXT: %[[SUM:.*]] = dtf.reduce_sum %[[DYFULL]] {axes = array<i64: 0>, keep_dims = true}
// CHECK-NEXT: %[[DYV:.*]] = dtf.reshape %[[SUM]] : tensor<1x3xf32> -> tensor<3xf32>
// CHECK-NEXT: dtf.apply_gradients {{.*}} grads(%[[DX]], %[[DYV]] : tensor<2x3xf32>, tensor<3xf32>)
func.func @maximum() -> tensor<f32> {
  %x = dtf.variable "x" init(#dtf.zeros) : !dtf.resource<tensor<2x3xf32>>
  %y = dtf.variable "y" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  %xv = dtf.read %x : !dtf.resource<tensor<2x3xf32>>
  %yv = dtf.read %y : !dtf.resource<tensor<3xf32>>
  %m = dtf.maximum %xv, %yv : tensor<2x3xf32>, tensor<3xf32>
  %loss = dtf.reduce_sum %m : tensor<2x3xf32>
  dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.5>
  return %loss : tensor<f32>
}
