//===- InputsTest.cpp - Which examples each worker trains on --------------===//
//
// The workers of between-graph replication must together read every example
// once per pass: a worker that read another's shard (or all of it) trains
// the model on duplicated data and never on the rest, which no accuracy bar
// of one run reliably sees.
//
//===----------------------------------------------------------------------===//

#include "runtime/train/Inputs.h"

#include "passes/InitAll.h"
#include "runtime/data/Records.h"
#include "runtime/data/tests/TestFiles.h"

#include "example.pb.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace dtf::train {
namespace {

/// The labels worker `index` of `count` reads in one pass over `examples`
/// examples labelled 0, 1, ..., in its reading order.
std::vector<int64_t> labelsOfOnePass(const DataShard &reader,
                                     int64_t examples) {
  std::vector<int64_t> labels(examples);
  for (int64_t i = 0; i < examples; ++i)
    labels[i] = i;
  std::vector<std::pair<std::string, Tensor>> columns;
  columns.emplace_back("label",
                       Tensor::fromVector<int64_t>({examples}, labels));
  data::TensorSlices input(std::move(columns), reader.shard,
                           reader.shuffleSeed);
  FeedMap feeds;
  input.nextBatch(input.size(), feeds);
  return feeds.at("label").toVector<int64_t>();
}

TEST(DataShardTest, EachWorkerReadsEveryCountthExampleFromItsIndex) {
  for (int index = 0; index < 3; ++index) {
    DataShard reader = betweenGraphDataShard(index, 3);
    EXPECT_EQ(reader.shard.index, index);
    EXPECT_EQ(reader.shard.count, 3);
    std::vector<int64_t> labels = labelsOfOnePass(reader, 11);
    std::set<int64_t> expected;
    for (int64_t label = index; label < 11; label += 3)
      expected.insert(label);
    EXPECT_EQ(std::set<int64_t>(labels.begin(), labels.end()), expected)
        << "worker " << index;
    EXPECT_EQ(labels.size(), expected.size()) << "worker " << index;
  }
}

TEST(DataShardTest, TheWorkersTogetherReadEachExampleOncePerPass) {
  for (int count : {1, 2, 3, 5}) {
    std::map<int64_t, int> reads;
    std::set<uint64_t> seeds;
    for (int index = 0; index < count; ++index) {
      DataShard reader = betweenGraphDataShard(index, count);
      seeds.insert(reader.shuffleSeed);
      for (int64_t label : labelsOfOnePass(reader, 23))
        ++reads[label];
    }
    EXPECT_EQ(reads.size(), 23u) << count << " workers";
    for (auto [label, times] : reads)
      EXPECT_EQ(times, 1) << "example " << label << ", " << count << " workers";
    EXPECT_EQ(seeds.size(), static_cast<size_t>(count))
        << "two workers shuffle alike";
  }
}

TEST(DataShardTest, InGraphReadsAllOfItAsOneBetweenGraphWorker) {
  DataShard master = inGraphDataShard();
  DataShard single = betweenGraphDataShard(0, 1);
  EXPECT_EQ(master.shard.index, 0);
  EXPECT_EQ(master.shard.count, 1);
  EXPECT_EQ(labelsOfOnePass(master, 17), labelsOfOnePass(single, 17));
}

TEST(DataShardTest, RejectsAWorkerOutsideTheCluster) {
  EXPECT_THROW(betweenGraphDataShard(2, 2), std::invalid_argument);
  EXPECT_THROW(betweenGraphDataShard(-1, 2), std::invalid_argument);
  EXPECT_THROW(betweenGraphDataShard(0, 0), std::invalid_argument);
}

/// `text` parsed with every dtf dialect registered in `context`.
mlir::OwningOpRef<mlir::ModuleOp> parseModule(const char *text,
                                              mlir::MLIRContext &context) {
  mlir::DialectRegistry registry;
  ir::registerAllDialects(registry);
  context.appendDialectRegistry(registry);
  return mlir::parseSourceString<mlir::ModuleOp>(text, &context);
}

// "ids" feeds a table of 10 rows, a dynamic one and shard 1 of a table of
// 7 rows; "hashed" a dynamic table only; "computed" is not a placeholder.
constexpr const char *kLookups = R"mlir(
module attributes {dtf.cluster = #dtf.cluster<ps = ["localhost:2222", "localhost:2224"], worker = ["localhost:2223"]>} {
  func.func @worker() -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>) {
    %ids = dtf.placeholder "ids" : tensor<2x3xi64>
    %a = dtf.pull_rows "wide" from "/job:ps/task:0" [%ids] {table_rows = 10} : tensor<2x3xi64> -> tensor<2x3x2xf32>
    %b = dtf.pull_rows "crossed" from "/job:ps/task:0" [%ids] : tensor<2x3xi64> -> tensor<2x3x2xf32>
    %c = dtf.pull_rows "deep/part_1" from "/job:ps/task:1" [%ids] {shard = #dtf.row_shard<strategy = div, shard = 1, num_shards = 2, rows = 7>, table_rows = 7} : tensor<2x3xi64> -> tensor<2x3x2xf32>
    %hashed = dtf.placeholder "hashed" : tensor<2x3xi64>
    %d = dtf.pull_rows "crossed" from "/job:ps/task:0" [%hashed] : tensor<2x3xi64> -> tensor<2x3x2xf32>
    %computed = dtf.constant dense<1> : tensor<2x3xi64>
    %e = dtf.pull_rows "wide" from "/job:ps/task:0" [%computed] {table_rows = 10} : tensor<2x3xi64> -> tensor<2x3x2xf32>
    return %a, %b, %c, %d, %e : tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>
  }
}
)mlir";

