// RUN: dtf-opt %s -split-input-file --dtf-place-variables="min-shard-bytes=8 max-shard-bytes=64 max-shards=2" -verify-diagnostics

// Variables that cannot be cut finely enough, and uses of a sharded
// variable that cannot be rewritten to its shards. Nothing is changed when
// the pass fails.

module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @row_too_big() {
    // expected-error @+1 {{'dtf.variable' op variable 'wide' ('tensor<2x100xf32>', 800 bytes) cannot be split into shards of at most 64 bytes: one row along dimension 0 holds 400 bytes}}
    %w = dtf.variable "wide" init(#dtf.zeros) : !dtf.resource<tensor<2x100xf32>>
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @one_row() {
    // expected-error @+1 {{'dtf.variable' op variable 'row' ('tensor<1x100xf32>', 400 bytes) exceeds max-shard-bytes=64 but cannot be split: it has no dimension 0 of more than one row}}
    %w = dtf.variable "row" init(#dtf.zeros) : !dtf.resource<tensor<1x100xf32>>
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @too_many_shards() {
    // expected-error @+1 {{'dtf.variable' op variable 'w' ('tensor<10x4xf32>', 160 bytes) needs 3 shards of at most 64 bytes, but at most 2 are allowed (max-shards)}}
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<10x4xf32>>
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @unknown_use(%g: tensor<4x4xf32>) {
    // expected-note @+1 {{variable defined here}}
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x4xf32>>
    // expected-error @+1 {{'dtf.apply_gradients' op uses variable 'w', which is split into 2 shards, but only dtf.read, dtf.assign, dtf.assign_add and the dtf.apply_* updates can be rewritten to use shards}}
    dtf.apply_gradients #dtf.sgd<learning_rate = 0.1> (%w : !dtf.resource<tensor<4x4xf32>>) grads(%g : tensor<4x4xf32>)
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @returned() -> !dtf.resource<tensor<4x4xf32>> {
    // expected-note @+1 {{variable defined here}}
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x4xf32>>
    // expected-error @+1 {{'func.return' op uses variable 'w', which is split into 2 shards}}
    return %w : !dtf.resource<tensor<4x4xf32>>
  }
}

// -----

// A slot must be colocated with its variable to be split with it.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @slot_not_colocated(%g: tensor<4x4xf32>) {
    // expected-note @+1 {{variable defined here}}
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<4x4xf32>>
    %m = dtf.variable "m" init(#dtf.zeros) : !dtf.resource<tensor<4x4xf32>>
    // expected-error @+1 {{'dtf.apply_momentum' op updates variable 'w', which is split into 2 shards, with variable 'm', which is not split with it (colocate it with 'w' and give it the same type)}}
    dtf.apply_momentum %w, %m, %g learning_rate 0.1 momentum 0.9 : !dtf.resource<tensor<4x4xf32>>
    return
  }
}

// -----

// An orthogonal matrix is not rows drawn one by one: each shard would be
// initialized alone.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @orthogonal() {
    // expected-error @+1 {{'dtf.variable' op variable 'rnn/kernel' is initialized #dtf.orthogonal, whose rows depend on each other, so it cannot be split into 2 shards; keep it whole (larger shards, or no dtf.partitioner)}}
    %w = dtf.variable "rnn/kernel" init(#dtf.orthogonal<seed = 1>) : !dtf.resource<tensor<8x4xf32>>
    %v = dtf.read %w : !dtf.resource<tensor<8x4xf32>>
    return
  }
}
