// --dtf-training-pipeline is what dtf-run compiles a model with: the same
// passes as their explicit sequence, options passed through.
// The example with two PS tasks, as dtf-run --ps=2 gives it.
// RUN: sed -e 's/ps = \["localhost:2222"\]/ps = ["localhost:2222", "localhost:2225"]/' %examples/mnist_mlp.mlir > %t.model
// RUN: dtf-opt --dtf-training-pipeline="mode=sync ps-strategy=greedy-bytes min-shard-bytes=200000" %t.model > %t.pipeline
// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables="strategy=greedy-bytes min-shard-bytes=200000" --dtf-replicate=mode=sync %t.model > %t.passes
// RUN: diff %t.pipeline %t.passes
// RUN: FileCheck %s < %t.pipeline
// The defaults: async, round-robin, no shards.
// RUN: dtf-opt --dtf-training-pipeline %t.model | FileCheck %s --check-prefix=ASYNC
// A bad option names itself.
// RUN: not dtf-opt --dtf-training-pipeline=mode=hogwild %examples/mnist_mlp.mlir 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: module attributes
// CHECK-SAME:    dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 2, total_replicas = 2>
// hid_w (313.6 KB) is split into two shards, one per PS task.
// CHECK:       func.func @ps_0
// CHECK:       func.func @ps_1
// CHECK:       func.func @worker
// CHECK-DAG:     dtf.pull "hid_w/part_0"
// CHECK-DAG:     dtf.pull "hid_w/part_1"

// ASYNC-LABEL: module attributes
// ASYNC-SAME:    dtf.replication = #dtf.replication<mode = async
// ASYNC-NOT:     part_0

// BAD: for the --mode option: Cannot find option named 'hogwild'!
