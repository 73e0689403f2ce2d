//===- GpuFunction.h - Runs functions lowered for a GPU ---------*- C++ -*-===//
//
// Runs a host function produced by --dtf-lower-to-gpu on one Device: its
// gpu.alloc come from the device's caching allocator, its gpu.launch_func
// launch the cubins of the module's gpu.binary ops (loaded once, with the
// driver API), its calls to dtf_cuda_* run cuBLAS/cuDNN, all in order on
// the device's stream. runtime/ABI.md ("GPU") specifies the host code this
// accepts; anything else is rejected, naming the op, when the function is
// prepared rather than when it runs.
//
// Buffers the function allocates and does not return are given back to the
// allocator after their last use (the lowered code does not deallocate);
// returned buffers become the results.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/cuda/Device.h"
#include "runtime/core/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dtf::cuda {

class GpuFunction {
public:
  /// Prepares `function`, of a module lowered by --dtf-lower-to-gpu, to run
  /// on `device`: checks every op of its body and loads the kernels it
  /// launches. Throws CudaError naming the op it cannot run
  /// (InvalidArgument), or the kernel it cannot load (FailedPrecondition
  /// when none of its objects is for this GPU). The module must outlive the
  /// GpuFunction.
  GpuFunction(mlir::func::FuncOp function, Device &device);
  ~GpuFunction();
  GpuFunction(const GpuFunction &) = delete;
  GpuFunction &operator=(const GpuFunction &) = delete;

  /// Checks, without a device, that `function` is host code the executor
  /// runs (the checks the constructor makes before loading kernels).
  /// Throws CudaError(InvalidArgument) naming the first op it cannot run.
  static void verify(mlir::func::FuncOp function);

  Device &device() const;
  mlir::func::FuncOp function() const;

  /// What --dtf-lift-graph-inputs bound to argument `index` (its dtf.feed
  /// or dtf.variable name), and the variable result `index` is the gradient
  /// of (dtf.gradient); "" when the attribute is absent.
  std::string feedName(unsigned index) const;
  std::string variableName(unsigned index) const;
  std::string gradientName(unsigned index) const;

  /// Runs with arguments already on the device, returning the results on
  /// the device. The work is queued on the device's stream: results are
  /// ready for later work on it, and for toHost(). Throws
  /// std::invalid_argument when an argument does not have the type of its
  /// parameter, CudaError with the code of the failure when running fails
  /// (ResourceExhausted when out of device memory).
  std::vector<DeviceTensor> run(const std::vector<const DeviceTensor *> &args);

  /// Copies host arguments to the device, runs, and copies the results
  /// back.
  std::vector<Tensor> run(const std::vector<const Tensor *> &args);

  /// As above, binding each argument by its dtf.feed name to `feeds` and
  /// its dtf.variable name to `variables`.
  std::vector<Tensor> run(const std::map<std::string, Tensor> &feeds,
                          const std::map<std::string, Tensor> &variables);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace dtf::cuda
