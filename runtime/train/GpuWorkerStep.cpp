//===- GpuWorkerStep.cpp - A worker's step on a GPU -----------------------===//
//
// The replica program, rewritten by --dtf-lift-ps-transfers so that pulled
// values are feeds and gradients are results (WorkerProgram.h), becomes two functions of a module of
// its own: @train, returning the results and every push group's gradients,
// and @evaluate, returning the results only (the backward pass dropped).
// --dtf-lower-to-gpu lowers them for the worker's GPU: fused elementwise
// kernels as cubins, GEMMs on cuBLAS, convolution and pooling on cuDNN.
// Each step copies the feeds to the device and the outputs back; nothing
// else crosses (runtime/ABI.md, "GPU").
//
//===----------------------------------------------------------------------===//

#include "runtime/train/WorkerStep.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "dialects/dtf/IR/WorkerStepAttrs.h"
#include "passes/Passes.h"
#include "runtime/cuda/exec/GpuFunction.h"

#include "runtime/cuda/Device.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <stdexcept>


namespace dtf::train {
namespace {

/// Adds to `module` a copy of @worker named `name` that returns `outputs`
/// (values of @worker's body), without the ops they do not need.
void cloneReturning(mlir::func::FuncOp worker, llvm::StringRef name,
                    llvm::ArrayRef<mlir::Value> outputs,
                    mlir::ModuleOp module) {
  mlir::OpBuilder builder = mlir::OpBuilder::atBlockEnd(module.getBody());
  mlir::IRMapping mapping;
  auto clone =
      llvm::cast<mlir::func::FuncOp>(builder.clone(*worker, mapping));
  clone.setSymName(name);
  clone.removeResAttrsAttr();
  // Its results are others than @worker's.
  clone->removeAttr(ir::kPushesAttrName);
  clone->removeAttr(ir::kModelResultsAttrName);
  mlir::Block &body = clone.getBody().front();
  auto oldReturn = llvm::cast<mlir::func::ReturnOp>(body.getTerminator());
  llvm::SmallVector<mlir::Value> values;
  llvm::SmallVector<mlir::Type> types;
  for (mlir::Value output : outputs) {
    values.push_back(mapping.lookup(output));
    types.push_back(output.getType());
  }
  builder.setInsertionPoint(oldReturn);
  builder.create<mlir::func::ReturnOp>(oldReturn.getLoc(), values);
  oldReturn.erase();
  clone.setFunctionType(
      builder.getFunctionType(clone.getArgumentTypes(), types));
  // Drop what the outputs do not need: @evaluate's backward pass, and the
  // placeholders it alone read, which would be arguments copied each step.
  llvm::SmallVector<mlir::Operation *> ops;
  for (mlir::Operation &op : body.without_terminator())
    ops.push_back(&op);
  // Users before producers: an op is dead once its users are erased.
  for (mlir::Operation *op : llvm::reverse(ops))
    if (mlir::isOpTriviallyDead(op))
      op->erase();
}

} // namespace

mlir::OwningOpRef<mlir::ModuleOp>
lowerWorkerForGpu(const WorkerProgram &program, const std::string &chip) {
  mlir::func::FuncOp worker = program.function;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(worker.getLoc());
  std::vector<mlir::Value> trainOutputs(program.results);
  for (const WorkerProgram::PushGroup &group : program.pushes)
    trainOutputs.insert(trainOutputs.end(), group.gradients.begin(),
                        group.gradients.end());
  cloneReturning(worker, "train", trainOutputs, *module);
  cloneReturning(worker, "evaluate", program.results, *module);

  std::string diagnostics;
  llvm::raw_string_ostream stream(diagnostics);
  mlir::ScopedDiagnosticHandler handler(
      worker.getContext(), [&](mlir::Diagnostic &diagnostic) {
        stream << "\n  " << diagnostic.getLocation() << ": " << diagnostic;
        return mlir::success();
      });
  mlir::PassManager passManager(worker.getContext());
  ir::LowerToGPUOptions options;
  options.chip = chip;
  ir::buildLowerToGPUPipeline(passManager, options);
  if (failed(passManager.run(*module)))
    throw std::runtime_error("lowering the worker's program for the GPU "
                             "(--dtf-lower-to-gpu{chip=" +
                             chip + "}) failed:" + diagnostics);
  return module;
}

namespace {

class GpuWorkerStep final : public WorkerStep {
public:
  GpuWorkerStep(const WorkerProgram &program, cuda::Device &device)
      : program(program), device(device),
        module(lowerWorkerForGpu(program, "sm_" + std::to_string(
                                              device.computeCapability()))),
        trainFunction(module->lookupSymbol<mlir::func::FuncOp>("train"),
                      device),
        evaluateFunction(
            module->lookupSymbol<mlir::func::FuncOp>("evaluate"), device) {
    // The step a push carries is the pulled global step: a feed, read on
    // the host.
    for (const WorkerProgram::PushGroup &group : program.pushes) {
      auto placeholder = group.step.getDefiningOp<ir::PlaceholderOp>();
      if (!placeholder)
        throw std::runtime_error(
            "the worker's program computes the step it pushes with; a GPU "
            "worker needs it pulled (runtime/ABI.md)");
      stepFeeds.push_back(placeholder.getName().str());
    }
  }

  std::vector<Tensor> train(const exec::FeedMap &feeds) override {
    std::vector<Tensor> outputs = trainFunction.run(feeds, {});
    // Into WorkerProgram::trainingFetches() order: results, then per push
    // group its step and gradients.
    std::vector<Tensor> fetched;
    size_t next = 0;
    for (; next < program.results.size(); ++next)
      fetched.push_back(std::move(outputs[next]));
    for (size_t i = 0; i < program.pushes.size(); ++i) {
      fetched.push_back(feeds.at(stepFeeds[i]).clone());
      for (size_t g = 0; g < program.pushes[i].gradients.size(); ++g)
        fetched.push_back(std::move(outputs[next++]));
    }
    return fetched;
  }

  std::vector<Tensor> evaluate(const exec::FeedMap &feeds) override {
    return evaluateFunction.run(feeds, {});
  }

  std::string describe() const override {
    return device.name() + " (" + device.description() + ")";
  }

private:
  const WorkerProgram &program;
  cuda::Device &device;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  cuda::GpuFunction trainFunction;
  cuda::GpuFunction evaluateFunction;
  std::vector<std::string> stepFeeds;
};

} // namespace

std::unique_ptr<WorkerStep> makeGpuWorkerStep(const WorkerProgram &program,
                                              int ordinal) {
  try {
    return std::make_unique<GpuWorkerStep>(program,
                                           cuda::Device::get(ordinal));
  } catch (const cuda::CudaError &error) {
    throw Error(error.code(), "--device=GPU:" + std::to_string(ordinal) + ": " +
                                  error.what());
  }
}

} // namespace dtf::train