TEST(LookedUpPlaceholdersTest, EachPlaceholderGetsItsSmallestTable) {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module = parseModule(kLookups, context);
  ASSERT_TRUE(module);
  std::map<std::string, data::IdTable> tables = lookedUpPlaceholders(*module);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables.at("ids").name, "deep");
  EXPECT_EQ(tables.at("ids").rows, std::optional<int64_t>(7));
  EXPECT_EQ(tables.at("hashed").name, "crossed");
  EXPECT_EQ(tables.at("hashed").rows, std::nullopt);
}

// One placeholder "x" of f32 [2] per example.
constexpr const char *kOnePlaceholder = R"mlir(
module {
  func.func @worker() -> tensor<4x2xf32> {
    %x = dtf.placeholder "x" : tensor<4x2xf32>
    return %x : tensor<4x2xf32>
  }
}
)mlir";

/// A TFRecord file of 8 Examples with a feature "x" of 2 floats.
std::string writeXs(const std::string &directory, const std::string &name) {
  std::string path = directory + "/" + name;
  data::RecordWriter writer(path);
  for (int i = 0; i < 8; ++i) {
    tensorflow::Example example;
    auto &values = *(*example.mutable_features()->mutable_feature())["x"]
                        .mutable_float_list();
    values.add_value(float(i));
    values.add_value(float(2 * i));
    writer.write(example.SerializeAsString());
  }
  return path;
}

TEST(InputModeTest, AutoStreamsOneSetOfTFRecordFilesAboveTheThreshold) {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      parseModule(kOnePlaceholder, context);
  ASSERT_TRUE(module);
  std::string directory = data::testing::tempDir();
  std::string a = writeXs(directory, "a.tfrecord");
  std::string b = writeXs(directory, "b.tfrecord");
  auto options = [&](InputMode mode, uint64_t above,
                     std::vector<std::string> paths) {
    InputOptions input;
    input.mode = mode;
    input.streamAboveBytes = above;
    for (const std::string &path : paths)
      input.train.push_back(
          data::parseInputSpec("x=tfrecord:" + path, "--input"));
    return input;
  };
  DataShard reader = betweenGraphDataShard(0, 1);
  // Above the threshold: streamed, both files' units (':' lists patterns).
  WorkerInputs streamed =
      openInputs(*module, options(InputMode::Auto, 0, {a + ":" + b}), reader);
  ASSERT_TRUE(streamed.streamed);
  EXPECT_EQ(streamed.streamed->units.size(), 2u);
  EXPECT_EQ(streamed.train->size(), -1);
  // Below it, or asked for memory: every example in memory.
  WorkerInputs small = openInputs(
      *module, options(InputMode::Auto, 1 << 20, {a + ":" + b}), reader);
  EXPECT_FALSE(small.streamed);
  EXPECT_EQ(small.train->size(), 16);
  EXPECT_FALSE(
      openInputs(*module, options(InputMode::Memory, 0, {a}), reader).streamed);
  EXPECT_TRUE(
      openInputs(*module, options(InputMode::Stream, 1 << 20, {a}), reader)
          .streamed);
  std::remove(a.c_str());
  std::remove(b.c_str());
  ::rmdir(directory.c_str());
}

} // namespace
} // namespace dtf::train
