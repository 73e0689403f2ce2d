//===- InGraphMasterTest.cpp - The in-graph master, in one process --------===//
//
// The master and its trainer over two tasks that are dtf::Workers written
// in C++, reached through InProcessWorkerConnection and sharing one
// LocalRendezvous: no gRPC server, no MLIR. Partition @train_a on task A
// sends 2x its feed to @train_b on task B, which returns it; each counts
// its steps in a variable. The tests check the steps and results, the
// abort of a step on every task when one partition fails, and recovery
// from the last checkpoint.
//
//===----------------------------------------------------------------------===//

#include "runtime/train/InGraphMaster.h"

#include "runtime/train/tests/InProcessCluster.h"

#include "runtime/checkpoint/Checkpoint.h"

#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>

namespace dtf::train {
namespace {

using namespace dtf::train::testing;

constexpr const char *kTaskA = "/job:worker/task:0";
constexpr const char *kTaskB = "/job:worker/task:1";

/// A task holding the variable "steps_<name>" (f32), added one by each
/// step of its partition.
class CountingTask final : public Worker {
public:
  explicit CountingTask(std::string name) : variable("steps_" + name) {}

  void registerGraphs(const std::string &,
                      const std::vector<std::string> &functions) override {
    std::lock_guard<std::mutex> lock(mutex);
    ++registrations;
    graphs.insert(functions.begin(), functions.end());
  }

  std::vector<Tensor> runStep(const std::string &graph,
                              std::map<std::string, Tensor> feeds,
                              std::vector<Tensor>,
                              const StepOptions &options) override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!graphs.count(graph))
        throw Error(ErrorCode::NotFound, "no graph @" + graph);
    }
    if (graph == "train_a") {
      float x = feeds.at("x").toVector<float>()[0];
      options.rendezvous->send("a;b;doubled", options.stepId,
                               Tensor::scalar<float>(2 * x));
      count += 1;
      return {};
    }
    if (failNextStep.exchange(false))
      throw Error(ErrorCode::Unavailable, "task B lost its GPU");
    Tensor doubled = options.rendezvous->recv("a;b;doubled", options.stepId,
                                              options.deadline);
    count += 1;
    std::vector<Tensor> results;
    results.push_back(std::move(doubled));
    return results;
  }

  VariableStore snapshotVariables() override {
    VariableStore values;
    values.emplace(variable, Tensor::scalar<float>(static_cast<float>(count)));
    return values;
  }

  std::vector<std::string> assignVariables(VariableStore values) override {
    auto it = values.find(variable);
    if (it == values.end())
      return {};
    count = static_cast<int>(it->second.scalarAsDouble());
    return {variable};
  }

  std::string variable;
  std::atomic<int> count{0};
  std::atomic<bool> failNextStep{false};
  int registrations = 0;

private:
  std::mutex mutex;
  std::set<std::string> graphs;
};

class InGraphMasterTest : public ::testing::Test {
protected:
  InGraphMasterTest()
      : taskA("a"), taskB("b"),
        connectionA(taskA, rendezvous, kTaskA, std::chrono::seconds(5)),
        connectionB(taskB, rendezvous, kTaskB, std::chrono::seconds(5)),
        master({{kTaskA, &connectionA}, {kTaskB, &connectionB}}, kTaskA, 2,
               std::chrono::seconds(5)) {
    partitions = {{"train_a", kTaskA, {"x"}, false},
                  {"train_b", kTaskB, {}, true}};
  }

  /// Feeds x = 1, 2, 3, ... (one example per batch).
  static std::unique_ptr<data::InputSource> counting(int64_t count) {
    std::vector<float> values;
    for (int64_t i = 1; i <= count; ++i)
      values.push_back(static_cast<float>(i));
    std::vector<std::pair<std::string, Tensor>> columns;
    columns.emplace_back("x", Tensor::fromVector<float>({count}, values));
    return std::make_unique<data::TensorSlices>(std::move(columns));
  }

  LocalRendezvous rendezvous;
  CountingTask taskA, taskB;
  InProcessWorkerConnection connectionA, connectionB;
  InGraphMaster master;
  std::vector<Partition> partitions;
};

