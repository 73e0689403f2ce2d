// RUN: dtf-opt --dtf-replicate -split-input-file -verify-diagnostics %s

// A worker pulls what it reads or looks up from the PS task that holds the
// variable: a handle that no dtf.variable makes is placed on no task, and
// replication refuses it rather than pull some other variable.

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() -> tensor<4x3x8xf32> {
    %table = dtf.variable "table" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<1000x8xf32>>
    %ids = dtf.placeholder "ids" : tensor<4x3xi64>
    %handle = builtin.unrealized_conversion_cast %table : !dtf.resource<tensor<1000x8xf32>> to !dtf.resource<tensor<1000x8xf32>>
    // expected-error @+1 {{'dtf.embedding_lookup' op looks up a table made by 'builtin.unrealized_conversion_cast', not by a dtf.variable, so no PS task holds it; look up the dtf.variable itself}}
    %rows = dtf.embedding_lookup %handle[%ids] : !dtf.resource<tensor<1000x8xf32>>, tensor<4x3xi64>
    return %rows : tensor<4x3x8xf32>
  }
}

// -----

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @main() -> tensor<2xf32> {
    %w = dtf.variable "w" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %handle = builtin.unrealized_conversion_cast %w : !dtf.resource<tensor<2xf32>> to !dtf.resource<tensor<2xf32>>
    // expected-error @+1 {{'dtf.read' op reads a variable made by 'builtin.unrealized_conversion_cast', not by a dtf.variable, so no PS task holds it; read the dtf.variable itself}}
    %value = dtf.read %handle : !dtf.resource<tensor<2xf32>>
    return %value : tensor<2xf32>
  }
}
