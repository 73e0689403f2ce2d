//===- InferenceTest.cpp - A trained model for serving and prediction -----===//

#include "runtime/train/Inference.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/InitAll.h"
#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/data/InputSpec.h"
#include "translate/graphdef/DynamicTableServing.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace dtf::train {
namespace {

/// A dense layer behind dropout, with a dynamic batch; its logits feed the
/// loss of the labels `y`.
constexpr const char *kModel = R"mlir(
module {
  func.func @main() -> (tensor<f32>, tensor<?x2xf32>) {
    %w = dtf.variable "dense/kernel" init(#dtf.truncated_normal<stddev = 0.1, seed = 1>) : !dtf.resource<tensor<3x2xf32>>
    %b = dtf.variable "dense/bias" init(#dtf.zeros) : !dtf.resource<tensor<2xf32>>
    %x = dtf.placeholder "x" : tensor<?x3xf32>
    %y = dtf.placeholder "y" : tensor<?xi64>
    %phase = dtf.learning_phase : tensor<i1>
    %wv = dtf.read %w : !dtf.resource<tensor<3x2xf32>>
    %bv = dtf.read %b : !dtf.resource<tensor<2xf32>>
    %mm = dtf.matmul %x, %wv : tensor<?x3xf32>, tensor<3x2xf32>
    %h = dtf.bias_add %mm, %bv : tensor<?x2xf32>, tensor<2xf32>
    %mask = dtf.random_uniform seed 1 : tensor<?x2xf32>
    %dropped = dtf.mul %h, %mask : tensor<?x2xf32>, tensor<?x2xf32>
    %logits = dtf.select %phase, %dropped, %h : tensor<i1>, tensor<?x2xf32>, tensor<?x2xf32>
    %loss = dtf.sparse_softmax_cross_entropy_with_logits %logits, %y : tensor<?x2xf32>, tensor<?xi64>
    %l = dtf.reduce_mean %loss : tensor<?xf32>
    %sm = dtf.softmax %logits : tensor<?x2xf32>
    dtf.minimize %l : tensor<f32>, #dtf.sgd<learning_rate = 0.1>
    return %l, %sm : tensor<f32>, tensor<?x2xf32>
  }
}
)mlir";

class InferenceTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlir::DialectRegistry registry;
    ir::registerAllDialects(registry);
    ir::registerAllPasses();
    context.appendDialectRegistry(registry);
    char pattern[] = "/tmp/dtfinference.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    directory = pattern;
    modelPath = directory + "/model.mlir";
    std::ofstream(modelPath) << kModel;
  }
  void TearDown() override {
    std::string command = "rm -rf '" + directory + "'";
    EXPECT_EQ(std::system(command.c_str()), 0);
  }

  /// Saves `checkpoint` as the training's step 7.
  void save(const checkpoint::Checkpoint &checkpoint) {
    checkpoint::writeCheckpointFile(directory + "/model.ckpt-7.dtf",
                                    checkpoint);
  }
  checkpoint::Checkpoint trained() {
    checkpoint::Checkpoint checkpoint;
    checkpoint.step = 7;
    checkpoint.tensors.emplace(
        "dense/kernel",
        Tensor::fromVector<float>({3, 2}, {1, -1, 0.5, 2, 0, 1}));
    checkpoint.tensors.emplace("dense/bias",
                               Tensor::fromVector<float>({2}, {0.25, -0.5}));
    return checkpoint;
  }
  /// Writes `values` as the .npy file `name` of the test's directory; its
  /// path.
  std::string writeNpy(const std::string &name, Tensor values) {
    std::vector<Prediction> arrays;
    arrays.push_back({name, std::move(values)});
    std::string path = directory + "/" + name;
    writePredictions(arrays, path);
    return path;
  }
  TrainedModel load() {
    return loadTrainedModel(context, modelPath, directory,
                            [](const std::string &) {});
  }

  mlir::MLIRContext context;
  std::string directory;
  std::string modelPath;
};

