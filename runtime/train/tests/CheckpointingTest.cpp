//===- CheckpointingTest.cpp - The chief's bundles, the PS tasks' restore -===//
//
// --checkpoint_format=tf between the chief's CheckpointSaver and the PS
// tasks' restoreAtStart / loadCheckpoint, over in-process PS tasks of the
// example MLP: 2 PS tasks (hid_w and its Adam slots sharded in 2) save a
// bundle that holds hid_w as one partitioned variable; the model compiled
// for 3 PS tasks restores every shard from it; a corrupt data file of the
// newest bundle makes every task fall back to the previous one, warning
// with the file's name.
//
//===----------------------------------------------------------------------===//

#include "runtime/train/Supervisor.h"
#include "runtime/train/WarmStart.h"

#include "passes/InitAll.h"
#include "runtime/checkpoint/BundleDirectory.h"
#include "runtime/coord/Coordinator.h"
#include "runtime/coord/InProcessCoordinator.h"
#include "runtime/exec/PsProgram.h"
#include "runtime/ps/InProcessPsConnection.h"
#include "runtime/train/tests/CompiledMlp.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace dtf::train {
namespace {

using testing::compileMlp;
using testing::joinShards;
using testing::psFunctions;

/// The PS tasks of one program, in process.
struct PsTasks {
  std::vector<std::unique_ptr<ps::ParameterServer>> tasks;
  std::vector<std::unique_ptr<ps::PsConnection>> connections;

  /// With `saving`, each task writes its own shard of a bundle into its
  /// --logdir, as dtf-run's PS tasks do.
  explicit PsTasks(mlir::ModuleOp program,
                   const ReliabilityOptions *saving = nullptr) {
    for (mlir::func::FuncOp function : psFunctions(program)) {
      ps::Options taskOptions;
      if (saving)
        configureCheckpointSave(taskOptions, *saving,
                                variablePartsHeldBy(program, function),
                                variablesHeldBefore(program, function));
      tasks.push_back(std::make_unique<ps::ParameterServer>(
          std::make_unique<exec::PsProgram>(function), ps::Replication::async(),
          taskOptions));
      connections.push_back(std::make_unique<ps::InProcessPsConnection>(
          *tasks.back(), "/job:ps/task:" + std::to_string(tasks.size() - 1)));
    }
  }
  std::vector<ps::PsConnection *> ps() const {
    std::vector<ps::PsConnection *> result;
    for (const auto &connection : connections)
      result.push_back(connection.get());
    return result;
  }
  /// Every variable every task serves, by name.
  VariableStore served() const {
    VariableStore values;
    for (const auto &task : tasks)
      for (NamedTensor &tensor : task->snapshot().tensors)
        values.insert_or_assign(tensor.name, std::move(tensor.tensor));
    return values;
  }
};

/// A tensor's type and bytes, to compare two bit for bit.
std::string bytesOf(const Tensor &tensor) {
  return tensor.typeString() +
         std::string(static_cast<const char *>(tensor.rawData()),
                     tensor.byteSize());
}

class CheckpointingTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlir::DialectRegistry registry;
    ir::registerAllDialects(registry);
    ir::registerAllPasses();
    context.appendDialectRegistry(registry);
    char pattern[] = "/tmp/dtfcheckpointing.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    options.logdir = pattern;
    options.checkpointFormat = checkpoint::CheckpointFormat::TensorFlow;
  }
  void TearDown() override { std::filesystem::remove_all(options.logdir); }

  /// Sets the tasks of the 2-PS model `two` serving their initial values,
  /// each f32 element plus `offset`, at global step `step`.
  static void serveAt(mlir::ModuleOp two, PsTasks &tasks, int64_t step,
                      float offset) {
    for (size_t index = 0; index < tasks.tasks.size(); ++index) {
      VariableStore values;
      exec::PsProgram(psFunctions(two)[index]).initialize(values);
      for (auto &[name, value] : values)
        if (value.dtype() == DType::F32)
          for (int64_t i = 0; i < value.numElements(); ++i)
            value.data<float>()[i] += offset;
      if (values.count("global_step"))
        values.at("global_step") = Tensor::scalar<int64_t>(step);
      tasks.tasks[index]->preload({step, std::move(values)}, step);
      tasks.tasks[index]->restore(ps::RestoreSource::KeepRestored, step, 1);
    }
  }

  /// The 2-PS model's tasks serving their initial values, each f32 element
  /// plus `offset`, at global step `step`; the chief saves them.
  VariableStore saveTwoPsTasksAt(mlir::ModuleOp two, int64_t step,
                                 float offset) {
    PsTasks tasks(two, &options);
    serveAt(two, tasks, step, offset);
    std::vector<ps::PsConnection *> connections = tasks.ps();
    CheckpointSaver saver(connections, options, /*syncMode=*/false);
    EXPECT_EQ(saver.save(), step);
    return tasks.served();
  }

  /// The 3-PS model's tasks after each restored what --logdir holds.
  std::string restoreThree(mlir::ModuleOp three, PsTasks &tasks) {
    std::ostringstream log;
    std::vector<mlir::func::FuncOp> functions = psFunctions(three);
    for (size_t index = 0; index < functions.size(); ++index)
      restoreAtStart(*tasks.tasks[index], options,
                     variablePartsHeldBy(three, functions[index]),
                     "PS task " + std::to_string(index), log);
    for (const auto &task : tasks.tasks)
      task->initialize();
    return log.str();
  }

  mlir::MLIRContext context;
  ReliabilityOptions options;
};

