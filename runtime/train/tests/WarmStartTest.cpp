//===- WarmStartTest.cpp - PS tasks warm-started from another job ---------===//
//
// The example MLP compiled for 2 PS tasks with hid_w sharded in 2 saves a
// DTF checkpoint; the same model compiled for 3 PS tasks, hid_w in 3
// shards, warm-starts from it: every PS task's values, once the chief
// confirms them, are the checkpoint's, cut at the new shard boundaries.
//
//===----------------------------------------------------------------------===//

#include "runtime/train/WarmStart.h"

#include "passes/InitAll.h"
#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/exec/PsProgram.h"
#include "runtime/train/Compile.h"
#include "runtime/train/tests/CompiledMlp.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <unistd.h>

namespace dtf::train {
namespace {

using testing::compileMlp;
using testing::joinShards;
using testing::psFunctions;

class WarmStartTest : public ::testing::Test {
protected:
  void SetUp() override {
    mlir::DialectRegistry registry;
    ir::registerAllDialects(registry);
    ir::registerAllPasses();
    context.appendDialectRegistry(registry);
    char pattern[] = "/tmp/dtfwarmstart.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    directory = pattern;
  }
  void TearDown() override {
    std::string command = "rm -rf '" + directory + "'";
    EXPECT_EQ(std::system(command.c_str()), 0);
  }

  mlir::MLIRContext context;
  std::string directory;
};

TEST_F(WarmStartTest, ADtfCheckpointOfTwoPsTasksRestoresIntoThree) {
  // What the 2-PS job's checkpoint holds: its tasks' values (their
  // initializers, which differ by shard), at global step 300.
  mlir::OwningOpRef<mlir::ModuleOp> two = compileMlp(context, 2);
  ASSERT_TRUE(two);
  checkpoint::Checkpoint saved;
  saved.step = 300;
  for (mlir::func::FuncOp function : psFunctions(*two)) {
    VariableStore values;
    exec::PsProgram(function).initialize(values);
    for (auto &[name, value] : values)
      saved.tensors.emplace(name, std::move(value));
  }
  ASSERT_TRUE(saved.tensors.count("hid_w/part_1"));
  ASSERT_FALSE(saved.tensors.count("hid_w/part_2"));
  saved.tensors.at("global_step") = Tensor::scalar<int64_t>(300);
  saved.tensors.at("beta1_power") = Tensor::scalar<float>(0.25f);
  checkpoint::CheckpointDirectory(directory).save(saved, 5);

  mlir::OwningOpRef<mlir::ModuleOp> three = compileMlp(context, 3);
  ASSERT_TRUE(three);
  ReliabilityOptions options;
  options.initFromCheckpoint = directory;
  EXPECT_TRUE(warmStartApplies(options));
  WarmStartPlan plan = planWarmStart(
      *three, options, [](const std::string &w) { ADD_FAILURE() << w; });
  // Every task serves what it loaded once the chief confirms it.
  VariableStore served;
  for (mlir::func::FuncOp function : psFunctions(*three)) {
    std::string described;
    ps::ModelState state =
        warmStartState(plan, function, "global_step", described);
    EXPECT_EQ(state.step, 0) << described;
    ps::ParameterServer task(std::make_unique<exec::PsProgram>(function),
                             ps::Replication::async());
    task.preload(std::move(state), 0);
    EXPECT_EQ(task.restore(ps::RestoreSource::KeepRestored, 0, 1), 0);
    for (NamedTensor &tensor : task.snapshot().tensors)
      served.insert_or_assign(tensor.name, std::move(tensor.tensor));
  }
  ASSERT_TRUE(served.count("hid_w/part_2"));
  for (const char *name : {"hid_w", "hid_w/Adam", "hid_w/Adam_1"})
    EXPECT_EQ(joinShards(served, name, 3), joinShards(saved.tensors, name, 2))
        << name;
  EXPECT_EQ(served.at("hid_w/part_0").shape(), (Shape{262, 100}));
  for (const char *name : {"hid_b", "sm_w", "sm_b", "sm_w/Adam_1"})
    EXPECT_EQ(served.at(name).toVector<float>(),
              saved.tensors.at(name).toVector<float>())
        << name;
  EXPECT_EQ(served.at("beta1_power").toVector<float>(),
            std::vector<float>{0.25f});
  // The map does not name the global step: it starts at 0.
  EXPECT_EQ(served.at("global_step").toVector<int64_t>(),
            std::vector<int64_t>{0});
}

TEST_F(WarmStartTest, AMapNamingTheGlobalStepStartsThereAndOthersKeepInit) {
  mlir::OwningOpRef<mlir::ModuleOp> program = compileMlp(context, 2);
  ASSERT_TRUE(program);
  checkpoint::Checkpoint saved;
  saved.step = 300;
  saved.tensors.emplace("global_step", Tensor::scalar<int64_t>(300));
  saved.tensors.emplace("pretrained/b", Tensor::filled(DType::F32, {100}, 0.5));
  std::string file = directory + "/" + checkpoint::checkpointFileName(300);
  checkpoint::writeCheckpointFile(file, saved);
  ReliabilityOptions options;
  options.initFromCheckpoint = file;
  options.initAssignmentMap = "global_step:global_step,pretrained/b:hid_b";
  WarmStartPlan plan = planWarmStart(*program, options, nullptr);
  for (mlir::func::FuncOp function : psFunctions(*program)) {
    std::string described;
    ps::ModelState state =
        warmStartState(plan, function, "global_step", described);
    EXPECT_EQ(state.step, 300) << described;
    VariableStore initial;
    exec::PsProgram(function).initialize(initial);
    for (auto &[name, value] : state.values) {
      if (name == "hid_b") {
        EXPECT_EQ(value.toVector<float>(), std::vector<float>(100, 0.5f));
      } else if (name == "global_step") {
        EXPECT_EQ(value.toVector<int64_t>(), std::vector<int64_t>{300});
      } else if (value.dtype() == DType::F32) {
        EXPECT_EQ(value.toVector<float>(), initial.at(name).toVector<float>())
            << name;
      }
    }
  }
}

TEST_F(WarmStartTest, AShapeMismatchNamesTheVariableAndTheTensor) {
  mlir::OwningOpRef<mlir::ModuleOp> program = compileMlp(context, 1);
  ASSERT_TRUE(program);
  checkpoint::Checkpoint saved;
  saved.tensors.emplace("b", Tensor::filled(DType::F32, {99}, 0.5));
  std::string file = directory + "/" + checkpoint::checkpointFileName(0);
  checkpoint::writeCheckpointFile(file, saved);
  ReliabilityOptions options;
  options.initFromCheckpoint = file;
  options.initAssignmentMap = "b:hid_b";
  try {
    planWarmStart(*program, options, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const checkpoint::CheckpointError &error) {
    EXPECT_NE(std::string(error.what())
                  .find("variable 'hid_b' (f32[100]) does not match tensor "
                        "'b' (f32[99])"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(WarmStartTest, TheJobsOwnCheckpointComesFirst) {
  ReliabilityOptions options;
  options.initFromCheckpoint = "/nonexistent";
  options.logdir = directory;
  EXPECT_TRUE(warmStartApplies(options));
  checkpoint::Checkpoint own;
  own.tensors.emplace("w", Tensor::scalar<float>(1));
  checkpoint::CheckpointDirectory(directory).save(own, 5);
  EXPECT_FALSE(warmStartApplies(options));
}

} // namespace
} // namespace dtf::train
