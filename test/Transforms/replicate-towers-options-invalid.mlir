// Invalid devices of --dtf-replicate-towers, reported on the module.
// RUN: split-file %s %t
// RUN: dtf-opt %t/none.mlir --dtf-replicate-towers -verify-diagnostics
// RUN: dtf-opt %t/malformed.mlir --dtf-replicate-towers=devices=/job:worker/task:0,/job:worker -verify-diagnostics
// RUN: dtf-opt %t/missing.mlir --dtf-replicate-towers=devices=/job:worker/task:0,/job:worker/task:2 -verify-diagnostics
// RUN: dtf-opt %t/repeated.mlir --dtf-replicate-towers=devices=/job:worker/task:1,/job:worker/task:1 -verify-diagnostics
// RUN: dtf-opt %t/ps.mlir --dtf-replicate-towers=devices=/job:worker/task:0,/job:ps/task:0 -verify-diagnostics

//--- none.mlir
// expected-error @+1 {{--dtf-replicate-towers needs the device of each tower: give devices=<device>,<device>,...}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
}

//--- malformed.mlir
// expected-error @+1 {{invalid tower device '/job:worker': expected 'task:N' after the job, got ''}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
}

//--- missing.mlir
// expected-error @+1 {{tower device '/job:worker/task:2' is not in the cluster: job 'worker' has 2 tasks}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
}

//--- repeated.mlir
// expected-error @+1 {{tower device '/job:worker/task:1' is given twice}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
}

//--- ps.mlir
// expected-error @+1 {{tower device '/job:ps/task:0' is a PS task; towers run outside the PS job}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
}
