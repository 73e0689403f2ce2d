//===- ClusterSpec.cpp - The tasks of a training cluster ------------------===//

#include "runtime/cluster/ClusterSpec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace dtf::cluster {

std::string HostPort::str() const {
  bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

HostPort parseHostPort(const std::string &text, const std::string &what) {
  auto bad = [&](const std::string &why) {
    return ClusterError(what + ": '" + text + "' is not host:port (" + why +
                        ")");
  };
  size_t colon = text.rfind(':');
  if (colon == std::string::npos)
    throw bad("no ':port'");
  std::string host = text.substr(0, colon);
  std::string port = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  else if (host.find(':') != std::string::npos)
    throw bad("an IPv6 host needs brackets, as in [::1]:2222");
  if (host.empty())
    throw bad("empty host");
  for (char c : host)
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == '/')
      throw bad("invalid character in host");
  if (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    throw bad("the port must be a number");
  int number = std::stoi(port);
  if (number < 1 || number > 65535)
    throw bad("the port must be in 1..65535");
  return HostPort{host, static_cast<uint16_t>(number)};
}

Job parseJob(const std::string &name, const std::string &what) {
  if (name == "ps")
    return Job::PS;
  if (name == "worker")
    return Job::Worker;
  throw ClusterError(what + ": unknown job '" + name +
                     "'; expected 'ps' or 'worker'");
}

const char *jobName(Job job) { return job == Job::PS ? "ps" : "worker"; }

std::string TaskId::deviceName() const {
  return std::string("/job:") + jobName(job) + "/task:" +
         std::to_string(index);
}

ClusterSpec::ClusterSpec(std::vector<HostPort> ps,
                         std::vector<HostPort> workers)
    : ps_(std::move(ps)), workers_(std::move(workers)) {}

/// Splits a comma-separated list; an empty list gives no entries.
static std::vector<std::string> splitList(const std::string &list) {
  std::vector<std::string> entries;
  if (list.empty())
    return entries;
  size_t start = 0;
  while (true) {
    size_t comma = list.find(',', start);
    entries.push_back(list.substr(start, comma - start));
    if (comma == std::string::npos)
      return entries;
    start = comma + 1;
  }
}

static std::vector<HostPort> parseList(const std::string &list,
                                       const std::string &flag) {
  std::vector<HostPort> tasks;
  std::vector<std::string> entries = splitList(list);
  for (size_t i = 0; i < entries.size(); ++i)
    tasks.push_back(parseHostPort(
        entries[i], flag + " entry " + std::to_string(i)));
  return tasks;
}

ClusterSpec ClusterSpec::fromHostLists(const std::string &psHosts,
                                       const std::string &workerHosts) {
  std::vector<HostPort> workers = parseList(workerHosts, "--worker_hosts");
  if (workers.empty())
    throw ClusterError("--worker_hosts: the cluster needs at least one worker");
  return ClusterSpec(parseList(psHosts, "--ps_hosts"), std::move(workers));
}

const HostPort &ClusterSpec::address(const TaskId &task) const {
  checkTask(task, "task");
  return tasks(task.job)[task.index];
}

void ClusterSpec::checkTask(const TaskId &task,
                            const std::string &what) const {
  size_t count = tasks(task.job).size();
  if (task.index < 0 || static_cast<size_t>(task.index) >= count)
    throw ClusterError(what + ": task index " + std::to_string(task.index) +
                       " is out of range: job '" + jobName(task.job) +
                       "' has " + std::to_string(count) +
                       (count == 1 ? " task" : " tasks"));
}

TfConfig parseTfConfig(const std::string &text) {
  nlohmann::json config;
  try {
    config = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &error) {
    throw ClusterError(std::string("TF_CONFIG is not valid JSON: ") +
                       error.what());
  }
  auto field = [&](const nlohmann::json &object, const char *name,
                   const std::string &path) -> const nlohmann::json & {
    if (!object.is_object() || !object.contains(name))
      throw ClusterError("TF_CONFIG: missing field '" + path + "'");
    return object.at(name);
  };
  auto hostList = [&](const nlohmann::json &cluster, const char *job) {
    std::vector<HostPort> tasks;
    if (!cluster.contains(job))
      return tasks;
    const nlohmann::json &list = cluster.at(job);
    std::string path = std::string("cluster.") + job;
    if (!list.is_array())
      throw ClusterError("TF_CONFIG " + path + ": expected a list of host:port");
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_string())
        throw ClusterError("TF_CONFIG " + path + "[" + std::to_string(i) +
                           "]: expected a \"host:port\" string");
      tasks.push_back(parseHostPort(list[i].get<std::string>(),
                                    "TF_CONFIG " + path + "[" +
                                        std::to_string(i) + "]"));
    }
    return tasks;
  };

  const nlohmann::json &cluster = field(config, "cluster", "cluster");
  if (!cluster.is_object())
    throw ClusterError("TF_CONFIG cluster: expected an object of job lists");
  for (auto &[job, tasks] : cluster.items())
    if (job != "ps" && job != "worker")
      throw ClusterError("TF_CONFIG cluster: unsupported job '" + job +
                         "'; DTF clusters have 'ps' and 'worker' jobs "
                         "(worker 0 is the chief)");
  std::vector<HostPort> workers = hostList(cluster, "worker");
  if (workers.empty())
    throw ClusterError("TF_CONFIG cluster.worker: the cluster needs at least "
                       "one worker");
  TfConfig result{ClusterSpec(hostList(cluster, "ps"), std::move(workers)),
                  TaskId{}};

  const nlohmann::json &task = field(config, "task", "task");
  const nlohmann::json &type = field(task, "type", "task.type");
  const nlohmann::json &index = field(task, "index", "task.index");
  if (!type.is_string())
    throw ClusterError("TF_CONFIG task.type: expected \"ps\" or \"worker\"");
  if (!index.is_number_integer())
    throw ClusterError("TF_CONFIG task.index: expected an integer");
  result.task.job = parseJob(type.get<std::string>(), "TF_CONFIG task.type");
  result.task.index = index.get<int>();
  result.cluster.checkTask(result.task, "TF_CONFIG task.index");
  return result;
}

TfConfig resolveTask(const TaskFlags &flags, const char *tfConfig) {
  if (flags.psHosts.empty() && flags.workerHosts.empty()) {
    if (!tfConfig)
      throw ClusterError("no cluster: give --ps_hosts and --worker_hosts, set "
                         "TF_CONFIG, or use --local");
    return parseTfConfig(tfConfig);
  }
  ClusterSpec spec = ClusterSpec::fromHostLists(flags.psHosts,
                                                flags.workerHosts);
  if (flags.jobName.empty())
    throw ClusterError("--job_name: required (ps or worker)");
  TaskId task{parseJob(flags.jobName, "--job_name"), flags.taskIndex};
  spec.checkTask(task, "--task_index");
  return TfConfig{std::move(spec), task};
}

} // namespace dtf::cluster
