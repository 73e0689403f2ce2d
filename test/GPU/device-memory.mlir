// RUN: dtf-opt --dtf-gpu-device-memory --split-input-file --verify-diagnostics %s | FileCheck %s

// Host buffers are device buffers; a constant global is copied into one.
// CHECK: memref.global "private" constant @table
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[ARG:.*]]: memref<4xf32>)
// CHECK-NEXT: %[[A:.*]] = gpu.alloc () : memref<4xf32>
// CHECK-NEXT: gpu.memcpy %[[A]], %[[ARG]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT: %[[G:.*]] = memref.get_global @table : memref<4xf32>
// CHECK-NEXT: %[[D:.*]] = gpu.alloc () : memref<4xf32>
// CHECK-NEXT: gpu.memcpy %[[D]], %[[G]] : memref<4xf32>, memref<4xf32>
// CHECK-NEXT: memref.cast %[[D]] : memref<4xf32> to memref<?xf32>
// CHECK-NEXT: %[[B:.*]] = gpu.alloc () : memref<4xf32>
// CHECK-NEXT: gpu.dealloc %[[A]] : memref<4xf32>
// CHECK-NEXT: return %[[B]]
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @host(%arg: memref<4xf32>) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %arg, %a : memref<4xf32> to memref<4xf32>
  %g = memref.get_global @table : memref<4xf32>
  %c = memref.cast %g : memref<4xf32> to memref<?xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return %b : memref<4xf32>
}

// -----

// Kernels not yet outlined keep their memory accesses.
// CHECK-LABEL: func.func @launch
// CHECK: gpu.alloc
// CHECK: gpu.launch
// CHECK: memref.alloca
// CHECK: memref.store
func.func @launch(%n: index) {
  %a = memref.alloc() : memref<4xf32>
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %scratch = memref.alloca() : memref<4xf32>
    %f = arith.constant 1.0 : f32
    memref.store %f, %a[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// The host must not dereference device memory.
func.func @host_load(%arg: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' op would access GPU memory from the host}}
  %v = memref.load %arg[%c0] : memref<4xf32>
  return %v : f32
}
