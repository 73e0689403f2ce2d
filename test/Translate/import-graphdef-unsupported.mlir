// A graph that uses ops dtf-translate does not import fails with one error
// that lists them all: each op, the most used first (by name on a tie), with
// how many nodes use it and which, in the graph's order. Only what the import
// would translate counts: the forward graph from the roots, and the
// optimizers' updates; not an initializer, a control input or what no root
// reaches.
// RUN: split-file %s %t

// Ops of the forward graph, one below another, and the update of an
// optimizer DTF does not recognize; listed in place of the error of the
// string placeholder, which the translation meets first.
// RUN: not dtf-translate --import-graphdef %t/several.pbtxt 2> %t/err
// RUN: FileCheck %s --check-prefix=SEVERAL < %t/err && count 1 < %t/err
// SEVERAL: several.pbtxt: error: 5 nodes use 4 ops dtf-translate does not import: 'Asinh' (2: 'a/Asinh', 'b/Asinh'), 'ApplyProximalAdagrad' (1: 'ProximalAdagrad/update_v/ApplyProximalAdagrad'), 'Elu' (1: 'b/Elu'), 'Softsign' (1: 'softsign')

// Many nodes of one op: the first few, and how many more.
// RUN: not dtf-translate --import-graphdef %t/many.pbtxt --outputs=t5,e3 2> %t/err
// RUN: FileCheck %s --check-prefix=MANY < %t/err && count 1 < %t/err
// MANY: many.pbtxt: error: 10 nodes use 2 ops dtf-translate does not import: 'Asinh' (6: 't0', 't1', 't2' and 3 more), 'Elu' (4: 'e0', 'e1', 'e2', 'e3')

// Ops the import reads or never reaches: a truncated_normal initializer, an
// Assert under a control input, a summary, a dropout no root needs.
// RUN: dtf-translate --import-graphdef %t/imports.pbtxt | FileCheck %s --check-prefix=IMPORTS
// IMPORTS: dtf.variable "w" init(#dtf.truncated_normal<stddev = 0.1, seed = 7>)
// IMPORTS-NEXT: dtf.read
// IMPORTS-NEXT: dtf.placeholder "x"
// IMPORTS-NEXT: dtf.mul
// IMPORTS-NEXT: dtf.reduce_sum
// IMPORTS-NEXT: dtf.minimize
// IMPORTS-NEXT: return

//--- several.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "z" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 2 } } } }
node { name: "w/zeros" op: "Fill" input: "w/shape" input: "zero" }
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/zeros" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "h" op: "Mul" input: "w/read" input: "x" }
node { name: "a/Asinh" op: "Asinh" input: "h" }
node { name: "b/Elu" op: "Elu" input: "h" }
node { name: "b/Asinh" op: "Asinh" input: "b/Elu" }
node { name: "softsign" op: "Softsign" input: "a/Asinh" }
node { name: "sum" op: "AddV2" input: "softsign" input: "b/Asinh" }
node { name: "total" op: "AddV2" input: "z" input: "sum" }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "loss" op: "Sum" input: "total" input: "axes" }
node { name: "gradients/grad_ys_0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/loss_grad/Tile" op: "Tile" input: "gradients/grad_ys_0" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "GradientDescent/update_w/ApplyGradientDescent" op: "ApplyGradientDescent" input: "w" input: "lr" input: "gradients/loss_grad/Tile" }
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "ProximalAdagrad/update_v/ApplyProximalAdagrad" op: "ApplyProximalAdagrad" input: "v" input: "lr" input: "gradients/loss_grad/Tile" }
//--- many.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "t0" op: "Asinh" input: "x" }
node { name: "t1" op: "Asinh" input: "t0" }
node { name: "t2" op: "Asinh" input: "t1" }
node { name: "t3" op: "Asinh" input: "t2" }
node { name: "t4" op: "Asinh" input: "t3" }
node { name: "t5" op: "Asinh" input: "t4" }
node { name: "e0" op: "Elu" input: "x" }
node { name: "e1" op: "Elu" input: "e0" }
node { name: "e2" op: "Elu" input: "e1" }
node { name: "e3" op: "Elu" input: "e2" }
//--- imports.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/Initializer/truncated_normal/shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 2 } } } }
node { name: "w/Initializer/truncated_normal/mean" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0 } } } }
node { name: "w/Initializer/truncated_normal/stddev" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "w/Initializer/truncated_normal/TruncatedNormal" op: "TruncatedNormal" input: "w/Initializer/truncated_normal/shape" attr { key: "seed2" value { i: 7 } } }
node { name: "w/Initializer/truncated_normal/mul" op: "Mul" input: "w/Initializer/truncated_normal/TruncatedNormal" input: "w/Initializer/truncated_normal/stddev" }
node { name: "w/Initializer/truncated_normal" op: "Add" input: "w/Initializer/truncated_normal/mul" input: "w/Initializer/truncated_normal/mean" }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/Initializer/truncated_normal" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "h" op: "Mul" input: "w/read" input: "x" }
node { name: "check" op: "Assert" input: "x" }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "loss" op: "Sum" input: "h" input: "axes" input: "^check" }
node { name: "loss/summary" op: "ScalarSummary" input: "loss" }
node { name: "dropout/random_uniform" op: "RandomUniform" input: "w/Initializer/truncated_normal/shape" }
node { name: "dropout/Floor" op: "Floor" input: "dropout/random_uniform" }
node { name: "dropout/mul" op: "Mul" input: "h" input: "dropout/Floor" }
node { name: "gradients/grad_ys_0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/loss_grad/Tile" op: "Tile" input: "gradients/grad_ys_0" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "GradientDescent/update_w/ApplyGradientDescent" op: "ApplyGradientDescent" input: "w" input: "lr" input: "gradients/loss_grad/Tile" }
