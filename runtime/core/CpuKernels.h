//===- CpuKernels.h - Which CPU kernels a task runs, and why --------------===//
//
// A task's GEMMs (the dense layers, convolutions' im2col products) take
// most of its CPU time, and the library that runs them must use the widest
// vectors the CPU has. OpenBLAS picks its kernels by the CPU's model
// number: on a CPU newer than the build it falls back to generic SSE3
// kernels (Prescott), 3 to 6 times slower than its AVX2 or AVX-512 ones,
// and an environment can force such a core on purpose (OPENBLAS_CORETYPE).
// oneDNN's JIT GEMM chooses its kernels by the CPU's instruction-set
// features alone. So, on x86-64, float GEMMs run on OpenBLAS where the
// kernel it chose uses the CPU's vectors (it is as fast there, and faster
// on tiny products), and on oneDNN where OpenBLAS's kernel is narrower
// than AVX2 on a CPU that has it. DTF_CPU_GEMM=openblas or =onednn forces
// one. OPENBLAS_CORETYPE is never changed: OpenBLAS runs the core it names,
// for what DTF gives OpenBLAS (double GEMMs, or everything with
// DTF_CPU_GEMM=openblas). On other architectures OpenBLAS runs every GEMM.
//
// Every thread that runs kernels also flushes denormals (Denormals.h).
//
//===----------------------------------------------------------------------===//

#pragma once

#include <string>

namespace dtf {

/// The widest vector instruction set a CPU offers, or a GEMM kernel uses,
/// in increasing order.
enum class VectorIsa { Sse, Avx, Avx2, Avx512, Neon, Sve };

const char *vectorIsaName(VectorIsa isa);

/// The library that runs float GEMMs.
enum class GemmLibrary { OpenBlas, OneDnn };

struct CpuKernels {
  /// What the CPU offers (the OS permitting).
  VectorIsa cpuIsa = VectorIsa::Sse;
  /// The float GEMM's library, its version and its kernel (OpenBLAS's core
  /// name, oneDNN's instruction set), and the kernel's vectors.
  GemmLibrary gemm = GemmLibrary::OpenBlas;
  std::string gemmVersion;
  std::string gemmKernel;
  VectorIsa gemmIsa = VectorIsa::Sse;
  /// OpenBLAS's core, whatever runs float GEMMs.
  std::string openBlasCore;
  VectorIsa openBlasIsa = VectorIsa::Sse;
  /// Why this library: the environment's choice or the comparison.
  std::string reason;
  /// Whether the environment chose the GEMM library (DTF_CPU_GEMM).
  bool chosenByEnvironment = false;
  /// Whether compute threads flush denormals (Denormals.h).
  bool flushesDenormals = false;

  /// One line for logs and --version, e.g. "GEMM: oneDNN 2.6.3 avx512_core
  /// (OpenBLAS 0.3.21 runs Prescott, SSE, on a CPU with AVX-512);
  /// denormals flushed to zero".
  std::string describe() const;
};

/// The kernels of this process, chosen on the first call. Throws
/// dtf::Error(InvalidArgument) naming DTF_CPU_GEMM when it holds another
/// value than auto, openblas or onednn.
const CpuKernels &cpuKernels();

} // namespace dtf
