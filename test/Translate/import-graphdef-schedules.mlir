// TensorFlow's learning-rate decay functions of the global step, as
// tf.compat.v1.train builds them (Inputs/make_schedule_graphs.py): each
// becomes the optimizer's #dtf schedule, starting at its initial rate, and
// the ops that compute it in the graph are not imported.
// RUN: dtf-translate --import-graphdef %S/Inputs/schedule_exponential.pbtxt | FileCheck %s --check-prefix=EXPONENTIAL
// RUN: dtf-translate --import-graphdef %S/Inputs/schedule_exponential_smooth.pbtxt | FileCheck %s --check-prefix=SMOOTH
// RUN: dtf-translate --import-graphdef %S/Inputs/schedule_polynomial.pbtxt | FileCheck %s --check-prefix=POLYNOMIAL
// RUN: dtf-translate --import-graphdef %S/Inputs/schedule_polynomial_cycle.pbtxt | FileCheck %s --check-prefix=CYCLE
// RUN: dtf-translate --import-graphdef %S/Inputs/schedule_cosine.pbtxt | FileCheck %s --check-prefix=COSINE
// RUN: dtf-translate --import-graphdef %S/Inputs/schedule_piecewise.pbtxt | FileCheck %s --check-prefix=PIECEWISE
// RUN: dtf-translate --import-graphdef %S/Inputs/schedule_piecewise_one.pbtxt | FileCheck %s --check-prefix=PIECEWISE-ONE

// EXPONENTIAL:     %[[STEP:.*]] = dtf.variable "global_step"
// EXPONENTIAL-NOT: dtf.pow
// EXPONENTIAL:     dtf.minimize %{{.*}} : tensor<f32>, #dtf.momentum<learning_rate = 0.05, momentum = 0.9, schedule = #dtf.exponential_decay<decay_steps = 1000.0, decay_rate = 0.9, staircase = true>> global_step %[[STEP]]

// SMOOTH: dtf.minimize %{{.*}} : tensor<f32>, #dtf.sgd<learning_rate = 0.1, schedule = #dtf.exponential_decay<decay_steps = 500.0, decay_rate = 0.5>> global_step

// POLYNOMIAL: dtf.minimize %{{.*}} : tensor<f32>, #dtf.adam<learning_rate = 0.1, schedule = #dtf.polynomial_decay<decay_steps = 2000.0, end_learning_rate = 0.001, power = 2.0>> global_step

// CYCLE: dtf.minimize %{{.*}} : tensor<f32>, #dtf.sgd<learning_rate = 0.1, schedule = #dtf.polynomial_decay<decay_steps = 2000.0, cycle = true>> global_step

// COSINE: dtf.minimize %{{.*}} : tensor<f32>, #dtf.rmsprop<learning_rate = 0.001, schedule = #dtf.cosine_decay<decay_steps = 3000.0, alpha = 0.1>> global_step

// piecewise_constant's tf.case, nested tf.conds on the step's place among
// the boundaries, becomes the schedule whatever the order of its cases; one
// boundary makes two cases and no LogicalAnd.
// PIECEWISE-NOT: dtf.select
// PIECEWISE:     dtf.minimize %{{.*}} : tensor<f32>, #dtf.momentum<learning_rate = 0.1, momentum = 0.9, schedule = #dtf.piecewise_constant<boundaries = [100, 200, 500], values = [1.000000e-01, 5.000000e-02, 1.000000e-02, 1.000000e-03]>> global_step

// PIECEWISE-ONE: dtf.minimize %{{.*}} : tensor<f32>, #dtf.sgd<learning_rate = 0.5, schedule = #dtf.piecewise_constant<boundaries = [1000], values = [5.000000e-01, 1.000000e-01]>> global_step
