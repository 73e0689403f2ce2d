// Errors of --dtf-dump-partitions name the option.
// RUN: split-file %s %t
// RUN: not dtf-opt %t/unpartitioned.mlir --dtf-dump-partitions=%t/out 2>&1 | FileCheck %s --check-prefix=UNPARTITIONED
// RUN: not dtf-opt %t/partitioned.mlir --dtf-dump-partitions 2>&1 | FileCheck %s --check-prefix=NODIR
// RUN: not dtf-opt %t/partitioned.mlir --dtf-dump-partitions=%t/partitioned.mlir/sub 2>&1 | FileCheck %s --check-prefix=NOTADIR
// RUN: not dtf-opt %t/unmatched.mlir --dtf-dump-partitions=%t/out2 2>&1 | FileCheck %s --check-prefix=UNMATCHED
// RUN: not dtf-opt %t/partitioned.mlir --dtf-dump-partitions=bogus=1 2>&1 | FileCheck %s --check-prefix=BADOPTION

// UNPARTITIONED: error: --dtf-dump-partitions: the module has no partitions (functions with 'dtf.device'); run --dtf-partition first
// NODIR: error: --dtf-dump-partitions: no directory given; use --dtf-dump-partitions=DIR
// NOTADIR: error: --dtf-dump-partitions: cannot create directory '{{.*}}partitioned.mlir/sub'
// UNMATCHED: error: 'dtf.recv' op --dtf-dump-partitions: no dtf.send of 'edge_0' from '/job:ps/task:0' in the module
// BADOPTION: no such option bogus

//--- unpartitioned.mlir
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1"]>} {
  func.func @main() {
    return
  }
}

//--- partitioned.mlir
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1"]>} {
  func.func @main_ps_0() attributes {dtf.device = #dtf.device<"/job:ps/task:0">} {
    return
  }
}

//--- unmatched.mlir
module attributes {dtf.cluster = #dtf.cluster<ps = ["p:1"], worker = ["w:1"]>} {
  func.func @main_worker_0() attributes {dtf.device = #dtf.device<"/job:worker/task:0">} {
    %0 = dtf.recv "edge_0" from "/job:ps/task:0" to "/job:worker/task:0" : tensor<f32>
    return
  }
}
