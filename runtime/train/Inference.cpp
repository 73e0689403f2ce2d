//===- Inference.cpp - A trained model for serving and prediction ---------===//

#include "runtime/train/Inference.h"

#include "runtime/checkpoint/BundleDirectory.h"
#include "runtime/checkpoint/WarmStart.h"
#include "runtime/data/Inputs.h"
#include "runtime/exec/Interpreter.h"
#include "runtime/train/Inputs.h"
#include "translate/graphdef/DynamicTableServing.h"
#include "translate/graphdef/SavedModelExport.h"

#include "dialects/dtf/IR/DTFDialect.h"
#include "dialects/dtf/IR/DTFOps.h"
#include "dialects/dtf/IR/OneLineDiagnostics.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>

namespace dtf::train {
namespace {

/// `tensor` as the elements attribute of `type` (the variable's type, whose
/// shape the tensor has).
mlir::DenseElementsAttr toElementsAttr(const Tensor &tensor,
                                       mlir::RankedTensorType type) {
  auto elements = [&](auto *data) {
    return llvm::ArrayRef(data, static_cast<size_t>(tensor.numElements()));
  };
  switch (tensor.dtype()) {
  case DType::F32:
    return mlir::DenseElementsAttr::get(type, elements(tensor.data<float>()));
  case DType::F64:
    return mlir::DenseElementsAttr::get(type, elements(tensor.data<double>()));
  case DType::I32:
    return mlir::DenseElementsAttr::get(type, elements(tensor.data<int32_t>()));
  case DType::I64:
    return mlir::DenseElementsAttr::get(type, elements(tensor.data<int64_t>()));
  case DType::Bool:
    return mlir::DenseElementsAttr::get(type, elements(tensor.data<bool>()));
  }
  throw std::logic_error("a dtype Tensor does not define");
}

/// The dtype and shape of a variable of type `type`.
checkpoint::TensorType tensorTypeOf(mlir::RankedTensorType type) {
  return {exec::toDType(type.getElementType(), {}),
          Shape(type.getShape().begin(), type.getShape().end())};
}

std::string typeString(const checkpoint::TensorType &type) {
  return Tensor(type.dtype, type.shape).typeString();
}

/// Tensor `name` of `loaded`; throws naming the checkpoint, the tensor and
/// what it is (`what`) when it lacks it.
const Tensor &checkpointTensor(const checkpoint::LoadedCheckpoint &loaded,
                               const std::string &name,
                               const std::string &what) {
  auto found = loaded.checkpoint.tensors.find(name);
  if (found == loaded.checkpoint.tensors.end())
    throw std::invalid_argument("checkpoint " + loaded.path +
                                " has no tensor '" + name + "' (" + what + ")");
  return found->second;
}

/// The rows dynamic table `table` created and their ids, as `loaded` holds
/// them: `<name>` and `<name>/ids`, or for a table split over N shards by
/// id modulo each `<name>/part_K` and `<name>/part_K/ids`, whose local id
/// `i` is the table's id `N * i + K` (runtime/checkpoint/README.md).
translate::DynamicTableRows
dynamicTableRows(const checkpoint::LoadedCheckpoint &loaded,
                 ir::VariableOp table) {
  std::string name = table.getName().str();
  const std::map<std::string, Tensor> &tensors = loaded.checkpoint.tensors;
  std::vector<std::string> shards;
  if (tensors.count(name))
    shards.push_back(name);
  else
    for (int64_t shard = 0, count = checkpoint::shardCountOf(tensors, name);
         shard < count; ++shard)
      shards.push_back(name + "/part_" + std::to_string(shard));
  if (shards.empty())
    throw std::invalid_argument(
        "checkpoint " + loaded.path + " has no tensor '" + name + "' or '" +
        name + "/part_0' for the rows of dynamic table '" + name + "'");
  mlir::RankedTensorType type = table.getValueType();
  Shape rowShape(type.getShape().begin() + 1, type.getShape().end());
  DType dtype = exec::toDType(type.getElementType(), {});
  translate::DynamicTableRows rows;
  std::string bytes;
  int64_t numShards = static_cast<int64_t>(shards.size());
  for (int64_t shard = 0; shard < numShards; ++shard) {
    const std::string &rowsName = shards[shard];
    const Tensor &shardRows = checkpointTensor(
        loaded, rowsName, "the rows of dynamic table '" + name + "'");
    const Tensor &shardIds =
        checkpointTensor(loaded, rowsName + "/ids",
                         "the ids of the rows of dynamic table '" + name + "'");
    if (shardRows.dtype() != dtype || shardRows.rank() < 1 ||
        Shape(shardRows.shape().begin() + 1, shardRows.shape().end()) !=
            rowShape)
      throw std::invalid_argument(
          "checkpoint " + loaded.path + " holds '" + rowsName + "' as " +
          shardRows.typeString() + ", not rows of dynamic table '" + name +
          "' of " + Tensor(dtype, rowShape).typeString() + " each");
    if (shardIds.dtype() != DType::I64 || shardIds.rank() != 1 ||
        shardIds.dim(0) != shardRows.dim(0))
      throw std::invalid_argument(
          "checkpoint " + loaded.path + " holds " +
          std::to_string(shardRows.dim(0)) + " rows in '" + rowsName +
          "' but '" + rowsName + "/ids' is " + shardIds.typeString() +
          ", not their i64 ids");
    for (int64_t local : shardIds.toVector<int64_t>())
      rows.ids.push_back(numShards * local + shard);
    bytes.append(static_cast<const char *>(shardRows.rawData()),
                 shardRows.byteSize());
  }
  Shape shape{static_cast<int64_t>(rows.ids.size())};
  shape.insert(shape.end(), rowShape.begin(), rowShape.end());
  Tensor whole(dtype, shape);
  std::memcpy(whole.rawData(), bytes.data(), bytes.size());
  rows.rows = toElementsAttr(
      whole, mlir::RankedTensorType::get(shape, type.getElementType()));
  return rows;
}

/// `model`'s function; throws naming the model when it has not one.
mlir::func::FuncOp functionOf(mlir::ModuleOp model) {
  mlir::FailureOr<mlir::func::FuncOp> function =
      translate::modelFunction(model);
  if (mlir::failed(function))
    throw std::invalid_argument("the model has no function to run");
  return *function;
}

std::vector<translate::InferenceOutput>
outputsOf(mlir::func::FuncOp function,
          const std::vector<std::string> &outputs) {
  mlir::FailureOr<std::vector<translate::InferenceOutput>> found =
      translate::findInferenceOutputs(function, outputs);
  if (mlir::failed(found))
    throw std::invalid_argument("--outputs: see the error above");
  return *found;
}

/// NumPy's descr of `dtype`.
const char *npyDescr(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "<f4";
  case DType::F64:
    return "<f8";
  case DType::I32:
    return "<i4";
  case DType::I64:
    return "<i8";
  case DType::Bool:
    return "|b1";
  }
  throw std::logic_error("a dtype Tensor does not define");
}

/// Writes `tensor` as a version 1.0 .npy file.
void writeNpy(const Tensor &tensor, const std::string &path) {
  std::string shape = "(";
  for (int64_t size : tensor.shape())
    shape += std::to_string(size) + ", ";
  if (tensor.rank() > 1)
    shape.resize(shape.size() - 2);
  else if (tensor.rank() == 1)
    shape.pop_back();
  shape += ")";
  std::string header = std::string("{'descr': '") + npyDescr(tensor.dtype()) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // The magic, the version and the length take 10 bytes; the header ends in
  // a newline and pads the data to 64 bytes.
  header.append(63 - (10 + header.size()) % 64, ' ');
  header += '\n';
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  uint16_t length = static_cast<uint16_t>(header.size());
  file.write("\x93NUMPY\x01\x00", 8);
  file.write(reinterpret_cast<const char *>(&length), 2);
  file << header;
  file.write(static_cast<const char *>(tensor.rawData()),
             static_cast<std::streamsize>(tensor.byteSize()));
  file.close();
  if (!file)
    throw std::runtime_error("cannot write predictions to " + path);
}

} // namespace

