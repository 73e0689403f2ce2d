// RUN: dtf-opt %s -split-input-file --dtf-place-variables -verify-diagnostics

// Placement needs the cluster's PS tasks.

// expected-error @+1 {{placement needs the cluster: the module has no 'dtf.cluster' attribute}}
module {
  func.func @no_cluster() {
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    return
  }
}

// -----

// expected-error @+1 {{the cluster has no PS task to place variables on}}
module attributes {dtf.cluster = #dtf.cluster<ps = [], worker = ["w:1"]>} {
  func.func @no_ps() {
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    return
  }
}

// -----

// Colocated variables live on one device: two different pins conflict.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @conflicting_pins() {
    // expected-note @+1 {{'w' is defined here}}
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    // expected-error @+1 {{'dtf.variable' op is placed on '/job:ps/task:1', but it is colocated with 'w', which is placed on '/job:ps/task:0'}}
    %m = dtf.variable "w/m" init(#dtf.zeros) colocate_with("w") {dtf.device = #dtf.device<"/job:ps/task:1">} : !dtf.resource<tensor<2xf32>>
    return
  }
}

// -----

// An update of a variable and a slot that is not colocated with it would
// need both handles on one device.
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1", "p:2"], worker = ["w:1"]>} {
  func.func @slot_elsewhere(%g: tensor<2xf32>) {
    %w = dtf.variable "w" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    %m = dtf.variable "m" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    // expected-error @+1 {{'dtf.apply_momentum' op touches variable 'w' on '/job:ps/task:0' and variable 'm' on '/job:ps/task:1'; a variable is only reachable on its own device, so colocate them (colocate_with)}}
    dtf.apply_momentum %w, %m, %g learning_rate 0.1 momentum 0.9 : !dtf.resource<tensor<2xf32>>
    return
  }
}
