//===- Slurm.cpp - The cluster of a Slurm job step ------------------------===//

#include "runtime/cluster/Slurm.h"

#include <cctype>
#include <string_view>

namespace dtf::cluster {
namespace {

/// The comma-separated items of `text` that are not inside brackets.
std::vector<std::string> splitTopLevel(const std::string &text,
                                       const std::string &what) {
  std::vector<std::string> items;
  std::string current;
  int depth = 0;
  for (char c : text) {
    if (c == '[')
      ++depth;
    else if (c == ']' && --depth < 0)
      throw ClusterError(what + ": unbalanced ']' in '" + text + "'");
    if (c == ',' && depth == 0) {
      items.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (depth != 0)
    throw ClusterError(what + ": unbalanced '[' in '" + text + "'");
  items.push_back(current);
  return items;
}

bool isNumber(std::string_view text) {
  if (text.empty() || text.size() > 9)
    return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
}

/// "01-03,7" -> {"01", "02", "03", "7"}: each range keeps the width of its
/// first bound when that is zero-padded, as Slurm prints it.
std::vector<std::string> expandRanges(const std::string &ranges,
                                      const std::string &what) {
  std::vector<std::string> values;
  for (const std::string &range : splitTopLevel(ranges, what)) {
    size_t dash = range.find('-');
    std::string first = range.substr(0, dash);
    std::string last =
        dash == std::string::npos ? first : range.substr(dash + 1);
    if (!isNumber(first) || !isNumber(last))
      throw ClusterError(what + ": '" + range +
                         "' is not a number or a range N-M");
    int low = std::stoi(first), high = std::stoi(last);
    if (high < low)
      throw ClusterError(what + ": the range '" + range + "' runs backwards");
    size_t width = first.size() > 1 && first[0] == '0' ? first.size() : 0;
    for (int value = low; value <= high; ++value) {
      std::string digits = std::to_string(value);
      if (digits.size() < width)
        digits.insert(0, width - digits.size(), '0');
      values.push_back(digits);
    }
  }
  return values;
}

/// One host name with any number of bracketed ranges.
void expandHost(const std::string &host, const std::string &what,
                std::vector<std::string> &hosts) {
  size_t open = host.find('[');
  if (open == std::string::npos) {
    if (host.find(']') != std::string::npos)
      throw ClusterError(what + ": unbalanced ']' in '" + host + "'");
    hosts.push_back(host);
    return;
  }
  size_t close = host.find(']', open);
  if (close == std::string::npos)
    throw ClusterError(what + ": unbalanced '[' in '" + host + "'");
  std::string prefix = host.substr(0, open);
  std::string ranges = host.substr(open + 1, close - open - 1);
  if (ranges.find('[') != std::string::npos)
    throw ClusterError(what + ": brackets inside brackets in '" + host + "'");
  std::vector<std::string> rest;
  expandHost(host.substr(close + 1), what, rest);
  for (const std::string &value : expandRanges(ranges, what))
    for (const std::string &suffix : rest)
      hosts.push_back(prefix + value + suffix);
}

/// The value of `name`, which must be set.
std::string required(const Environment &environment, const char *name) {
  const char *value = environment(name);
  if (!value || !*value)
    throw ClusterError(std::string(name) +
                       " is not set: --cluster_resolver=slurm runs in a "
                       "Slurm job step (srun)");
  return value;
}

int requiredNumber(const Environment &environment, const char *name) {
  std::string value = required(environment, name);
  if (!isNumber(value))
    throw ClusterError(std::string(name) + "='" + value + "' is not a number");
  return std::stoi(value);
}

} // namespace

std::vector<std::string> expandSlurmHostList(const std::string &list,
                                             const std::string &what) {
  std::vector<std::string> hosts;
  for (const std::string &item : splitTopLevel(list, what)) {
    if (item.empty())
      throw ClusterError(what + ": an empty host name in '" + list + "'");
    expandHost(item, what, hosts);
  }
  return hosts;
}

std::vector<int> expandSlurmTasksPerNode(const std::string &spec,
                                         const std::string &what) {
  std::vector<int> counts;
  for (const std::string &item : splitTopLevel(spec, what)) {
    size_t paren = item.find('(');
    std::string count = item.substr(0, paren);
    int repeat = 1;
    if (paren != std::string::npos) {
      // "2(x3)": 2 tasks on each of 3 nodes.
      if (item.size() < paren + 4 || item.compare(paren, 2, "(x") != 0 ||
          item.back() != ')' ||
          !isNumber(item.substr(paren + 2, item.size() - paren - 3)))
        throw ClusterError(what + ": '" + item + "' is not N or N(xM)");
      repeat = std::stoi(item.substr(paren + 2, item.size() - paren - 3));
    }
    if (!isNumber(count))
      throw ClusterError(what + ": '" + item + "' is not N or N(xM)");
    counts.insert(counts.end(), repeat, std::stoi(count));
  }
  return counts;
}

TfConfig resolveSlurm(const Environment &environment, int numPs, int basePort) {
  int rank = requiredNumber(environment, "SLURM_PROCID");
  int numTasks = requiredNumber(environment, "SLURM_STEP_NUM_TASKS");
  std::vector<std::string> nodes = expandSlurmHostList(
      required(environment, "SLURM_STEP_NODELIST"), "SLURM_STEP_NODELIST");
  std::vector<int> perNode = expandSlurmTasksPerNode(
      required(environment, "SLURM_STEP_TASKS_PER_NODE"),
      "SLURM_STEP_TASKS_PER_NODE");
  if (perNode.size() != nodes.size())
    throw ClusterError(
        "SLURM_STEP_TASKS_PER_NODE gives " + std::to_string(perNode.size()) +
        " nodes, SLURM_STEP_NODELIST " + std::to_string(nodes.size()));
  if (numPs < 1 || numPs >= numTasks)
    throw ClusterError(
        "--ps=" + std::to_string(numPs) +
        " does not fit SLURM_STEP_NUM_TASKS=" + std::to_string(numTasks) +
        ": the step needs at least one PS task and one worker");
  if (rank < 0 || rank >= numTasks)
    throw ClusterError(
        "SLURM_PROCID=" + std::to_string(rank) +
        " is not a task of SLURM_STEP_NUM_TASKS=" + std::to_string(numTasks));
  if (basePort < 1)
    throw ClusterError("--slurm_port_base: must be a port, got " +
                       std::to_string(basePort));

  std::vector<HostPort> addresses;
  for (size_t node = 0; node < nodes.size(); ++node)
    for (int local = 0; local < perNode[node]; ++local) {
      if (basePort + local > 65535)
        throw ClusterError("--slurm_port_base: port " +
                           std::to_string(basePort + local) + " of node " +
                           nodes[node] + " is beyond 65535");
      addresses.push_back(
          HostPort{nodes[node], static_cast<uint16_t>(basePort + local)});
    }
  if (static_cast<int>(addresses.size()) != numTasks)
    throw ClusterError(
        "SLURM_STEP_TASKS_PER_NODE places " + std::to_string(addresses.size()) +
        " tasks, SLURM_STEP_NUM_TASKS says " + std::to_string(numTasks));
  std::vector<HostPort> ps(addresses.begin(), addresses.begin() + numPs);
  std::vector<HostPort> workers(addresses.begin() + numPs, addresses.end());
  TaskId task =
      rank < numPs ? TaskId{Job::PS, rank} : TaskId{Job::Worker, rank - numPs};
  return TfConfig{ClusterSpec(std::move(ps), std::move(workers)), task};
}

} // namespace dtf::cluster
