// RUN: dtf-opt %s -split-input-file --dtf-verify-partitions -verify-diagnostics

// Hand-written partitions: the contract --dtf-partition keeps, broken one
// way at a time. The first module keeps it.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
  func.func @f_ps_0() attributes {dtf.device = #dtf.device<"/job:ps/task:0">} {
    %x = dtf.recv "edge_0" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<4xf32>
    %y = dtf.neg %x {dtf.device = #dtf.device<"/job:ps/task:0">} : tensor<4xf32>
    dtf.send %y, "edge_1" from "/job:ps/task:0" to "/job:worker/task:0" : tensor<4xf32>
    return
  }
  func.func @f_worker_0(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
    dtf.send %x, "edge_0" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<4xf32>
    %y = dtf.recv "edge_1" from "/job:ps/task:0" to "/job:worker/task:0" : tensor<4xf32>
    return %y : tensor<4xf32>
  }
  // Functions without a device are not partitions.
  func.func @other(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = dtf.neg %x {dtf.device = #dtf.device<"/job:ps/task:0">} : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}

// -----

// A use across devices without a transfer.
func.func @f_worker_0(%x: tensor<4xf32>) -> tensor<4xf32> attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
  // expected-note @+1 {{computed here}}
  %y = dtf.neg %x {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4xf32>
  // expected-error @+1 {{'dtf.relu' op operand #0 is computed on '/job:worker/task:1', not in partition @f_worker_0 on '/job:worker/task:0'; a cross-device use needs a dtf.send/dtf.recv pair}}
  %z = dtf.relu %y : tensor<4xf32>
  return %z : tensor<4xf32>
}

// -----

func.func @f_worker_0() attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
  // expected-error @+1 {{'dtf.placeholder' op is placed on '/job:worker/task:1' but its partition @f_worker_0 runs on '/job:worker/task:0'}}
  %y = dtf.placeholder "y" {dtf.device = #dtf.device<"/job:worker/task:1">} : tensor<4xf32>
  return
}

// -----

func.func @f_worker_0(%x: tensor<4xf32>) attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
  // expected-error @+1 {{'dtf.send' op sends from '/job:worker/task:1' but its partition @f_worker_0 runs on '/job:worker/task:0'}}
  dtf.send %x, "t" from "/job:worker/task:1" to "/job:ps/task:0" : tensor<4xf32>
  return
}

// -----

func.func @f_worker_0() attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
  // expected-error @+1 {{'dtf.recv' op receives on '/job:ps/task:0' but its partition @f_worker_0 runs on '/job:worker/task:0'}}
  %x = dtf.recv "t" from "/job:worker/task:1" to "/job:ps/task:0" : tensor<4xf32>
  return
}

// -----

func.func @f_worker_0(%x: tensor<4xf32>) attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
  // expected-error @+1 {{'dtf.send' op has no matching dtf.recv of key '/job:worker/task:0;/job:ps/task:0;t': the tensor would never be received}}
  dtf.send %x, "t" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<4xf32>
  return
}

// -----

func.func @f_worker_0() attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
  // expected-error @+1 {{'dtf.recv' op has no matching dtf.send of key '/job:ps/task:0;/job:worker/task:0;t': it would wait forever}}
  %x = dtf.recv "t" from "/job:ps/task:0" to "/job:worker/task:0" : tensor<4xf32>
  return
}

// -----

func.func @f_ps_0() attributes {dtf.device = #dtf.device<"/job:ps/task:0">} {
  %x = dtf.recv "t" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<4xf32>
  return
}
func.func @f_worker_0(%x: tensor<4xf32>) attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
  // expected-note @+1 {{first sent here}}
  dtf.send %x, "t" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<4xf32>
  // expected-error @+1 {{'dtf.send' op reuses the rendezvous key '/job:worker/task:0;/job:ps/task:0;t' of another dtf.send}}
  dtf.send %x, "t" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<4xf32>
  return
}

// -----

func.func @f_ps_0() attributes {dtf.device = #dtf.device<"/job:ps/task:0">} {
  // expected-error @+1 {{'dtf.recv' op receives 'tensor<4xf16>' but its dtf.send sends 'tensor<4xf32>'}}
  %x = dtf.recv "t" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<4xf16>
  return
}
func.func @f_worker_0(%x: tensor<4xf32>) attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
  // expected-note @+1 {{sent here}}
  dtf.send %x, "t" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<4xf32>
  return
}

// -----

// Each partition waits for the other before sending: a deadlock.
func.func @f_ps_0() attributes {dtf.device = #dtf.device<"/job:ps/task:0">} {
  // expected-error @+1 {{'dtf.recv' op can never complete: its dtf.send waits, directly or through other partitions, for this recv (deadlock)}}
  %x = dtf.recv "a" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<4xf32>
  dtf.send %x, "b" from "/job:ps/task:0" to "/job:worker/task:0" : tensor<4xf32>
  return
}
func.func @f_worker_0() attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
  %y = dtf.recv "b" from "/job:ps/task:0" to "/job:worker/task:0" : tensor<4xf32>
  // expected-note @+1 {{the dtf.send it waits for}}
  dtf.send %y, "a" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<4xf32>
  return
}

// -----

// A longer cycle through three partitions, where a recv waits behind
// another recv of its own partition.
func.func @f_ps_0() attributes {dtf.device = #dtf.device<"/job:ps/task:0">} {
  %ok = dtf.recv "ok" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<f32>
  // expected-error @+1 {{'dtf.recv' op can never complete}}
  %x = dtf.recv "a" from "/job:worker/task:1" to "/job:ps/task:0" : tensor<4xf32>
  dtf.send %x, "b" from "/job:ps/task:0" to "/job:worker/task:0" : tensor<4xf32>
  return
}
func.func @f_worker_0(%c: tensor<f32>) attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
  dtf.send %c, "ok" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<f32>
  %y = dtf.recv "b" from "/job:ps/task:0" to "/job:worker/task:0" : tensor<4xf32>
  dtf.send %y, "c" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<4xf32>
  return
}
func.func @f_worker_1() attributes {dtf.device = #dtf.device<"/job:worker/task:1">} {
  %z = dtf.recv "c" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<4xf32>
  // expected-note @+1 {{the dtf.send it waits for}}
  dtf.send %z, "a" from "/job:worker/task:1" to "/job:ps/task:0" : tensor<4xf32>
  return
}
