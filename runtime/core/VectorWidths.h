//===- VectorWidths.h - Loops compiled for several vector widths -*- C++
//-*-===//
//
// One binary runs on every x86-64, so it is built for the baseline (SSE2).
// A loop bound by the vector width (Adam's sqrt and division, the sparse
// updates, pixel conversion) is compiled for several widths instead, and
// the widest the CPU has is picked when the program loads: GCC's and
// Clang's function multiversioning, an ifunc. Elsewhere, the baseline.
//
//===----------------------------------------------------------------------===//

#pragma once

#if defined(__x86_64__) && defined(__GNUC__)
#define DTF_VECTOR_WIDTHS                                                      \
  __attribute__((target_clones("avx512f", "avx2", "default")))
/// A loop that leans on fused multiply-adds, compiled for the x86-64 levels
/// that have them: v4 (AVX-512, in 512-bit vectors, which GCC's "avx512f"
/// clone does not use) and v3 (AVX2 and FMA). Its caller asks
/// hasFmaLevel() first: the baseline clone, which the ifunc needs, calls
/// the C library's fma for each element.
#define DTF_FMA_LEVELS                                                         \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
namespace dtf {
inline bool hasFmaLevel() { return __builtin_cpu_supports("x86-64-v3"); }
} // namespace dtf
#else
#define DTF_VECTOR_WIDTHS
#define DTF_FMA_LEVELS
namespace dtf {
/// AArch64's FMA is in its baseline; elsewhere it is not counted on.
inline bool hasFmaLevel() {
#if defined(__aarch64__)
  return true;
#else
  return false;
#endif
}
} // namespace dtf
#endif
