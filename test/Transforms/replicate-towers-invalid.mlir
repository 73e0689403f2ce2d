// RUN: dtf-opt %s -split-input-file --dtf-replicate-towers=devices=/job:worker/task:0,/job:worker/task:1 -verify-diagnostics

// The model is one function.

// expected-error @+1 {{--dtf-replicate-towers replicates the model of one function; the module has 2 functions}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @first() {
    return
  }
  func.func @second() {
    return
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  // expected-error @+1 {{'func.func' op has 2 blocks; tower replication needs a single-block function}}
  func.func @blocks() {
    cf.br ^next
  ^next:
    return
  }
}

// -----

// Towers are cut from a placed graph.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @unplaced() -> tensor<4x3xf32> {
    // expected-error @+1 {{'dtf.placeholder' op has no 'dtf.device'; run --dtf-place-variables first}}
    %x = dtf.placeholder "x" : tensor<4x3xf32>
    return %x : tensor<4x3xf32>
  }
}

// -----

// A model already split over two workers (model parallelism) is not one
// tower's worth of ops.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @split() -> tensor<4x3xf32> {
    // expected-note @+1 {{placed on '/job:worker/task:0' here}}
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>
    // expected-error @+1 {{the model is already split over devices '/job:worker/task:0' and '/job:worker/task:1'; --dtf-replicate-towers replicates a model placed on one device}}
    %y = dtf.relu %x {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4x3xf32>
    return %y : tensor<4x3xf32>
  }
}

// -----

// The gradients must exist to be combined.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @minimize() {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<3xf32>>
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>
    %v = dtf.read %w {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<3xf32>>
    %y = dtf.mul %x, %v {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>, tensor<3xf32>
    %loss = dtf.reduce_sum %y {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>
    // expected-error @+1 {{'dtf.minimize' op must be expanded before tower replication; run --dtf-autodiff and --dtf-expand-optimizer first}}
    dtf.minimize %loss : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
    return
  }
}

// -----

// Towers split a batch: without a placeholder there is none.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  // expected-error @+1 {{'func.func' op has no dtf.placeholder feeding ops outside the PS tasks: there is no batch to split into towers}}
  func.func @no_batch() -> tensor<3xf32> {
    %c = dtf.constant {dtf.device = #dtf.device<"/job:worker/task:0">} dense<1.0> : tensor<3xf32>
    %y = dtf.relu %c {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<3xf32>
    return %y : tensor<3xf32>
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @scalar() -> tensor<f32> {
    // expected-error @+1 {{'dtf.placeholder' op 'rate' is a scalar; towers split the batch of a placeholder along dimension 0}}
    %r = dtf.placeholder "rate" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<f32>
    %y = dtf.neg %r {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<f32>
    return %y : tensor<f32>
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @dynamic() -> tensor<?x3xf32> {
    // expected-error @+1 {{'dtf.placeholder' op 'x' has a dynamic dimension 0; towers need a static batch size to split (give it one with --dtf-specialize-batch)}}
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<?x3xf32>
    %y = dtf.relu %x {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<?x3xf32>
    return %y : tensor<?x3xf32>
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @uneven() -> tensor<3x3xf32> {
    // expected-error @+1 {{'dtf.placeholder' op 'x' has 3 rows along dimension 0, which 2 towers cannot split evenly}}
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<3x3xf32>
    %y = dtf.relu %x {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<3x3xf32>
    return %y : tensor<3x3xf32>
  }
}

// -----

// A tower op whose result type is written out and does not follow from its
// operands: a reshape that is not batch-major.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @not_batch_major() -> tensor<1x24xf32> {
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x6xf32>
    // expected-error @+1 {{'dtf.reshape' op cannot be replicated into towers: its result type for a part of the batch does not follow from its operands' types}}
    %y = dtf.reshape %x {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x6xf32> -> tensor<1x24xf32>
    return %y : tensor<1x24xf32>
  }
}

// -----

// Batch normalization's statistics: every row of the normalized batch
// depends on every row of the batch, which towers would split.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @batch_statistics() -> tensor<f32> {
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>
    // expected-error @+1 {{'dtf.reduce_mean' op reduces over the rows of the batch, and a row of its user's result depends on it (as batch normalization's statistics do): a tower's rows would depend on the other towers' rows, so --dtf-replicate-towers cannot split the batch; replicate between graphs instead}}
    %mean = dtf.reduce_mean %x {axes = array<i64: 0>, dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>
    // expected-note @+1 {{used here for every row}}
    %centered = dtf.sub %x, %mean {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>, tensor<3xf32>
    %loss = dtf.reduce_sum %centered {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>
    return %loss : tensor<f32>
  }
}

// -----

// A product over the rows mixes them as a sum does.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @product_over_rows() -> tensor<f32> {
    %x = dtf.placeholder "x" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>
    // expected-error @+1 {{'dtf.reduce_prod' op reduces over the rows of the batch, and a row of its user's result depends on it}}
    %product = dtf.reduce_prod %x {axes = array<i64: 0>, dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>
    // expected-note @+1 {{used here for every row}}
    %scaled = dtf.mul %x, %product {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>, tensor<3xf32>
    %loss = dtf.reduce_sum %scaled {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4x3xf32>
    return %loss : tensor<f32>
  }
}
