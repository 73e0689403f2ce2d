//===- WorkerStep.cpp - A worker's step on the CPU ------------------------===//

#include "runtime/train/WorkerStep.h"

#include "runtime/core/CpuKernels.h"
#include "runtime/core/DeviceName.h"

#include <optional>
#include <stdexcept>

namespace dtf::train {

ComputeDevice ComputeDevice::parse(const std::string &text) {
  std::string error;
  std::optional<DeviceName> name = DeviceName::parseDevice(text, error);
  if (!name || !name->job.empty())
    throw std::invalid_argument(
        "--device=" + text + ": " +
        (name ? "name the device alone" : error) +
        "; expected CPU or GPU:K (also written /device:GPU:K)");
  ComputeDevice device;
  device.gpu = name->isGpu();
  device.ordinal = static_cast<int>(name->index);
  if (!device.gpu && device.ordinal != 0)
    throw std::invalid_argument("--device=" + text +
                                ": a host has one CPU device, CPU:0");
#ifndef DTF_HAVE_CUDA
  if (device.gpu)
    throw std::invalid_argument(
        "--device=" + text +
        ": this dtf-run was built without the CUDA runtime (no CUDA toolkit "
        "with cuBLAS and cuDNN was found, or DTF_ENABLE_CUDA=OFF)");
#endif
  return device;
}

namespace {

/// The executor, running only what the fetches need (a validation step
/// skips the backward pass).
class CpuWorkerStep final : public WorkerStep {
public:
  CpuWorkerStep(const WorkerProgram &program, exec::ExecutorOptions options,
                int64_t workerIndex)
      : program(program), fetches(program.trainingFetches()),
        executor(program.function, noLocalVariables, std::move(options)),
        workerIndex(workerIndex) {}

  std::vector<Tensor> train(const exec::FeedMap &feeds) override {
    exec::RunOptions training;
    training.training = true;
    // Each training step of each worker draws its own dropout masks: the
    // worker's index in the high bits, its count of steps in the low ones.
    training.randomStream =
        (static_cast<uint64_t>(workerIndex) << 40) + trainingSteps++;
    return executor.runAndFetch(feeds, fetches, {}, training);
  }

  std::vector<Tensor> evaluate(const exec::FeedMap &feeds) override {
    return executor.runAndFetch(feeds, program.results);
  }

  std::string describe() const override {
    const ThreadPool *pool = executor.threadPool();
    std::string threads = pool ? std::to_string(pool->size()) +
                                     " inter-op threads"
                               : std::string("one thread");
    return "CPU (" + threads + "; " + cpuKernels().describe() + ")";
  }

private:
  const WorkerProgram &program;
  std::vector<mlir::Value> fetches;
  // Workers hold no variables: the replica program reads pulled values.
  VariableStore noLocalVariables;
  exec::Executor executor;
  int64_t workerIndex;
  uint64_t trainingSteps = 0;
};

} // namespace

std::unique_ptr<WorkerStep> makeCpuWorkerStep(const WorkerProgram &program,
                                              exec::ExecutorOptions options,
                                              int64_t workerIndex) {
  return std::make_unique<CpuWorkerStep>(program, std::move(options),
                                         workerIndex);
}

} // namespace dtf::train
