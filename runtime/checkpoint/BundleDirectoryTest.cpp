//===- BundleDirectoryTest.cpp - A --logdir of bundles: save, restore -----===//
//
// What dtf-run's chief and PS tasks do with --checkpoint_format=tf: sharded
// saves merged into one bundle with the `checkpoint` file, rotation, the
// fall-back past a truncated or corrupt index or data file, what a killed
// save leaves, and a directory holding both formats.
//
//===----------------------------------------------------------------------===//

#include "runtime/checkpoint/BundleDirectory.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

namespace dtf::checkpoint {
namespace {

namespace fs = std::filesystem;

class BundleDirectoryTest : public ::testing::Test {
protected:
  void SetUp() override {
    directory =
        (fs::temp_directory_path() /
         ("dtfbundledir." + std::to_string(::getpid()) + "." +
          ::testing::UnitTest::GetInstance()->current_test_info()->name()))
            .string();
    fs::remove_all(directory);
    fs::create_directories(directory);
  }
  void TearDown() override { fs::remove_all(directory); }

  /// Two PS tasks' shards at `step`: task 0 holds `w` and rows 0-1 of the
  /// partitioned `p` [3, 2], task 1 `global_step` and row 2 of `p`; every
  /// value is `step` plus its position.
  std::vector<BundleShard> twoShards(int64_t step) const {
    auto value = [&](Shape shape, float first) {
      Tensor tensor(DType::F32, shape);
      for (int64_t i = 0; i < tensor.numElements(); ++i)
        tensor.data<float>()[i] = static_cast<float>(step) + first + i;
      return tensor;
    };
    std::vector<BundleShard> shards(2);
    shards[0].tensors.emplace("w", value({4}, 0));
    shards[0].slices.push_back(
        {"p",
         {3, 2},
         TensorSlice::fromStartsAndLengths({{0, 2}, {0, 2}}),
         value({2, 2}, 10)});
    shards[1].tensors.emplace("global_step", Tensor::scalar<int64_t>(step));
    shards[1].slices.push_back(
        {"p",
         {3, 2},
         TensorSlice::fromStartsAndLengths({{2, 1}, {0, 2}}),
         value({1, 2}, 14)});
    return shards;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> result;
    for (const auto &entry : fs::directory_iterator(directory))
      result.push_back(entry.path().filename().string());
    std::sort(result.begin(), result.end());
    return result;
  }

  /// Cuts `path` to half its size.
  static void truncateToHalf(const std::string &path) {
    fs::resize_file(path, fs::file_size(path) / 2);
  }
  /// Flips the bits of the byte at `offset` of `path`.
  static void flipByte(const std::string &path, std::streamoff offset) {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(offset);
    char byte = 0;
    file.get(byte);
    file.seekp(offset);
    file.put(static_cast<char>(~byte));
  }

  std::string directory;
};

TEST_F(BundleDirectoryTest, ASaveIsOneBundleWithADataFilePerTaskAndTheState) {
  BundleDirectory bundles(directory);
  std::string prefix = bundles.save(100, twoShards(100), 5);
  EXPECT_EQ(prefix, directory + "/model.ckpt-100");
  EXPECT_EQ(names(),
            (std::vector<std::string>{
                "checkpoint", "model.ckpt-100.data-00000-of-00002",
                "model.ckpt-100.data-00001-of-00002", "model.ckpt-100.index"}));
  std::optional<CheckpointState> state = readCheckpointState(directory);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->modelCheckpointPath, "model.ckpt-100");
  EXPECT_EQ(state->allModelCheckpointPaths,
            std::vector<std::string>{"model.ckpt-100"});

