//===- Blas.cpp - Typed GEMM over the CPU's fastest library ---------------===//

#include "runtime/core/Blas.h"

#include "runtime/core/Denormals.h"
#include "runtime/core/Error.h"

#include <cblas.h>
#if DTF_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

// OpenBLAS's own entry points (cblas.h declares them with OpenBLAS's
// headers, not with every CBLAS).
extern "C" char *openblas_get_corename(void);
extern "C" char *openblas_get_config(void);

namespace dtf {

//===----------------------------------------------------------------------===//
// The choice
//===----------------------------------------------------------------------===//

const char *vectorIsaName(VectorIsa isa) {
  switch (isa) {
  case VectorIsa::Sse:
    return "SSE";
  case VectorIsa::Avx:
    return "AVX";
  case VectorIsa::Avx2:
    return "AVX2";
  case VectorIsa::Avx512:
    return "AVX-512";
  case VectorIsa::Neon:
    return "NEON";
  case VectorIsa::Sve:
    return "SVE";
  }
  return "?";
}

namespace {

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return text;
}

VectorIsa detectCpuIsa() {
#if defined(__x86_64__)
  // libgcc checks the OS's saved register state (XGETBV) too: a CPU with
  // AVX-512 under an OS that does not save its registers has none.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    return VectorIsa::Avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return VectorIsa::Avx2;
  if (__builtin_cpu_supports("avx"))
    return VectorIsa::Avx;
  return VectorIsa::Sse;
#elif defined(__aarch64__)
#if defined(__ARM_FEATURE_SVE)
  return VectorIsa::Sve;
#else
  return VectorIsa::Neon;
#endif
#else
  return VectorIsa::Sse;
#endif
}

/// The vectors of OpenBLAS's core `name` (openblas_get_corename), from
/// OpenBLAS's kernel tables (kernel/x86_64/KERNEL.<core>). An unknown name
/// counts as generic: better to use oneDNN once too often than to run SSE
/// on an AVX-512 machine.
VectorIsa openBlasCoreIsa(const std::string &name) {
  std::string core = lowercase(name);
  for (const char *avx512 : {"skylakex", "cooperlake", "sapphirerapids"})
    if (core == avx512)
      return VectorIsa::Avx512;
  for (const char *avx2 : {"haswell", "zen"})
    if (core == avx2)
      return VectorIsa::Avx2;
  for (const char *avx :
       {"sandybridge", "bulldozer", "piledriver", "steamroller", "excavator"})
    if (core == avx)
      return VectorIsa::Avx;
#if defined(__aarch64__)
  for (const char *sve : {"a64fx", "neoversev1", "neoversen2", "armv8sve"})
    if (core == sve)
      return VectorIsa::Sve;
  return VectorIsa::Neon;
#else
  return VectorIsa::Sse;
#endif
}

/// "0.3.21" from "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ...".
std::string openBlasVersion() {
  std::string config = openblas_get_config();
  std::string prefix = "OpenBLAS ";
  if (config.compare(0, prefix.size(), prefix) != 0)
    return config;
  size_t end = config.find(' ', prefix.size());
  return config.substr(prefix.size(), end - prefix.size());
}

#if DTF_HAVE_ONEDNN
const char *oneDnnIsaName(dnnl_cpu_isa_t isa) {
  switch (isa) {
  case dnnl_cpu_isa_sse41:
    return "sse41";
  case dnnl_cpu_isa_avx:
    return "avx";
  case dnnl_cpu_isa_avx2:
    return "avx2";
  case dnnl_cpu_isa_avx2_vnni:
    return "avx2_vnni";
  case dnnl_cpu_isa_avx512_core:
    return "avx512_core";
  case dnnl_cpu_isa_avx512_core_vnni:
    return "avx512_core_vnni";
  case dnnl_cpu_isa_avx512_core_bf16:
    return "avx512_core_bf16";
  case dnnl_cpu_isa_avx512_core_amx:
    return "avx512_core_amx";
  default:
    return "isa";
  }
}

VectorIsa oneDnnVectors(dnnl_cpu_isa_t isa) {
  if ((isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core)
    return VectorIsa::Avx512;
  if ((isa & dnnl_cpu_isa_avx2) == dnnl_cpu_isa_avx2)
    return VectorIsa::Avx2;
  if ((isa & dnnl_cpu_isa_avx) == dnnl_cpu_isa_avx)
    return VectorIsa::Avx;
  return VectorIsa::Sse;
}
#endif

CpuKernels chooseCpuKernels() {
  CpuKernels kernels;
  kernels.cpuIsa = detectCpuIsa();
  kernels.openBlasCore = openblas_get_corename();
  kernels.openBlasIsa = openBlasCoreIsa(kernels.openBlasCore);
  kernels.flushesDenormals = canFlushDenormals();

  const char *variable = std::getenv("DTF_CPU_GEMM");
  std::string choice = variable ? lowercase(variable) : "";
  if (!choice.empty() && choice != "auto" && choice != "openblas" &&
      choice != "onednn")
    throw Error(ErrorCode::InvalidArgument,
                "DTF_CPU_GEMM=" + std::string(variable) +
                    ": expected auto, openblas or onednn");
  if (choice == "onednn" && !kernels::gemmLibraryAvailable(GemmLibrary::OneDnn))
    throw Error(ErrorCode::InvalidArgument,
                "DTF_CPU_GEMM=onednn: this build has no oneDNN (x86-64 only)");

  // OpenBLAS's kernel is a fallback when it is narrower than what the CPU
  // offers, up to AVX2 (OpenBLAS's AVX2 kernels on an AVX-512 CPU are as
  // fast as oneDNN's AVX-512 ones at a task's sizes; bench/run_kernels.sh).
  VectorIsa wanted = std::min(kernels.cpuIsa, VectorIsa::Avx2);
  bool fallback =
      kernels.cpuIsa <= VectorIsa::Avx512 && kernels.openBlasIsa < wanted;
  if (choice == "openblas" || choice == "onednn") {
    kernels.gemm =
        choice == "onednn" ? GemmLibrary::OneDnn : GemmLibrary::OpenBlas;
    kernels.chosenByEnvironment = true;
    kernels.reason = "DTF_CPU_GEMM=" + choice;
  } else if (fallback && kernels::gemmLibraryAvailable(GemmLibrary::OneDnn)) {
    kernels.gemm = GemmLibrary::OneDnn;
    kernels.reason = "OpenBLAS runs " + kernels.openBlasCore + ", " +
                     vectorIsaName(kernels.openBlasIsa) + ", on a CPU with " +
                     vectorIsaName(kernels.cpuIsa);
  } else {
    kernels.gemm = GemmLibrary::OpenBlas;
    kernels.reason = fallback ? "no oneDNN in this build"
                              : "OpenBLAS's own choice for a CPU with " +
                                    std::string(vectorIsaName(kernels.cpuIsa));
  }

  if (kernels.gemm == GemmLibrary::OpenBlas) {
    kernels.gemmVersion = "OpenBLAS " + openBlasVersion();
    kernels.gemmKernel = kernels.openBlasCore;
    kernels.gemmIsa = kernels.openBlasIsa;
  } else {
#if DTF_HAVE_ONEDNN
    const dnnl_version_t *version = dnnl_version();
    kernels.gemmVersion = "oneDNN " + std::to_string(version->major) + "." +
                          std::to_string(version->minor) + "." +
                          std::to_string(version->patch);
    dnnl_cpu_isa_t isa = dnnl_get_effective_cpu_isa();
    kernels.gemmKernel = oneDnnIsaName(isa);
    kernels.gemmIsa = oneDnnVectors(isa);
#endif
  }
  return kernels;
}

} // namespace

std::string CpuKernels::describe() const {
  std::string line = "GEMM: " + gemmVersion + " " + gemmKernel + " (" +
                     vectorIsaName(gemmIsa) + "; " + reason + ")";
  line += flushesDenormals ? "; denormals flushed to zero"
                           : "; denormals not flushed (not x86-64 or AArch64)";
  return line;
}

const CpuKernels &cpuKernels() {
  static const CpuKernels kernels = chooseCpuKernels();
  return kernels;
}

//===----------------------------------------------------------------------===//
// The GEMMs
//===----------------------------------------------------------------------===//

namespace kernels {

namespace {

/// The CBLAS interface takes int sizes (OpenBLAS may widen them, never
/// narrow); refuse rather than silently truncate.
int toBlasInt(int64_t value) {
  if (value > std::numeric_limits<int>::max())
    throw std::length_error("dtf::kernels::gemm: dimension " +
                            std::to_string(value) +
                            " exceeds the BLAS integer range");
  return static_cast<int>(value);
}

CBLAS_TRANSPOSE toTranspose(bool transpose) {
  return transpose ? CblasTrans : CblasNoTrans;
}

/// C = beta * C for the degenerate K == 0 product, which CBLAS may reject.
template <typename T>
void scaleRows(int64_t m, int64_t n, T beta, T *c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    T *row = c + i * ldc;
    if (beta == T(0))
      std::fill(row, row + n, T(0));
    else
      std::transform(row, row + n, row, [beta](T v) { return beta * v; });
  }
}

} // namespace

bool gemmLibraryAvailable(GemmLibrary library) {
  return library == GemmLibrary::OpenBlas || DTF_HAVE_ONEDNN;
}

void gemmOn(GemmLibrary library, bool transA, bool transB, int64_t m, int64_t n,
            int64_t k, float alpha, const float *a, int64_t lda, const float *b,
            int64_t ldb, float beta, float *c, int64_t ldc) {
  if (m == 0 || n == 0)
    return;
  if (k == 0)
    return scaleRows(m, n, beta, c, ldc);
#if DTF_HAVE_ONEDNN
  if (library == GemmLibrary::OneDnn) {
    // Row-major, as dnnl_sgemm takes it. It runs on the calling thread's
    // OpenMP team (OMP_NUM_THREADS), as OpenBLAS on OPENBLAS_NUM_THREADS.
    dnnl_status_t status =
        dnnl_sgemm(transA ? 'T' : 'N', transB ? 'T' : 'N', m, n, k, alpha, a,
                   lda, b, ldb, beta, c, ldc);
    if (status != dnnl_success)
      throw Error(ErrorCode::Internal,
                  "dtf::kernels::gemm: oneDNN's sgemm failed with status " +
                      std::to_string(static_cast<int>(status)));
    return;
  }
#else
  if (library == GemmLibrary::OneDnn)
    throw Error(ErrorCode::Unimplemented,
                "dtf::kernels::gemm: this build has no oneDNN");
#endif
  cblas_sgemm(CblasRowMajor, toTranspose(transA), toTranspose(transB),
              toBlasInt(m), toBlasInt(n), toBlasInt(k), alpha, a,
              toBlasInt(lda), b, toBlasInt(ldb), beta, c, toBlasInt(ldc));
}

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
          float alpha, const float *a, int64_t lda, const float *b, int64_t ldb,
          float beta, float *c, int64_t ldc) {
  gemmOn(cpuKernels().gemm, transA, transB, m, n, k, alpha, a, lda, b, ldb,
         beta, c, ldc);
}

void gemm(bool transA, bool transB, int64_t m, int64_t n, int64_t k,
          double alpha, const double *a, int64_t lda, const double *b,
          int64_t ldb, double beta, double *c, int64_t ldc) {
  if (m == 0 || n == 0)
    return;
  if (k == 0)
    return scaleRows(m, n, beta, c, ldc);
  cblas_dgemm(CblasRowMajor, toTranspose(transA), toTranspose(transB),
              toBlasInt(m), toBlasInt(n), toBlasInt(k), alpha, a,
              toBlasInt(lda), b, toBlasInt(ldb), beta, c, toBlasInt(ldc));
}

} // namespace kernels
} // namespace dtf