TEST_F(InferenceTest, TheVariablesTakeTheNewestCheckpointsValues) {
  save(trained());
  TrainedModel model = load();
  EXPECT_EQ(model.globalStep, 7);
  EXPECT_EQ(model.checkpoint, directory + "/model.ckpt-7.dtf");
  int variables = 0;
  model.module->walk([&](ir::VariableOp variable) {
    auto init = mlir::dyn_cast<ir::DenseInitAttr>(variable.getInitializer());
    ASSERT_TRUE(init) << variable.getName().str();
    if (variable.getName() == "dense/bias") {
      EXPECT_EQ(init.getValue().getValues<float>()[1], -0.5f);
    }
    ++variables;
  });
  EXPECT_EQ(variables, 2);
  EXPECT_EQ(model.variables.at("dense/kernel").toVector<float>()[3], 2.0f);
}

TEST_F(InferenceTest, PredictsTheLogitsOfEveryExampleInPaddedBatches) {
  save(trained());
  TrainedModel model = load();
  // 5 examples in batches of 2: the last one padded, its padding dropped.
  std::vector<float> x = {1, 2, 3, -1, 0, 1, 0, 0, 0, 2, 2, 2, 1, 0, 0};
  std::string inputs = writeNpy("x.npy", Tensor::fromVector<float>({5, 3}, x));
  std::vector<Prediction> predictions =
      predict(model, {"logits", "result:1"},
              {data::parseInputSpec("x=npy:" + inputs, "test")}, 2);
  ASSERT_EQ(predictions.size(), 2u);
  EXPECT_EQ(predictions[0].key, "logits");
  EXPECT_EQ(predictions[1].key, "result_1");
  const Tensor &logits = predictions[0].values;
  ASSERT_EQ(logits.shape(), (Shape{5, 2}));
  const float w[] = {1, -1, 0.5, 2, 0, 1}, b[] = {0.25, -0.5};
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 2; ++j) {
      float expected = b[j];
      for (int k = 0; k < 3; ++k)
        expected += x[3 * i + k] * w[2 * k + j];
      // The learning phase is false: no dropout.
      EXPECT_FLOAT_EQ(logits.data<float>()[2 * i + j], expected)
          << i << "," << j;
    }
  const float *softmax = predictions[1].values.data<float>();
  EXPECT_NEAR(softmax[0] + softmax[1], 1.0f, 1e-6f);
}

TEST_F(InferenceTest, AnOutputOfTheBatchOrAnUnboundLabelIsAnError) {
  save(trained());
  TrainedModel model = load();
  std::string inputs = writeNpy("x.npy", Tensor::zeros(DType::F32, {4, 3}));
  std::vector<data::InputSpec> bindings = {
      data::parseInputSpec("x=npy:" + inputs, "test")};
  try {
    predict(model, {"result:0"}, bindings, 2);
    FAIL() << "the loss needs the labels";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("placeholder 'y'"),
              std::string::npos)
        << error.what();
  }
  std::string labels = writeNpy("y.npy", Tensor::zeros(DType::I64, {4}));
  bindings.push_back(data::parseInputSpec("y=npy:" + labels, "test"));
  try {
    predict(model, {"result:0"}, bindings, 2);
    FAIL() << "the loss is one number per batch";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("not a row per example"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(InferenceTest, ACheckpointThatDoesNotFitTheModelIsAnError) {
  checkpoint::Checkpoint missing = trained();
  missing.tensors.erase("dense/bias");
  save(missing);
  try {
    load();
    FAIL() << "dense/bias is not in the checkpoint";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("has no tensor 'dense/bias'"),
              std::string::npos)
        << error.what();
  }
  checkpoint::Checkpoint reshaped = trained();
  reshaped.tensors.at("dense/bias") = Tensor::zeros(DType::F32, {3});
  save(reshaped);
  try {
    load();
    FAIL() << "dense/bias has another shape";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("holds 'dense/bias' as f32[3]"),
              std::string::npos)
        << error.what();
  }
  ::unlink((directory + "/model.ckpt-7.dtf").c_str());
  EXPECT_THROW(load(), std::invalid_argument);
}

