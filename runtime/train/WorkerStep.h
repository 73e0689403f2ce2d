//===- WorkerStep.h - A worker's step on the device it computes on --------===//
//
// What a worker runs each step, between its pulls and its pushes: the
// replica program of WorkerProgram.h on the CPU (the Executor, as PS
// tasks run their updates) or, with --device=GPU:K, lowered by --dtf-lower-to-gpu and
// run on that GPU. Both give the same fetches, so the training loop does
// not care where the step ran. On a GPU, tensors cross between host and
// device only at the step's edges: pulled parameters and the data batch go
// in as feeds, gradients and results come out to be pushed and reported.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/train/WorkerProgram.h"

#include "runtime/core/Tensor.h"
#include "runtime/exec/Executor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <memory>
#include <string>
#include <vector>

namespace dtf::train {

/// Where a worker computes: the CPU, or GPU `ordinal` of its host.
struct ComputeDevice {
  bool gpu = false;
  int ordinal = 0;

  /// Parses --device: "CPU", "CPU:0", "GPU:K", with or without
  /// "/device:", device type in any case ("/gpu:1" too). Throws
  /// std::invalid_argument naming the flag, also for a GPU when dtf-run
  /// was built without the CUDA runtime.
  static ComputeDevice parse(const std::string &text);
};

class WorkerStep {
public:
  virtual ~WorkerStep() = default;

  /// A training step: the program's results, then for each push group its
  /// step and its gradients (WorkerProgram::trainingFetches()).
  virtual std::vector<Tensor> train(const exec::FeedMap &feeds) = 0;
  /// A validation step: the program's results only.
  virtual std::vector<Tensor> evaluate(const exec::FeedMap &feeds) = 0;
  /// Where the step runs, for the log: "CPU", "/device:GPU:0 (NVIDIA ...)".
  virtual std::string describe() const = 0;
};

/// The step on the CPU, run by an Executor with `options` (its threads;
/// the op observer of --trace), for worker task `workerIndex`, whose
/// training steps draw their own random samples (dtf.random_uniform).
std::unique_ptr<WorkerStep> makeCpuWorkerStep(const WorkerProgram &program,
                                              exec::ExecutorOptions options,
                                              int64_t workerIndex);

#ifdef DTF_HAVE_CUDA
/// What a GPU worker runs: a module of @train (the program's results, then
/// every push group's gradients) and @evaluate (the results only), cloned
/// from the program and lowered by --dtf-lower-to-gpu for compute
/// capability `chip` ("sm_90"). Throws std::runtime_error with the
/// lowering's diagnostics.
mlir::OwningOpRef<mlir::ModuleOp>
lowerWorkerForGpu(const WorkerProgram &program, const std::string &chip);

/// The step on GPU `ordinal`: lowers the program with --dtf-lower-to-gpu
/// for that GPU's compute capability and loads its kernels. Throws
/// std::runtime_error naming --device and saying why it cannot (no GPU,
/// no such GPU, the lowering failed).
std::unique_ptr<WorkerStep> makeGpuWorkerStep(const WorkerProgram &program,
                                              int ordinal);
#endif

} // namespace dtf::train
