//===- Passes.h - dtf transformation passes ---------------------*- C++ -*-===//
//
// Constructors and registration of the passes declared in Passes.td.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "dialects/dtf/IR/DTFDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <memory>
#include <string>

namespace dtf::ir {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

//===----------------------------------------------------------------------===//
// Training pipeline
//===----------------------------------------------------------------------===//

/// The options that both training pipelines take: the batch size of a
/// model with a dynamic batch (dtf-run's --batch_size) and those of
/// --dtf-place-variables (--ps_strategy, --min_slice_size,
/// --max_partitions).
template <typename Derived>
struct CommonPipelineOptions : public PassPipelineOptions<Derived> {
  mlir::detail::PassOptions::Option<int64_t> batchSize{
      *this, "batch-size",
      llvm::cl::desc("Run --dtf-specialize-batch first with this batch size "
                     "(default: 0, the model's batch is static)"),
      llvm::cl::init(0)};
  mlir::detail::PassOptions::Option<std::string> psStrategy{
      *this, "ps-strategy",
      llvm::cl::desc("How variables are spread over PS tasks: round-robin or "
                     "greedy-bytes (default: round-robin)"),
      llvm::cl::init("round-robin")};
  mlir::detail::PassOptions::Option<int64_t> minShardBytes{
      *this, "min-shard-bytes",
      llvm::cl::desc("Shard variables bigger than this into pieces of at "
                     "least this many bytes (default: 0, never)"),
      llvm::cl::init(0)};
  mlir::detail::PassOptions::Option<int64_t> maxShards{
      *this, "max-shards",
      llvm::cl::desc("Most shards of one variable (default: 0, the number of "
                     "PS tasks)"),
      llvm::cl::init(0)};

  /// Adds --dtf-specialize-batch to `pm` when a batch size is given.
  void addSpecializeBatch(OpPassManager &pm) const {
    if (batchSize == 0)
      return;
    SpecializeBatchPassOptions specialization;
    specialization.batchSize = batchSize;
    pm.addNestedPass<func::FuncOp>(createSpecializeBatchPass(specialization));
  }