/// The wide part of a CTR model: a dynamic table split by id modulo over 2
/// shards, summed over each example's 2 ids (-1 pads).
constexpr const char *kDynamicModel = R"mlir(
module {
  func.func @main() -> tensor<?x1xf32> {
    %t = dtf.variable "wide" init(#dtf.constant<0.5>) {dtf.dynamic_table = #dtf.dynamic_table<min_count = 1>, dtf.partitioner = #dtf.partitioner<shards = 2, strategy = mod>} : !dtf.resource<tensor<?x1xf32>>
    %ids = dtf.placeholder "ids" : tensor<?x2xi64>
    %rows = dtf.embedding_lookup %t[%ids] : !dtf.resource<tensor<?x1xf32>>, tensor<?x2xi64>
    %sum = dtf.embedding_combine sum %rows, %ids : tensor<?x2x1xf32>, tensor<?x2xi64>
    return %sum : tensor<?x1xf32>
  }
}
)mlir";

/// The rows of `wide` for the ids 10 and 0 (shard 0, local ids 5 and 0)
/// and 5 (shard 1, local id 2).
checkpoint::Checkpoint trainedDynamicTable() {
  checkpoint::Checkpoint checkpoint;
  checkpoint.step = 7;
  checkpoint.tensors.emplace("wide/part_0",
                             Tensor::fromVector<float>({2, 1}, {2, 1}));
  checkpoint.tensors.emplace("wide/part_0/ids",
                             Tensor::fromVector<int64_t>({2}, {5, 0}));
  checkpoint.tensors.emplace("wide/part_1",
                             Tensor::fromVector<float>({1, 1}, {3}));
  checkpoint.tensors.emplace("wide/part_1/ids",
                             Tensor::fromVector<int64_t>({1}, {2}));
  return checkpoint;
}

TEST_F(InferenceTest, ADynamicTableServesItsRowsAndTheDefaultRow) {
  std::ofstream(modelPath) << kDynamicModel;
  save(trainedDynamicTable());
  TrainedModel model = load();
  // A fixed table of the rows of ids 0, 5 and 10, then the initializer's
  // value for the ids the table never created.
  EXPECT_EQ(model.variables.at("wide").toVector<float>(),
            (std::vector<float>{1, 3, 2, 0.5}));
  model.module->walk([&](ir::VariableOp table) {
    EXPECT_FALSE(table.isDynamicTable());
    EXPECT_EQ(table.getValueType().getDimSize(0), 4);
  });
  std::string ids = writeNpy(
      "ids.npy", Tensor::fromVector<int64_t>({3, 2}, {10, -1, 5, 7, 0, 10}));
  std::vector<Prediction> predictions = predict(
      model, {"result:0"}, {data::parseInputSpec("ids=npy:" + ids, "test")}, 2);
  ASSERT_EQ(predictions.size(), 1u);
  // 7 was never created: it reads 0.5.
  EXPECT_EQ(predictions[0].values.toVector<float>(),
            (std::vector<float>{2, 3.5, 3}));
}

TEST_F(InferenceTest, ADynamicTableWithoutItsIdsIsAnError) {
  std::ofstream(modelPath) << kDynamicModel;
  checkpoint::Checkpoint missing = trainedDynamicTable();
  missing.tensors.erase("wide/part_1/ids");
  save(missing);
  try {
    load();
    FAIL() << "wide/part_1/ids is not in the checkpoint";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what())
                  .find("model.ckpt-7.dtf has no tensor 'wide/part_1/ids'"),
              std::string::npos)
        << error.what();
  }
  checkpoint::Checkpoint miscounted = trainedDynamicTable();
  miscounted.tensors.at("wide/part_0/ids") =
      Tensor::fromVector<int64_t>({3}, {5, 0, 1});
  save(miscounted);
  try {
    load();
    FAIL() << "wide/part_0 has 2 rows and 3 ids";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what())
                  .find("holds 2 rows in 'wide/part_0' but 'wide/part_0/ids' "
                        "is i64[3]"),
              std::string::npos)
        << error.what();
  }
}

/// freezeDynamicTables on `source` with the rows `rows` of its table
/// "wide"; the module, or null with the error in `error`.
mlir::OwningOpRef<mlir::ModuleOp>
freeze(mlir::MLIRContext &context, const char *source,
       const translate::DynamicTableRows &rows, std::string &error) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  EXPECT_TRUE(module);
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    error = d.str();
    return mlir::success();
  });
  if (mlir::failed(translate::freezeDynamicTables(*module, {{"wide", rows}})))
    return nullptr;
  return module;
}

