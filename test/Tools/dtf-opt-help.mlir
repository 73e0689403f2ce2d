// `dtf-opt --help` lists every dtf pass, and every option of a dtf pass
// with its default.
// RUN: dtf-opt --help | FileCheck %s
// RUN: dtf-opt --help | sed -n '/--dtf-autodiff/,/--dtf-verify-partitions/p' \
// RUN:   | sed -n '/^ *--[a-z-]*=</{/(default: /!p;}' | count 0

// CHECK: --dtf-add-eval-function
// CHECK-NEXT: --function=<string> {{.*}} (default: the module's only function)
// CHECK: --dtf-autodiff
// CHECK: --dtf-dump-partitions {{.*}} to =DIR
// CHECK-NEXT: --dir=<string> {{.*}} (default: none; required)
// CHECK: --dtf-expand-optimizer
// CHECK: --dtf-partition
// CHECK-NEXT: --client-device=<string> {{.*}} (default: /job:worker/task:0)
// CHECK-NEXT: --default-device=<string> {{.*}} (default: none, such ops are an error)
// CHECK: --dtf-place-variables
// CHECK: --strategy=<string> {{.*}} (default: round-robin)
// CHECK: --dtf-print-placement
// CHECK: --dtf-replicate
// CHECK-NEXT: --mode=<value> {{.*}} (default: async)
// CHECK: --dtf-replicate-towers
// CHECK-NEXT: --devices=<string> {{.*}} (default: none; required)
// CHECK: --dtf-verify-partitions

// The GPU pipelines' options, listed under "Pass Pipelines".
// RUN: dtf-opt --help | FileCheck %s --check-prefix=GPU
// GPU: --dtf-lower-to-gpu {{ *}}-
// GPU-NEXT: --block-size=<long> {{.*}} (default: 256)
// GPU-NEXT: --chip=<string> {{.*}} (default: sm_90)
// GPU-NEXT: --cuda-toolkit=<string> {{.*}} (default: the toolkit CMake found)
// GPU-NEXT: --features=<string> {{.*}} (default: "")
// GPU-NEXT: --format=<string> {{.*}} (default: bin)
// GPU-NEXT: --opt-level=<uint> {{.*}} (default: 3)

// The in-graph pipeline's options.
// RUN: dtf-opt --help | FileCheck %s --check-prefix=INGRAPH
// INGRAPH: --dtf-in-graph-pipeline {{ *}}-
// INGRAPH-NEXT: --batch-size=<long> {{.*}} (default: 0, the model's batch is static)
// INGRAPH-NEXT: --colocate-gradients-with-ops {{.*}} (default: true)
// INGRAPH-NEXT: --max-shards=<long> {{.*}} (default: 0, the number of PS tasks)
// INGRAPH-NEXT: --min-shard-bytes=<long> {{.*}} (default: 0, never)
// INGRAPH-NEXT: --ps-strategy=<string> {{.*}} (default: round-robin)
// INGRAPH-NEXT: --towers=<string> {{.*}} (default: none, no towers)
