//===- ClusterSpecTest.cpp - Tests of cluster descriptions ----------------===//

#include "runtime/cluster/ClusterSpec.h"

#include "runtime/cluster/ClusterTestSupport.h"

#include <gtest/gtest.h>

using namespace dtf::cluster;

namespace {

using dtf::cluster::testing::errorOf;

TEST(ClusterSpecTest, ParsesHostLists) {
  ClusterSpec spec = ClusterSpec::fromHostLists(
      "ps0:2222", "localhost:2223,[::1]:2224");
  ASSERT_EQ(spec.ps().size(), 1u);
  ASSERT_EQ(spec.workers().size(), 2u);
  EXPECT_EQ(spec.ps()[0].host, "ps0");
  EXPECT_EQ(spec.ps()[0].port, 2222);
  EXPECT_EQ(spec.workers()[1].host, "::1");
  EXPECT_EQ(spec.workers()[1].str(), "[::1]:2224");
  EXPECT_EQ(spec.address(TaskId{Job::Worker, 0}).str(), "localhost:2223");
  EXPECT_EQ((TaskId{Job::PS, 0}).deviceName(), "/job:ps/task:0");
}

TEST(ClusterSpecTest, BadHostPortNamesTheFlagAndEntry) {
  EXPECT_EQ(errorOf([] { ClusterSpec::fromHostLists("", "localhost"); }),
            "--worker_hosts entry 0: 'localhost' is not host:port (no ':port')");
  EXPECT_EQ(errorOf([] { ClusterSpec::fromHostLists("a:1,b:x", "w:1"); }),
            "--ps_hosts entry 1: 'b:x' is not host:port (the port must be a "
            "number)");
  EXPECT_EQ(errorOf([] { ClusterSpec::fromHostLists("", "w:70000"); }),
            "--worker_hosts entry 0: 'w:70000' is not host:port (the port "
            "must be in 1..65535)");
  EXPECT_EQ(errorOf([] { ClusterSpec::fromHostLists("", ":2222"); }),
            "--worker_hosts entry 0: ':2222' is not host:port (empty host)");
  EXPECT_EQ(errorOf([] { ClusterSpec::fromHostLists("", "w:1,"); }),
            "--worker_hosts entry 1: '' is not host:port (no ':port')");
  EXPECT_EQ(errorOf([] { ClusterSpec::fromHostLists("ps:1", ""); }),
            "--worker_hosts: the cluster needs at least one worker");
}

TEST(ClusterSpecTest, TaskIndexOutOfRange) {
  ClusterSpec spec = ClusterSpec::fromHostLists("p:1", "w:2,w:3");
  EXPECT_NO_THROW(spec.checkTask(TaskId{Job::Worker, 1}, "--task_index"));
  EXPECT_EQ(errorOf([&] { spec.checkTask(TaskId{Job::Worker, 2}, "--task_index"); }),
            "--task_index: task index 2 is out of range: job 'worker' has 2 "
            "tasks");
  EXPECT_EQ(errorOf([&] { spec.checkTask(TaskId{Job::PS, -1}, "--task_index"); }),
            "--task_index: task index -1 is out of range: job 'ps' has 1 task");
}

TEST(ClusterSpecTest, UnknownJob) {
  EXPECT_EQ(errorOf([] { parseJob("chief", "--job_name"); }),
            "--job_name: unknown job 'chief'; expected 'ps' or 'worker'");
}

TEST(ClusterSpecTest, ParsesTfConfig) {
  TfConfig config = parseTfConfig(R"({
    "cluster": {"ps": ["localhost:2222"],
                "worker": ["localhost:2223", "localhost:2224"]},
    "task": {"type": "worker", "index": 1}})");
  EXPECT_EQ(config.cluster.ps().size(), 1u);
  EXPECT_EQ(config.cluster.workers().size(), 2u);
  EXPECT_EQ(config.task.job, Job::Worker);
  EXPECT_EQ(config.task.index, 1);
}

TEST(ClusterSpecTest, TfConfigErrorsNameTheField) {
  EXPECT_NE(errorOf([] { parseTfConfig("{"); }).find("TF_CONFIG is not valid JSON"),
            std::string::npos);
  EXPECT_EQ(errorOf([] { parseTfConfig(R"({"task": {"type": "ps", "index": 0}})"); }),
            "TF_CONFIG: missing field 'cluster'");
  EXPECT_EQ(errorOf([] {
              parseTfConfig(R"({"cluster": {"worker": ["w:1"]}, "task": {"type": "worker"}})");
            }),
            "TF_CONFIG: missing field 'task.index'");
  EXPECT_EQ(errorOf([] {
              parseTfConfig(R"({"cluster": {"worker": ["w"]}, "task": {"type": "worker", "index": 0}})");
            }),
            "TF_CONFIG cluster.worker[0]: 'w' is not host:port (no ':port')");
  EXPECT_EQ(errorOf([] {
              parseTfConfig(R"({"cluster": {"chief": ["c:1"], "worker": ["w:1"]}, "task": {"type": "worker", "index": 0}})");
            }),
            "TF_CONFIG cluster: unsupported job 'chief'; DTF clusters have "
            "'ps' and 'worker' jobs (worker 0 is the chief)");
  EXPECT_EQ(errorOf([] {
              parseTfConfig(R"({"cluster": {"worker": ["w:1"]}, "task": {"type": "worker", "index": 3}})");
            }),
            "TF_CONFIG task.index: task index 3 is out of range: job 'worker' "
            "has 1 task");
}

TEST(ClusterSpecTest, ResolvesTheTaskFromFlagsBeforeTfConfig) {
  const char *tfConfig = R"({"cluster": {"ps": ["p:1"], "worker": ["w:1"]},
                             "task": {"type": "ps", "index": 0}})";
  TfConfig fromFlags =
      resolveTask({"a:1", "b:1,c:1", "worker", 1}, tfConfig);
  EXPECT_EQ(fromFlags.cluster.workers().size(), 2u);
  EXPECT_EQ(fromFlags.task.job, Job::Worker);
  EXPECT_EQ(fromFlags.task.index, 1);

  TfConfig fromEnvironment = resolveTask({}, tfConfig);
  EXPECT_EQ(fromEnvironment.task.job, Job::PS);
  EXPECT_EQ(fromEnvironment.cluster.ps()[0].str(), "p:1");
}

TEST(ClusterSpecTest, ResolvingATaskNamesWhatIsMissing) {
  EXPECT_EQ(errorOf([] { resolveTask({}, nullptr); }),
            "no cluster: give --ps_hosts and --worker_hosts, set TF_CONFIG, "
            "or use --local");
  EXPECT_EQ(errorOf([] { resolveTask({"a:1", "b:1", "", 0}, nullptr); }),
            "--job_name: required (ps or worker)");
  EXPECT_NE(errorOf([] { resolveTask({"a:1", "b:1", "worker", 4}, nullptr); })
                .find("--task_index"),
            std::string::npos);
}

} // namespace