TrainedModel
loadTrainedModel(mlir::MLIRContext &context, const std::string &modelPath,
                 const std::string &logdir,
                 const std::function<void(const std::string &)> &warn) {
  context.printOpOnDiagnostic(false);
  dtf::ir::OneLineDiagnostics diagnostics(&context);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::openInputFile(modelPath, &error);
  if (!file)
    throw std::invalid_argument("cannot read model " + modelPath + ": " +
                                error);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  TrainedModel model;
  model.module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!model.module)
    throw std::invalid_argument("model " + modelPath + " does not parse");

  if (logdir.empty())
    throw std::invalid_argument(
        "--logdir: name the directory of the training's checkpoints");
  std::optional<checkpoint::LoadedCheckpoint> newest =
      checkpoint::newestCheckpoint(logdir, checkpoint::CheckpointFormat::Dtf,
                                   warn);
  if (!newest)
    throw std::invalid_argument("--logdir=" + logdir +
                                ": no checkpoint of either format there");
  model.checkpoint = newest->path;
  model.globalStep = newest->checkpoint.step;
  std::vector<ir::VariableOp> variables;
  std::vector<ir::VariableOp> dynamicTables;
  // Tables partitioned by id modulo: their shards hold interleaved rows.
  std::set<std::string> interleaved;
  model.module->walk([&](ir::VariableOp variable) {
    if (variable.isDynamicTable()) {
      dynamicTables.push_back(variable);
      return;
    }
    if (!variable.getValueType().hasStaticShape())
      return; // a dynamic table's slot: not served
    variables.push_back(variable);
    if (auto partitioner = variable->getAttrOfType<ir::PartitionerAttr>(
            ir::DTFDialect::getPartitionerAttrName());
        partitioner && partitioner.getStrategy() == ir::PartitionStrategy::Mod)
      interleaved.insert(variable.getName().str());
  });
  // The shards of a variable split over PS tasks are one tensor: a bundle
  // holds one split by row ranges whole, and a table split by id modulo as
  // its shards, as a DTF file holds any.
  std::map<std::string, Tensor> &tensors = newest->checkpoint.tensors;
  for (ir::VariableOp variable : variables) {
    std::string name = variable.getName().str();
    checkpoint::TensorType type = tensorTypeOf(variable.getValueType());
    std::optional<Tensor> value;
    if (auto stored = tensors.find(name); stored != tensors.end())
      value = std::move(stored->second);
    else
      value = checkpoint::joinShards(tensors, name, interleaved.count(name) > 0,
                                     model.checkpoint);
    if (!value)
      throw std::invalid_argument("checkpoint " + model.checkpoint +
                                  " has no tensor '" + name +
                                  "' for the variable of model " + modelPath);
    if (value->dtype() != type.dtype || value->shape() != type.shape)
      throw std::invalid_argument("checkpoint " + model.checkpoint +
                                  " holds '" + name + "' as " +
                                  value->typeString() + "; model " + modelPath +
                                  " declares it " + typeString(type));
    variable.setInitializerAttr(ir::DenseInitAttr::get(
        &context, toElementsAttr(*value, variable.getValueType())));
    model.variables.emplace(name, std::move(*value));
  }
  // Each dynamic table becomes a fixed table of its rows and the default
  // row, looked up through the sorted ids.
  std::map<std::string, translate::DynamicTableRows> dynamicRows;
  for (ir::VariableOp table : dynamicTables)
    dynamicRows.emplace(table.getName().str(),
                        dynamicTableRows(*newest, table));
  if (mlir::failed(translate::freezeDynamicTables(*model.module, dynamicRows)))
    throw std::invalid_argument("model " + modelPath +
                                ": its dynamic tables cannot be served from "
                                "checkpoint " +
                                model.checkpoint + " (see the error above)");
  for (ir::VariableOp table : dynamicTables)
    model.variables.emplace(table.getName().str(),
                            exec::initialValue(table, {}));
  return model;
}

