// The options of --dtf-replicate, checked against the cluster's two workers.

// Defaults: async, every worker aggregated, no spare replica.
// RUN: dtf-opt --dtf-replicate %s | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: dtf.replication = #dtf.replication<mode = async, replicas_to_aggregate = 2, total_replicas = 2>

// More replicas may run than are aggregated: the spare one's gradients are
// dropped as stale.
// RUN: dtf-opt --dtf-replicate="mode=sync replicas-to-aggregate=1 total-replicas=2" %s | FileCheck %s --check-prefix=SPARE
// SPARE: dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 1, total_replicas = 2>
// SPARE: func.func @ps_0(%{{.*}}: tensor<2xf32>) attributes

// RUN: dtf-opt --dtf-replicate="mode=sync total-replicas=3" %s | FileCheck %s --check-prefix=TOTAL
// TOTAL: dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 2, total_replicas = 3>
// TOTAL: func.func @ps_0(%{{.*}}: tensor<2xf32>, %{{.*}}: tensor<2xf32>) attributes

// Async mode records the counts but applies each push alone.
// RUN: dtf-opt --dtf-replicate="replicas-to-aggregate=2 total-replicas=4" %s | FileCheck %s --check-prefix=ASYNC
// ASYNC: dtf.replication = #dtf.replication<mode = async, replicas_to_aggregate = 2, total_replicas = 4>
// ASYNC: func.func @ps_0(%{{.*}}: tensor<2xf32>) attributes

// 0 is the default, given or not: every worker.
// RUN: dtf-opt --dtf-replicate="mode=sync replicas-to-aggregate=0 total-replicas=0" %s | FileCheck %s --check-prefix=ZERO
// ZERO: dtf.replication = #dtf.replication<mode = sync, replicas_to_aggregate = 2, total_replicas = 2>
// RUN: not dtf-opt --dtf-replicate="replicas-to-aggregate=-1" %s 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: replicas-to-aggregate must be at least 1, got -1

// RUN: not dtf-opt --dtf-replicate="mode=sync total-replicas=1" %s 2>&1 | FileCheck %s --check-prefix=FEWER
// FEWER: error: replicas-to-aggregate (2) exceeds total-replicas (1)

// RUN: not dtf-opt --dtf-replicate="mode=sync replicas-to-aggregate=3 total-replicas=3" %s 2>&1 | FileCheck %s --check-prefix=WORKERS
// WORKERS: error: replicas-to-aggregate (3) exceeds the 2 worker tasks of the cluster: no step could gather that many gradients

// RUN: not dtf-opt --dtf-replicate="mode=hogwild" %s 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: for the --mode option: Cannot find option named 'hogwild'!

module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223", "localhost:2224"]>} {
  func.func @main() -> tensor<2xf32> {
    %step = dtf.variable "global_step" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">, trainable = false} : !dtf.resource<tensor<i64>>
    %b = dtf.variable "b" init(#dtf.zeros) {dtf.device = #dtf.device<"/job:ps/task:0">} : !dtf.resource<tensor<2xf32>>
    %x = dtf.placeholder "x" : tensor<2xf32>
    %b_value = dtf.read %b : !dtf.resource<tensor<2xf32>>
    %y = dtf.add %x, %b_value : tensor<2xf32>, tensor<2xf32>
    dtf.apply_gradient_descent %b, %x learning_rate 0.1 : !dtf.resource<tensor<2xf32>>
    %one = dtf.constant dense<1> : tensor<i64>
    dtf.assign_add %step, %one : !dtf.resource<tensor<i64>>
    return %y : tensor<2xf32>
  }
}
