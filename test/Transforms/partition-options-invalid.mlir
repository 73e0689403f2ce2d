// Invalid options of --dtf-partition, reported on the module.
// RUN: split-file %s %t
// RUN: dtf-opt %t/client-malformed.mlir --dtf-partition=client-device=/job:worker -verify-diagnostics
// RUN: dtf-opt %t/client-missing.mlir --dtf-partition=client-device=/job:worker/task:4 -verify-diagnostics
// RUN: dtf-opt %t/default-missing.mlir --dtf-partition=default-device=/job:ps/task:1 -verify-diagnostics

//--- client-malformed.mlir
// expected-error @+1 {{invalid client-device '/job:worker': expected 'task:N' after the job, got ''}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
}

//--- client-missing.mlir
// expected-error @+1 {{client-device '/job:worker/task:4' is not in the cluster: job 'worker' has 2 tasks}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
}

//--- default-missing.mlir
// expected-error @+1 {{default-device '/job:ps/task:1' is not in the cluster: job 'ps' has 1 task}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
}
