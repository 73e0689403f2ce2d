// Every loss of tf.compat.v1.losses with its default reduction
// (SUM_BY_NONZERO_WEIGHTS), weighted by constant tensors that hold zeros,
// summed by tf.compat.v1.losses.get_total_loss with the regularization
// losses of the layer (a tf.keras.regularizers.l2 and a tf.nn.l2_loss), and
// minimized (graphs written by Inputs/make_losses_graphs.py with
// TensorFlow; the minimize leaves the gradients ungated, as tf.gradients
// does).
// RUN: dtf-translate --import-graphdef %S/Inputs/losses_regression.pbtxt | FileCheck %s --check-prefix=REGRESSION
// RUN: dtf-translate --import-graphdef %S/Inputs/losses_classification.pbtxt | FileCheck %s --check-prefix=CLASSIFICATION
//
// The gradients against finite differences, and TensorFlow's total loss,
// logits and each loss for one batch.
// RUN: dtf-translate --import-graphdef %S/Inputs/losses_regression.pbtxt --outputs=logits,value/absolute_difference,value/cosine_distance,value/huber,value/mean_pairwise_squared_error,value/mean_squared_error,value/compute_weighted_loss -o %t.regression.mlir
// RUN: dtf-gradcheck --samples=8 %t.regression.mlir | FileCheck %s --check-prefix=GRADIENTS
// RUN: dtf-eval-model --variables=%S/Inputs/losses_values/variables.npz --feed=x=%S/Inputs/losses_values/x.npy --feed=labels=%S/Inputs/losses_values/labels.npy --expect=%S/Inputs/losses_values/regression.npz %t.regression.mlir | FileCheck %s --check-prefix=REGRESSION-VALUES
// RUN: dtf-translate --import-graphdef %S/Inputs/losses_classification.pbtxt --outputs=logits,value/hinge,value/log,value/sigmoid,value/sigmoid_smoothed,value/softmax,value/softmax_smoothed,value/sparse_softmax -o %t.classification.mlir
// RUN: dtf-gradcheck --samples=8 %t.classification.mlir | FileCheck %s --check-prefix=GRADIENTS
// RUN: dtf-eval-model --variables=%S/Inputs/losses_values/variables.npz --feed=x=%S/Inputs/losses_values/x.npy --feed=labels=%S/Inputs/losses_values/labels.npy --feed=ids=%S/Inputs/losses_values/ids.npy --expect=%S/Inputs/losses_values/classification.npz %t.classification.mlir | FileCheck %s --check-prefix=CLASSIFICATION-VALUES

// absolute_difference: the weighted sum over the count of nonzero weights.
// REGRESSION:      %[[LOGITS:.*]] = dtf.bias_add
// REGRESSION-NEXT: %[[LABELS:.*]] = dtf.placeholder "labels" : tensor<4x3xf32>
// REGRESSION-NEXT: %[[DIFFERENCE:.*]] = dtf.sub %[[LOGITS]], %[[LABELS]]
// REGRESSION-NEXT: %[[ABS:.*]] = dtf.abs %[[DIFFERENCE]]
// REGRESSION-NEXT: %[[WEIGHTS:.*]] = dtf.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00, 2.000000e+00], {{.*}}> : tensor<4x3xf32>
// REGRESSION-NEXT: %[[WEIGHTED:.*]] = dtf.mul %[[ABS]], %[[WEIGHTS]]
// REGRESSION-NEXT: %[[PARTIAL:.*]] = dtf.reduce_sum %[[WEIGHTED]] {axes = array<i64: 0, 1>}
// REGRESSION-NEXT: %[[SUM:.*]] = dtf.reduce_sum %[[PARTIAL]] : tensor<f32>
// REGRESSION-NEXT: %[[ZERO:.*]] = dtf.constant dense<0.000000e+00> : tensor<f32>
// REGRESSION-NEXT: %[[ZEROS:.*]] = dtf.equal %[[WEIGHTS]], %[[ZERO]]
// REGRESSION:      %[[PRESENT:.*]] = dtf.select %[[ZEROS]]
// REGRESSION-NEXT: %[[COUNT:.*]] = dtf.reduce_sum %[[PRESENT]] {axes = array<i64: 0, 1>}
// REGRESSION-NEXT: %[[ABSOLUTE:.*]] = dtf.div_no_nan %[[SUM]], %[[COUNT]] : tensor<f32>, tensor<f32>
// cosine_distance: 1 - the sum of the products of l2-normalized rows.
// REGRESSION:      dtf.rsqrt
// REGRESSION:      %[[COSINE:.*]] = dtf.div_no_nan
// get_total_loss: the AddN of the losses and the regularization losses,
// whose sum dtf.minimize takes.
// REGRESSION-NEXT: %[[TOTAL:.*]] = dtf.add %[[ABSOLUTE]], %[[COSINE]]
// REGRESSION:      dtf.mul %[[KERNEL:.*]], %[[KERNEL]] : tensor<5x3xf32>, tensor<5x3xf32>
// REGRESSION:      dtf.mul %[[BIAS:.*]], %[[BIAS]] : tensor<3xf32>, tensor<3xf32>
// REGRESSION:      %[[LAST:.*]] = dtf.add %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>
// REGRESSION-NEXT: dtf.minimize %[[LAST]] : tensor<f32>, #dtf.sgd<learning_rate = 0.1>

