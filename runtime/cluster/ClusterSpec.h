//===- ClusterSpec.h - The tasks of a training cluster --------------------===//
//
// TensorFlow's ClusterSpec: the host:port of every task of the `ps` and
// `worker` jobs, and which task this process is. Read from the TF-style
// flags (--ps_hosts, --worker_hosts, --job_name, --task_index) or from the
// TF_CONFIG environment variable (Slurm.h reads a Slurm job step). Every
// error names the flag or the TF_CONFIG field at fault.
//
//===----------------------------------------------------------------------===//

#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dtf::cluster {

/// A cluster description that cannot be used, with the flag or field named.
class ClusterError : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

struct HostPort {
  std::string host;
  uint16_t port = 0;

  std::string str() const;
};

/// Parses "host:port" (IPv6 hosts in brackets: "[::1]:2222"); `what` names
/// the source in errors, e.g. "--worker_hosts entry 2".
HostPort parseHostPort(const std::string &text, const std::string &what);

enum class Job { PS, Worker };

/// "ps" or "worker"; anything else is an error naming `what`.
Job parseJob(const std::string &name, const std::string &what);
const char *jobName(Job job);

struct TaskId {
  Job job = Job::Worker;
  int index = 0;

  /// The TensorFlow device name of the task, "/job:worker/task:1".
  std::string deviceName() const;
};

class ClusterSpec {
public:
  ClusterSpec(std::vector<HostPort> ps, std::vector<HostPort> workers);

  /// From comma-separated host:port lists (--ps_hosts, --worker_hosts).
  static ClusterSpec fromHostLists(const std::string &psHosts,
                                   const std::string &workerHosts);

  const std::vector<HostPort> &ps() const { return ps_; }
  const std::vector<HostPort> &workers() const { return workers_; }
  const std::vector<HostPort> &tasks(Job job) const {
    return job == Job::PS ? ps_ : workers_;
  }
  const HostPort &address(const TaskId &task) const;

  /// Checks that `task` exists in the cluster; `what` names the source of
  /// the index in the error ("--task_index", "TF_CONFIG task.index").
  void checkTask(const TaskId &task, const std::string &what) const;

private:
  std::vector<HostPort> ps_;
  std::vector<HostPort> workers_;
};

/// The cluster and this process's task, as TF_CONFIG describes them:
/// {"cluster": {"ps": [...], "worker": [...]},
///  "task": {"type": "worker", "index": 1}}.
struct TfConfig {
  ClusterSpec cluster;
  TaskId task;
};
TfConfig parseTfConfig(const std::string &json);

/// How a task names its cluster and itself on the command line, as
/// TensorFlow's examples do (--ps_hosts, --worker_hosts, --job_name,
/// --task_index).
struct TaskFlags {
  std::string psHosts;
  std::string workerHosts;
  std::string jobName;
  int taskIndex = 0;
};

/// This process's cluster and task: from `flags` when they name any host,
/// else from the TF_CONFIG JSON `tfConfig` (null when the variable is not
/// set), as TensorFlow's TFConfigClusterResolver reads it. Throws
/// ClusterError naming the flag or the field at fault.
TfConfig resolveTask(const TaskFlags &flags, const char *tfConfig);

} // namespace dtf::cluster
