// What dtf-translate cannot import is one error line naming the file, the
// node (with its line in a text GraphDef) and what is wrong; never a crash.
// RUN: split-file %s %t
// RUN: not dtf-translate --import-graphdef %t/unknown-op.pbtxt 2> %t/err
// RUN: FileCheck %s --check-prefix=UNKNOWN < %t/err && count 1 < %t/err
// UNKNOWN: unknown-op.pbtxt:7:1: error: 1 node uses 1 op dtf-translate does not import: 'Asinh' (1: 'act')

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
// TWO: error: node 'GradientDescent/update_w2/ResourceApplyGradientDescent' (ResourceApplyGradientDescent): updates 'w' with #dtf.sgd<learning_rate = 0.5> where 'GradientDescent/update_w/ResourceApplyGradientDescent' updates it with #dtf.sgd<learning_rate = 0.25>; DTF updates a variable with one optimizer

// An inference graph needs --outputs; an output must name a node.
// RUN: not dtf-translate --import-graphdef %t/string.pbtxt 2> %t/err
// RUN: FileCheck %s --check-prefix=NO-OUTPUTS < %t/err && count 1 < %t/err
// NO-OUTPUTS: string.pbtxt: error: the graph has no optimizer update to take a loss from; name the values to import with --outputs
// RUN: not dtf-translate --import-graphdef %t/sgd.pbtxt --outputs=accuracy 2> %t/err
// RUN: FileCheck %s --check-prefix=NO-NODE < %t/err && count 1 < %t/err
// NO-NODE: sgd.pbtxt: error: --outputs: no node 'accuracy' in the graph

// A value read from a control input: the variable it names is not imported.
// RUN: not dtf-translate --import-graphdef %t/control-input.pbtxt --outputs=y 2> %t/err
// RUN: FileCheck %s --check-prefix=CONTROL < %t/err && count 1 < %t/err
// CONTROL: control-input.pbtxt:2:1: error: node 'v/read' (Identity): input 0 is the control input '^v', where a value is expected

// The global-step increment of minimize() must increment a variable.
// RUN: not dtf-translate --import-graphdef %t/global-step.pbtxt 2> %t/err
// RUN: FileCheck %s --check-prefix=STEP < %t/err && count 1 < %t/err
// STEP: global-step.pbtxt:14:1: error: node 'GradientDescent' (AssignAdd): increments 'x' (Placeholder), which is not a variable: the global step must be one

// Operands a dtf op does not take, by its type inference or its verifier.
// RUN: not dtf-translate --import-graphdef %t/operands.pbtxt --outputs=add 2> %t/err
// RUN: FileCheck %s --check-prefix=BROADCAST < %t/err && count 1 < %t/err
// BROADCAST: operands.pbtxt:5:1: error: node 'add' (Add): shapes are not broadcast-compatible: 'tensor<2xf32>' and 'tensor<3xf32>'
// RUN: not dtf-translate --import-graphdef %t/operands.pbtxt --outputs=matmul 2> %t/err
// RUN: FileCheck %s --check-prefix=MATMUL < %t/err && count 1 < %t/err
// MATMUL: operands.pbtxt:6:1: error: node 'matmul' (MatMul): 'dtf.matmul' op operand #0 must be 2D tensor of floating-point values, but got 'tensor<2x2xi32>'
// RUN: not dtf-translate --import-graphdef %t/operands.pbtxt --outputs=xent 2> %t/err
// RUN: FileCheck %s --check-prefix=XENT < %t/err && count 1 < %t/err
// XENT: operands.pbtxt:7:1: error: node 'xent' (SparseSoftmaxCrossEntropyWithLogits): logits 'tensor<4x3xf32>' and class ids 'tensor<5xi32>' hold different numbers of examples
// RUN: not dtf-translate --import-graphdef %t/operands.pbtxt --outputs=sum 2> %t/err
// RUN: FileCheck %s --check-prefix=AXIS < %t/err && count 1 < %t/err
// AXIS: operands.pbtxt:9:1: error: node 'sum' (Sum): axis 1 is out of range for 'tensor<2xf32>'

// A variable is an operand only through a read of it.
// RUN: not dtf-translate --import-graphdef %t/variable-operand.pbtxt --outputs=r 2> %t/err
// RUN: FileCheck %s --check-prefix=VARIABLE < %t/err && count 1 < %t/err
// VARIABLE: variable-operand.pbtxt:5:1: error: node 'r' (Reshape): input 0 is the variable 'w' itself; DTF computes with the value an Identity or ReadVariableOp reads from it

// An optimizer update without its gradient input.
// RUN: not dtf-translate --import-graphdef %t/no-gradient.pbtxt 2> %t/err
// RUN: FileCheck %s --check-prefix=NO-GRADIENT < %t/err && count 1 < %t/err
// NO-GRADIENT: no-gradient.pbtxt:12:1: error: node 'GradientDescent/update_w/ResourceApplyGradientDescent' (ResourceApplyGradientDescent): expects at least 3 inputs, has 2

