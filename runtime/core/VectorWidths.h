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
#else
#define DTF_VECTOR_WIDTHS
#endif