  PlaceVariablesPassOptions getPlaceVariablesOptions() const {
    PlaceVariablesPassOptions placement;
    placement.strategy = psStrategy;
    placement.minShardBytes = minShardBytes;
    placement.maxShards = maxShards;
    return placement;
  }
};

/// Options of `--dtf-training-pipeline`: those of the passes it runs that a
/// cluster's launcher sets (dtf-run's --sync, --replicas_to_aggregate,
/// --ps_strategy, ...).
struct TrainingPipelineOptions
    : public CommonPipelineOptions<TrainingPipelineOptions> {
  PassOptions::Option<ReplicationMode> mode{
      *this, "mode",
      llvm::cl::desc("How PS tasks apply pushed gradients (default: async)"),
      llvm::cl::init(ReplicationMode::Async),
      llvm::cl::values(
          clEnumValN(ReplicationMode::Async, "async",
                     "apply each push at once (Hogwild)"),
          clEnumValN(ReplicationMode::Sync, "sync",
                     "average replicas-to-aggregate pushes of a step, apply "
                     "them once (SyncReplicasOptimizer)"))};
  PassOptions::Option<int64_t> replicasToAggregate{
      *this, "replicas-to-aggregate",
      llvm::cl::desc("Replicas whose gradients make one update (default: 0, "
                     "the number of worker tasks)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> totalReplicas{
      *this, "total-replicas",
      llvm::cl::desc("Replicas that run (default: 0, replicas-to-aggregate)"),
      llvm::cl::init(0)};
};

/// Turns a model (a function with dtf.minimize or dtf.apply_gradients, in a
/// module with a dtf.cluster) into the replicated program of
/// runtime/ABI.md: gradients and optimizer updates, variables placed on PS
/// tasks, and the @worker / @ps_<N> functions of between-graph replication.
void buildTrainingPipeline(OpPassManager &pm,
                           const TrainingPipelineOptions &options);

/// Registers `--dtf-training-pipeline`.
void registerTrainingPipeline();

//===----------------------------------------------------------------------===//
// In-graph pipeline
//===----------------------------------------------------------------------===//

/// Options of `--dtf-in-graph-pipeline`: those of the passes it runs that
/// dtf-run sets for in-graph replication.
struct InGraphPipelineOptions
    : public CommonPipelineOptions<InGraphPipelineOptions> {
  // True by default, unlike --dtf-autodiff's option: an in-graph model is
  // split over devices, and its backward ops must run beside the forward
  // ops they differentiate rather than all on the worker-device, which is
  // why TensorFlow's model-parallel scripts all set
  // colocate_gradients_with_ops=True.
  PassOptions::Option<bool> colocateGradientsWithOps{
      *this, "colocate-gradients-with-ops",
      llvm::cl::desc("Place each op's gradient ops on the op's dtf.device "
                     "(default: true)"),
      llvm::cl::init(true)};
  PassOptions::ListOption<std::string> towers{
      *this, "towers",
      llvm::cl::desc("Devices to replicate the model over, one tower each, "
                     "comma-separated (default: none, no towers)")};
};

/// Turns a model (a function with dtf.minimize, in a module with a
/// dtf.cluster) into the partitions of in-graph replication: gradients and
/// optimizer updates, variables placed on PS tasks, the model replicated
/// over `towers` when given, a forward-only `@<fn>_eval` beside the
/// training function, and one function per device of each, verified.
void buildInGraphPipeline(OpPassManager &pm,
                          const InGraphPipelineOptions &options);

/// Registers `--dtf-in-graph-pipeline`.
void registerInGraphPipeline();

//===----------------------------------------------------------------------===//
// GPU lowering pipeline
//===----------------------------------------------------------------------===//

/// Options of `--dtf-lower-to-gpu`.
struct LowerToGPUOptions : public PassPipelineOptions<LowerToGPUOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("CUDA compute capability of the kernels (default: sm_90)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features of the NVVM target (e.g. +ptx80); by "
                     "default nvvm-attach-target's, which LLVM raises to the "
                     "PTX version the chip needs (default: \"\")"),
      llvm::cl::init("")};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level",
      llvm::cl::desc(
          "LLVM and ptxas optimization level of the kernels (default: 3)"),
      llvm::cl::init(3)};
  PassOptions::Option<std::string> cudaToolkit{
      *this, "cuda-toolkit",
      llvm::cl::desc("CUDA toolkit whose bin/ptxas assembles the kernels "
                     "(default: the toolkit CMake found)"),
      llvm::cl::init(defaultCUDAToolkitPath())};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What gpu.binary embeds: 'bin' (cubin, assembled with "
                     "ptxas), 'isa' (PTX) or 'fatbin' (default: bin)"),
      llvm::cl::init("bin")};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of the kernels (default: 256)"),
      llvm::cl::init(256)};

  /// The toolkit found when DTF was configured, or "" to let MLIR search.
  static std::string defaultCUDAToolkitPath();
};

/// Lowers dtf functions to host functions launching cubins and calling
/// cuBLAS/cuDNN (LowerToGPU.cpp lists the passes; runtime/ABI.md, "GPU",
/// describes the result).
void buildLowerToGPUPipeline(OpPassManager &pm,
                             const LowerToGPUOptions &options);

/// The first half of buildLowerToGPUPipeline: dtf functions to library
/// calls and tiled scf.parallel loops on buffers, before GPU mapping. The
/// loops run as well on a CPU (lowered to LLVM), which is how the lowering
/// is tested without a GPU.
void buildLowerToGPULoopsPipeline(OpPassManager &pm,
                                  const LowerToGPUOptions &options);

/// Registers `--dtf-lower-to-gpu` and `--dtf-lower-to-gpu-loops`.
void registerLowerToGPUPipeline();

} // namespace dtf::ir
