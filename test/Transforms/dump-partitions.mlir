// --dtf-dump-partitions on the partitioned model-parallel MLP: one .mlir per
// partition and a Graphviz DOT that Debian's `dot` lays out.
// RUN: rm -rf %t && dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables \
// RUN:   --dtf-partition --dtf-dump-partitions=%t -o /dev/null %examples/model_parallel_mlp.mlir
// RUN: ls %t | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --input-file=%t/partitions.dot
// RUN: dot -Tsvg %t/partitions.dot -o %t/partitions.svg
// RUN: FileCheck %s --check-prefix=SVG --input-file=%t/partitions.svg
// Each partition parses and verifies alone, with the module's cluster.
// RUN: dtf-opt %t/main_worker_1.mlir | FileCheck %s --check-prefix=WORKER1
// RUN: dtf-opt %t/main_ps_0.mlir -o /dev/null
// The long form of the option writes the same files; the IR is unchanged.
// RUN: dtf-opt --dtf-autodiff --dtf-expand-optimizer --dtf-place-variables --dtf-partition \
// RUN:   %examples/model_parallel_mlp.mlir -o %t/partitioned.mlir
// RUN: dtf-opt --dtf-dump-partitions="dir=%t/long" %t/partitioned.mlir -o %t/unchanged.mlir
// RUN: diff %t/partitioned.mlir %t/unchanged.mlir
// RUN: diff %t/partitions.dot %t/long/partitions.dot

// FILES:      main_ps_0.mlir
// FILES-NEXT: main_ps_1.mlir
// FILES-NEXT: main_worker_0.mlir
// FILES-NEXT: main_worker_1.mlir
// FILES-NEXT: partitions.dot

// One cluster per device, PS tasks blue, workers green.
// CHECK:      digraph partitions {
// CHECK:      label="4 partitions, 22 cross-device transfers (red: dtf.send -> dtf.recv)"
// CHECK:      subgraph cluster_0 {
// CHECK-NEXT:   label="/job:ps/task:0\n@main_ps_0"; {{.*}} fillcolor="#e3ecfa"
// CHECK:        [[HID_B:n[0-9]+]] [label="variable\nhid_b", fillcolor="#fff4c2"];
// CHECK:      subgraph cluster_1 {
// CHECK-NEXT:   label="/job:ps/task:1\n@main_ps_1"
// CHECK:      subgraph cluster_2 {
// CHECK-NEXT:   label="/job:worker/task:0\n@main_worker_0"; {{.*}} fillcolor="#e6f4ea"
// CHECK:        [[X:n[0-9]+]] [label="placeholder\nx", shape=ellipse
// CHECK:        [[MATMUL:n[0-9]+]] [label="matmul"];
// CHECK:        [[RELU:n[0-9]+]] [label="relu"];
// CHECK-NEXT:   [[SEND_RELU:n[0-9]+]] [label="send", color=red
// CHECK:      subgraph cluster_3 {
// CHECK-NEXT:   label="/job:worker/task:1\n@main_worker_1"
// CHECK:        [[RECV_RELU:n[0-9]+]] [label="recv", color=red
// Uses on one device: black edges; variable handles: dashed.
// CHECK:      [[X]] -> [[MATMUL]];
// CHECK:      [[RELU]] -> [[SEND_RELU]];
// The cross-device edges: red, send to recv, with the tensor and its type.
// CHECK:      [[SEND_RELU]] -> [[RECV_RELU]] [color=red, fontcolor=red, penwidth=2.5, fontsize=9, label="edge_2_dtf.relu\n100x100xf32"];
// CHECK:      }
// RUN: grep -c 'style=dashed' %t/partitions.dot | FileCheck %s --check-prefix=HANDLES
// HANDLES: {{[1-9][0-9]*}}
// RUN: grep -c 'color=red, fontcolor=red' %t/partitions.dot | FileCheck %s --check-prefix=TRANSFERS
// TRANSFERS: 22

// SVG: <svg
// SVG: <title>partitions</title>
// SVG: <title>cluster_0</title>
// SVG: stroke="red"

// WORKER1:      module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2225"]
// WORKER1-NEXT:   func.func @main_worker_1() attributes {dtf.device = #dtf.device<"/job:worker/task:1">}
// WORKER1:          dtf.recv "edge_2_dtf.relu" from "/job:worker/task:0" to "/job:worker/task:1" : tensor<100x100xf32>
// WORKER1-NOT:    func.func
