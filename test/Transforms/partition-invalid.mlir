// RUN: dtf-opt %s -split-input-file --dtf-partition -verify-diagnostics

// Every op must be placed, unless a default-device is given.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @unplaced(%x: tensor<4xf32>) -> tensor<4xf32> {
    %a = dtf.relu %x {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4xf32>
    // expected-error @+1 {{'dtf.neg' op has no 'dtf.device'; place the function first (--dtf-place-variables) or give --dtf-partition a default-device}}
    %b = dtf.neg %a : tensor<4xf32>
    return %b : tensor<4xf32>
  }
}

// -----

// A variable is only touched on its own device: its handle never crosses.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @resource_crossing() -> tensor<4xf32> {
    // expected-note @+1 {{defined here}}
    %v = dtf.variable "v" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<4xf32>>
    // expected-error @+1 {{'dtf.read' op on '/job:worker/task:0' uses a resource handle of variable 'v' that lives on '/job:ps/task:0'; a resource handle cannot cross devices, so place the op with its variable}}
    %r = dtf.read %v {dtf.device = #dtf.device<"/job:worker/task:0">} : !dtf.resource<tensor<4xf32>>
    return %r : tensor<4xf32>
  }
}

// -----

// Neither does a handle passed in by the client.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @resource_argument(%v: !dtf.resource<tensor<4xf32>>) -> tensor<4xf32> {
    // expected-error @+1 {{'dtf.read' op on '/job:ps/task:0' uses a resource handle that lives on '/job:worker/task:0'}}
    %r = dtf.read %v {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<4xf32>>
    return %r : tensor<4xf32>
  }
}

// -----

// Only tensors can be sent.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @index_crossing() -> index {
    // expected-note @+1 {{defined here}}
    %c = arith.constant {dtf.device = #dtf.device<"/job:worker/task:1">} 1 : index
    // expected-error @+1 {{'func.return' op on '/job:worker/task:0' uses a value of type 'index' computed on '/job:worker/task:1'; only tensors can be sent between devices}}
    return %c : index
  }
}

// -----

// Nested ops run with their parent.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @nested(%x: tensor<4xf32>) -> tensor<4xf32> {
    %e = scf.execute_region -> tensor<4xf32> {
      // expected-error @+1 {{'dtf.neg' op is placed on '/job:worker/task:0' inside an op placed on '/job:worker/task:1'; partitioning keeps nested ops with their parent}}
      %n = dtf.neg %x {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<4xf32>
      scf.yield %n : tensor<4xf32>
    } {dtf.device = #dtf.device<"/job:worker/task:1">}
    return %e : tensor<4xf32>
  }
}

// -----

// A called function cannot be replaced by its partitions.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  // expected-error @+1 {{'func.func' op is referenced in the module; only functions nothing calls can be partitioned}}
  func.func @callee(%x: tensor<4xf32>) -> tensor<4xf32> {
    %n = dtf.neg %x {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4xf32>
    return %n : tensor<4xf32>
  }
  func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
    %r = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}

// -----

// Partitioning works on straight-line graphs.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  // expected-error @+1 {{'func.func' op has 2 blocks; partitioning needs a single-block function}}
  func.func @blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
    %n = dtf.neg %x {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4xf32>
    llvm.br ^next
  ^next:
    return %n : tensor<4xf32>
  }
}
