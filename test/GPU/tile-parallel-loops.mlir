// RUN: dtf-opt --dtf-gpu-tile-parallel-loops %s | FileCheck %s
// RUN: dtf-opt --dtf-gpu-tile-parallel-loops=block-size=128 %s | FileCheck %s --check-prefix=BLOCK128
// RUN: not dtf-opt --dtf-gpu-tile-parallel-loops=block-size=0 %s 2>&1 | FileCheck %s --check-prefix=INVALID

// A 2-D loop becomes one dimension of 100 * 10 iterations, tiled by 256: an
// outer loop over blocks, an inner one over threads with an in-bounds
// check, and the original indices recovered row-major (the last dimension
// varies fastest, so consecutive threads touch consecutive elements).
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[C10:.*]] = arith.constant 10 : index
// CHECK-DAG: %[[C100:.*]] = arith.constant 100 : index
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %[[C100]] : index
// CHECK: %[[COUNT:.*]] = arith.muli %[[ROWS]], %[[C10]] : index
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK: scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%[[COUNT]]) step (%[[STEP]]) {
// CHECK-NEXT: scf.parallel (%[[THREAD:.*]]) = (%{{.*}}) to (%[[STEP]]) step (%{{.*}}) {
// CHECK: %[[I:.*]] = arith.addi %[[THREAD]], %[[BLOCK]] : index
// CHECK: %[[INBOUNDS:.*]] = arith.cmpi ult, %{{.*}}, %[[COUNT]] : index
// CHECK: scf.if
// CHECK-DAG: %[[COL:.*]] = arith.remsi %[[I]], %[[C10]] : index
// CHECK-DAG: %[[ROW:.*]] = arith.divsi %[[I]], %[[C10]] : index
// CHECK: memref.load %{{.*}}[%[[ROW]], %[[COL]]]
// BLOCK128-LABEL: func.func @elementwise
// BLOCK128: arith.constant 128 : index
func.func @elementwise(%a: memref<100x10xf32>, %b: memref<100x10xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c100 = arith.constant 100 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c100, %c10) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<100x10xf32>
    memref.store %v, %b[%i, %j] : memref<100x10xf32>
    scf.reduce
  }
  return
}

// A 1-D loop whose extent the block size divides needs no check.
// CHECK-LABEL: func.func @exact
// CHECK: scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%{{.*}}) step (%[[STEP:.*]]) {
// CHECK-NEXT: scf.parallel (%[[THREAD:.*]]) = (%{{.*}}) to (%[[STEP]]) step (%{{.*}}) {
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[THREAD]], %[[BLOCK]] : index
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]]]
func.func @exact(%a: memref<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c512 = arith.constant 512 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c512) step (%c1) {
    memref.store %z, %a[%i] : memref<512xf32>
    scf.reduce
  }
  return
}

// A reduction's sequential loop stays inside the thread.
// CHECK-LABEL: func.func @row_sums
// CHECK: scf.parallel
// CHECK-NEXT: scf.parallel
// CHECK: scf.for
func.func @row_sums(%a: memref<8x16xf32>, %s: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %j = %c0 to %c16 step %c1 {
      %v = memref.load %a[%i, %j] : memref<8x16xf32>
      %acc = memref.load %s[%i] : memref<8xf32>
      %sum = arith.addf %v, %acc : f32
      memref.store %sum, %s[%i] : memref<8xf32>
    }
    scf.reduce
  }
  return
}

// INVALID: error: block-size must be positive, got 0
