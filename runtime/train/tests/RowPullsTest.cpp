//===- RowPullsTest.cpp - dtf.pull_rows on a worker's CPU step ------------===//
//
// A worker's lookup of a table held by a PS task (here in process): every
// position of the ids gets its row, padding a zero row, and the task is
// asked for each distinct id once.
//
//===----------------------------------------------------------------------===//

#include "runtime/train/RowPulls.h"

#include "runtime/core/tests/TestUtil.h"
#include "runtime/ps/InProcessPsConnection.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

namespace dtf::train {
namespace {

/// A task holding "table" [5, 2], row r = (r, 10 r), and no update.
class TableProgram final : public ps::UpdateProgram {
public:
  TableProgram() {
    signature_.taskName = "/job:ps/task:0";
    signature_.variables = {{"table", {DType::F32, {5, 2}}}};
  }
  const ps::ProgramSignature &signature() const override { return signature_; }
  void initialize(VariableStore &values) override {
    std::vector<float> rows;
    for (int r = 0; r < 5; ++r) {
      rows.push_back(static_cast<float>(r));
      rows.push_back(static_cast<float>(10 * r));
    }
    values.try_emplace("table", Tensor::fromVector<float>({5, 2}, rows));
  }
  void apply(VariableStore &, std::vector<Tensor>,
             const ps::UpdateContext &) override {}

private:
  ps::ProgramSignature signature_;
};

constexpr const char *kWorker = R"mlir(
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222"], worker = ["localhost:2223"]>} {
  func.func @worker() -> tensor<2x3x2xf32> {
    %ids = dtf.placeholder "ids" : tensor<2x3xi64>
    %rows = dtf.pull_rows "table" from "/job:ps/task:0" [%ids] : tensor<2x3xi64> -> tensor<2x3x2xf32>
    return %rows : tensor<2x3x2xf32>
  }
  func.func @two_tables() -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>) {
    %ids = dtf.placeholder "ids" : tensor<2x3xi64>
    %rows = dtf.pull_rows "table" from "/job:ps/task:0" [%ids] {table_rows = 5} : tensor<2x3xi64> -> tensor<2x3x2xf32>
    %again = dtf.pull_rows "table" from "/job:ps/task:0" [%ids] {table_rows = 5} : tensor<2x3xi64> -> tensor<2x3x2xf32>
    %constant = dtf.constant dense<[[0, 2, 4], [0, -1, 2]]> : tensor<2x3xi64>
    %computed = dtf.pull_rows "table" from "/job:ps/task:0" [%constant] {table_rows = 5} : tensor<2x3xi64> -> tensor<2x3x2xf32>
    return %rows, %again, %computed : tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>
  }
  func.func @checked() -> tensor<2x3x2xf32> {
    %ids = dtf.placeholder "ids" : tensor<2x3xi64>
    %rows = dtf.pull_rows "table" from "/job:ps/task:0" [%ids] {table_rows = 5} : tensor<2x3xi64> -> tensor<2x3x2xf32>
    return %rows : tensor<2x3x2xf32>
  }
}
)mlir";

class RowPullsTest : public ::testing::Test {
protected:
  RowPullsTest()
      : task(std::make_unique<TableProgram>(), ps::Replication::async()),
        connection(task, "/job:ps/task:0") {
    mlir::DialectRegistry registry;
    ir::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = mlir::parseSourceString<mlir::ModuleOp>(kWorker, &context);
    task.initialize();
  }

  std::vector<Tensor> run(std::vector<int64_t> ids,
                          const char *function = "worker") {
    exec::ExecutorOptions options;
    options.runInCallerThread = true;
    options.externalOps["dtf.pull_rows"] = makePullRowsHandler({&connection});
    exec::VariableStore variables;
    exec::Executor executor(module->lookupSymbol<mlir::func::FuncOp>(function),
                            variables, options);
    FeedMap feeds;
    feeds.emplace("ids", Tensor::fromVector<int64_t>({2, 3}, ids));
    return executor.run(feeds);
  }