void exportSavedModel(TrainedModel &model,
                      const std::vector<std::string> &outputs,
                      const std::string &directory) {
  dtf::ir::OneLineDiagnostics diagnostics(model.module->getContext());
  if (mlir::failed(
          translate::exportSavedModel(*model.module, outputs, directory)))
    throw std::runtime_error("no SavedModel written to " + directory);
}

std::vector<Prediction> predict(TrainedModel &model,
                                const std::vector<std::string> &outputs,
                                const std::vector<data::InputSpec> &inputs,
                                int64_t batchSize) {
  mlir::MLIRContext &context = *model.module->getContext();
  dtf::ir::OneLineDiagnostics diagnostics(&context);
  // A copy whose batch is given its size: the Interpreter runs static
  // shapes.
  mlir::OwningOpRef<mlir::ModuleOp> program = model.module->clone();
  mlir::func::FuncOp function = functionOf(*program);
  std::vector<translate::InferenceOutput> found = outputsOf(function, outputs);
  mlir::FailureOr<std::vector<std::string>> needed =
      translate::inferenceInputs(function, found);
  if (mlir::failed(needed))
    throw std::invalid_argument("--outputs: see the error above");
  int64_t batch = batchSize > 0 ? batchSize : 100;
  bool dynamic = false;
  function.walk([&](ir::PlaceholderOp placeholder) {
    auto type = placeholder.getType();
    if (type.getRank() == 0)
      return;
    if (type.isDynamicDim(0))
      dynamic = true;
    else
      batch = type.getDimSize(0);
  });
  if (dynamic) {
    mlir::PassManager passManager(&context);
    ir::SpecializeBatchPassOptions specialization;
    specialization.batchSize = batch;
    passManager.addNestedPass<mlir::func::FuncOp>(
        ir::createSpecializeBatchPass(specialization));
    if (mlir::failed(passManager.run(*program)))
      throw std::invalid_argument(
          "the model's batch cannot be given its size (see above)");
  }

  std::map<std::string, data::ExampleType> placeholders =
      dataPlaceholders(function);
  for (const std::string &name : *needed)
    if (std::none_of(inputs.begin(), inputs.end(),
                     [&](const data::InputSpec &spec) {
                       return spec.placeholder == name;
                     }))
      throw std::invalid_argument("--predict: the outputs need placeholder '" +
                                  name + "'; bind it (" + name +
                                  "=npy:FILE, as --input binds it)");
  std::vector<std::pair<std::string, Tensor>> columns =
      data::readColumns(inputs, placeholders);
  int64_t examples = columns.empty() ? 0 : columns.front().second.dim(0);
  if (examples == 0)
    throw std::invalid_argument("--predict: the bindings hold no examples");

  std::vector<mlir::Value> fetches;
  for (const translate::InferenceOutput &output : found)
    fetches.push_back(output.value);
  std::vector<std::string> rows(found.size());
  std::vector<Shape> rowShapes(found.size());
  std::vector<DType> dtypes(found.size());
  VariableStore &variables = model.variables;
  exec::Interpreter interpreter(variables);
  interpreter.setTraining(false);
  for (int64_t first = 0; first < examples; first += batch) {
    int64_t count = std::min(batch, examples - first);
    FeedMap feeds;
    for (const auto &[name, column] : columns) {
      Shape shape = column.shape();
      size_t rowBytes = column.byteSize() / static_cast<size_t>(examples);
      shape[0] = batch;
      Tensor feed = Tensor::zeros(column.dtype(), shape);
      std::memcpy(feed.rawData(),
                  static_cast<const char *>(column.rawData()) +
                      static_cast<size_t>(first) * rowBytes,
                  static_cast<size_t>(count) * rowBytes);
      feeds.emplace(name, std::move(feed));
    }
    std::vector<Tensor> results =
        interpreter.runAndFetch(function, feeds, fetches);
    for (size_t i = 0; i < results.size(); ++i) {
      const Tensor &result = results[i];
      if (result.rank() == 0 || result.dim(0) != batch)
        throw std::invalid_argument(
            "output '" + found[i].key + "' is " + result.typeString() +
            " for a batch of " + std::to_string(batch) +
            ", not a row per example: --predict writes per-example outputs");
      size_t rowBytes = result.byteSize() / static_cast<size_t>(batch);
      rows[i].append(static_cast<const char *>(result.rawData()),
                     static_cast<size_t>(count) * rowBytes);
      rowShapes[i] = Shape(result.shape().begin() + 1, result.shape().end());
      dtypes[i] = result.dtype();
    }
  }
  std::vector<Prediction> predictions;
  for (size_t i = 0; i < found.size(); ++i) {
    Shape shape{examples};
    shape.insert(shape.end(), rowShapes[i].begin(), rowShapes[i].end());
    Tensor values(dtypes[i], shape);
    std::memcpy(values.rawData(), rows[i].data(), rows[i].size());
    predictions.push_back({found[i].key, std::move(values)});
  }
  return predictions;
}

void writePredictions(const std::vector<Prediction> &predictions,
                      const std::string &path) {
  if (predictions.size() == 1) {
    writeNpy(predictions.front().values, path);
    return;
  }
  if (std::error_code error = llvm::sys::fs::create_directories(path))
    throw std::runtime_error("cannot create the directory " + path +
                             " for the predictions: " + error.message());
  for (const Prediction &prediction : predictions) {
    std::string name = prediction.key;
    std::replace(name.begin(), name.end(), '/', '_');
    writeNpy(prediction.values, path + "/" + name + ".npy");
  }
}

} // namespace dtf::train