// Const tensors whose shapes hold no tensor, or one too large to list.
// RUN: not dtf-translate --import-graphdef %t/constants.pbtxt --outputs=negative 2> %t/err
// RUN: FileCheck %s --check-prefix=NEGATIVE < %t/err && count 1 < %t/err
// NEGATIVE: constants.pbtxt:1:1: error: node 'negative' (Const): has a tensor_shape dimension of negative size -7
// RUN: not dtf-translate --import-graphdef %t/constants.pbtxt --outputs=overflow 2> %t/err
// RUN: FileCheck %s --check-prefix=OVERFLOW < %t/err && count 1 < %t/err
// OVERFLOW: constants.pbtxt:2:1: error: node 'overflow' (Const): has a tensor_shape of more than 2^63 elements
// RUN: not dtf-translate --import-graphdef %t/constants.pbtxt --outputs=repeated 2> %t/err
// RUN: FileCheck %s --check-prefix=REPEATED < %t/err && count 1 < %t/err
// REPEATED: constants.pbtxt:3:1: error: node 'repeated' (Const): repeats its last value to 4294967296 elements, more than a GraphDef can hold
// RUN: not dtf-translate --import-graphdef %t/constants.pbtxt --outputs=sum 2> %t/err
// RUN: FileCheck %s --check-prefix=AXES < %t/err && count 1 < %t/err
// AXES: constants.pbtxt:6:1: error: node 'sum' (Sum): input 1 holds 1000000000 integers, more than the 254 dimensions of a TensorFlow tensor

// A folded shape sliced past its end.
// RUN: not dtf-translate --import-graphdef %t/slice.pbtxt --outputs=r 2> %t/err
// RUN: FileCheck %s --check-prefix=SLICE < %t/err && count 1 < %t/err
// SLICE: slice.pbtxt:5:1: error: node 'tail' (Slice): slices past the end of a shape

// Paths the importer follows through the graph that go round a cycle, or
// deeper than its stack allows.
// RUN: not dtf-translate --import-graphdef %t/cycles.pbtxt --outputs=sum 2> %t/err
// RUN: FileCheck %s --check-prefix=IDENTITY-CYCLE < %t/err && count 1 < %t/err
// IDENTITY-CYCLE: cycles.pbtxt:2:1: error: node 'axes' (Identity): is part of a cycle of Identity nodes
// RUN: not dtf-translate --import-graphdef %t/cycles.pbtxt --outputs=v/read 2> %t/err
// RUN: FileCheck %s --check-prefix=INIT-CYCLE < %t/err && count 1 < %t/err
// INIT-CYCLE: cycles.pbtxt:5:1: error: node 'v/init' (Identity): is part of a cycle of Identity nodes
// RUN: not dtf-translate --import-graphdef %t/cycles.pbtxt --outputs=r 2> %t/err
// RUN: FileCheck %s --check-prefix=SHAPE-CYCLE < %t/err && count 1 < %t/err
// SHAPE-CYCLE: cycles.pbtxt:10:1: error: node 's' (Slice): is part of a cycle of the forward graph
// RUN: %python -c "print('node { name: \"n0\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } attr { key: \"shape\" value { shape { dim { size: 2 } } } } }'); [print('node { name: \"n%d\" op: \"Relu\" input: \"n%d\" }' % (i, i - 1)) for i in range(1, 20000)]" > %t/deep.pbtxt
// RUN: not dtf-translate --import-graphdef %t/deep.pbtxt --outputs=n19999 2> %t/err
// RUN: FileCheck %s --check-prefix=DEEP < %t/err && count 1 < %t/err
// DEEP: deep.pbtxt:17952:1: error: node 'n17951' (Relu): lies more than 2048 ops below the values imported, deeper than the importer follows

//--- unknown-op.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/initial_value" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "mul" op: "Mul" input: "w/read" input: "x" }
node { name: "act" op: "Asinh" input: "mul" }
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
//--- control-input.pbtxt
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "v/read" op: "Identity" input: "^v" }
node { name: "y" op: "Relu" input: "v/read" }
//--- operands.pbtxt
node { name: "x2" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "x3" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "logits" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 3 } } } } }
node { name: "ids" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape { dim { size: 5 } } } } }
node { name: "add" op: "Add" input: "x2" input: "x3" }
node { name: "matmul" op: "MatMul" input: "m" input: "m" }
node { name: "xent" op: "SparseSoftmaxCrossEntropyWithLogits" input: "logits" input: "ids" }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 } } } }
node { name: "sum" op: "Sum" input: "x2" input: "axis" }
node { name: "m" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } } }
//--- variable-operand.pbtxt
node { name: "w" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "w/initial_value" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "w/Assign" op: "AssignVariableOp" input: "w" input: "w/initial_value" }
node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1 int_val: 2 } } } }
node { name: "r" op: "Reshape" input: "w" input: "shape" }
//--- constants.pbtxt
node { name: "negative" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: -7 } } float_val: 1 } } } }
node { name: "overflow" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4294967296 } dim { size: 4294967296 } } float_val: 1 } } } }
node { name: "repeated" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4294967296 } } int_val: 1 int_val: 2 } } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "axes" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1000000000 } } int_val: 0 } } } }
node { name: "sum" op: "Sum" input: "x" input: "axes" }
//--- slice.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
node { name: "s" op: "Shape" input: "x" }
node { name: "begin" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 } } } }
node { name: "size" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 1 } } int64_val: 9223372036854775807 } } } }
node { name: "tail" op: "Slice" input: "s" input: "begin" input: "size" }
node { name: "r" op: "Reshape" input: "x" input: "tail" }
//--- global-step.pbtxt
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
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { } int64_val: 1 } } } }
node { name: "GradientDescent" op: "AssignAdd" input: "x" input: "one" }
//--- no-gradient.pbtxt
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
node { name: "GradientDescent/update_w/ResourceApplyGradientDescent" op: "ResourceApplyGradientDescent" input: "w" input: "lr" }
//--- cycles.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "axes" op: "Identity" input: "axes" }
node { name: "sum" op: "Sum" input: "x" input: "axes" }
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "v/init" op: "Identity" input: "v/init" }
node { name: "v/Assign" op: "Assign" input: "v" input: "v/init" }
node { name: "v/read" op: "Identity" input: "v" }
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "r" op: "Reshape" input: "x" input: "s" }
node { name: "s" op: "Slice" input: "s" input: "zero" input: "zero" }
