// tf.nn.l2_loss (L2Loss), the weight decay of L2 regularization, is half
// the sum of the squares: dtf.mul, dtf.reduce_sum over every dimension and
// a product with 0.5; autodiff derives its gradient (the input) from them.
// RUN: split-file %s %t
// RUN: dtf-translate --import-graphdef %t/decay.pbtxt | FileCheck %s
// CHECK: %[[W:.*]] = dtf.variable "w"
// CHECK: %[[R:.*]] = dtf.read %[[W]] : !dtf.resource<tensor<2x3xf32>>
// CHECK: %[[SQ:.*]] = dtf.mul %[[R]], %[[R]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: %[[SUM:.*]] = dtf.reduce_sum %[[SQ]] {axes = array<i64: 0, 1>} : tensor<2x3xf32>
// CHECK: %[[HALF:.*]] = dtf.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[L2:.*]] = dtf.mul %[[SUM]], %[[HALF]] : tensor<f32>, tensor<f32>
// CHECK: dtf.minimize %[[L2]]

// The gradient: 0.5 * w + w * 0.5 (the square's two uses), which is w.
// RUN: dtf-translate --import-graphdef %t/decay.pbtxt | dtf-opt --dtf-autodiff | FileCheck %s --check-prefix=GRAD
// GRAD: %[[G:.*]] = dtf.add
// GRAD-NEXT: dtf.apply_gradients #dtf.sgd<learning_rate = 0.1>(%{{.*}} : !dtf.resource<tensor<2x3xf32>>) grads(%[[G]] : tensor<2x3xf32>)

// RUN: not dtf-translate --import-graphdef %t/ints.pbtxt --outputs=l2 2>&1 | FileCheck %s --check-prefix=INTS
// INTS: ints.pbtxt:2:1: error: node 'l2' (L2Loss): takes 'tensor<3xi32>'; l2_loss is of floats

//--- decay.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
node { name: "w/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 2 int_val: 3 } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "w/init" op: "Fill" input: "w/shape" input: "one" }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/init" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "L2Loss" op: "L2Loss" input: "w/read" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "gradients/grad_ys_0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/L2Loss_grad/mul" op: "Mul" input: "w/read" input: "gradients/grad_ys_0" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "GradientDescent/update_w/ApplyGradientDescent" op: "ApplyGradientDescent" input: "w" input: "lr" input: "gradients/L2Loss_grad/mul" }
//--- ints.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "l2" op: "L2Loss" input: "x" }
