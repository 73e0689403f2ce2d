//===- Denormals.cpp - Flush-to-zero in the threads that compute ----------===//

#include "runtime/core/Denormals.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

namespace dtf {

namespace {

#if defined(__x86_64__) || defined(_M_X64)
// MXCSR bit 15 flushes denormal results to zero, bit 6 reads denormal
// operands as zero.
constexpr unsigned kFlushBits = 0x8000u | 0x0040u;

unsigned long long readMode() { return _mm_getcsr(); }
void writeMode(unsigned long long mode) {
  _mm_setcsr(static_cast<unsigned>(mode));
}
unsigned long long withFlush(unsigned long long mode) {
  return mode | kFlushBits;
}
bool flushes(unsigned long long mode) {
  return (mode & kFlushBits) == kFlushBits;
}
#elif defined(__aarch64__)
// FPCR bit 24 (FZ) flushes denormal inputs and results of float and double
// arithmetic to zero.
constexpr unsigned long long kFlushBits = 1ull << 24;

unsigned long long readMode() {
  unsigned long long fpcr;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
  return fpcr;
}
void writeMode(unsigned long long mode) {
  __asm__ __volatile__("msr fpcr, %0" : : "r"(mode));
}
unsigned long long withFlush(unsigned long long mode) {
  return mode | kFlushBits;
}
bool flushes(unsigned long long mode) { return (mode & kFlushBits) != 0; }
#else
unsigned long long readMode() { return 0; }
void writeMode(unsigned long long) {}
unsigned long long withFlush(unsigned long long mode) { return mode; }
bool flushes(unsigned long long) { return false; }
#endif

} // namespace

bool canFlushDenormals() {
#if defined(__x86_64__) || defined(_M_X64) || defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

void flushDenormalsInThisThread() { writeMode(withFlush(readMode())); }

bool denormalsFlushedInThisThread() { return flushes(readMode()); }

ScopedFlushDenormals::ScopedFlushDenormals() : saved(readMode()) {
  writeMode(withFlush(saved));
}

ScopedFlushDenormals::~ScopedFlushDenormals() { writeMode(saved); }

} // namespace dtf
