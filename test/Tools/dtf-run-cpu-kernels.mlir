// Float GEMMs run a library chosen by the CPU's features: with OpenBLAS
// forced onto its generic SSE3 kernels (as OpenBLAS 0.3.21 falls back to on
// a CPU model it does not know), they run on oneDNN, unless DTF_CPU_GEMM
// says otherwise; a bad DTF_CPU_GEMM is one line naming it.
// REQUIRES: x86-avx2

// RUN: env OPENBLAS_CORETYPE=PRESCOTT DTF_CPU_GEMM= dtf-run --version | FileCheck %s --check-prefix=GENERIC
// GENERIC: CPU kernels: GEMM: oneDNN {{[0-9.]+}} {{[a-z0-9_]+}} (AVX{{.*}}; OpenBLAS runs Prescott, SSE, on a CPU with AVX{{.*}}); denormals flushed to zero

// RUN: env OPENBLAS_CORETYPE=PRESCOTT DTF_CPU_GEMM=openblas dtf-run --version | FileCheck %s --check-prefix=FORCED
// FORCED: CPU kernels: GEMM: OpenBLAS {{[0-9.]+}} Prescott (SSE; DTF_CPU_GEMM=openblas)

// RUN: env DTF_CPU_GEMM=onednn dtf-run --version | FileCheck %s --check-prefix=ONEDNN
// ONEDNN: CPU kernels: GEMM: oneDNN {{.*}}; DTF_CPU_GEMM=onednn)

// RUN: not env DTF_CPU_GEMM=fastest dtf-run %examples/mnist_mlp.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: dtf-run: DTF_CPU_GEMM=fastest: expected auto, openblas or onednn
