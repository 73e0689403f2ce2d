//===- HostMemory.cpp - How much memory a task may still allocate ---------===//

#include "runtime/core/HostMemory.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace dtf {
namespace {

std::string readFile(const std::string &path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

/// The cgroup v2 directory of this process ("0::/user.slice/..." in
/// /proc/self/cgroup), or empty.
std::string cgroupDirectory() {
  std::istringstream lines(readFile("/proc/self/cgroup"));
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind("0::", 0) == 0)
      return "/sys/fs/cgroup" + line.substr(3);
  return "";
}

std::optional<uint64_t> parseCount(const std::string &text) {
  unsigned long long value = 0;
  if (std::sscanf(text.c_str(), "%llu", &value) != 1)
    return std::nullopt;
  return value;
}

} // namespace

std::optional<uint64_t> availableMemoryFrom(const std::string &meminfo,
                                            const std::string &cgroupMax,
                                            const std::string &cgroupCurrent) {
  std::optional<uint64_t> available;
  std::istringstream lines(meminfo);
  std::string line;
  while (std::getline(lines, line)) {
    unsigned long long kilobytes = 0;
    if (std::sscanf(line.c_str(), "MemAvailable: %llu kB", &kilobytes) == 1)
      available = static_cast<uint64_t>(kilobytes) * 1024;
  }
  std::optional<uint64_t> limit = parseCount(cgroupMax); // "max": none
  if (limit) {
    uint64_t used = parseCount(cgroupCurrent).value_or(0);
    uint64_t left = *limit > used ? *limit - used : 0;
    available = available ? std::min(*available, left) : left;
  }
  return available;
}

std::optional<uint64_t> availableHostMemory() {
  std::string cgroup = cgroupDirectory();
  return availableMemoryFrom(
      readFile("/proc/meminfo"),
      cgroup.empty() ? "" : readFile(cgroup + "/memory.max"),
      cgroup.empty() ? "" : readFile(cgroup + "/memory.current"));
}

std::string formatBytes(uint64_t bytes) {
  static const char *const units[] = {"bytes", "KB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1000 && unit < 4) {
    value /= 1000;
    ++unit;
  }
  char text[32];
  if (unit == 0)
    std::snprintf(text, sizeof(text), "%llu bytes",
                  static_cast<unsigned long long>(bytes));
  else
    std::snprintf(text, sizeof(text), "%.1f %s", value, units[unit]);
  return text;
}

} // namespace dtf
