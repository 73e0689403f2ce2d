// RUN: dtf-opt -split-input-file -verify-diagnostics %s

// expected-error @+1 {{replicas_to_aggregate must be at least 1, got 0}}
module attributes {dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 0, total_replicas = 2>} {
}

// -----

// expected-error @+1 {{replicas_to_aggregate (3) exceeds total_replicas (2)}}
module attributes {dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 3, total_replicas = 2>} {
}

// -----

// expected-error @+2 {{expected ::dtf::ir::ReplicationMode to be one of: async, sync}}
// expected-error @+1 {{failed to parse DTF_ReplicationAttr parameter 'mode'}}
module attributes {dtf.replication = #dtf.replication<mode = hogwild, replicas_to_aggregate = 1, total_replicas = 1>} {
}

// -----

// expected-error @+1 {{'dtf.replication' must be a #dtf.replication attribute}}
module attributes {dtf.replication = "sync"} {
}

// -----

// expected-error @+1 {{'dtf.replication' is only valid on a module}}
func.func @f() attributes {dtf.replication = #dtf.replication<mode = async, replicas_to_aggregate = 1, total_replicas = 1>} {
  return
}

// -----

// expected-error @+1 {{'dtf.gradients' is only valid on a function}}
module attributes {dtf.gradients = ["w"]} {
}

// -----

// expected-error @+1 {{'dtf.gradients' must be an array of strings}}
func.func @ps_0(%g: tensor<2xf32>) attributes {dtf.gradients = [1]} {
  return
}

// -----

// expected-error @+1 {{'dtf.gradients' lists 'w' twice}}
func.func @ps_0(%g: tensor<2xf32>, %h: tensor<2xf32>) attributes {dtf.gradients = ["w", "w"]} {
  return
}

// -----

// Sync mode aggregates two replicas: two groups of one gradient.
module attributes {dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 2, total_replicas = 2>} {
  // expected-error @+1 {{takes 1 arguments, but 'dtf.gradients' lists 1 variables and the module aggregates 2 replicas per update}}
  func.func @ps_0(%g: tensor<2xf32>) attributes {dtf.gradients = ["w"]} {
    return
  }
}

// -----

// Async mode takes one replica's gradients, whatever replicas_to_aggregate.
module attributes {dtf.replication = #dtf.replication<mode = async, replicas_to_aggregate = 2, total_replicas = 2>} {
  // expected-error @+1 {{takes 2 arguments, but 'dtf.gradients' lists 1 variables and the module aggregates 1 replica per update}}
  func.func @ps_0(%g: tensor<2xf32>, %h: tensor<2xf32>) attributes {dtf.gradients = ["w"]} {
    return
  }
}

// -----

module attributes {dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 2, total_replicas = 2>} {
  // expected-error @+1 {{argument #3 has type 'tensor<3xf32>', but it is a gradient of 'b' like argument #1 of type 'tensor<2xf32>'}}
  func.func @ps_0(%w0: tensor<4xf32>, %b0: tensor<2xf32>, %w1: tensor<4xf32>, %b1: tensor<3xf32>) attributes {dtf.gradients = ["w", "b"]} {
    return
  }
}

// -----

func.func @pull_from_worker() -> tensor<2xf32> {
  // expected-error @+1 {{'dtf.pull' op expects a PS task '/job:ps/task:N', got '/job:worker/task:0'}}
  %w = dtf.pull "w" from "/job:worker/task:0" : tensor<2xf32>
  return %w : tensor<2xf32>
}

// -----

func.func @pull_from_device() -> tensor<2xf32> {
  // expected-error @+1 {{'dtf.pull' op expects a PS task '/job:ps/task:N', got '/job:ps/task:0/device:CPU:0'}}
  %w = dtf.pull "w" from "/job:ps/task:0/device:CPU:0" : tensor<2xf32>
  return %w : tensor<2xf32>
}

// -----

func.func @pull_dynamic() -> tensor<?xf32> {
  // expected-error @+1 {{'dtf.pull' op variable 'w' must have a static shape, got 'tensor<?xf32>'}}
  %w = dtf.pull "w" from "/job:ps/task:0" : tensor<?xf32>
  return %w : tensor<?xf32>
}

// -----

func.func @pull_unnamed() -> tensor<2xf32> {
  // expected-error @+1 {{'dtf.pull' op expects a variable name}}
  %w = dtf.pull "" from "/job:ps/task:0" : tensor<2xf32>
  return %w : tensor<2xf32>
}

// -----

func.func @pull_bad_device() -> tensor<2xf32> {
  // expected-error @+1 {{invalid device '/job:ps': expected 'task:N' after the job, got ''}}
  %w = dtf.pull "w" from "/job:ps" : tensor<2xf32>
  return %w : tensor<2xf32>
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @pull_outside_cluster() -> tensor<2xf32> {
    // expected-error @+1 {{device '/job:ps/task:1' is not in the cluster: job 'ps' has 1 task}}
    %w = dtf.pull "w" from "/job:ps/task:1" : tensor<2xf32>
    return %w : tensor<2xf32>
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @push_outside_cluster(%step: tensor<i64>, %g: tensor<2xf32>) {
    // expected-error @+1 {{device '/job:ps/task:2' is not in the cluster: job 'ps' has 1 task}}
    dtf.push_gradients to "/job:ps/task:2" step %step (%g) {names = ["w"]} : tensor<i64>, tensor<2xf32>
    return
  }
}

// -----

func.func @push_to_worker(%step: tensor<i64>, %g: tensor<2xf32>) {
  // expected-error @+1 {{'dtf.push_gradients' op expects a PS task '/job:ps/task:N', got '/job:worker/task:1'}}
  dtf.push_gradients to "/job:worker/task:1" step %step (%g) {names = ["w"]} : tensor<i64>, tensor<2xf32>
  return
}

// -----

func.func @push_unnamed(%step: tensor<i64>, %g: tensor<2xf32>) {
  // expected-error @+1 {{'dtf.push_gradients' op has 1 gradients but 0 names}}
  dtf.push_gradients to "/job:ps/task:0" step %step (%g) : tensor<i64>, tensor<2xf32>
  return
}

// -----

func.func @push_twice(%step: tensor<i64>, %g: tensor<2xf32>) {
  // expected-error @+1 {{'dtf.push_gradients' op pushes two gradients of 'w'}}
  dtf.push_gradients to "/job:ps/task:0" step %step (%g, %g) {names = ["w", "w"]} : tensor<i64>, tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @push_float_step(%step: tensor<f32>, %g: tensor<2xf32>) {
  // expected-error @+1 {{'dtf.push_gradients' op operand #0 must be 0D tensor of signless integer values, but got 'tensor<f32>'}}
  dtf.push_gradients to "/job:ps/task:0" step %step (%g) {names = ["w"]} : tensor<f32>, tensor<2xf32>
  return
}

// -----

func.func @push_integer_gradient(%step: tensor<i64>, %g: tensor<2xi32>) {
  // expected-error @+1 {{'dtf.push_gradients' op operand #1 must be variadic of ranked tensor of floating-point values, but got 'tensor<2xi32>'}}
  dtf.push_gradients to "/job:ps/task:0" step %step (%g) {names = ["w"]} : tensor<i64>, tensor<2xi32>
  return
}
