// REQUIRES: ptxas
// RUN: dtf-opt --dtf-lower-to-gpu %s | FileCheck %s
// RUN: dtf-opt --pass-pipeline='builtin.module(func.func(dtf-autodiff),dtf-lower-to-gpu)' %examples/mnist_mlp.mlir | FileCheck %s --check-prefix=MLP
// RUN: dtf-opt --pass-pipeline='builtin.module(func.func(dtf-autodiff),dtf-lower-to-gpu)' %examples/mnist_cnn.mlir | FileCheck %s --check-prefix=CNN

// By default kernels are assembled by ptxas into sm_90 cubins (ELF), which
// the runtime loads with cuModuleLoadData.
// CHECK-LABEL: func.func @relu
// CHECK: gpu.launch_func @[[KERNEL:.*]]::@
// CHECK: gpu.binary @[[KERNEL]] [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, bin = "\7FELF
func.func @relu(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %0 = dtf.relu %x : tensor<1000xf32>
  return %0 : tensor<1000xf32>
}

// The worker computation of the MLP (forward and backward): six products
// on cuBLAS, everything else in cubin kernels.
// MLP: func.func @main(%{{.*}}: memref<100x784xf32> {dtf.feed = "x"}, %{{.*}}: memref<100x10xf32> {dtf.feed = "y_"}, %{{.*}}: memref<784x100xf32> {dtf.variable = "hid_w"}
// MLP-SAME: -> (memref<f32>, memref<f32>, memref<784x100xf32> {dtf.gradient = "hid_w"}, memref<100xf32> {dtf.gradient = "hid_b"}, memref<100x10xf32> {dtf.gradient = "sm_w"}, memref<10xf32> {dtf.gradient = "sm_b"})
// MLP-COUNT-5: call @dtf_cuda_gemm_f32
// MLP-NOT: call @dtf_cuda_gemm_f32
// MLP: return
// MLP: gpu.binary {{.*}}bin = "\7FELF

// The convnet calls cuDNN for the convolutions, the pooling and their
// gradients.
// CNN-LABEL: func.func @main
// CNN-COUNT-2: call @dtf_cuda_conv2d_f32
// CNN: call @dtf_cuda_max_pool_grad_f32
// CNN: call @dtf_cuda_conv2d_backprop_input_f32
// CNN: call @dtf_cuda_conv2d_backprop_filter_f32
// CNN: call @dtf_cuda_max_pool_grad_f32
// CNN: call @dtf_cuda_conv2d_backprop_filter_f32
// CNN: return
// CNN: gpu.binary {{.*}}bin = "\7FELF
