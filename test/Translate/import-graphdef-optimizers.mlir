// The optimizers' apply ops in their other forms: ApplyMomentum with
// use_nesterov on a reference variable, ResourceApplyAdam and
// ResourceApplyGradientDescent on resource variables, ApplyRMSProp,
// ResourceApplyCenteredRMSProp and ApplyAdadelta, each with its
// hyper-parameters from Consts. Without a global step, dtf.minimize has
// none. (Hand-written GraphDefs: a variable w, y = sum(w * x), the seed of
// the backward pass and the update.)
// RUN: split-file %s %t
// RUN: dtf-translate --import-graphdef %t/momentum.pbtxt | FileCheck %s --check-prefix=MOMENTUM
// RUN: dtf-translate --import-graphdef %t/adam.pbtxt | FileCheck %s --check-prefix=ADAM
// RUN: dtf-translate --import-graphdef %t/sgd.pbtxt | FileCheck %s --check-prefix=SGD
// RUN: dtf-translate --import-graphdef %t/rmsprop.pbtxt | FileCheck %s --check-prefix=RMSPROP
// RUN: dtf-translate --import-graphdef %t/centered.pbtxt | FileCheck %s --check-prefix=CENTERED
// RUN: dtf-translate --import-graphdef %t/adadelta.pbtxt | FileCheck %s --check-prefix=ADADELTA

// MOMENTUM:      %[[W:.*]] = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
// MOMENTUM-NEXT: %[[V:.*]] = dtf.read %[[W]]
// MOMENTUM-NEXT: %[[X:.*]] = dtf.placeholder "x" : tensor<2xf32>
// MOMENTUM-NEXT: %[[M:.*]] = dtf.mul %[[V]], %[[X]]
// MOMENTUM-NEXT: %[[LOSS:.*]] = dtf.reduce_sum %[[M]] {axes = array<i64: 0>}
// MOMENTUM-NEXT: dtf.minimize %[[LOSS]] : tensor<f32>, #dtf.momentum<learning_rate = 0.1, momentum = 0.9, use_nesterov = true>{{$}}
// MOMENTUM-NEXT: return %[[LOSS]] : tensor<f32>

// ADAM: dtf.minimize %{{.*}} : tensor<f32>, #dtf.adam<learning_rate = 0.002, beta1 = 0.8, beta2 = 0.99, epsilon = 1.0e-07>{{$}}

// RMSPROP: dtf.minimize %{{.*}} : tensor<f32>, #dtf.rmsprop<learning_rate = 0.01, decay = 0.8, momentum = 0.5, epsilon = 0.0001>{{$}}
// CENTERED: dtf.minimize %{{.*}} : tensor<f32>, #dtf.rmsprop<learning_rate = 0.001, centered = true>{{$}}
// ADADELTA: dtf.minimize %{{.*}} : tensor<f32>, #dtf.adadelta<learning_rate = 1.0, rho = 0.9, epsilon = 1.0e-06>{{$}}

// SGD: dtf.read
// SGD: dtf.minimize %{{.*}} : tensor<f32>, #dtf.sgd<learning_rate = 0.25>{{$}}

//--- momentum.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/initial_value" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "mul" op: "Mul" input: "w/read" input: "x" }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "loss" op: "Sum" input: "mul" input: "axes" }
node { name: "gradients/grad_ys_0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/loss_grad/Tile" op: "Tile" input: "gradients/grad_ys_0" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "momentum" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.9 } } } }
node { name: "Momentum/update_w/ApplyMomentum" op: "ApplyMomentum" input: "w" input: "w/Momentum" input: "lr" input: "gradients/loss_grad/Tile" input: "momentum" attr { key: "use_nesterov" value { b: true } } }
//--- adam.pbtxt
node { name: "w" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "w/Assign" op: "AssignVariableOp" input: "w" input: "w/initial_value" }
node { name: "w/read" op: "ReadVariableOp" input: "w" }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "mul" op: "Mul" input: "w/read" input: "x" }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "loss" op: "Sum" input: "mul" input: "axes" }
node { name: "gradients/grad_ys_0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/loss_grad/Tile" op: "Tile" input: "gradients/grad_ys_0" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.002 } } } }
node { name: "beta1" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.8 } } } }
node { name: "beta2" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.99 } } } }
node { name: "epsilon" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1e-07 } } } }
node { name: "Adam/update_w/ResourceApplyAdam" op: "ResourceApplyAdam" input: "w" input: "w/Adam" input: "w/Adam_1" input: "beta1_power" input: "beta2_power" input: "lr" input: "beta1" input: "beta2" input: "epsilon" input: "gradients/loss_grad/Tile" }
//--- sgd.pbtxt
node { name: "w" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "w/Assign" op: "AssignVariableOp" input: "w" input: "w/initial_value" }
node { name: "w/read" op: "ReadVariableOp" input: "w" }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "mul" op: "Mul" input: "w/read" input: "x" }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "loss" op: "Sum" input: "mul" input: "axes" }
node { name: "gradients/grad_ys_0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/loss_grad/Tile" op: "Tile" input: "gradients/grad_ys_0" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.25 } } } }
node { name: "GradientDescent/update_w/ResourceApplyGradientDescent" op: "ResourceApplyGradientDescent" input: "w" input: "lr" input: "gradients/loss_grad/Tile" }
//--- rmsprop.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/initial_value" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "mul" op: "Mul" input: "w/read" input: "x" }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "loss" op: "Sum" input: "mul" input: "axes" }
node { name: "gradients/grad_ys_0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/loss_grad/Tile" op: "Tile" input: "gradients/grad_ys_0" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.01 } } } }
node { name: "rho" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.8 } } } }
node { name: "momentum" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.5 } } } }
node { name: "epsilon" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.0001 } } } }
node { name: "RMSProp/update_w/ApplyRMSProp" op: "ApplyRMSProp" input: "w" input: "w/RMSProp" input: "w/RMSProp_1" input: "lr" input: "rho" input: "momentum" input: "epsilon" input: "gradients/loss_grad/Tile" }
//--- centered.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/initial_value" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "mul" op: "Mul" input: "w/read" input: "x" }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "loss" op: "Sum" input: "mul" input: "axes" }
node { name: "gradients/grad_ys_0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/loss_grad/Tile" op: "Tile" input: "gradients/grad_ys_0" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.001 } } } }
node { name: "rho" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.9 } } } }
node { name: "momentum" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
node { name: "epsilon" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1e-10 } } } }
node { name: "RMSProp/update_w/ResourceApplyCenteredRMSProp" op: "ResourceApplyCenteredRMSProp" input: "w" input: "w/RMSProp_1" input: "w/RMSProp" input: "w/RMSProp_2" input: "lr" input: "rho" input: "momentum" input: "epsilon" input: "gradients/loss_grad/Tile" }
//--- adadelta.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/initial_value" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "mul" op: "Mul" input: "w/read" input: "x" }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "loss" op: "Sum" input: "mul" input: "axes" }
node { name: "gradients/grad_ys_0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/loss_grad/Tile" op: "Tile" input: "gradients/grad_ys_0" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "rho" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.9 } } } }
node { name: "epsilon" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1e-06 } } } }
node { name: "Adadelta/update_w/ApplyAdadelta" op: "ApplyAdadelta" input: "w" input: "w/Adadelta" input: "w/Adadelta_1" input: "lr" input: "rho" input: "epsilon" input: "gradients/loss_grad/Tile" }