  BundleReader reader(prefix);
  EXPECT_EQ(reader.tensors().at("p").slices.size(), 2u);
  EXPECT_EQ(reader.read("p").toVector<float>(),
            (std::vector<float>{110, 111, 112, 113, 114, 115}));
  ASSERT_EQ(bundles.list().size(), 1u);
  EXPECT_EQ(bundles.list()[0].step, 100);
}

// As dtf-run saves: each PS task writes its shard where the pending save
// is, before the step is known; the chief commits them under the step.
TEST_F(BundleDirectoryTest, ShardsWrittenByTheirTasksAreCommittedUnderTheStep) {
  BundleDirectory bundles(directory);
  std::vector<BundleShard> shards = twoShards(300);
  EXPECT_EQ(bundles.pendingShardPrefix(17, 1, 2),
            directory + "/model.ckpt-pending-17_temp/part-00001-of-00002");
  writeBundleShard(bundles.pendingShardPrefix(17, 0, 2), shards[0]);
  // A task still writing for an abandoned save writes apart.
  writeBundleShard(bundles.pendingShardPrefix(16, 1, 2), twoShards(200)[1]);
  try {
    bundles.commit(300, 17, 2, 5);
    FAIL() << "committed without shard 1";
  } catch (const CheckpointError &error) {
    EXPECT_NE(std::string(error.what()).find("part-00001-of-00002"),
              std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(bundles.list().empty());
  writeBundleShard(bundles.pendingShardPrefix(17, 1, 2), shards[1]);
  EXPECT_EQ(bundles.commit(300, 17, 2, 5), directory + "/model.ckpt-300");
  bundles.removeLeftovers();
  EXPECT_EQ(names(),
            (std::vector<std::string>{
                "checkpoint", "model.ckpt-300.data-00000-of-00002",
                "model.ckpt-300.data-00001-of-00002", "model.ckpt-300.index"}));
  EXPECT_EQ(
      BundleReader(directory + "/model.ckpt-300").read("p").toVector<float>(),
      (std::vector<float>{310, 311, 312, 313, 314, 315}));
}

TEST_F(BundleDirectoryTest, RotationKeepsTheNewestAndTheStateNamesThem) {
  BundleDirectory bundles(directory);
  for (int64_t step : {100, 200, 300})
    bundles.save(step, twoShards(step), 2);
  std::vector<BundleDirectory::Entry> entries = bundles.list();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].step, 200);
  EXPECT_EQ(entries[1].step, 300);
  for (const std::string &name : names())
    EXPECT_EQ(name.find("model.ckpt-100"), std::string::npos) << name;
  std::optional<CheckpointState> state = readCheckpointState(directory);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->modelCheckpointPath, "model.ckpt-300");
  EXPECT_EQ(state->allModelCheckpointPaths,
            (std::vector<std::string>{"model.ckpt-200", "model.ckpt-300"}));
}

TEST_F(BundleDirectoryTest, SavingAStepAgainReplacesItsBundle) {
  BundleDirectory bundles(directory);
  std::vector<BundleShard> three = twoShards(100);
  three.emplace_back();
  three.back().tensors.emplace("extra", Tensor::scalar<float>(1));
  bundles.save(100, three, 5);
  bundles.save(100, twoShards(100), 5);
  EXPECT_EQ(names(),
            (std::vector<std::string>{
                "checkpoint", "model.ckpt-100.data-00000-of-00002",
                "model.ckpt-100.data-00001-of-00002", "model.ckpt-100.index"}));
  EXPECT_FALSE(
      BundleReader(directory + "/model.ckpt-100").tensors().count("extra"));
}

TEST_F(BundleDirectoryTest, RestoreFallsBackPastATruncatedIndexOrCorruptData) {
  BundleDirectory bundles(directory);
  bundles.save(100, twoShards(100), 5);
  bundles.save(200, twoShards(200), 5);
  std::string newest = directory + "/model.ckpt-200";

  std::vector<std::string> warnings;
  auto warn = [&](const std::string &warning) { warnings.push_back(warning); };
  std::optional<BundleDirectory::Loaded> loaded = bundles.loadNewest(warn);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->checkpoint.step, 200);
  EXPECT_TRUE(warnings.empty());

  // A data file whose bytes changed: its CRC names it.
  std::string data = bundleDataPath(newest, 1, 2);
  flipByte(data, 0);
  loaded = bundles.loadNewest(warn);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->prefix, directory + "/model.ckpt-100");
  EXPECT_EQ(loaded->checkpoint.step, 100);
  EXPECT_EQ(loaded->checkpoint.tensors.at("p").toVector<float>()[0], 110);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(data), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("trying the previous one"), std::string::npos)
      << warnings[0];
  flipByte(data, 0);

  // A truncated data file.
  truncateToHalf(data);
  warnings.clear();
  ASSERT_EQ(bundles.loadNewest(warn)->checkpoint.step, 100);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find(data), std::string::npos) << warnings[0];

  // A truncated index, and both formats' newest bundle at once.
  bundles.save(300, twoShards(300), 5);
  truncateToHalf(bundleIndexPath(directory + "/model.ckpt-300"));
  warnings.clear();
  std::optional<LoadedCheckpoint> either =
      newestCheckpoint(directory, CheckpointFormat::TensorFlow, warn);
  ASSERT_TRUE(either);
  EXPECT_EQ(either->format, CheckpointFormat::TensorFlow);
  EXPECT_EQ(either->checkpoint.step, 100);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find(directory + "/model.ckpt-300.index"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[1].find(data), std::string::npos) << warnings[1];
}