// softmax_cross_entropy's label smoothing divides by the number of classes,
// tf.shape(labels)[-1], a constant at import.
// CLASSIFICATION:      %[[CLASSES:.*]] = dtf.constant dense<3> : tensor<i32>
// CLASSIFICATION-NEXT: %[[COUNT:.*]] = dtf.cast %[[CLASSES]] : tensor<i32> to tensor<f32>
// CLASSIFICATION-NEXT: dtf.div %{{.*}}, %[[COUNT]] : tensor<f32>, tensor<f32>
// CLASSIFICATION:      dtf.softmax_cross_entropy_with_logits
// CLASSIFICATION:      %[[IDS:.*]] = dtf.placeholder "ids" : tensor<4xi32>
// CLASSIFICATION:      dtf.sparse_softmax_cross_entropy_with_logits %{{.*}}, %[[IDS]]
// CLASSIFICATION:      dtf.minimize

// GRADIENTS-DAG: @main dense/kernel: 8 of 15 elements
// GRADIENTS-DAG: @main dense/bias: 3 of 3 elements
// GRADIENTS:     gradient check passed

// REGRESSION-VALUES:      result_0: f32[]
// REGRESSION-VALUES-NEXT: result_1: f32[4,3]
// REGRESSION-VALUES-COUNT-6: : f32[],
// REGRESSION-VALUES-NEXT: equal to the expected values (tolerance 1e-05)

// CLASSIFICATION-VALUES:      result_0: f32[]
// CLASSIFICATION-VALUES-NEXT: result_1: f32[4,3]
// CLASSIFICATION-VALUES-COUNT-7: : f32[],
// CLASSIFICATION-VALUES-NEXT: equal to the expected values (tolerance 1e-05)

