// tf.clip_by_global_norm between the gradients and the optimizer
// (Inputs/make_clip_graphs.py): recognized by its whole graph, it becomes
// dtf.minimize's clip_by_global_norm, and its ops are not imported. A
// script that clips only some gradients computes something else: refused,
// naming the norm.
// RUN: dtf-translate --import-graphdef %S/Inputs/clip_by_global_norm.pbtxt | FileCheck %s
// RUN: not dtf-translate --import-graphdef %S/Inputs/clip_subset.pbtxt 2>&1 | FileCheck %s --check-prefix=SUBSET

// CHECK-NOT:  dtf.sqrt
// CHECK:      dtf.minimize %{{.*}} : tensor<f32>, #dtf.sgd<learning_rate = 0.1> clip_by_global_norm 2.500000e+00 global_step

// SUBSET: clip_subset.pbtxt:{{[0-9]+}}:1: error: node 'global_norm/global_norm' (Sqrt): is a global norm of other gradients than those the optimizer applies, or not all of them are clipped by it
