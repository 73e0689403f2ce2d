// RUN: dtf-opt --dtf-expand-optimizer --split-input-file %s | FileCheck %s

// Plain gradient descent: one update per variable, then the global step,
// incremented by a constant of its own integer type.
// CHECK-LABEL: func.func @sgd
// CHECK-SAME: (%[[DW:.*]]: tensor<4x2xf32>, %[[DB:.*]]: tensor<2xf32>)
// CHECK-NEXT: %[[STEP:.*]] = dtf.variable "global_step"
// CHECK-NEXT: %[[W:.*]] = dtf.variable "w"
// CHECK-NEXT: %[[B:.*]] = dtf.variable "b"
// CHECK-NEXT: dtf.apply_gradient_descent %[[W]], %[[DW]] learning_rate 5.000000e-01 : !dtf.resource<tensor<4x2xf32>>
// CHECK-NEXT: dtf.apply_gradient_descent %[[B]], %[[DB]] learning_rate 5.000000e-01 : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT: %[[ONE:.*]] = dtf.constant dense<1> : tensor<i32>
// CHECK-NEXT: dtf.assign_add %[[STEP]], %[[ONE]] : !dtf.resource<tensor<i32>>
// CHECK-NEXT: return
func.func @sgd(%dw: tensor<4x2xf32>, %db: tensor<2xf32>) {
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i32>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  dtf.apply_gradients #dtf.sgd<learning_rate = 0.5>
      (%w, %b : !dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<2xf32>>)
      grads(%dw, %db : tensor<4x2xf32>, tensor<2xf32>)
      global_step %step : !dtf.resource<tensor<i32>>
  return
}

// -----

// SGD needs no slots, so any resource will do.
// CHECK-LABEL: func.func @sgd_argument
// CHECK-SAME: (%[[V:.*]]: !dtf.resource<tensor<3xf32>>, %[[G:.*]]: tensor<3xf32>)
// CHECK-NEXT: dtf.apply_gradient_descent %[[V]], %[[G]] learning_rate 1.000000e-01
// CHECK-NEXT: return
func.func @sgd_argument(%v: !dtf.resource<tensor<3xf32>>, %g: tensor<3xf32>) {
  dtf.apply_gradients #dtf.sgd<learning_rate = 0.1> (%v : !dtf.resource<tensor<3xf32>>) grads(%g : tensor<3xf32>)
  return
}

// -----

// Momentum: a zero-initialized, non-trainable "<var>/Momentum" slot right
// after each variable, and apply_momentum with Nesterov carried over. No
// global step: nothing is incremented.
// CHECK-LABEL: func.func @momentum
// CHECK-SAME: (%[[DW:.*]]: tensor<4x2xf32>, %[[DB:.*]]: tensor<2xf32>)
// CHECK-NEXT: %[[W:.*]] = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
// CHECK-NEXT: %[[WM:.*]] = dtf.variable "w/Momentum" init(#dtf.zeros) colocate_with("w") {trainable = false} : !dtf.resource<tensor<4x2xf32>>
// CHECK-NEXT: %[[B:.*]] = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT: %[[BM:.*]] = dtf.variable "b/Momentum" init(#dtf.zeros) colocate_with("b") {trainable = false} : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT: dtf.apply_momentum %[[W]], %[[WM]], %[[DW]] learning_rate 1.000000e-01 momentum 9.000000e-01 {use_nesterov = true} : !dtf.resource<tensor<4x2xf32>>
// CHECK-NEXT: dtf.apply_momentum %[[B]], %[[BM]], %[[DB]] learning_rate 1.000000e-01 momentum 9.000000e-01 {use_nesterov = true} : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT: return
func.func @momentum(%dw: tensor<4x2xf32>, %db: tensor<2xf32>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  dtf.apply_gradients #dtf.momentum<learning_rate = 0.1, momentum = 0.9, use_nesterov = true>
      (%w, %b : !dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<2xf32>>)
      grads(%dw, %db : tensor<4x2xf32>, tensor<2xf32>)
  return
}

// -----

