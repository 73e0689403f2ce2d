// Invalid options of --dtf-place-variables, reported on the module.
// RUN: split-file %s %t
// RUN: dtf-opt %t/strategy.mlir --dtf-place-variables=strategy=random -verify-diagnostics
// RUN: dtf-opt %t/worker-malformed.mlir --dtf-place-variables=worker-device=/job:chief/task:0 -verify-diagnostics
// RUN: dtf-opt %t/worker-missing.mlir --dtf-place-variables=worker-device=/job:worker/task:2 -verify-diagnostics
// RUN: dtf-opt %t/negative.mlir --dtf-place-variables=max-shards=-1 -verify-diagnostics

//--- strategy.mlir
// expected-error @+1 {{unknown placement strategy 'random'; expected 'round-robin' or 'greedy-bytes'}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
}

//--- worker-malformed.mlir
// expected-error @+1 {{invalid worker-device '/job:chief/task:0': unknown job 'chief'; expected 'ps' or 'worker'}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
}

//--- worker-missing.mlir
// expected-error @+1 {{worker-device '/job:worker/task:2' is not in the cluster: job 'worker' has 2 tasks}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
}

//--- negative.mlir
// expected-error @+1 {{min-shard-bytes, max-shards and max-shard-bytes must not be negative}}
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1", "w:2"]>} {
}