/// Remembers the results of every step.
class ResultsHook final : public TrainingHook {
public:
  void afterStep(const StepRecord &step) override {
    results.push_back((*step.fetched)[0].scalarAsDouble());
    globalSteps.push_back(step.globalStep);
  }
  std::vector<double> results;
  std::vector<int64_t> globalSteps;
};

TEST_F(InGraphMasterTest, RunsEveryPartitionOfEachStepTogether) {
  InGraphTrainingOptions options;
  options.trainSteps = 5;
  InGraphTrainer trainer(master, "module", partitions, partitions, options);
  int64_t step = trainer.establish();
  EXPECT_EQ(step, 0);
  auto input = counting(10);
  ResultsHook hook;
  InGraphTrainingResult result = trainer.train(step, *input, 1, {&hook});
  EXPECT_EQ(result.globalStep, 5);
  EXPECT_EQ(result.localSteps, 5);
  // @train_b returned what @train_a sent it, through the rendezvous.
  EXPECT_EQ(hook.results, (std::vector<double>{2, 4, 6, 8, 10}));
  EXPECT_EQ(hook.globalSteps, (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_EQ(taskA.count, 5);
  EXPECT_EQ(taskB.count, 5);
}

TEST_F(InGraphMasterTest, AFailedPartitionAbortsTheStepOnEveryTask) {
  master.registerPartitions("module", partitions);
  taskB.failNextStep = true;
  try {
    FeedMap feeds;
    feeds.emplace("x", Tensor::fromVector<float>({1}, {1.0f}));
    master.runStep(partitions, 1, std::move(feeds), nullptr);
    FAIL() << "the step succeeded";
  } catch (const Error &error) {
    // The cause keeps its code and names its task.
    EXPECT_EQ(error.code(), ErrorCode::Unavailable);
    EXPECT_NE(std::string(error.what())
                  .find("step 1 failed on task /job:worker/task:1"),
              std::string::npos)
        << error.what();
  }
  // The step was aborted: what is sent in it later fails, nothing waits.
  EXPECT_EQ(expectError([&] {
              rendezvous.send("a;b;doubled", 1, Tensor::scalar<float>(0));
            }).code(),
            ErrorCode::Aborted);
}

TEST_F(InGraphMasterTest, RecoversFromTheLastCheckpoint) {
  std::filesystem::path logdir =
      std::filesystem::temp_directory_path() /
      ("dtf_in_graph_master_" + std::to_string(::getpid()));
  std::filesystem::remove_all(logdir);
  InGraphTrainingOptions options;
  options.trainSteps = 8;
  options.reliability.logdir = logdir.string();
  options.reliability.saveCheckpointSteps = 3;
  options.reliability.recoveryTimeoutMs = 5'000;
  InGraphTrainer trainer(master, "module", partitions, partitions, options);
  auto input = counting(100);
  class FailAtStep final : public TrainingHook {
  public:
    explicit FailAtStep(CountingTask &task) : task(task) {}
    void afterStep(const StepRecord &step) override {
      if (step.globalStep == 4 && !failed) {
        failed = true;
        task.failNextStep = true; // step 5 fails
      }
    }
    CountingTask &task;
    bool failed = false;
  } failAtStep(taskB);
  InGraphTrainingResult result =
      trainer.train(trainer.establish(), *input, 1, {&failAtStep});
  EXPECT_EQ(result.globalStep, 8);
  // Step 5 failed on B after A had counted it; the model went back to the
  // checkpoint of step 3 on both tasks, so each counted 3 + 5 steps.
  EXPECT_EQ(taskA.count, 8);
  EXPECT_EQ(taskB.count, 8);
  EXPECT_EQ(taskA.registrations, 2);
  checkpoint::CheckpointDirectory directory(logdir.string());
  auto newest = directory.loadNewest([](const std::string &) {});
  ASSERT_TRUE(newest);
  EXPECT_EQ(newest->checkpoint.step, 8);
  EXPECT_EQ(newest->checkpoint.tensors.at("steps_a").scalarAsDouble(), 8);
  std::filesystem::remove_all(logdir);
}

} // namespace
} // namespace dtf::train