// StridedSlice is imported where it takes dimensions of a shape known at
// import, as a constant; not from a shape with an unknown dimension, nor
// from another value.
// RUN: split-file %s %t
// RUN: dtf-translate --import-graphdef %t/slices.pbtxt --outputs=last,first_two | FileCheck %s --check-prefix=SLICE
// SLICE:      %[[LAST:.*]] = dtf.constant dense<3> : tensor<i64>
// SLICE-NEXT: %[[FIRST_TWO:.*]] = dtf.constant dense<[4, 3]> : tensor<2xi64>
// SLICE-NEXT: return %[[LAST]], %[[FIRST_TWO]]
// RUN: not dtf-translate --import-graphdef %t/slices.pbtxt --outputs=batch 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: slices.pbtxt:{{[0-9]+}}:1: error: node 'batch' (StridedSlice): takes a dimension of unknown size as a value; DTF computes it at import, from a static shape
// RUN: not dtf-translate --import-graphdef %t/slices.pbtxt --outputs=row 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: slices.pbtxt:{{[0-9]+}}:1: error: node 'row' (StridedSlice): input 0 must be a shape DTF can compute before running (from Const, Shape, Rank, Slice, StridedSlice, ExpandDims, Reshape, ConcatV2, Pack, Range, Add, Sub), got 'x' (Placeholder)
// RUN: not dtf-translate --import-graphdef %t/slices.pbtxt --outputs=untyped 2>&1 | FileCheck %s --check-prefix=UNTYPED
// UNTYPED: slices.pbtxt:{{[0-9]+}}:1: error: node 'untyped' (StridedSlice): has no 'T' attribute
// RUN: not dtf-translate --import-graphdef %t/slices.pbtxt --outputs=floats 2>&1 | FileCheck %s --check-prefix=FLOATS
// FLOATS: slices.pbtxt:{{[0-9]+}}:1: error: node 'floats' (StridedSlice): slices a shape of 'f32', not of integers

// The loss where the seed of the backward pass goes past it (AddN passes
// its gradient on unchanged): the nearest node that the nodes of the
// seeded gradients all feed, not the output 'a' that one of them feeds.
// RUN: dtf-translate --import-graphdef %t/ungated.pbtxt --outputs=a_out | FileCheck %s --check-prefix=UNGATED
// UNGATED:      %[[A:.*]] = dtf.mul %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>
// UNGATED:      %[[B:.*]] = dtf.mul %{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>
// UNGATED-NEXT: %[[LOSS:.*]] = dtf.add %[[A]], %[[B]]
// UNGATED-NEXT: dtf.minimize %[[LOSS]]
// UNGATED-NEXT: return %[[LOSS]], %[[A]]
// Two nearest nodes: which one is the loss, the names do not tell.
// RUN: not dtf-translate --import-graphdef %t/two_sums.pbtxt 2>&1 | FileCheck %s --check-prefix=TWO-SUMS
// TWO-SUMS: two_sums.pbtxt: error: the seed of the backward pass under 'gradients/' goes to the gradients of 'a', 'b', which feed more than one nearest node together; DTF cannot tell which node is the loss
// RUN: not dtf-translate --import-graphdef %t/no_sum.pbtxt 2>&1 | FileCheck %s --check-prefix=NO-SUM
// NO-SUM: no_sum.pbtxt: error: the seed of the backward pass under 'gradients/' goes to the gradients of 'a', 'b', which feed no nearest node together; DTF cannot tell which node is the loss
// A constant added after the node the seeded gradients name: the sum's
// gradients are the same, which of the two the optimizer minimizes the
// names do not tell.
// RUN: not dtf-translate --import-graphdef %t/plus_one.pbtxt 2>&1 | FileCheck %s --check-prefix=PLUS-ONE
// PLUS-ONE: plus_one.pbtxt:{{[0-9]+}}:1: error: node 'plus_one' (AddV2): adds to 'a', whose gradients the optimizer applies, terms that no variable computes: its gradients are the same, and DTF cannot tell which of the two is the loss
// A term that a variable computes is not the loss's (its gradients would
// be seeded too): a sum of it is not the loss.
// RUN: dtf-translate --import-graphdef %t/plus_w.pbtxt --outputs=plus_w | FileCheck %s --check-prefix=PLUS-W
// PLUS-W:      %[[A:.*]] = dtf.mul
// PLUS-W-NEXT: %[[SUM:.*]] = dtf.add %[[A]]
// PLUS-W-NEXT: dtf.minimize %[[A]]
// PLUS-W-NEXT: return %[[A]], %[[SUM]]
// A gradient op that reads the seed but is named after no op.
// RUN: not dtf-translate --import-graphdef %t/unnamed.pbtxt 2>&1 | FileCheck %s --check-prefix=UNNAMED
// UNNAMED: unnamed.pbtxt:{{[0-9]+}}:1: error: node 'gradients/twice' (AddN): reads the seed of the backward pass (gradients/grad_ys_0) but is no op's gradient (<op>_grad/); DTF cannot tell which node is the loss

