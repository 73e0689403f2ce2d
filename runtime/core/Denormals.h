//===- Denormals.h - Flush-to-zero in the threads that compute ------------===//
//
// A float below 2^-126 (a denormal) takes a microcode assist on every
// multiply on many x86 cores, 50 to 100 times a normal multiply: Adam's
// slots of weights whose gradients are always zero (an image's border
// pixels) decay into that range and stay there, and a PS task then spends a
// third of a core on them. Training has no use for such values, so every
// thread that computes flushes them to zero, as TensorFlow's
// ScopedFlushDenormal does in each of its compute threads: results that
// would be denormal are zero (FTZ) and denormal inputs are read as zero
// (DAZ).
//
// x86-64 sets MXCSR's FTZ and DAZ bits, AArch64 FPCR's FZ bit (which does
// both); elsewhere these calls do nothing and say so.
//
//===----------------------------------------------------------------------===//

#pragma once

namespace dtf {

/// Whether this CPU architecture lets a thread flush denormals.
bool canFlushDenormals();

/// Flushes denormals in the calling thread from now on: for threads that
/// only ever compute (the thread pool's workers, a data reader).
void flushDenormalsInThisThread();

/// Whether the calling thread flushes denormals now.
bool denormalsFlushedInThisThread();

/// Flushes denormals in the calling thread for the scope, then restores the
/// thread's mode: for threads the runtime borrows (a gRPC callback thread
/// that applies an update, a caller of Executor::run).
class ScopedFlushDenormals {
public:
  ScopedFlushDenormals();
  ~ScopedFlushDenormals();
  ScopedFlushDenormals(const ScopedFlushDenormals &) = delete;
  ScopedFlushDenormals &operator=(const ScopedFlushDenormals &) = delete;

private:
  unsigned long long saved;
};

} // namespace dtf