TEST_F(CheckpointingTest, ABundleOfTwoPsTasksRestoresIntoThree) {
  mlir::OwningOpRef<mlir::ModuleOp> two = compileMlp(context, 2);
  ASSERT_TRUE(two);
  VariableStore saved = saveTwoPsTasksAt(*two, 300, 0.5f);
  ASSERT_TRUE(saved.count("hid_w/part_1"));

  // hid_w and its slots are partitioned variables of 2 slices; the rest
  // is stored whole, each once.
  std::string prefix = options.logdir + "/model.ckpt-300";
  checkpoint::BundleReader reader(prefix);
  EXPECT_EQ(reader.numShards(), 2);
  for (const char *name : {"hid_w", "hid_w/Adam", "hid_w/Adam_1"}) {
    ASSERT_TRUE(reader.tensors().count(name)) << name;
    EXPECT_EQ(reader.tensors().at(name).shape, (Shape{784, 100}));
    EXPECT_EQ(reader.tensors().at(name).slices.size(), 2u) << name;
    EXPECT_EQ(reader.read(name).toVector<float>(), joinShards(saved, name, 2));
  }
  for (const auto &[name, info] : reader.tensors())
    EXPECT_EQ(name.find("/part_"), std::string::npos) << name;
  EXPECT_EQ(reader.read("global_step").scalarAsDouble(), 300);
  EXPECT_EQ(reader.read("sm_w").toVector<float>(),
            saved.at("sm_w").toVector<float>());

  mlir::OwningOpRef<mlir::ModuleOp> three = compileMlp(context, 3);
  ASSERT_TRUE(three);
  PsTasks restored(*three);
  std::string log = restoreThree(*three, restored);
  EXPECT_NE(log.find("PS task 2: restored its variables from " + prefix +
                     " (global step 300"),
            std::string::npos)
      << log;
  VariableStore served = restored.served();
  ASSERT_TRUE(served.count("hid_w/part_2"));
  EXPECT_EQ(served.at("hid_w/part_0").shape(), (Shape{262, 100}));
  for (const char *name : {"hid_w", "hid_w/Adam", "hid_w/Adam_1"})
    EXPECT_EQ(joinShards(served, name, 3), joinShards(saved, name, 2)) << name;
  for (const char *name : {"hid_b", "sm_w", "sm_b", "beta1_power"})
    EXPECT_EQ(served.at(name).toVector<float>(),
              saved.at(name).toVector<float>())
        << name;
  EXPECT_EQ(restored.tasks[0]->currentStep(), 300);
}