  ps::ParameterServer task;
  ps::InProcessPsConnection connection;
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

TEST_F(RowPullsTest, EveryPositionGetsItsRowAndEachDistinctIdIsAskedOnce) {
  ASSERT_TRUE(module);
  std::vector<Tensor> results = run({4, -1, 1, 4, 4, -1});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(results[0].toVector<float>(),
            (std::vector<float>{4, 40, 0, 0, 1, 10, 4, 40, 4, 40, 0, 0}));
  // Rows 4 and 1 only: two rows of two floats came back.
  ps::TransferStats stats = connection.transferStats();
  EXPECT_EQ(stats.pulls, 1u);
  EXPECT_EQ(stats.pulledBytes, 2u * 2u * sizeof(float));
}

TEST_F(RowPullsTest, OnlyPaddingAsksForNoRow) {
  ASSERT_TRUE(module);
  std::vector<Tensor> results = run({-1, -1, -1, -1, -1, -1});
  EXPECT_EQ(results[0].toVector<float>(), std::vector<float>(12, 0.0f));
  EXPECT_EQ(connection.transferStats().pulls, 0u);
}

TEST_F(RowPullsTest, AnIdOutsideTheTableNamesTheTableAndTheId) {
  ASSERT_TRUE(module);
  Error error = dtf::testing::expectError([&] { run({0, 1, 7, 2, 3, 4}); });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument) << error.what();
  EXPECT_NE(std::string(error.what()).find("rows of 'table'"),
            std::string::npos)
      << error.what();
  EXPECT_NE(std::string(error.what()).find("id 7"), std::string::npos)
      << error.what();
}

// With the table's rows known, the worker refuses the id itself, naming
// the placeholder and the id's place in the batch, and asks nothing.
TEST_F(RowPullsTest, AnIdOutsideAKnownTableNamesThePlaceholderAndThePosition) {
  ASSERT_TRUE(module);
  for (auto [id, why] : {std::pair<int64_t, const char *>{
                             7, "placeholder 'ids': id 7 at [1,0] of the batch "
                                "is outside the 5 rows of 'table'"},
                         {-3, "id -3 at [1,0] of the batch is negative, but "
                              "ids index the rows of 'table' (the padding id "
                              "is -1)"}}) {
    Error error = dtf::testing::expectError([&] {
      run({0, 1, 4, id, 3, -1}, "checked");
    });
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument) << error.what();
    EXPECT_NE(std::string(error.what()).find(why), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(connection.transferStats().pulls, 0u);
  EXPECT_EQ(run({0, 1, 4, 2, 3, -1}, "checked")[0].toVector<float>()[4], 4.0f);
}

// The pulls whose ids are fed go to their task in one request when the
// step begins; a pull of other ids asks when it runs.
TEST_F(RowPullsTest, FedPullsOfATaskAreOneRequestAtTheStepsStart) {
  ASSERT_TRUE(module);
  std::vector<Tensor> results = run({4, -1, 1, 3, 4, -1}, "two_tables");
  ASSERT_EQ(results.size(), 3u);
  std::vector<float> expected = {4, 40, 0, 0, 1, 10, 3, 30, 4, 40, 0, 0};
  EXPECT_EQ(results[0].toVector<float>(), expected);
  EXPECT_EQ(results[1].toVector<float>(), expected);
  EXPECT_EQ(results[2].toVector<float>(),
            (std::vector<float>{0, 0, 2, 20, 4, 40, 0, 0, 0, 0, 2, 20}));
  // One request for both fed pulls (rows 4, 1, 3 twice), one for the
  // pull of constant ids (rows 0, 2, 4).
  ps::TransferStats stats = connection.transferStats();
  EXPECT_EQ(stats.pulls, 2u);
  EXPECT_EQ(stats.pulledBytes, (3u + 3u + 3u) * 2u * sizeof(float));
}

// A pull without table_rows (a dynamic table's) takes any non-negative id,
// but a negative one other than the padding is still the input's fault.
TEST_F(RowPullsTest, ANegativeIdIsRefusedWhateverTheTable) {
  ASSERT_TRUE(module);
  Error error = dtf::testing::expectError([&] { run({0, 1, 4, -7, 3, -1}); });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument) << error.what();
  EXPECT_NE(std::string(error.what())
                .find("placeholder 'ids': id -7 at [1,0] of the batch is "
                      "negative"),
            std::string::npos)
      << error.what();
  EXPECT_EQ(connection.transferStats().pulls, 0u);
}

} // namespace
} // namespace dtf::train
