// RUN: dtf-opt %s -split-input-file -verify-diagnostics

// Diagnostics of the ops and attributes distribution adds: colocation,
// transfers, concat and slice. Shape errors of concat and slice come from
// their shape functions while parsing, hence without the "'dtf.op' op"
// prefix.

//===----------------------------------------------------------------------===//
// colocate_with
//===----------------------------------------------------------------------===//

func.func @colocate_missing() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  // expected-error @+1 {{'dtf.variable' op colocate_with names 'v', but there is no such variable in this block}}
  %m = dtf.variable "w/Adam" init(#dtf.zeros) colocate_with("v") : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @colocate_other_block() {
  %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
  scf.execute_region {
    // expected-error @+1 {{'dtf.variable' op colocate_with names 'w', but there is no such variable in this block}}
    %m = dtf.variable "w/Adam" init(#dtf.zeros) colocate_with("w") : !dtf.resource<tensor<2xf32>>
    scf.yield
  }
  return
}

// -----

func.func @colocate_self() {
  // expected-error @+1 {{'dtf.variable' op variable 'w' cannot be colocated with itself}}
  %w = dtf.variable "w" init(#dtf.zeros) colocate_with("w") : !dtf.resource<tensor<2xf32>>
  return
}

// -----

func.func @colocate_cycle() {
  // expected-error @+1 {{'dtf.variable' op colocation of 'a' with 'b' forms a cycle}}
  %a = dtf.variable "a" init(#dtf.zeros) colocate_with("b") : !dtf.resource<tensor<2xf32>>
  %b = dtf.variable "b" init(#dtf.zeros) colocate_with("c") : !dtf.resource<tensor<2xf32>>
  %c = dtf.variable "c" init(#dtf.zeros) colocate_with("a") : !dtf.resource<tensor<2xf32>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// send and recv
//===----------------------------------------------------------------------===//

func.func @send_to_itself(%x: tensor<f32>) {
  // expected-error @+1 {{'dtf.send' op sends from '/job:worker/task:0' to itself: a transfer needs two distinct devices}}
  dtf.send %x, "t" from "/job:worker/task:0" to "/job:worker/task:0" : tensor<f32>
  return
}

// -----

func.func @recv_from_itself() -> tensor<f32> {
  // expected-error @+1 {{'dtf.recv' op sends from '/job:ps/task:0' to itself: a transfer needs two distinct devices}}
  %r = dtf.recv "t" from "/job:ps/task:0" to "/job:ps/task:0" : tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @send_without_name(%x: tensor<f32>) {
  // expected-error @+1 {{'dtf.send' op needs a non-empty tensor name}}
  dtf.send %x, "" from "/job:worker/task:0" to "/job:ps/task:0" : tensor<f32>
  return
}

// -----

func.func @send_bad_device(%x: tensor<f32>) {
  // expected-error @+1 {{invalid device '/job:ps/task:x': task index 'x' is not a non-negative integer}}
  dtf.send %x, "t" from "/job:worker/task:0" to "/job:ps/task:x" : tensor<f32>
  return
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["ps0:1"], worker = ["w0:1"]>} {
  func.func @recv_outside_cluster() -> tensor<f32> {
    // expected-error @+1 {{device '/job:ps/task:3' is not in the cluster: job 'ps' has 1 task}}
    %r = dtf.recv "t" from "/job:ps/task:3" to "/job:worker/task:0" : tensor<f32>
    return %r : tensor<f32>
  }
}

// -----

func.func @send_placed_elsewhere(%x: tensor<f32>) {
  // expected-error @+1 {{'dtf.send' op is placed on '/job:ps/task:0' but its send_device is '/job:worker/task:0'}}
  dtf.send %x, "t" from "/job:worker/task:0" to "/job:ps/task:0" {dtf.device = #dtf.device<"/job:ps/task:0">} : tensor<f32>
  return
}

// -----

func.func @recv_placed_elsewhere() -> tensor<f32> {
  // expected-error @+1 {{'dtf.recv' op is placed on '/job:worker/task:0' but its recv_device is '/job:ps/task:0'}}
  %r = dtf.recv "t" from "/job:worker/task:0" to "/job:ps/task:0" {dtf.device = #dtf.device<"/job:worker/task:0">} : tensor<f32>
  return %r : tensor<f32>
}

// -----

// A resource handle is not a tensor: it never crosses devices.
func.func @send_resource(%v: !dtf.resource<tensor<f32>>) {
  // expected-error @+1 {{'dtf.send' op operand #0 must be ranked tensor of any type values, but got '!dtf.resource<tensor<f32>>'}}
  "dtf.send"(%v) <{recv_device = #dtf.device<"/job:worker/task:0">, send_device = #dtf.device<"/job:ps/task:0">, tensor_name = "t"}> : (!dtf.resource<tensor<f32>>) -> ()
  return
}

// -----

//===----------------------------------------------------------------------===//
// concat and slice
//===----------------------------------------------------------------------===//

func.func @concat_nothing() {
  // expected-error @+2 {{expects at least one input}}
  // expected-error @+1 {{'dtf.concat' op failed to infer returned types}}
  %0 = "dtf.concat"() <{axis = 0 : i64}> : () -> tensor<1xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<4x2xf32>) {
  // expected-error @+1 {{axis 2 is out of range for 'tensor<4x2xf32>'}}
  %0 = dtf.concat %a, %a axis 2 : tensor<4x2xf32>, tensor<4x2xf32>
  return
}

// -----

func.func @concat_scalar(%a: tensor<f32>) {
  // expected-error @+1 {{expects tensors of rank >= 1, got 'tensor<f32>'}}
  %0 = dtf.concat %a axis 0 : tensor<f32>
  return
}

// -----

func.func @concat_other_dim(%a: tensor<4x2xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{input #1 'tensor<3x3xf32>' differs from input #0 'tensor<4x2xf32>' in dimension 1, which is not the concatenation axis 0}}
  %0 = dtf.concat %a, %b axis 0 : tensor<4x2xf32>, tensor<3x3xf32>
  return
}

// -----

func.func @concat_element_type(%a: tensor<4x2xf32>, %b: tensor<4x2xf16>) {
  // expected-error @+1 {{input #1 'tensor<4x2xf16>' differs in rank or element type from input #0 'tensor<4x2xf32>'}}
  %0 = dtf.concat %a, %b axis 0 : tensor<4x2xf32>, tensor<4x2xf16>
  return
}

// -----

func.func @slice_rank(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{expects 2 offsets and sizes for 'tensor<4x2xf32>', got 1 offsets and 2 sizes}}
  %0 = dtf.slice %x offsets [0] sizes [1, 1] : tensor<4x2xf32>
  return
}

// -----

func.func @slice_negative(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{dimension 0: offset -1 and size 1 must be >= 0 (size -1 means to the end)}}
  %0 = dtf.slice %x offsets [-1, 0] sizes [1, 1] : tensor<4x2xf32>
  return
}

// -----

func.func @slice_out_of_bounds(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{dimension 0: slice [3, 5) exceeds the size 4 of 'tensor<4x2xf32>'}}
  %0 = dtf.slice %x offsets [3, 0] sizes [2, 2] : tensor<4x2xf32>
  return
}

// -----

func.func @slice_offset_past_end(%x: tensor<4x2xf32>) {
  // expected-error @+1 {{dimension 1: slice [3, 3) exceeds the size 2 of 'tensor<4x2xf32>'}}
  %0 = dtf.slice %x offsets [0, 3] sizes [1, -1] : tensor<4x2xf32>
  return
}
