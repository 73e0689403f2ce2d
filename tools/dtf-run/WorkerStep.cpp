//===- WorkerStep.cpp - A worker's step on the CPU ------------------------===//

#include "tools/dtf-run/WorkerStep.h"

#include "dtf/runtime/DeviceName.h"

#include <optional>
#include <stdexcept>

namespace dtf::run {

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

/// The reference interpreter, evaluating only what the fetches need (a
/// validation step skips the backward pass).
class CpuWorkerStep final : public WorkerStep {
public:
  CpuWorkerStep(const WorkerProgram &program, exec::OpObserver observer)
      : program(program), fetches(program.trainingFetches()),
        interpreter(noLocalVariables) {
    interpreter.setOpObserver(std::move(observer));
  }

  std::vector<Tensor> train(const exec::FeedMap &feeds) override {
    return interpreter.runAndFetch(program.function, feeds, fetches);
  }

  std::vector<Tensor> evaluate(const exec::FeedMap &feeds) override {
    return interpreter.runAndFetch(program.function, feeds, program.results);
  }

  std::string describe() const override { return "CPU"; }

private:
  const WorkerProgram &program;
  std::vector<mlir::Value> fetches;
  // Workers hold no variables: the replica program reads pulled values.
  exec::VariableStore noLocalVariables;
  exec::Interpreter interpreter;
};

} // namespace

std::unique_ptr<WorkerStep> makeCpuWorkerStep(const WorkerProgram &program,
                                              exec::OpObserver observer) {
  return std::make_unique<CpuWorkerStep>(program, std::move(observer));
}

} // namespace dtf::run
