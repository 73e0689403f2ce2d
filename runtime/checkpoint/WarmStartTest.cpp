//===- WarmStartTest.cpp - Assignment maps and warm-start reads -----------===//

#include "runtime/checkpoint/WarmStart.h"

#include "runtime/checkpoint/TensorBundle.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <unistd.h>

namespace dtf::checkpoint {
namespace {

using Map = std::map<std::string, std::string>;
using Types = std::map<std::string, TensorType>;

TEST(AssignmentMapTest, ParsesEntriesInOrder) {
  EXPECT_EQ(parseAssignmentMap("old/:new/,w:w2"),
            (std::vector<Assignment>{{"old/", "new/"}, {"w", "w2"}}));
  EXPECT_EQ(parseAssignmentMap("/:/"), (std::vector<Assignment>{{"/", "/"}}));
}

TEST(AssignmentMapTest, EmptyMeansEveryVariableFromItsOwnName) {
  EXPECT_EQ(parseAssignmentMap(""), (std::vector<Assignment>{{"/", "/"}}));
}

TEST(AssignmentMapTest, RejectsMalformedEntriesNamingTheFlag) {
  for (const char *spec : {"w", "w:", ":w", "a:b:c", "w:w2,", "w:a,w:b"}) {
    try {
      parseAssignmentMap(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const std::invalid_argument &error) {
      EXPECT_NE(std::string(error.what()).find("--init_assignment_map"),
                std::string::npos)
          << error.what();
    }
  }
}

const Types kGraph = {
    {"global_step", {DType::I64, {}}},
    {"dense/kernel", {DType::F32, {4, 3}}},
    {"dense/kernel/Adagrad", {DType::F32, {4, 3}}},
    {"dense/bias", {DType::F32, {3}}},
    {"out/kernel", {DType::F32, {3, 2}}},
};

TEST(AssignmentMapTest, RootCoversEveryVariableButTheGlobalStep) {
  Types checkpoint = kGraph;
  Map matched = matchAssignmentMap(parseAssignmentMap("/:/"), kGraph,
                                   checkpoint, "ckpt", "global_step");
  EXPECT_EQ(matched, (Map{{"dense/kernel", "dense/kernel"},
                          {"dense/kernel/Adagrad", "dense/kernel/Adagrad"},
                          {"dense/bias", "dense/bias"},
                          {"out/kernel", "out/kernel"}}));
}

TEST(AssignmentMapTest, NamingTheGlobalStepRestoresIt) {
  Map matched =
      matchAssignmentMap(parseAssignmentMap("/:/,global_step:global_step"),
                         kGraph, kGraph, "ckpt", "global_step");
  EXPECT_EQ(matched.at("global_step"), "global_step");
  EXPECT_EQ(matched.size(), 5u);
}

TEST(AssignmentMapTest, ScopeToScopeRenamesTheScope) {
  Types checkpoint = {{"old/kernel", {DType::F32, {4, 3}}},
                      {"old/kernel/Adagrad", {DType::F32, {4, 3}}},
                      {"old/bias", {DType::F32, {3}}}};
  Map matched = matchAssignmentMap(parseAssignmentMap("old/:dense/"), kGraph,
                                   checkpoint, "ckpt", "global_step");
  EXPECT_EQ(matched, (Map{{"dense/kernel", "old/kernel"},
                          {"dense/kernel/Adagrad", "old/kernel/Adagrad"},
                          {"dense/bias", "old/bias"}}));
}

TEST(AssignmentMapTest, RootOfTheCheckpointIntoAScopeAndBack) {
  Types flat = {{"bias", {DType::F32, {3}}},
                {"kernel", {DType::F32, {4, 3}}},
                {"kernel/Adagrad", {DType::F32, {4, 3}}}};
  EXPECT_EQ(matchAssignmentMap(parseAssignmentMap("/:dense/"), kGraph, flat,
                               "ckpt", "global_step"),
            (Map{{"dense/kernel", "kernel"},
                 {"dense/kernel/Adagrad", "kernel/Adagrad"},
                 {"dense/bias", "bias"}}));
  Types graph = {{"w", {DType::F32, {2}}}};
  Types scoped = {{"model/w", {DType::F32, {2}}}};
  EXPECT_EQ(matchAssignmentMap(parseAssignmentMap("model/:/"), graph, scoped,
                               "ckpt", "global_step"),
            (Map{{"w", "model/w"}}));
}

TEST(AssignmentMapTest, OneVariableFromATensorOfAnotherName) {
  Types checkpoint = {{"pretrained/w", {DType::F32, {3, 2}}}};
  EXPECT_EQ(matchAssignmentMap(parseAssignmentMap("pretrained/w:out/kernel"),
                               kGraph, checkpoint, "ckpt", "global_step"),
            (Map{{"out/kernel", "pretrained/w"}}));
}

TEST(AssignmentMapTest, AVariableEntryOverridesItsScope) {
  Types checkpoint = kGraph;
  checkpoint["other/bias"] = {DType::F32, {3}};
  Map matched = matchAssignmentMap(
      parseAssignmentMap("other/bias:dense/bias,dense/:dense/"), kGraph,
      checkpoint, "ckpt", "global_step");
  EXPECT_EQ(matched.at("dense/bias"), "other/bias");
  EXPECT_EQ(matched.at("dense/kernel"), "dense/kernel");
  EXPECT_EQ(matched.count("out/kernel"), 0u);
}

std::string messageOf(const std::function<void()> &call) {
  try {
    call();
  } catch (const std::exception &error) {
    return error.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(AssignmentMapTest, AShapeMismatchNamesBothAndTheirShapes) {
  Types checkpoint = kGraph;
  checkpoint["dense/kernel"] = {DType::F32, {5, 3}};
  std::string message = messageOf([&] {
    matchAssignmentMap(parseAssignmentMap("dense/:dense/"), kGraph, checkpoint,
                       "/tmp/ckpt", "global_step");
  });
  EXPECT_NE(message.find("/tmp/ckpt"), std::string::npos) << message;
  EXPECT_NE(message.find("variable 'dense/kernel' (f32[4,3])"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("tensor 'dense/kernel' (f32[5,3])"), std::string::npos)
      << message;
}

TEST(AssignmentMapTest, AMissingTensorIsNamed) {
  Types checkpoint = kGraph;
  checkpoint.erase("dense/kernel/Adagrad");
  std::string message = messageOf([&] {
    matchAssignmentMap(parseAssignmentMap("/:/"), kGraph, checkpoint,
                       "/tmp/ckpt", "global_step");
  });
  EXPECT_NE(message.find("tensor 'dense/kernel/Adagrad'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("not in the checkpoint"), std::string::npos)
      << message;
}

TEST(AssignmentMapTest, AMissingVariableOrScopeIsNamed) {
  EXPECT_NE(messageOf([&] {
              matchAssignmentMap(parseAssignmentMap("w:nothing"), kGraph,
                                 kGraph, "ckpt", "global_step");
            }).find("no variable 'nothing'"),
            std::string::npos);
  EXPECT_NE(messageOf([&] {
              matchAssignmentMap(parseAssignmentMap("old/:nothing/"), kGraph,
                                 kGraph, "ckpt", "global_step");
            }).find("none in scope 'nothing/'"),
            std::string::npos);
  // A scope maps from a scope only, as TensorFlow requires.
  EXPECT_NE(messageOf([&] {
              matchAssignmentMap(parseAssignmentMap("w:dense/"), kGraph, kGraph,
                                 "ckpt", "global_step");
            }).find("maps to a scope only"),
            std::string::npos);
}

/// A fresh directory under $TMPDIR, removed with its files.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern = std::string(base ? base : "/tmp") + "/dtfwarm.XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!::mkdtemp(buffer.data()))
      ADD_FAILURE() << "mkdtemp failed";
    path = buffer.data();
  }
  ~TempDir() {
    std::string command = "rm -rf '" + path + "'";
    EXPECT_EQ(std::system(command.c_str()), 0);
  }
  std::string path;
};

/// f32 [rows, 2] whose element (r, c) is 10 r + c.
Tensor rowsFrom(int64_t first, int64_t count, int64_t stride = 1) {
  std::vector<float> values;
  for (int64_t i = 0; i < count; ++i)
    for (int64_t column = 0; column < 2; ++column)
      values.push_back(static_cast<float>(10 * (first + i * stride) + column));
  return Tensor::fromVector<float>({count, 2}, values);
}

/// The variable "emb" (f32 [7, 2]) and its slot as three PS tasks shard
/// it by div (rows 3, 2, 2), and "b" whole.
std::vector<VariablePart> threeTaskParts() {
  TensorType whole{DType::F32, {7, 2}};
  std::vector<VariablePart> parts;
  int64_t first = 0;
  for (int64_t shard = 0; shard < 3; ++shard) {
    int64_t rows = shard == 0 ? 3 : 2;
    std::string suffix = "/part_" + std::to_string(shard);
    parts.push_back({"emb" + suffix, "emb", whole, {first, rows, 1}});
    parts.push_back(
        {"emb/Adagrad" + suffix, "emb/Adagrad", whole, {first, rows, 1}});
    first += rows;
  }
  parts.push_back({"b", "b", {DType::F32, {2}}, {}});
  return parts;
}

void expectRows(const VariableStore &values, const std::string &name,
                int64_t first, int64_t count, int64_t stride = 1) {
  ASSERT_TRUE(values.count(name)) << name;
  EXPECT_EQ(values.at(name).toVector<float>(),
            rowsFrom(first, count, stride).toVector<float>())
      << name;
}

TEST(WarmStartCheckpointTest, ADtfCheckpointOfTwoPsTasksStartsThree) {
  TempDir dir;
  // As a job with 2 PS tasks saves "emb" [7, 2] split 4 + 3, with its slot.
  Checkpoint saved;
  saved.step = 300;
  saved.tensors.emplace("emb/part_0", rowsFrom(0, 4));
  saved.tensors.emplace("emb/part_1", rowsFrom(4, 3));
  saved.tensors.emplace("emb/Adagrad/part_0", rowsFrom(0, 4));
  saved.tensors.emplace("emb/Adagrad/part_1", rowsFrom(4, 3));
  saved.tensors.emplace("b", Tensor::fromVector<float>({2}, {1.5f, -2.5f}));
  saved.tensors.emplace("global_step", Tensor::scalar<int64_t>(300));
  CheckpointDirectory(dir.path).save(saved, 5);

  // The directory: its newest DTF checkpoint.
  WarmStartCheckpoint checkpoint =
      WarmStartCheckpoint::open(dir.path, {}, [](const std::string &warning) {
        ADD_FAILURE() << warning;
      });
  EXPECT_EQ(checkpoint.path(), dir.path + "/model.ckpt-300.dtf");
  EXPECT_EQ(checkpoint.tensors().at("emb").shape, (Shape{7, 2}));
  EXPECT_EQ(checkpoint.tensors().count("emb/part_0"), 0u);

  std::vector<VariablePart> parts = threeTaskParts();
  Types graph;
  for (const VariablePart &part : parts)
    graph.emplace(part.variable, part.variableType);
  graph["global_step"] = {DType::I64, {}};
  Map assignments =
      matchAssignmentMap(parseAssignmentMap(""), graph, checkpoint.tensors(),
                         dir.path, "global_step");
  VariableStore values = readAssigned(checkpoint, assignments, parts);
  EXPECT_EQ(values.size(), 7u);
  expectRows(values, "emb/part_0", 0, 3);
  expectRows(values, "emb/part_1", 3, 2);
  expectRows(values, "emb/part_2", 5, 2);
  expectRows(values, "emb/Adagrad/part_2", 5, 2);
  EXPECT_EQ(values.at("b").toVector<float>(),
            (std::vector<float>{1.5f, -2.5f}));
  // Not mapped by the root scope: the global step starts over.
  EXPECT_EQ(values.count("global_step"), 0u);
}

TEST(WarmStartCheckpointTest, ShardsPartitionedByIdModuloInterleave) {
  TempDir dir;
  // Rows 0, 2, 4, 6 in shard 0 and 1, 3, 5 in shard 1.
  Checkpoint saved;
  saved.tensors.emplace("emb/part_0", rowsFrom(0, 4, 2));
  saved.tensors.emplace("emb/part_1", rowsFrom(1, 3, 2));
  std::string file = dir.path + "/" + checkpointFileName(0);
  writeCheckpointFile(file, saved);
  WarmStartCheckpoint checkpoint =
      WarmStartCheckpoint::open(file, {"emb"}, nullptr);
  EXPECT_EQ(checkpoint.read("emb", {}).toVector<float>(),
            rowsFrom(0, 7).toVector<float>());
  // Into 3 mod shards: rows 1, 4 of shard 1.
  EXPECT_EQ(checkpoint.read("emb", {1, 2, 3}).toVector<float>(),
            rowsFrom(1, 2, 3).toVector<float>());
}

TEST(WarmStartCheckpointTest, ABundlesPartitionedVariableStartsAnyShards) {
  TempDir dir;
  std::string prefix = dir.path + "/model.ckpt-100";
  {
    BundleWriter writer(prefix);
    writer.addSlice("emb", {7, 2},
                    TensorSlice::fromStartsAndLengths({{0, 4}, {0, 2}}),
                    rowsFrom(0, 4));
    writer.addSlice("emb", {7, 2},
                    TensorSlice::fromStartsAndLengths({{4, 3}, {0, 2}}),
                    rowsFrom(4, 3));
    writer.addSlice("emb/Adagrad", {7, 2},
                    TensorSlice::fromStartsAndLengths({{0, 7}, {0, 2}}),
                    rowsFrom(0, 7));
    writer.add("b", Tensor::fromVector<float>({2}, {1.5f, -2.5f}));
    writer.finish();
  }
  writeCheckpointState(dir.path, {"model.ckpt-100", {"model.ckpt-100"}});
  // By its directory's checkpoint file, and by its prefix.
  for (const std::string &path : {dir.path, prefix}) {
    WarmStartCheckpoint checkpoint =
        WarmStartCheckpoint::open(path, {}, nullptr);
    EXPECT_EQ(checkpoint.path(), prefix);
    std::vector<VariablePart> parts = threeTaskParts();
    Map assignments = {{"emb", "emb"}, {"emb/Adagrad", "emb/Adagrad"}};
    VariableStore values = readAssigned(checkpoint, assignments, parts);
    EXPECT_EQ(values.size(), 6u);
    expectRows(values, "emb/part_0", 0, 3);
    expectRows(values, "emb/part_1", 3, 2);
    expectRows(values, "emb/part_2", 5, 2);
    expectRows(values, "emb/Adagrad/part_1", 3, 2);
    EXPECT_EQ(values.count("b"), 0u);
  }
}

TEST(WarmStartCheckpointTest, ANonexistentPathIsNamed) {
  TempDir dir;
  std::string message = messageOf(
      [&] { WarmStartCheckpoint::open(dir.path + "/nothing", {}, nullptr); });
  EXPECT_NE(message.find(dir.path + "/nothing"), std::string::npos) << message;
  message =
      messageOf([&] { WarmStartCheckpoint::open(dir.path, {}, nullptr); });
  EXPECT_NE(message.find("holds no checkpoint"), std::string::npos) << message;
}

} // namespace
} // namespace dtf::checkpoint
