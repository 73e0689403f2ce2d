// tf.compat.v1.cond, as TensorFlow 1 builds it (the graph below is the one
// `tf.cond(training, lambda: x * 2.0, lambda: tf.identity(x))` writes):
// each Switch passes its data to both branches, and the Merge becomes a
// dtf.select on the predicate of the true branch's value (the input that
// depends on a Switch's output 1) and the false branch's.
// RUN: split-file %s %t
// RUN: dtf-translate --import-graphdef %t/cond.pbtxt --outputs=out | FileCheck %s
// CHECK: %[[TRAINING:.*]] = dtf.placeholder "training" : tensor<i1>
// CHECK: %[[X:.*]] = dtf.placeholder "x" : tensor<2x3xf32>
// CHECK: %[[TWO:.*]] = dtf.constant dense<2.000000e+00> : tensor<f32>
// CHECK: %[[MUL:.*]] = dtf.mul %[[X]], %[[TWO]]
// CHECK: %[[OUT:.*]] = dtf.select %[[TRAINING]], %[[MUL]], %[[X]] : tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>
// CHECK: return %[[OUT]]

// The training flag of a TF1 script, a boolean
// tf.compat.v1.placeholder_with_default(False, []), is the learning phase;
// a placeholder with a default of another type is refused.
// RUN: dtf-translate --import-graphdef %t/learning-phase.pbtxt --outputs=out | FileCheck %s --check-prefix=PHASE
// PHASE: %[[TRAINING:.*]] = dtf.learning_phase : tensor<i1>
// PHASE: %[[X:.*]] = dtf.placeholder "x" : tensor<2x3xf32>
// PHASE: dtf.select %[[TRAINING]]
// RUN: not dtf-translate --import-graphdef %t/keep-prob.pbtxt --outputs=out 2>&1 | FileCheck %s --check-prefix=KEEP-PROB
// KEEP-PROB: error: node 'keep_prob' (PlaceholderWithDefault): is a placeholder with a default of type 'tensor<f32>'; DTF imports a boolean scalar one (the training flag of dropout and batch normalization) as the learning phase, and no other

// RUN: not dtf-translate --import-graphdef %t/no-switch.pbtxt --outputs=out 2>&1 | FileCheck %s --check-prefix=NO-SWITCH
// NO-SWITCH: error: node 'merge' (Merge): input 1 depends on no Switch: DTF imports Merge as the join of tf.compat.v1.cond's branches

// RUN: not dtf-translate --import-graphdef %t/one-branch.pbtxt --outputs=out 2>&1 | FileCheck %s --check-prefix=ONE-BRANCH
// ONE-BRANCH: error: node 'merge' (Merge): joins two values of the true branch of a tf.cond

// RUN: not dtf-translate --import-graphdef %t/two-predicates.pbtxt --outputs=out 2>&1 | FileCheck %s --check-prefix=TWO-PREDICATES
// TWO-PREDICATES: error: node 'merge' (Merge): joins branches of conds on different predicates, 'p' and 'q'

//--- cond.pbtxt
node { name: "x" op: "Placeholder" attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "training" op: "Placeholder" attr { key: "shape" value { shape { } } } attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "cond/Switch" op: "Switch" input: "training" input: "training" attr { key: "T" value { type: DT_BOOL } } }
node { name: "cond/switch_t" op: "Identity" input: "cond/Switch:1" attr { key: "T" value { type: DT_BOOL } } }
node { name: "cond/switch_f" op: "Identity" input: "cond/Switch" attr { key: "T" value { type: DT_BOOL } } }
node { name: "cond/pred_id" op: "Identity" input: "training" attr { key: "T" value { type: DT_BOOL } } }
node { name: "cond/mul/y" op: "Const" input: "^cond/switch_t" attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "cond/mul" op: "Mul" input: "cond/mul/Switch:1" input: "cond/mul/y" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/mul/Switch" op: "Switch" input: "x" input: "cond/pred_id" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/Identity" op: "Identity" input: "cond/Identity/Switch" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/Identity/Switch" op: "Switch" input: "x" input: "cond/pred_id" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/Merge" op: "Merge" input: "cond/Identity" input: "cond/mul" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
node { name: "out" op: "Identity" input: "cond/Merge" attr { key: "T" value { type: DT_FLOAT } } }
//--- no-switch.pbtxt
node { name: "x" op: "Placeholder" attr { key: "shape" value { shape { dim { size: 3 } } } } attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "p" op: "Placeholder" attr { key: "shape" value { shape { } } } attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "s" op: "Switch" input: "x" input: "p" }
node { name: "merge" op: "Merge" input: "s" input: "x" }
node { name: "out" op: "Identity" input: "merge" }
//--- one-branch.pbtxt
node { name: "x" op: "Placeholder" attr { key: "shape" value { shape { dim { size: 3 } } } } attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "p" op: "Placeholder" attr { key: "shape" value { shape { } } } attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "s" op: "Switch" input: "x" input: "p" }
node { name: "merge" op: "Merge" input: "s:1" input: "s:1" }
node { name: "out" op: "Identity" input: "merge" }
//--- two-predicates.pbtxt
node { name: "x" op: "Placeholder" attr { key: "shape" value { shape { dim { size: 3 } } } } attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "p" op: "Placeholder" attr { key: "shape" value { shape { } } } attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "q" op: "Placeholder" attr { key: "shape" value { shape { } } } attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "s" op: "Switch" input: "x" input: "p" }
node { name: "t" op: "Switch" input: "x" input: "q" }
node { name: "merge" op: "Merge" input: "s" input: "t:1" }
node { name: "out" op: "Identity" input: "merge" }
//--- learning-phase.pbtxt
node { name: "x" op: "Placeholder" attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "training/input" op: "Const" attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape { } bool_val: false } } } attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "training" op: "PlaceholderWithDefault" input: "training/input" attr { key: "shape" value { shape { } } } attr { key: "dtype" value { type: DT_BOOL } } }
node { name: "cond/Switch" op: "Switch" input: "training" input: "training" attr { key: "T" value { type: DT_BOOL } } }
node { name: "cond/switch_t" op: "Identity" input: "cond/Switch:1" attr { key: "T" value { type: DT_BOOL } } }
node { name: "cond/switch_f" op: "Identity" input: "cond/Switch" attr { key: "T" value { type: DT_BOOL } } }
node { name: "cond/pred_id" op: "Identity" input: "training" attr { key: "T" value { type: DT_BOOL } } }
node { name: "cond/mul/y" op: "Const" input: "^cond/switch_t" attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "cond/mul" op: "Mul" input: "cond/mul/Switch:1" input: "cond/mul/y" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/mul/Switch" op: "Switch" input: "x" input: "cond/pred_id" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/Identity" op: "Identity" input: "cond/Identity/Switch" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/Identity/Switch" op: "Switch" input: "x" input: "cond/pred_id" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/Merge" op: "Merge" input: "cond/Identity" input: "cond/mul" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
node { name: "out" op: "Identity" input: "cond/Merge" attr { key: "T" value { type: DT_FLOAT } } }
//--- keep-prob.pbtxt
node { name: "one" op: "Const" attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "keep_prob" op: "PlaceholderWithDefault" input: "one" attr { key: "shape" value { shape { } } } attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "out" op: "Identity" input: "keep_prob" }
