// RUN: dtf-opt --dtf-replicate -split-input-file -verify-diagnostics %s

// What --dtf-replicate rejects, each with the error that says why.

// expected-error @+1 {{--dtf-replicate needs the module attribute 'dtf.cluster' naming the PS and worker tasks}}
module {
  func.func @main() {
    return
  }
}

// -----

// expected-error @+1 {{the cluster has no PS task to hold the variables}}
module attributes {dtf.cluster = #dtf.cluster<ps = [], worker = ["localhost:2223"]>} {
  func.func @main() {
    return
  }
}

// -----

// A device outside the cluster is rejected when the module is verified,
// before any pass runs.
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() {
    // expected-error @+1 {{device '/job:ps/task:1' is not in the cluster: job 'ps' has 1 task}}
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<2xf32>>
    return
  }
}

// -----

// expected-error @+1 {{the module is already replicated ('dtf.replication' is set)}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>,
                   dtf.replication = #dtf.replication<mode = async, replicas_to_aggregate = 1, total_replicas = 1>} {
  func.func @worker() {
    return
  }
}

// -----

// expected-error @+1 {{--dtf-replicate expects one training function, found 2}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  // expected-note @+1 {{function 'main'}}
  func.func @main() {
    return
  }
  // expected-note @+1 {{function 'eval'}}
  func.func @eval() {
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  // expected-error @+1 {{'func.func' op has 2 blocks; --dtf-replicate expects a single-block training function}}
  func.func @main() {
    return
  ^unreachable:
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  // expected-error @+1 {{'func.func' op takes arguments; a replicated training function takes none (the runtime feeds dtf.placeholder ops by name)}}
  func.func @main(%x: tensor<2xf32>) {
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() -> !dtf.resource<tensor<2xf32>> {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    // expected-error @+1 {{'func.return' op returns a variable handle; a worker fetches tensors, so return its dtf.read instead}}
    return %w : !dtf.resource<tensor<2xf32>>
  }
}

// -----

// Nothing to replicate: a forward pass only.
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  // expected-error @+1 {{'func.func' op has no gradient update (dtf.apply_*) to replicate; run --dtf-autodiff and --dtf-expand-optimizer first}}
  func.func @main() -> tensor<2xf32> {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %value = dtf.read %w : !dtf.resource<tensor<2xf32>>
    return %value : tensor<2xf32>
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %value = dtf.read %w : !dtf.resource<tensor<2xf32>>
    %loss = dtf.reduce_sum %value : tensor<2xf32>
    // expected-error @+1 {{'dtf.minimize' op must be expanded before replication; run --dtf-autodiff and --dtf-expand-optimizer first}}
    dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() -> tensor<2xf32> {
    // expected-error @+1 {{'dtf.pull' op is already the result of replication}}
    %w = dtf.pull "w" from "/job:ps/task:0" : tensor<2xf32>
    return %w : tensor<2xf32>
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() {
    // expected-error @+1 {{'dtf.variable' op variable 'w' is not placed; run --dtf-place-variables first}}
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() {
    // expected-error @+1 {{'dtf.variable' op variable 'w' is on '/job:worker/task:0', not on a PS task: replicas share variables only through PS tasks}}
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:worker/task:0">} : !dtf.resource<tensor<2xf32>>
    return
  }
}

// -----

// In-graph replication: the graph already spans two workers.
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223", "localhost:2224"]>} {
  func.func @main() -> tensor<2xf32> {
    // expected-note @+1 {{placed there}}
    %x0 = dtf.placeholder "x0" {dtf.device = #dtf.device<"/job:worker/task:0/device:GPU:0">} : tensor<2xf32>
    // expected-error @+1 {{'dtf.placeholder' op is placed on '/job:worker/task:1', but other ops are on '/job:worker/task:0': between-graph replication takes the graph of one worker}}
    %x1 = dtf.placeholder "x1" {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<2xf32>
    %sum = dtf.add %x0, %x1 : tensor<2xf32>, tensor<2xf32>
    return %sum : tensor<2xf32>
  }
}

// -----

// An update runs on one task: a slot on another task than its variable.
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"], worker = ["localhost:2223"]>} {
  func.func @main() {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %w_m = dtf.variable "w/Momentum" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">, trainable = false} : !dtf.resource<tensor<2xf32>>
    %g = dtf.placeholder "g" : tensor<2xf32>
    // expected-error @+1 {{'dtf.apply_momentum' op writes 'w' of PS task 0 and 'w/Momentum' of PS task 1: an update runs on one PS task, so its variables (and slots) must be placed together}}
    dtf.apply_momentum %w, %w_m, %g learning_rate 0.1 momentum 0.9 : !dtf.resource<tensor<2xf32>>
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %g = dtf.placeholder "g" : tensor<2xf32>
    // expected-note @+1 {{first gradient update}}
    dtf.apply_gradient_descent %w, %g learning_rate 0.1 : !dtf.resource<tensor<2xf32>>
    // expected-error @+1 {{'dtf.apply_gradient_descent' op is a second gradient update of 'w'; a replica pushes one gradient per variable}}
    dtf.apply_gradient_descent %w, %g learning_rate 0.2 : !dtf.resource<tensor<2xf32>>
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() {
    %a = dtf.variable "a" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<i64>>
    %b = dtf.variable "b" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<i32>>
    %one = dtf.constant dense<1> : tensor<i64>
    %one32 = dtf.constant dense<1> : tensor<i32>
    dtf.assign_add %a, %one : !dtf.resource<tensor<i64>>
    // expected-error @+1 {{'dtf.assign_add' op increments 'b' like a global step, but 'a' is incremented too; replication needs one global step}}
    dtf.assign_add %b, %one32 : !dtf.resource<tensor<i32>>
    return
  }
}

// -----

// A PS task only gets worker data as gradients.
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %mean = dtf.variable "mean" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<2xf32>>
    // expected-note @+1 {{placeholder defined here}}
    %x = dtf.placeholder "x" : tensor<2xf32>
    %mean_value = dtf.read %mean : !dtf.resource<tensor<2xf32>>
    %sum = dtf.add %mean_value, %x : tensor<2xf32>, tensor<2xf32>
    // expected-error @+1 {{'dtf.assign' op writes a value that depends on the placeholder 'x', which only workers are fed: worker data reaches PS task 0 only as the gradient of a dtf.apply_* update}}
    dtf.assign %mean, %sum : !dtf.resource<tensor<2xf32>>
    %g = dtf.neg %x : tensor<2xf32>
    dtf.apply_gradient_descent %w, %g learning_rate 0.1 : !dtf.resource<tensor<2xf32>>
    return
  }
}

// -----

// Only state without gradients can be copied to another task.
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"], worker = ["localhost:2223"]>} {
  func.func @main() {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    // expected-note @+1 {{variable defined here}}
    %b = dtf.variable "b" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<2xf32>>
    %g = dtf.placeholder "g" : tensor<2xf32>
    dtf.apply_gradient_descent %b, %g learning_rate 0.1 : !dtf.resource<tensor<2xf32>>
    %b_value = dtf.read %b : !dtf.resource<tensor<2xf32>>
    // expected-error @+1 {{'dtf.assign' op on PS task 0 needs 'b' of PS task 1, which gets gradients there; only state without gradients (such as Adam's beta powers) can be copied to another PS task}}
    dtf.assign %w, %b_value : !dtf.resource<tensor<2xf32>>
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %g = dtf.placeholder "g" : tensor<2xf32>
    dtf.apply_gradient_descent %w, %g learning_rate 0.1 : !dtf.resource<tensor<2xf32>>
    // expected-error @+1 {{'memref.alloc' op has side effects that --dtf-replicate cannot place on a worker or a PS task}}
    %buffer = memref.alloc() : memref<2xf32>
    return
  }
}

// -----

// Dead code: no replica would run it.
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %g = dtf.placeholder "g" : tensor<2xf32>
    dtf.apply_gradient_descent %w, %g learning_rate 0.1 : !dtf.resource<tensor<2xf32>>
    // expected-error @+1 {{'dtf.neg' op is neither on the worker's path (to the results and the gradients) nor on a PS task's (to a variable update), so no replica would run it}}
    %unused = dtf.neg %g : tensor<2xf32>
    return
  }
}
