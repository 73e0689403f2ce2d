// tf.add_n (AddN) is a chain of dtf.add, of one input that input; Square is
// the input times itself; Snapshot is its input. DTF's autodiff then
// derives their gradients from those of add and mul.
// RUN: split-file %s %t
// RUN: dtf-translate --import-graphdef %t/sums.pbtxt | FileCheck %s
// CHECK: %[[W:.*]] = dtf.variable "w" init(#dtf.constant<2.0>)
// CHECK: %[[R:.*]] = dtf.read %[[W]]
// CHECK: %[[X:.*]] = dtf.placeholder "x"
// CHECK: %[[H:.*]] = dtf.mul %[[R]], %[[X]]
// CHECK: %[[SQ:.*]] = dtf.mul %[[H]], %[[H]]
// CHECK: %[[A1:.*]] = dtf.add %[[H]], %[[SQ]]
// CHECK: %[[A2:.*]] = dtf.add %[[A1]], %[[SQ]]
// CHECK: %[[S:.*]] = dtf.reduce_sum %[[A2]]
// CHECK: dtf.minimize %[[S]]
// CHECK-NOT: dtf.add

// RUN: dtf-translate --import-graphdef %t/one.pbtxt --outputs=total | FileCheck %s --check-prefix=ONE
// ONE: %[[X:.*]] = dtf.placeholder "x"
// ONE-NEXT: return %[[X]]

// RUN: not dtf-translate --import-graphdef %t/no-n.pbtxt --outputs=total 2>&1 | FileCheck %s --check-prefix=NO-N
// NO-N: no-n.pbtxt:2:1: error: node 'total' (AddN): needs an 'N' of at least 1

//--- sums.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 2 } } } }
node { name: "two" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }
node { name: "w/init" op: "Fill" input: "w/shape" input: "two" }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/init" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "h" op: "Mul" input: "w/read" input: "x" }
node { name: "h/snapshot" op: "Snapshot" input: "h" }
node { name: "square" op: "Square" input: "h/snapshot" }
node { name: "total" op: "AddN" input: "h" input: "square" input: "square" attr { key: "N" value { i: 3 } } attr { key: "T" value { type: DT_FLOAT } } }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "loss" op: "Sum" input: "total" input: "axes" }
node { name: "gradients/grad_ys_0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/loss_grad/Tile" op: "Tile" input: "gradients/grad_ys_0" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "GradientDescent/update_w/ApplyGradientDescent" op: "ApplyGradientDescent" input: "w" input: "lr" input: "gradients/loss_grad/Tile" }
//--- one.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "total" op: "AddN" input: "x" attr { key: "N" value { i: 1 } } }
//--- no-n.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "total" op: "AddN" input: "x" }