// Without Nesterov the attribute keeps its default.
// CHECK-LABEL: func.func @momentum_plain
// CHECK: dtf.apply_momentum {{.*}} learning_rate 1.000000e-01 momentum 5.000000e-01 : !dtf.resource<tensor<f32>>
func.func @momentum_plain(%g: tensor<f32>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<f32>>
  dtf.apply_gradients #dtf.momentum<learning_rate = 0.1, momentum = 0.5> (%w : !dtf.resource<tensor<f32>>) grads(%g : tensor<f32>)
  return
}

// -----

// RMSProp as TensorFlow 1 makes it: the mean square "<var>/RMSProp" starts
// at ones, the momentum "<var>/RMSProp_1" at zeros; centered, the mean
// gradient takes "<var>/RMSProp_1" and the momentum "<var>/RMSProp_2".
// CHECK-LABEL: func.func @rmsprop
// CHECK-SAME: (%[[DW:.*]]: tensor<4x2xf32>, %[[DB:.*]]: tensor<2xf32>)
// CHECK-NEXT: %[[W:.*]] = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
// CHECK-NEXT: %[[WMS:.*]] = dtf.variable "w/RMSProp" init(#dtf.constant<1.0>) colocate_with("w") {trainable = false} : !dtf.resource<tensor<4x2xf32>>
// CHECK-NEXT: %[[WMOM:.*]] = dtf.variable "w/RMSProp_1" init(#dtf.zeros) colocate_with("w") {trainable = false} : !dtf.resource<tensor<4x2xf32>>
// CHECK-NEXT: %[[B:.*]] = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT: %[[BMS:.*]] = dtf.variable "b/RMSProp" init(#dtf.constant<1.0>) colocate_with("b") {trainable = false} : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT: %[[BMOM:.*]] = dtf.variable "b/RMSProp_1" init(#dtf.zeros) colocate_with("b") {trainable = false} : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT: dtf.apply_rmsprop %[[W]], %[[WMS]], %[[WMOM]], %[[DW]] learning_rate 1.000000e-02 decay 9.000000e-01 momentum 5.000000e-01 epsilon 1.000000e-10 : !dtf.resource<tensor<4x2xf32>>
// CHECK-NEXT: dtf.apply_rmsprop %[[B]], %[[BMS]], %[[BMOM]], %[[DB]] learning_rate 1.000000e-02 decay 9.000000e-01 momentum 5.000000e-01 epsilon 1.000000e-10 : !dtf.resource<tensor<2xf32>>
// CHECK-NEXT: return
func.func @rmsprop(%dw: tensor<4x2xf32>, %db: tensor<2xf32>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  dtf.apply_gradients #dtf.rmsprop<learning_rate = 0.01, momentum = 0.5>
      (%w, %b : !dtf.resource<tensor<4x2xf32>>, !dtf.resource<tensor<2xf32>>)
      grads(%dw, %db : tensor<4x2xf32>, tensor<2xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @rmsprop_centered
// CHECK-NEXT: %[[W:.*]] = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
// CHECK-NEXT: %[[MS:.*]] = dtf.variable "w/RMSProp" init(#dtf.constant<1.0>)
// CHECK-NEXT: %[[MG:.*]] = dtf.variable "w/RMSProp_1" init(#dtf.zeros)
// CHECK-NEXT: %[[MOM:.*]] = dtf.variable "w/RMSProp_2" init(#dtf.zeros)
// CHECK-NEXT: dtf.apply_centered_rmsprop %[[W]], %[[MG]], %[[MS]], %[[MOM]], %{{.*}} learning_rate 1.000000e-03 decay 8.000000e-01 momentum 0.000000e+00 epsilon 1.000000e-03 : !dtf.resource<tensor<3xf32>>
func.func @rmsprop_centered(%g: tensor<3xf32>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  dtf.apply_gradients #dtf.rmsprop<learning_rate = 0.001, decay = 0.8, epsilon = 1.0e-3, centered = true> (%w : !dtf.resource<tensor<3xf32>>) grads(%g : tensor<3xf32>)
  return
}

// -----

// Adadelta as TensorFlow 1 makes it: accum "<var>/Adadelta" and
// accum_update "<var>/Adadelta_1", both of zeros.
// CHECK-LABEL: func.func @adadelta
// CHECK-NEXT: %[[W:.*]] = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
// CHECK-NEXT: %[[ACCUM:.*]] = dtf.variable "w/Adadelta" init(#dtf.zeros) colocate_with("w") {trainable = false} : !dtf.resource<tensor<3xf32>>
// CHECK-NEXT: %[[UPDATE:.*]] = dtf.variable "w/Adadelta_1" init(#dtf.zeros) colocate_with("w") {trainable = false} : !dtf.resource<tensor<3xf32>>
// CHECK-NEXT: dtf.apply_adadelta %[[W]], %[[ACCUM]], %[[UPDATE]], %{{.*}} learning_rate 1.000000e+00 rho 0.94999999999999996 epsilon 1.000000e-08 : !dtf.resource<tensor<3xf32>>
// CHECK-NEXT: return
func.func @adadelta(%g: tensor<3xf32>) {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<3xf32>>
  dtf.apply_gradients #dtf.adadelta<learning_rate = 1.0> (%w : !dtf.resource<tensor<3xf32>>) grads(%g : tensor<3xf32>)
  return
}

// -----

// Adam: m and v slots "<var>/Adam" and "<var>/Adam_1" after each variable;
// beta1_power and beta2_power, scalars of the variables' float type
// initialized to beta1 and beta2, next to the variable whose name sorts
// first ("b", as TensorFlow's min(var_list, key=name)); every apply_adam
// reads the same powers; then the powers advance and the step increments.
// CHECK-LABEL: func.func @adam
// CHECK-SAME: (%[[DW:.*]]: tensor<4x2xf16>, %[[DB:.*]]: tensor<2xf16>)
// CHECK-NEXT: %[[STEP:.*]] = dtf.variable "global_step"
// CHECK-NEXT: %[[W:.*]] = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf16>>
// CHECK-NEXT: %[[WM:.*]] = dtf.variable "w/Adam" init(#dtf.zeros) colocate_with("w") {trainable = false} : !dtf.resource<tensor<4x2xf16>>
// CHECK-NEXT: %[[WV:.*]] = dtf.variable "w/Adam_1" init(#dtf.zeros) colocate_with("w") {trainable = false} : !dtf.resource<tensor<4x2xf16>>
// CHECK-NEXT: %[[B:.*]] = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf16>>
// CHECK-NEXT: %[[BM:.*]] = dtf.variable "b/Adam" init(#dtf.zeros) colocate_with("b") {trainable = false} : !dtf.resource<tensor<2xf16>>
// CHECK-NEXT: %[[BV:.*]] = dtf.variable "b/Adam_1" init(#dtf.zeros) colocate_with("b") {trainable = false} : !dtf.resource<tensor<2xf16>>
// CHECK-NEXT: %[[B1P:.*]] = dtf.variable "beta1_power" init(#dtf.constant<0.8>) colocate_with("b") {trainable = false} : !dtf.resource<tensor<f16>>
// CHECK-NEXT: %[[B2P:.*]] = dtf.variable "beta2_power" init(#dtf.constant<0.999>) colocate_with("b") {trainable = false} : !dtf.resource<tensor<f16>>
// CHECK-NEXT: %[[B1:.*]] = dtf.read %[[B1P]] : !dtf.resource<tensor<f16>>
// CHECK-NEXT: %[[B2:.*]] = dtf.read %[[B2P]] : !dtf.resource<tensor<f16>>
// CHECK-NEXT: dtf.apply_adam %[[W]], %[[WM]], %[[WV]], %[[B1]], %[[B2]], %[[DW]] learning_rate 1.000000e-02 beta1 8.000000e-01 beta2 0.99899999999999999 epsilon 1.000000e-08 : !dtf.resource<tensor<4x2xf16>>, tensor<f16>
// CHECK-NEXT: dtf.apply_adam %[[B]], %[[BM]], %[[BV]], %[[B1]], %[[B2]], %[[DB]] learning_rate 1.000000e-02 beta1 8.000000e-01 beta2 0.99899999999999999 epsilon 1.000000e-08 : !dtf.resource<tensor<2xf16>>, tensor<f16>
// CHECK-NEXT: %[[R1:.*]] = dtf.read %[[B1P]] : !dtf.resource<tensor<f16>>
// CHECK-NEXT: %[[C1:.*]] = dtf.constant dense<7.998050e-01> : tensor<f16>
// CHECK-NEXT: %[[M1:.*]] = dtf.mul %[[R1]], %[[C1]] : tensor<f16>, tensor<f16>
// CHECK-NEXT: dtf.assign %[[B1P]], %[[M1]] : !dtf.resource<tensor<f16>>
// CHECK-NEXT: %[[R2:.*]] = dtf.read %[[B2P]] : !dtf.resource<tensor<f16>>
// CHECK-NEXT: %[[C2:.*]] = dtf.constant dense<9.990230e-01> : tensor<f16>
// CHECK-NEXT: %[[M2:.*]] = dtf.mul %[[R2]], %[[C2]] : tensor<f16>, tensor<f16>
// CHECK-NEXT: dtf.assign %[[B2P]], %[[M2]] : !dtf.resource<tensor<f16>>
// CHECK-NEXT: %[[ONE:.*]] = dtf.constant dense<1> : tensor<i64>
// CHECK-NEXT: dtf.assign_add %[[STEP]], %[[ONE]] : !dtf.resource<tensor<i64>>
// CHECK-NEXT: return
func.func @adam(%dw: tensor<4x2xf16>, %db: tensor<2xf16>) {
  %step = dtf.variable "global_step" init(#dtf.zeros) {trainable = false} : !dtf.resource<tensor<i64>>
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x2xf16>>
  %b = dtf.variable "b" init(#dtf.zeros) : !dtf.resource<tensor<2xf16>>
  dtf.apply_gradients #dtf.adam<learning_rate = 0.01, beta1 = 0.8>
      (%w, %b : !dtf.resource<tensor<4x2xf16>>, !dtf.resource<tensor<2xf16>>)
      grads(%dw, %db : tensor<4x2xf16>, tensor<2xf16>)
      global_step %step : !dtf.resource<tensor<i64>>
  return
}

// -----

// Two optimizers on one variable: names already taken get TensorFlow's
// "_N" suffix, and each optimizer's variables follow the previous ones.
// Variables an optimizer creates, and its updates, are colocated with the
// variable they belong to.
// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[G:.*]]: tensor<f32>)
// CHECK-NEXT: %[[W:.*]] = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: %[[M1:.*]] = dtf.variable "w/Adam" init(#dtf.zeros) colocate_with("w") {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false}
// CHECK-NEXT: %[[V1:.*]] = dtf.variable "w/Adam_1" init(#dtf.zeros) colocate_with("w") {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false}
// CHECK-NEXT: %[[P1:.*]] = dtf.variable "beta1_power" init(#dtf.constant<0.9>) colocate_with("w") {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false}
// CHECK-NEXT: %[[Q1:.*]] = dtf.variable "beta2_power" init(#dtf.constant<0.999>) colocate_with("w") {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false}
// CHECK-NEXT: %[[M2:.*]] = dtf.variable "w/Adam_2" init(#dtf.zeros) colocate_with("w") {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false}
// CHECK-NEXT: %[[V2:.*]] = dtf.variable "w/Adam_3" init(#dtf.zeros) colocate_with("w") {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false}
// CHECK-NEXT: %[[P2:.*]] = dtf.variable "beta1_power_1" init(#dtf.constant<0.9>) colocate_with("w") {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false}
// CHECK-NEXT: %[[Q2:.*]] = dtf.variable "beta2_power_1" init(#dtf.constant<0.999>) colocate_with("w") {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false}
// CHECK:      dtf.apply_adam %[[W]], %[[M1]], %[[V1]], {{.*}} {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK:      dtf.assign %[[P1]], {{.*}} {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK:      dtf.assign %[[Q1]], {{.*}} {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK:      dtf.apply_adam %[[W]], %[[M2]], %[[V2]], {{.*}} {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK:      dtf.assign %[[P2]], {{.*}} {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK:      dtf.assign %[[Q2]], {{.*}} {dtf.device = #dtf.device<"/job:ps/task:1">}
// CHECK-NEXT: return
func.func @twice(%g: tensor<f32>) {
  %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<f32>>
  dtf.apply_gradients #dtf.adam<> (%w : !dtf.resource<tensor<f32>>) grads(%g : tensor<f32>)
  dtf.apply_gradients #dtf.adam<> (%w : !dtf.resource<tensor<f32>>) grads(%g : tensor<f32>)
  return
}
