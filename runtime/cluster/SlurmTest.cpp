//===- SlurmTest.cpp - The cluster of a Slurm job step --------------------===//

#include "runtime/cluster/Slurm.h"

#include "runtime/cluster/ClusterTestSupport.h"

#include <gtest/gtest.h>

#include <map>

using namespace dtf::cluster;

namespace {

using Hosts = std::vector<std::string>;

using dtf::cluster::testing::errorOf;

Hosts expand(const std::string &list) {
  return expandSlurmHostList(list, "SLURM_STEP_NODELIST");
}

// The forms of Slurm's own documentation (scontrol show hostnames).
TEST(SlurmTest, ExpandsHostLists) {
  EXPECT_EQ(expand("node1"), (Hosts{"node1"}));
  EXPECT_EQ(expand("node[1-3,5]"), (Hosts{"node1", "node2", "node3", "node5"}));
  EXPECT_EQ(expand("a[01-02],b1"), (Hosts{"a01", "a02", "b1"}));
  EXPECT_EQ(expand("tux[008-011]"),
            (Hosts{"tux008", "tux009", "tux010", "tux011"}));
  EXPECT_EQ(expand("n[9-10]"), (Hosts{"n9", "n10"}));
  // Several bracketed parts in one name: every combination, in order.
  EXPECT_EQ(
      expand("rack[1-2]-node[08-09]"),
      (Hosts{"rack1-node08", "rack1-node09", "rack2-node08", "rack2-node09"}));
  EXPECT_EQ(expand("gpu[1,3]x,cpu[0-1]"),
            (Hosts{"gpu1x", "gpu3x", "cpu0", "cpu1"}));
}

TEST(SlurmTest, MalformedHostListsNameTheVariable) {
  EXPECT_EQ(errorOf([] { expand("node[1-3"); }),
            "SLURM_STEP_NODELIST: unbalanced '[' in 'node[1-3'");
  EXPECT_EQ(errorOf([] { expand("node1-3]"); }),
            "SLURM_STEP_NODELIST: unbalanced ']' in 'node1-3]'");
  EXPECT_EQ(errorOf([] { expand("node[3-1]"); }),
            "SLURM_STEP_NODELIST: the range '3-1' runs backwards");
  EXPECT_EQ(errorOf([] { expand("node[a-b]"); }),
            "SLURM_STEP_NODELIST: 'a-b' is not a number or a range N-M");
  EXPECT_EQ(errorOf([] { expand("a,,b"); }),
            "SLURM_STEP_NODELIST: an empty host name in 'a,,b'");
  EXPECT_EQ(errorOf([] { expand("n[[1]]"); }),
            "SLURM_STEP_NODELIST: brackets inside brackets in 'n[[1]]'");
}

TEST(SlurmTest, ExpandsTasksPerNode) {
  EXPECT_EQ(expandSlurmTasksPerNode("3", "V"), (std::vector<int>{3}));
  EXPECT_EQ(expandSlurmTasksPerNode("2(x3),1", "V"),
            (std::vector<int>{2, 2, 2, 1}));
  EXPECT_EQ(errorOf([] { expandSlurmTasksPerNode("2(3)", "V"); }),
            "V: '2(3)' is not N or N(xM)");
}

/// A Slurm step's environment.
struct FakeEnvironment {
  std::map<std::string, std::string> variables;
  Environment get() const {
    return [this](const char *name) -> const char * {
      auto it = variables.find(name);
      return it == variables.end() ? nullptr : it->second.c_str();
    };
  }
};

// srun -n 5 over two nodes (3 tasks on n01, 2 on n02), --ps=2.
TEST(SlurmTest, TasksAreNumberedOverTheNodesAndSplitIntoJobs) {
  FakeEnvironment environment{{{"SLURM_STEP_NUM_TASKS", "5"},
                               {"SLURM_STEP_NODELIST", "n[01-02]"},
                               {"SLURM_STEP_TASKS_PER_NODE", "3,2"}}};
  std::vector<std::string> names;
  for (int rank = 0; rank < 5; ++rank) {
    environment.variables["SLURM_PROCID"] = std::to_string(rank);
    TfConfig config = resolveSlurm(environment.get(), 2, 8888);
    names.push_back(config.task.deviceName() + "@" +
                    config.cluster.address(config.task).str());
    EXPECT_EQ(config.cluster.ps().size(), 2u);
    EXPECT_EQ(config.cluster.workers().size(), 3u);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"/job:ps/task:0@n01:8888",
                                             "/job:ps/task:1@n01:8889",
                                             "/job:worker/task:0@n01:8890",
                                             "/job:worker/task:1@n02:8888",
                                             "/job:worker/task:2@n02:8889"}));
}

TEST(SlurmTest, BadStepsNameTheVariableOrFlag) {
  FakeEnvironment environment{{{"SLURM_PROCID", "0"},
                               {"SLURM_STEP_NUM_TASKS", "3"},
                               {"SLURM_STEP_NODELIST", "n1"},
                               {"SLURM_STEP_TASKS_PER_NODE", "3"}}};
  EXPECT_NO_THROW(resolveSlurm(environment.get(), 1, 8888));
  EXPECT_EQ(errorOf([&] { resolveSlurm(environment.get(), 3, 8888); }),
            "--ps=3 does not fit SLURM_STEP_NUM_TASKS=3: the step needs at "
            "least one PS task and one worker");

  FakeEnvironment missing = environment;
  missing.variables.erase("SLURM_STEP_NODELIST");
  EXPECT_EQ(errorOf([&] { resolveSlurm(missing.get(), 1, 8888); }),
            "SLURM_STEP_NODELIST is not set: --cluster_resolver=slurm runs in "
            "a Slurm job step (srun)");

  FakeEnvironment uneven = environment;
  uneven.variables["SLURM_STEP_TASKS_PER_NODE"] = "2";
  EXPECT_EQ(errorOf([&] { resolveSlurm(uneven.get(), 1, 8888); }),
            "SLURM_STEP_TASKS_PER_NODE places 2 tasks, SLURM_STEP_NUM_TASKS "
            "says 3");

  FakeEnvironment nodes = environment;
  nodes.variables["SLURM_STEP_NODELIST"] = "n[1-2]";
  EXPECT_EQ(errorOf([&] { resolveSlurm(nodes.get(), 1, 8888); }),
            "SLURM_STEP_TASKS_PER_NODE gives 1 nodes, SLURM_STEP_NODELIST 2");

  FakeEnvironment notNumber = environment;
  notNumber.variables["SLURM_PROCID"] = "first";
  EXPECT_EQ(errorOf([&] { resolveSlurm(notNumber.get(), 1, 8888); }),
            "SLURM_PROCID='first' is not a number");
}

} // namespace
