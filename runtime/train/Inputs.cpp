//===- Inputs.cpp - A worker's inputs opened for a compiled model ---------===//

#include "runtime/train/Inputs.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "runtime/data/Prefetch.h"
#include "runtime/exec/OpKernels.h"

#include "mlir/IR/BuiltinTypes.h"

#include <stdexcept>
#include <string>

namespace dtf::train {

namespace {

/// The bindings of `specs` as columns of the model's placeholders.
std::vector<std::pair<std::string, Tensor>>
columnsFor(const std::vector<data::InputSpec> &specs,
           const std::map<std::string, data::ExampleType> &placeholders,
           const char *flag) {
  for (const auto &[name, type] : placeholders) {
    bool bound = false;
    for (const data::InputSpec &spec : specs)
      bound |= spec.placeholder == name;
    if (!bound)
      throw std::invalid_argument(std::string("placeholder '") + name + "' (" +
                                  dtypeName(type.dtype) + " " +
                                  shapeToString(type.shape) +
                                  " per example) has no input: bind it with " +
                                  flag + "=" + name + "=FORMAT:PATH");
  }
  return data::readColumns(specs, placeholders);
}

} // namespace

std::map<std::string, data::ExampleType>
dataPlaceholders(mlir::Operation *scope) {
  std::map<std::string, data::ExampleType> placeholders;
  scope->walk([&](ir::PlaceholderOp placeholder) {
    if (placeholder->hasAttr("dtf.pulled_from"))
      return;
    mlir::RankedTensorType type = placeholder.getType();
    data::ExampleType example;
    try {
      example.dtype = exec::toDType(type.getElementType(), {});
    } catch (const std::exception &error) {
      throw std::invalid_argument("placeholder '" +
                                  placeholder.getName().str() +
                                  "': " + error.what());
    }
    if (type.getRank() > 0)
      example.shape.assign(type.getShape().begin() + 1, type.getShape().end());
    placeholders[placeholder.getName().str()] = example;
  });
  return placeholders;
}

DataShard betweenGraphDataShard(int workerIndex, int numWorkers) {
  if (numWorkers <= 0 || workerIndex < 0 || workerIndex >= numWorkers)
    throw std::invalid_argument(
        "worker " + std::to_string(workerIndex) + " of " +
        std::to_string(numWorkers) + ": no such worker to read a shard");
  // Seeds apart per worker: with one seed, every worker would visit its
  // shard in the same permutation of positions.
  constexpr uint64_t kFirstWorkerSeed = 1000;
  return {data::Shard{workerIndex, numWorkers},
          kFirstWorkerSeed + static_cast<uint64_t>(workerIndex)};
}

DataShard inGraphDataShard() { return betweenGraphDataShard(0, 1); }

WorkerInputs openInputs(mlir::Operation *scope, const InputOptions &options,
                        const DataShard &reader) {
  std::map<std::string, data::ExampleType> placeholders =
      dataPlaceholders(scope);
  WorkerInputs inputs;
  std::unique_ptr<data::InputSource> train =
      std::make_unique<data::TensorSlices>(
          columnsFor(options.train, placeholders, "--input"), reader.shard,
          reader.shuffleSeed);
  if (options.prefetch > 0)
    train = std::make_unique<data::PrefetchedInput>(std::move(train),
                                                    options.prefetch);
  inputs.train = std::move(train);
  if (!options.eval.empty())
    inputs.validation = std::make_unique<data::TensorSlices>(
        columnsFor(options.eval, placeholders, "--eval_input"));
  return inputs;
}

} // namespace dtf::train
