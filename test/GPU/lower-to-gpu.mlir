// RUN: dtf-opt --dtf-lower-to-gpu="format=isa" %s | FileCheck %s
// RUN: dtf-opt --dtf-lower-to-gpu="format=isa chip=sm_80 block-size=128" %s | FileCheck %s --check-prefix=SM80

// The whole pipeline, stopping at PTX (which needs only LLVM's NVPTX
// backend; lower-to-gpu-cubin.mlir assembles cubins with ptxas). The host
// function takes and returns device buffers: it allocates with gpu.alloc,
// calls cuBLAS for the product and launches one kernel per fused loop nest;
// the bias, relu and sum fuse into one kernel, the f64 accumulator is
// initialized by another and converted to f32 by a third.

// CHECK: module attributes {gpu.container_module}
// CHECK: func.func private @dtf_cuda_gemm_f32(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @dense
// CHECK-SAME: (%[[X:.*]]: memref<10x30xf32>, %[[W:.*]]: memref<30x20xf32>, %[[B:.*]]: memref<20xf32>) -> memref<f32>
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[MM:.*]] = gpu.alloc () : memref<10x20xf32>
// CHECK: call @dtf_cuda_gemm_f32
// CHECK: %[[ACC:.*]] = gpu.alloc () : memref<1xf64>
// CHECK: gpu.launch_func @[[INIT:.*]]::@{{.*}} blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[ACC]] : memref<1xf64>)
// CHECK: gpu.launch_func @[[SUM:.*]]::@{{.*}} blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[MM]] : memref<10x20xf32>, %[[B]] : memref<20xf32>, %[[ACC]] : memref<1xf64>)
// CHECK: %[[OUT:.*]] = gpu.alloc () : memref<1xf32>
// CHECK: gpu.launch_func @[[TRUNC:.*]]::@{{.*}} blocks in
// CHECK: %[[R:.*]] = memref.collapse_shape %[[OUT]] [] : memref<1xf32> into memref<f32>
// CHECK: return %[[R]]
// CHECK-NOT: memref.alloc
// CHECK-NOT: gpu.module

// Kernels are PTX for sm_90 that take bare pointers.
// CHECK: gpu.binary @[[INIT]] [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, properties = {O = 3 : i32}, assembly = "{{.*}}.target sm_90{{.*}}.entry [[KERNEL:[a-z_0-9]+]](\0A\09.param .u64 [[KERNEL]]_param_0\0A)\0A.maxntid 256, 1, 1
// CHECK: gpu.binary @[[SUM]] [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, {{.*}}.param .u64 {{.*}}.param .u64 {{.*}}.param .u64
// CHECK: gpu.binary @[[TRUNC]]

// SM80: gpu.launch_func {{.*}} threads in (%[[C128:.*]], %{{.*}}, %{{.*}})
// SM80: gpu.binary {{.*}}chip = "sm_80"{{.*}}.target sm_80{{.*}}.maxntid 128, 1, 1
func.func @dense(%x: tensor<10x30xf32>, %w: tensor<30x20xf32>, %b: tensor<20xf32>) -> tensor<f32> {
  %0 = dtf.matmul %x, %w : tensor<10x30xf32>, tensor<30x20xf32>
  %1 = dtf.bias_add %0, %b : tensor<10x20xf32>, tensor<20xf32>
  %2 = dtf.relu %1 : tensor<10x20xf32>
  %3 = dtf.reduce_sum %2 : tensor<10x20xf32>
  return %3 : tensor<f32>
}