TEST_F(InferenceTest, AFrozenTableLooksUpI32IdsAndDefaultsToTheMeanDraw) {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string error;
  translate::DynamicTableRows rows;
  rows.ids = {9, 4};
  rows.rows = mlir::DenseElementsAttr::get(
      mlir::RankedTensorType::get({2, 2}, mlir::Float32Type::get(&context)),
      llvm::ArrayRef<float>{9, 9.5, 4, 4.5});
  module = freeze(context, R"mlir(
    func.func @main(%ids: tensor<3xi32>) -> tensor<3x2xf32> {
      %t = dtf.variable "wide" init(#dtf.random_uniform<minval = -1.0, maxval = 2.0, seed = 1>) {dtf.dynamic_table = #dtf.dynamic_table} : !dtf.resource<tensor<?x2xf32>>
      %m = dtf.variable "wide/Adam" init(#dtf.zeros) colocate_with("wide") : !dtf.resource<tensor<?x2xf32>>
      %rows = dtf.embedding_lookup %t[%ids] : !dtf.resource<tensor<?x2xf32>>, tensor<3xi32>
      return %rows : tensor<3x2xf32>
    }
  )mlir",
                  rows, error);
  ASSERT_TRUE(module) << error;
  int variables = 0;
  module->walk([&](ir::VariableOp table) {
    ++variables;
    auto init = mlir::cast<ir::DenseInitAttr>(table.getInitializer());
    // Ids 4 and 9, then (minval + maxval) / 2; the unused slot is gone.
    EXPECT_EQ(llvm::to_vector(init.getValue().getValues<float>()),
              (llvm::SmallVector<float>{4, 4.5, 9, 9.5, 0.5, 0.5}));
  });
  EXPECT_EQ(variables, 1);
  int lookups = 0;
  module->walk([&](ir::RowsOfIdsOp rowsOfIds) {
    ++lookups;
    EXPECT_TRUE(rowsOfIds.getIds().getDefiningOp<ir::CastOp>());
  });
  EXPECT_EQ(lookups, 1);
}

TEST_F(InferenceTest, ATableWithoutADefaultRowOrGivenAnIdTwiceIsAnError) {
  std::string error;
  translate::DynamicTableRows rows;
  rows.ids = {3};
  rows.rows = mlir::DenseElementsAttr::get(
      mlir::RankedTensorType::get({1, 2}, mlir::Float32Type::get(&context)),
      0.0f);
  EXPECT_FALSE(freeze(context, R"mlir(
    func.func @main(%ids: tensor<3xi64>) -> tensor<3x2xf32> {
      %t = dtf.variable "wide" init(#dtf.orthogonal<seed = 1>) {dtf.dynamic_table = #dtf.dynamic_table} : !dtf.resource<tensor<?x2xf32>>
      %rows = dtf.embedding_lookup %t[%ids] : !dtf.resource<tensor<?x2xf32>>, tensor<3xi64>
      return %rows : tensor<3x2xf32>
    }
  )mlir",
                      rows, error));
  EXPECT_NE(error.find("dynamic table 'wide' has the initializer "
                       "#dtf.orthogonal<"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("which gives no default row for the ids it never "
                       "created"),
            std::string::npos)
      << error;
  rows.ids = {3, 3};
  rows.rows = mlir::DenseElementsAttr::get(
      mlir::RankedTensorType::get({2, 2}, mlir::Float32Type::get(&context)),
      0.0f);
  EXPECT_FALSE(freeze(context, R"mlir(
    func.func @main(%ids: tensor<3xi64>) -> tensor<3x2xf32> {
      %t = dtf.variable "wide" init(#dtf.zeros) {dtf.dynamic_table = #dtf.dynamic_table} : !dtf.resource<tensor<?x2xf32>>
      %rows = dtf.embedding_lookup %t[%ids] : !dtf.resource<tensor<?x2xf32>>, tensor<3xi64>
      return %rows : tensor<3x2xf32>
    }
  )mlir",
                      rows, error));
  EXPECT_NE(error.find("dynamic table 'wide' is given the id 3 twice"),
            std::string::npos)
      << error;
}

} // namespace
} // namespace dtf::train
