//===- Inputs.cpp - A worker's inputs opened for a compiled model ---------===//

#include "runtime/train/Inputs.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "runtime/data/Prefetch.h"
#include "runtime/exec/OpKernels.h"

#include "mlir/IR/BuiltinTypes.h"

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dtf::train {

namespace {

/// Seeds the order the data coordinator hands out streamed units in.
constexpr uint64_t kUnitOrderSeed = 1;

/// Throws std::invalid_argument, naming `flag`, for a placeholder of
/// `placeholders` that no binding of `specs` feeds.
void checkBound(const std::vector<data::InputSpec> &specs,
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
}

/// The bindings of `specs` as columns of the model's placeholders.
std::vector<std::pair<std::string, Tensor>>
columnsFor(const std::vector<data::InputSpec> &specs,
           const std::map<std::string, data::ExampleType> &placeholders,
           const std::map<std::string, data::IdTable> &tables,
           const char *flag) {
  checkBound(specs, placeholders, flag);
  return data::readColumns(specs, placeholders, tables);
}

/// The table that pull `pull` reads rows of: a shard's pull names the
/// shard ("c0/embedding/part_1"), its ids those of the whole table.
std::string tableName(ir::PullRowsOp pull) {
  llvm::StringRef name = pull.getName();
  if (ir::RowShardAttr shard = pull.getShardAttr()) {
    std::string suffix = "/part_" + std::to_string(shard.getShard());
    name.consume_back(suffix);
  }
  return name.str();
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
      throw std::invalid_argument(
          "placeholder '" + placeholder.getName().str() + "': " + error.what());
    }
    if (type.getRank() > 0)
      example.shape.assign(type.getShape().begin() + 1, type.getShape().end());
    placeholders[placeholder.getName().str()] = example;
  });
  return placeholders;
}

std::map<std::string, data::IdTable>
lookedUpPlaceholders(mlir::Operation *scope) {
  std::map<std::string, data::IdTable> tables;
  scope->walk([&](ir::PullRowsOp pull) {
    auto placeholder = pull.getIds().getDefiningOp<ir::PlaceholderOp>();
    if (!placeholder)
      return;
    data::IdTable table{tableName(pull), std::nullopt};
    if (std::optional<uint64_t> rows = pull.getTableRows())
      table.rows = static_cast<int64_t>(*rows);
    auto [known, inserted] = tables.emplace(placeholder.getName().str(), table);
    // The tightest bound wins: any fixed table over a dynamic one, the
    // smaller of two fixed ones.
    if (!inserted && table.rows &&
        (!known->second.rows || *table.rows < *known->second.rows))
      known->second = table;
  });
  return tables;
}

namespace {

/// The TFRecord files `options.train` is streamed from, or nullopt when it
/// is read into memory (InputMode).
std::optional<std::vector<std::string>>
streamedFiles(const InputOptions &options) {
  if (options.mode == InputMode::Memory || options.train.empty())
    return std::nullopt;
  // Streaming reads the features of one set of TFRecord files
  // (Streaming.h; StreamingInput refuses other bindings, which Auto leaves
  // in memory): the files of the first binding are the data set's.
  if (options.mode == InputMode::Auto)
    for (const data::InputSpec &spec : options.train)
      if (spec.format != "tfrecord" || spec.path != options.train.front().path)
        return std::nullopt;
  std::vector<std::string> files =
      data::matchFilePatterns(options.train.front().path);
  if (options.mode == InputMode::Stream)
    return files;
  uint64_t bytes = 0;
  for (const std::string &file : files)
    bytes += std::filesystem::file_size(file);
  if (bytes <= options.streamAboveBytes)
    return std::nullopt;
  return files;
}

} // namespace

DataShard betweenGraphDataShard(int workerIndex, int numWorkers) {
  if (numWorkers <= 0 || workerIndex < 0 || workerIndex >= numWorkers)
    throw std::invalid_argument("worker " + std::to_string(workerIndex) +
                                " of " + std::to_string(numWorkers) +
                                ": no such worker to read a shard");
  // Seeds apart per worker: with one seed, every worker would visit its
  // shard in the same permutation of positions.
  constexpr uint64_t kFirstWorkerSeed = 1000;
  return {data::Shard{workerIndex, numWorkers},
          kFirstWorkerSeed + static_cast<uint64_t>(workerIndex),
          /*accountExamples=*/true};
}

DataShard inGraphDataShard() {
  DataShard reader = betweenGraphDataShard(0, 1);
  // One reader of all the data: no coordinator to account to.
  reader.accountExamples = false;
  return reader;
}

WorkerInputs openInputs(mlir::Operation *scope, const InputOptions &options,
                        const DataShard &reader) {
  std::map<std::string, data::ExampleType> placeholders =
      dataPlaceholders(scope);
  std::map<std::string, data::IdTable> tables = lookedUpPlaceholders(scope);
  WorkerInputs inputs;
  if (std::optional<std::vector<std::string>> files = streamedFiles(options)) {
    checkBound(options.train, placeholders, "--input");
    StreamedData streamed;
    streamed.units = data::splitIntoUnits(*files, options.unitBytes);
    streamed.epochs = options.epochs;
    // One order of units for the whole cluster: every worker defines the
    // same data set with the coordinator.
    streamed.seed = kUnitOrderSeed;
    streamed.work = std::make_shared<DeferredWorkSource>();
    data::StreamingOptions streaming = options.streaming;
    streaming.shuffleSeed = reader.shuffleSeed;
    streaming.accountBatches = reader.accountExamples;
    inputs.train = std::make_unique<data::StreamingInput>(
        options.train, placeholders, tables, streamed.work, streaming);
    inputs.streamed = std::move(streamed);
  } else {
    std::unique_ptr<data::InputSource> train =
        std::make_unique<data::TensorSlices>(
            columnsFor(options.train, placeholders, tables, "--input"),
            reader.shard, reader.shuffleSeed);
    if (options.prefetch > 0)
      train = std::make_unique<data::PrefetchedInput>(std::move(train),
                                                      options.prefetch);
    inputs.train = std::move(train);
  }
  if (!options.eval.empty())
    inputs.validation = std::make_unique<data::TensorSlices>(
        columnsFor(options.eval, placeholders, tables, "--eval_input"));
  return inputs;
}

} // namespace dtf::train
