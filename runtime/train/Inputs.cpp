//===- Inputs.cpp - A worker's inputs opened for a compiled model ---------===//

#include "runtime/train/Inputs.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "runtime/data/Prefetch.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

#include <stdexcept>

namespace dtf::train {

namespace {

DType dtypeOf(mlir::Type element, ir::PlaceholderOp placeholder) {
  if (element.isF32())
    return DType::F32;
  if (element.isF64())
    return DType::F64;
  if (element.isInteger(64))
    return DType::I64;
  if (element.isInteger(32))
    return DType::I32;
  if (element.isInteger(1))
    return DType::Bool;
  std::string text;
  llvm::raw_string_ostream(text) << placeholder.getType();
  throw std::invalid_argument("placeholder '" + placeholder.getName().str() +
                              "' is " + text +
                              ": inputs feed f32, f64, i64, i32 or i1");
}

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
    example.dtype = dtypeOf(type.getElementType(), placeholder);
    if (type.getRank() > 0)
      example.shape.assign(type.getShape().begin() + 1, type.getShape().end());
    placeholders[placeholder.getName().str()] = example;
  });
  return placeholders;
}

WorkerInputs openInputs(mlir::Operation *scope, const InputOptions &options,
                        data::Shard shard, uint64_t shuffleSeed) {
  std::map<std::string, data::ExampleType> placeholders =
      dataPlaceholders(scope);
  WorkerInputs inputs;
  std::unique_ptr<data::InputSource> train =
      std::make_unique<data::TensorSlices>(
          columnsFor(options.train, placeholders, "--input"), shard,
          shuffleSeed);
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
