// What dtf-translate cannot import is one error line naming the file, the
// node (with its line in a text GraphDef) and what is wrong; never a crash.
// RUN: split-file %s %t
// RUN: not dtf-translate --import-graphdef %t/unknown-op.pbtxt 2> %t/err
// RUN: FileCheck %s --check-prefix=UNKNOWN < %t/err && count 1 < %t/err
// UNKNOWN: unknown-op.pbtxt:7:1: error: node 'act' (Tanh): op 'Tanh' is not one dtf-translate imports

// RUN: not dtf-translate --import-graphdef %t/malformed.pbtxt 2> %t/err
// RUN: FileCheck %s --check-prefix=MALFORMED < %t/err && count 1 < %t/err
// MALFORMED: malformed.pbtxt:3:7: error: malformed text GraphDef: Expected string

// RUN: not dtf-translate --import-graphdef %t/truncated.pbtxt 2> %t/err
// RUN: FileCheck %s --check-prefix=TRUNCATED < %t/err && count 1 < %t/err
// TRUNCATED: truncated.pbtxt:{{[0-9]+}}:{{[0-9]+}}: error: malformed text GraphDef:

// A binary GraphDef cut short.
// RUN: head -c 7777 %S/Inputs/ops.pb > %t/cut.pb
// RUN: not dtf-translate --import-graphdef %t/cut.pb 2> %t/err
// RUN: FileCheck %s --check-prefix=CUT < %t/err && count 1 < %t/err
// CUT: cut.pb: error: not a binary GraphDef (truncated or malformed protobuf; a text GraphDef must be named *.pbtxt)

// RUN: not dtf-translate --import-graphdef %t/missing-input.pbtxt --outputs=y 2> %t/err
// RUN: FileCheck %s --check-prefix=MISSING < %t/err && count 1 < %t/err
// MISSING: missing-input.pbtxt:2:1: error: node 'y' (Relu): input 'z' names no node of the graph

// RUN: not dtf-translate --import-graphdef %t/unknown-rank.pbtxt --outputs=x 2> %t/err
// RUN: FileCheck %s --check-prefix=RANK < %t/err && count 1 < %t/err
// RANK: error: node 'x' (Placeholder): has an unknown rank; DTF needs the rank of every placeholder and variable

// RUN: not dtf-translate --import-graphdef %t/string.pbtxt --outputs=x 2> %t/err
// RUN: FileCheck %s --check-prefix=STRING < %t/err && count 1 < %t/err
// STRING: error: node 'x' (Placeholder): dtype DT_STRING is not one DTF computes with (float, double, int32, int64, bool)

// RUN: not dtf-translate --import-graphdef %t/two-optimizers.pbtxt 2> %t/err
// RUN: FileCheck %s --check-prefix=TWO < %t/err && count 1 < %t/err
// TWO: error: node 'GradientDescent/update_w2/ResourceApplyGradientDescent' (ResourceApplyGradientDescent): updates with #dtf.sgd<learning_rate = 0.5> where 'GradientDescent/update_w/ResourceApplyGradientDescent' updates with #dtf.sgd<learning_rate = 0.25>; DTF minimizes one loss with one optimizer

// An inference graph needs --outputs; an output must name a node.
// RUN: not dtf-translate --import-graphdef %t/string.pbtxt 2> %t/err
// RUN: FileCheck %s --check-prefix=NO-OUTPUTS < %t/err && count 1 < %t/err
// NO-OUTPUTS: string.pbtxt: error: the graph has no optimizer update to take a loss from; name the values to import with --outputs
// RUN: not dtf-translate --import-graphdef %t/sgd.pbtxt --outputs=accuracy 2> %t/err
// RUN: FileCheck %s --check-prefix=NO-NODE < %t/err && count 1 < %t/err
// NO-NODE: sgd.pbtxt: error: --outputs: no node 'accuracy' in the graph

//--- unknown-op.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/initial_value" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "mul" op: "Mul" input: "w/read" input: "x" }
node { name: "act" op: "Tanh" input: "mul" }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "loss" op: "Sum" input: "act" input: "axes" }
node { name: "gradients/grad_ys_0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/loss_grad/Tile" op: "Tile" input: "gradients/grad_ys_0" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "GradientDescent/update_w/ApplyGradientDescent" op: "ApplyGradientDescent" input: "w" input: "lr" input: "gradients/loss_grad/Tile" }
//--- malformed.pbtxt
node {
  name: "x"
  op: Placeholder
}
//--- truncated.pbtxt
node { name: "w" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "w/Assign" op: "AssignVariableOp" input: "w" input: "w/initial_value" }
node { name: "w/read" op: "ReadVariableOp" input: "w" }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "mul" op: "Mul" input: "w/read" input: "x" }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } att
//--- missing-input.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "y" op: "Relu" input: "z" }
//--- unknown-rank.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { unknown_rank: true } } } }
//--- string.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
//--- two-optimizers.pbtxt
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
node { name: "lr2" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.5 } } } }
node { name: "GradientDescent/update_w2/ResourceApplyGradientDescent" op: "ResourceApplyGradientDescent" input: "w" input: "lr2" input: "gradients/loss_grad/Tile" }
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
