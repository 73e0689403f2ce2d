//===- InferenceTest.cpp - A trained model for serving and prediction -----===//

#include "runtime/train/Inference.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/InitAll.h"
#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/data/InputSpec.h"

#include "mlir/IR/MLIRContext.h"

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

} // namespace
} // namespace dtf::train