TEST_F(BundleDirectoryTest, WhatAKilledSaveLeftIsNoCheckpointAndIsRemoved) {
  BundleDirectory bundles(directory);
  bundles.save(100, twoShards(100), 5);
  // A save killed after the tasks' shards, before the merge: the pending
  // `_temp` directory of their bundles ...
  for (int shard = 0; shard < 2; ++shard) {
    BundleWriter writer(bundles.pendingShardPrefix(3, shard, 2));
    writer.add("w", Tensor::scalar<float>(1));
    writer.finish();
  }
  std::string killed = directory + "/model.ckpt-200";
  // ... a merge killed after moving a data file, before the index ...
  fs::copy_file(bundleDataPath(directory + "/model.ckpt-100", 0, 2),
                bundleDataPath(killed, 0, 2));
  // ... and temporaries of an index and of the `checkpoint` file.
  std::ofstream(bundleIndexPath(killed) + ".tempstate12345") << "partial";
  std::ofstream(directory + "/checkpoint.tempstate12345") << "partial";
  std::ofstream(directory + "/events.out.tfevents.1") << "not ours";

  ASSERT_EQ(bundles.list().size(), 1u);
  EXPECT_FALSE(holdsCheckpoint(directory, 200));
  std::vector<std::string> warnings;
  std::optional<LoadedCheckpoint> newest = newestCheckpoint(
      directory, CheckpointFormat::TensorFlow,
      [&](const std::string &warning) { warnings.push_back(warning); });
  ASSERT_TRUE(newest);
  EXPECT_EQ(newest->checkpoint.step, 100);
  EXPECT_TRUE(warnings.empty());

  bundles.removeLeftovers();
  EXPECT_EQ(names(),
            (std::vector<std::string>{"checkpoint", "events.out.tfevents.1",
                                      "model.ckpt-100.data-00000-of-00002",
                                      "model.ckpt-100.data-00001-of-00002",
                                      "model.ckpt-100.index"}));
  // The next save of that step succeeds.
  bundles.save(200, twoShards(200), 5);
  EXPECT_EQ(bundles.loadNewest(nullptr)->checkpoint.step, 200);
}

TEST_F(BundleDirectoryTest, EitherFormatTheNewestFirst) {
  BundleDirectory bundles(directory);
  bundles.save(200, twoShards(200), 5);
  Checkpoint file;
  file.step = 300;
  file.tensors.emplace("w", Tensor::scalar<float>(3));
  CheckpointDirectory(directory).save(file, 5);
  EXPECT_TRUE(holdsCheckpoint(directory));
  EXPECT_TRUE(holdsCheckpoint(directory, 200));
  EXPECT_TRUE(holdsCheckpoint(directory, 300));
  EXPECT_FALSE(holdsCheckpoint(directory, 100));

  std::optional<LoadedCheckpoint> newest =
      newestCheckpoint(directory, CheckpointFormat::TensorFlow, nullptr);
  ASSERT_TRUE(newest);
  EXPECT_EQ(newest->format, CheckpointFormat::Dtf);
  EXPECT_EQ(newest->path, directory + "/model.ckpt-300.dtf");

  // Of one step, the format being written first.
  bundles.save(300, twoShards(300), 5);
  newest = newestCheckpoint(directory, CheckpointFormat::TensorFlow, nullptr);
  EXPECT_EQ(newest->format, CheckpointFormat::TensorFlow);
  newest = newestCheckpoint(directory, CheckpointFormat::Dtf, nullptr);
  EXPECT_EQ(newest->format, CheckpointFormat::Dtf);

  LoadedCheckpoint at = readCheckpointAt(directory, 200, CheckpointFormat::Dtf);
  EXPECT_EQ(at.format, CheckpointFormat::TensorFlow);
  EXPECT_EQ(at.checkpoint.step, 200);
  EXPECT_EQ(at.checkpoint.tensors.at("global_step").scalarAsDouble(), 200);
  try {
    readCheckpointAt(directory, 100, CheckpointFormat::TensorFlow);
    ADD_FAILURE() << "no error";
  } catch (const CheckpointError &error) {
    EXPECT_NE(std::string(error.what()).find("model.ckpt-100.index"),
              std::string::npos)
        << error.what();
  }
}

TEST(CheckpointFormatTest, TheFlagsValues) {
  EXPECT_EQ(parseCheckpointFormat("tf"), CheckpointFormat::TensorFlow);
  EXPECT_EQ(parseCheckpointFormat("dtf"), CheckpointFormat::Dtf);
  EXPECT_EQ(parseCheckpointFormat("TF"), std::nullopt);
}

} // namespace
} // namespace dtf::checkpoint