//--- slices.pbtxt
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 3 } } } } }
node { name: "unknown" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
node { name: "shape" op: "Shape" input: "x" attr { key: "out_type" value { type: DT_INT64 } } }
node { name: "unknown_shape" op: "Shape" input: "unknown" attr { key: "out_type" value { type: DT_INT64 } } }
node { name: "minus_one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: -1 } } } }
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 0 } } } }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 1 } } } }
node { name: "two" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 2 } } } }
node { name: "last" op: "StridedSlice" input: "shape" input: "minus_one" input: "zero" input: "one" attr { key: "Index" value { type: DT_INT32 } } attr { key: "T" value { type: DT_INT64 } } attr { key: "shrink_axis_mask" value { i: 1 } } }
node { name: "first_two" op: "StridedSlice" input: "shape" input: "zero" input: "two" input: "one" attr { key: "Index" value { type: DT_INT32 } } attr { key: "T" value { type: DT_INT64 } } }
node { name: "batch" op: "StridedSlice" input: "unknown_shape" input: "zero" input: "one" input: "one" attr { key: "Index" value { type: DT_INT32 } } attr { key: "T" value { type: DT_INT64 } } attr { key: "shrink_axis_mask" value { i: 1 } } }
node { name: "row" op: "StridedSlice" input: "x" input: "zero" input: "one" input: "one" attr { key: "Index" value { type: DT_INT32 } } attr { key: "T" value { type: DT_FLOAT } } attr { key: "shrink_axis_mask" value { i: 1 } } }
node { name: "untyped" op: "StridedSlice" input: "shape" input: "zero" input: "one" input: "one" attr { key: "Index" value { type: DT_INT32 } } }
node { name: "floats" op: "StridedSlice" input: "shape" input: "zero" input: "one" input: "one" attr { key: "Index" value { type: DT_INT32 } } attr { key: "T" value { type: DT_FLOAT } } }
//--- ungated.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
node { name: "w/init" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/init" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "a" op: "Mul" input: "w/read" input: "w/read" }
node { name: "b" op: "Mul" input: "w/read" input: "w/read" }
node { name: "a_out" op: "Identity" input: "a" }
node { name: "total" op: "AddN" input: "a" input: "b" attr { key: "N" value { i: 2 } } }
node { name: "loss" op: "Identity" input: "total" }
node { name: "gradients/Shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { } } } } } }
node { name: "gradients/grad_ys_0/Const" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/grad_ys_0" op: "Fill" input: "gradients/Shape" input: "gradients/grad_ys_0/Const" }
node { name: "gradients/a_grad/Mul" op: "Mul" input: "gradients/grad_ys_0" input: "w/read" }
node { name: "gradients/b_grad/Mul" op: "Mul" input: "gradients/grad_ys_0" input: "w/read" }
node { name: "gradients/AddN" op: "AddN" input: "gradients/a_grad/Mul" input: "gradients/a_grad/Mul" input: "gradients/b_grad/Mul" input: "gradients/b_grad/Mul" attr { key: "N" value { i: 4 } } }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "GradientDescent/update_w/ApplyGradientDescent" op: "ApplyGradientDescent" input: "w" input: "lr" input: "gradients/AddN" }
//--- two_sums.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
node { name: "w/init" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/init" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "a" op: "Mul" input: "w/read" input: "w/read" }
node { name: "b" op: "Mul" input: "w/read" input: "w/read" }
node { name: "total" op: "AddN" input: "a" input: "b" attr { key: "N" value { i: 2 } } }
node { name: "other_total" op: "AddN" input: "a" input: "b" attr { key: "N" value { i: 2 } } }
node { name: "gradients/Shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { } } } } } }
node { name: "gradients/grad_ys_0/Const" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/grad_ys_0" op: "Fill" input: "gradients/Shape" input: "gradients/grad_ys_0/Const" }
node { name: "gradients/a_grad/Mul" op: "Mul" input: "gradients/grad_ys_0" input: "w/read" }
node { name: "gradients/b_grad/Mul" op: "Mul" input: "gradients/grad_ys_0" input: "w/read" }
node { name: "gradients/AddN" op: "AddN" input: "gradients/a_grad/Mul" input: "gradients/b_grad/Mul" attr { key: "N" value { i: 2 } } }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "GradientDescent/update_w/ApplyGradientDescent" op: "ApplyGradientDescent" input: "w" input: "lr" input: "gradients/AddN" }
//--- no_sum.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
node { name: "w/init" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/init" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "a" op: "Mul" input: "w/read" input: "w/read" }
node { name: "b" op: "Mul" input: "w/read" input: "w/read" }
node { name: "gradients/Shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { } } } } } }
node { name: "gradients/grad_ys_0/Const" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/grad_ys_0" op: "Fill" input: "gradients/Shape" input: "gradients/grad_ys_0/Const" }
node { name: "gradients/a_grad/Mul" op: "Mul" input: "gradients/grad_ys_0" input: "w/read" }
node { name: "gradients/b_grad/Mul" op: "Mul" input: "gradients/grad_ys_0" input: "w/read" }
node { name: "gradients/AddN" op: "AddN" input: "gradients/a_grad/Mul" input: "gradients/b_grad/Mul" attr { key: "N" value { i: 2 } } }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "GradientDescent/update_w/ApplyGradientDescent" op: "ApplyGradientDescent" input: "w" input: "lr" input: "gradients/AddN" }
//--- unnamed.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
node { name: "w/init" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/init" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "a" op: "Mul" input: "w/read" input: "w/read" }
node { name: "gradients/Shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { } } } } } }
node { name: "gradients/grad_ys_0/Const" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/grad_ys_0" op: "Fill" input: "gradients/Shape" input: "gradients/grad_ys_0/Const" }
node { name: "gradients/twice" op: "AddN" input: "gradients/grad_ys_0" input: "gradients/grad_ys_0" attr { key: "N" value { i: 2 } } }
node { name: "gradients/a_grad/Mul" op: "Mul" input: "gradients/twice" input: "w/read" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "GradientDescent/update_w/ApplyGradientDescent" op: "ApplyGradientDescent" input: "w" input: "lr" input: "gradients/a_grad/Mul" }
//--- plus_one.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
node { name: "w/init" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/init" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "a" op: "Mul" input: "w/read" input: "w/read" }
node { name: "a/read" op: "Identity" input: "a" }
node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "plus_one" op: "AddV2" input: "a/read" input: "one" }
node { name: "gradients/Shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { } } } } } }
node { name: "gradients/grad_ys_0/Const" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/grad_ys_0" op: "Fill" input: "gradients/Shape" input: "gradients/grad_ys_0/Const" }
node { name: "gradients/a_grad/Mul" op: "Mul" input: "gradients/grad_ys_0" input: "w/read" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "GradientDescent/update_w/ApplyGradientDescent" op: "ApplyGradientDescent" input: "w" input: "lr" input: "gradients/a_grad/Mul" }
//--- plus_w.pbtxt
node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
node { name: "w/init" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "w/Assign" op: "Assign" input: "w" input: "w/init" }
node { name: "w/read" op: "Identity" input: "w" }
node { name: "a" op: "Mul" input: "w/read" input: "w/read" }
node { name: "plus_w" op: "AddV2" input: "a" input: "w/read" }
node { name: "gradients/Shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { } } } } } }
node { name: "gradients/grad_ys_0/Const" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
node { name: "gradients/grad_ys_0" op: "Fill" input: "gradients/Shape" input: "gradients/grad_ys_0/Const" }
node { name: "gradients/a_grad/Mul" op: "Mul" input: "gradients/grad_ys_0" input: "w/read" }
node { name: "lr" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.1 } } } }
node { name: "GradientDescent/update_w/ApplyGradientDescent" op: "ApplyGradientDescent" input: "w" input: "lr" input: "gradients/a_grad/Mul" }