TEST_F(CheckpointingTest, ACorruptDataFileFallsBackToThePreviousBundle) {
  mlir::OwningOpRef<mlir::ModuleOp> two = compileMlp(context, 2);
  ASSERT_TRUE(two);
  VariableStore older = saveTwoPsTasksAt(*two, 100, 0.25f);
  saveTwoPsTasksAt(*two, 200, 0.75f);
  std::string data =
      checkpoint::bundleDataPath(options.logdir + "/model.ckpt-200", 1, 2);
  {
    std::fstream file(data, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(16);
    file.put('\x7f');
  }

  mlir::OwningOpRef<mlir::ModuleOp> three = compileMlp(context, 3);
  ASSERT_TRUE(three);
  PsTasks restored(*three);
  std::string log = restoreThree(*three, restored);
  for (int task = 0; task < 3; ++task)
    EXPECT_NE(log.find("PS task " + std::to_string(task) +
                       ": warning: checkpoint " + data + " is invalid"),
              std::string::npos)
        << log;
  EXPECT_NE(log.find("trying the previous one"), std::string::npos) << log;
  VariableStore served = restored.served();
  EXPECT_EQ(joinShards(served, "hid_w", 3), joinShards(older, "hid_w", 2));
  EXPECT_EQ(restored.tasks[0]->currentStep(), 100);

  // A later restore of a step (after a PS task restarts) reads that one.
  ps::Options taskOptions;
  std::vector<mlir::func::FuncOp> functions = psFunctions(*three);
  configureCheckpointRestore(taskOptions, options,
                             variablePartsHeldBy(*three, functions[1]));
  ps::ParameterServer later(std::make_unique<exec::PsProgram>(functions[1]),
                            ps::Replication::async(), taskOptions);
  later.restore(ps::RestoreSource::Checkpoint, 100, 2);
  std::vector<NamedTensor> values = later.snapshot().tensors;
  ASSERT_FALSE(values.empty());
  for (const NamedTensor &tensor : values)
    EXPECT_EQ(bytesOf(tensor.tensor), bytesOf(served.at(tensor.name)))
        << tensor.name;
}

// The DTF format keeps a variable's shards under their own names: a file of
// 2 PS tasks restores into 3 by joining them and cutting the new shards.
TEST_F(CheckpointingTest, ADtfFileOfTwoPsTasksRestoresIntoThree) {
  options.checkpointFormat = checkpoint::CheckpointFormat::Dtf;
  mlir::OwningOpRef<mlir::ModuleOp> two = compileMlp(context, 2);
  ASSERT_TRUE(two);
  VariableStore saved = saveTwoPsTasksAt(*two, 300, 0.5f);
  ASSERT_TRUE(saved.count("hid_w/part_1"));

  mlir::OwningOpRef<mlir::ModuleOp> three = compileMlp(context, 3);
  ASSERT_TRUE(three);
  PsTasks restored(*three);
  std::string log = restoreThree(*three, restored);
  EXPECT_NE(log.find("PS task 2: restored its variables from " +
                     options.logdir + "/model.ckpt-300.dtf (global step 300"),
            std::string::npos)
      << log;
  VariableStore served = restored.served();
  EXPECT_EQ(served.at("hid_w/part_0").shape(), (Shape{262, 100}));
  for (const char *name : {"hid_w", "hid_w/Adam", "hid_w/Adam_1"})
    EXPECT_EQ(joinShards(served, name, 3), joinShards(saved, name, 2)) << name;
  EXPECT_EQ(restored.tasks[0]->currentStep(), 300);
}

// A table partitioned by id modulo interleaves its rows: shard K of N holds
// rows K, K + N, ... Saved by 2 shards, each of 3 takes its rows of the
// whole.
TEST(RestoredStateTest, ATablePartitionedByIdModuloReshards) {
  checkpoint::Checkpoint saved;
  saved.step = 7;
  // Rows 0, 2, 4 and 1, 3, 5 of a [6, 1] table whose row r holds r.
  saved.tensors.emplace("emb/part_0",
                        Tensor::fromVector<float>({3, 1}, {0, 2, 4}));
  saved.tensors.emplace("emb/part_1",
                        Tensor::fromVector<float>({3, 1}, {1, 3, 5}));
  checkpoint::TensorType whole{DType::F32, {6, 1}};
  for (int64_t shard = 0; shard < 3; ++shard) {
    checkpoint::Checkpoint copy;
    copy.step = saved.step;
    for (const auto &[name, value] : saved.tensors)
      copy.tensors.emplace(name, value.clone());
    std::string name = "emb/part_" + std::to_string(shard);
    ps::ModelState state =
        restoredState(std::move(copy), "model.ckpt-7.dtf",
                      {{name, "emb", whole, {shard, 2, 3}, 3}});
    EXPECT_EQ(state.values.at(name).toVector<float>(),
              (std::vector<float>{static_cast<float>(shard),
                                  static_cast<float>(shard + 3)}))
        << name;
  }
}

// The chief only merges: a PS task that cannot write its shard (no
// --logdir) fails the save, naming it, and leaves no checkpoint.
TEST_F(CheckpointingTest, EachPsTaskWritesItsOwnShard) {
  mlir::OwningOpRef<mlir::ModuleOp> two = compileMlp(context, 2);
  ASSERT_TRUE(two);
  PsTasks tasks(*two);
  serveAt(*two, tasks, 300, 0.5f);
  std::vector<ps::PsConnection *> connections = tasks.ps();
  CheckpointSaver saver(connections, options, /*syncMode=*/false);
  try {
    saver.save();
    FAIL() << "saved without the PS tasks' shards";
  } catch (const checkpoint::CheckpointError &error) {
    EXPECT_NE(std::string(error.what())
                  .find("cannot write its shard of a checkpoint: it has no "
                        "checkpoint directory (--logdir)"),
              std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(checkpoint::BundleDirectory(options.logdir).list().empty());
}

// A streamed input's epoch state is the chief's own shard, after the PS
// tasks'; PS task 0 restores it with its variables.
TEST_F(CheckpointingTest, TheInputStateIsTheChiefsShard) {
  mlir::OwningOpRef<mlir::ModuleOp> two = compileMlp(context, 2);
  ASSERT_TRUE(two);
  PsTasks tasks(*two, &options);
  serveAt(*two, tasks, 300, 0.5f);
  coord::Coordinator coordinator({2,
                                  1,
                                  std::chrono::milliseconds(5'000),
                                  std::chrono::milliseconds(5'000),
                                  {}});
  coordinator.registerTask("worker", 0);
  coord::DataSetDefinition data;
  WorkUnit unit;
  unit.path = "/data/part-0.tfrecord";
  unit.end = 1000;
  data.units.push_back(unit);
  data.epochs = 1;
  coordinator.defineData(0, data);
  coord::InProcessCoordinatorConnection connection(coordinator);
  std::vector<ps::PsConnection *> connections = tasks.ps();
  CheckpointSaver saver(connections, options, /*syncMode=*/false);
  saver.saveDataStateOf(connection);
  ASSERT_EQ(saver.save(), 300);

  std::string prefix = options.logdir + "/model.ckpt-300";
  checkpoint::BundleReader reader(prefix);
  EXPECT_EQ(reader.numShards(), 3);
  std::string expected = coordinator.saveDataState(300);
  EXPECT_EQ(inputStateOf(reader.read(kInputStateTensor)), expected);

  std::ostringstream log;
  std::vector<mlir::func::FuncOp> functions = psFunctions(*two);
  PsTasks restored(*two);
  EXPECT_EQ(restoreAtStart(*restored.tasks[0], options,
                           variablePartsHeldBy(*two, functions[0]), "PS task 0",
                           log),
            expected);
}

} // namespace
} // namespace dtf::train
