// RUN: dtf-opt --dtf-replicate=mode=sync -split-input-file -verify-diagnostics %s

// Sync mode tags pushes with the global step to drop stale gradients, so it
// needs one (async mode tags them with 0).
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  // expected-error @+1 {{'func.func' op has no global step, which mode=sync needs to tag pushes and drop stale gradients: give dtf.minimize a global_step}}
  func.func @main() {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %g = dtf.placeholder "g" : tensor<2xf32>
    dtf.apply_gradient_descent %w, %g learning_rate 0.1 : !dtf.resource<tensor<2xf32>>
    return
  }
}

// -----

// A counter that is not incremented is no global step.
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  // expected-error @+1 {{'func.func' op has no global step}}
  func.func @main() {
    %step = dtf.variable "global_step" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<i64>>
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %g = dtf.placeholder "g" : tensor<2xf32>
    dtf.apply_gradient_descent %w, %g learning_rate 0.1 : !dtf.resource<tensor<2xf32>>
    return
  }
}
