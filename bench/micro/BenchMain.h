//===- BenchMain.h - A benchmark program's main, set up as a task ---------===//

#pragma once

#include "runtime/train/Tasks.h"

#include <benchmark/benchmark.h>

namespace dtf {

/// Google Benchmark's main, with malloc set up as in dtf-run's tasks
/// (train::keepStepMemoryOnTheHeap): a step's tensors and messages come
/// from the heap, not from fresh pages each call, as they do in training.
inline int runLikeATask(int argc, char **argv) {
  train::keepStepMemoryOnTheHeap();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

} // namespace dtf
