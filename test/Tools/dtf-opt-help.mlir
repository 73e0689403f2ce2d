// `dtf-opt --help` lists every dtf pass, and every option of a dtf pass
// with its default.
// RUN: dtf-opt --help | FileCheck %s
// RUN: dtf-opt --help | sed -n '/--dtf-autodiff/,/--dtf-verify-partitions/p' \
// RUN:   | sed -n '/^ *--[a-z-]*=</{/(default: /!p;}' | count 0

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
