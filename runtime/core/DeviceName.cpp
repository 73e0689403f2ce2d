//===- DeviceName.cpp - TensorFlow device names ---------------------------===//

#include "runtime/core/DeviceName.h"

#include <cctype>
#include <vector>

namespace dtf {
namespace {

/// A non-negative decimal index such as the N of "task:N".
std::optional<int64_t> parseIndex(std::string_view text) {
  if (text.empty() || text.size() > 9)
    return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

bool consumePrefix(std::string_view &text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix)
    return false;
  text.remove_prefix(prefix.size());
  return true;
}

std::string upper(std::string_view text) {
  std::string result(text);
  for (char &c : result)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return result;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos)
      return parts;
    text.remove_prefix(at + 1);
  }
}

/// TYPE:K (or TYPE, with `indexOptional`) into `device`.
bool parseTypeAndIndex(std::string_view text, bool indexOptional,
                       DeviceName &device, std::string &error) {
  size_t colon = text.find(':');
  std::string type = upper(text.substr(0, colon));
  if (type != "CPU" && type != "GPU") {
    error = "unknown device type '" + std::string(text.substr(0, colon)) +
            "'; expected 'CPU' or 'GPU'";
    return false;
  }
  std::string_view index =
      colon == std::string_view::npos ? "" : text.substr(colon + 1);
  std::optional<int64_t> parsed = parseIndex(index);
  if (!parsed && (!indexOptional || colon != std::string_view::npos)) {
    error = "device index '" + std::string(index) +
            "' is not a non-negative integer";
    return false;
  }
  device.type = type;
  device.index = parsed.value_or(0);
  return true;
}

} // namespace

std::optional<DeviceName> DeviceName::parseFull(std::string_view name,
                                                std::string &error) {
  if (!consumePrefix(name, "/")) {
    error = "expected a leading '/'";
    return std::nullopt;
  }
  std::vector<std::string_view> parts = split(name, '/');
  size_t next = 0;
  auto component = [&]() {
    return next < parts.size() ? parts[next] : std::string_view();
  };

  DeviceName device;
  std::string_view job = component();
  if (!consumePrefix(job, "job:")) {
    error = "expected 'job:NAME' first, got '" + std::string(component()) + "'";
    return std::nullopt;
  }
  if (job != "ps" && job != "worker") {
    error = "unknown job '" + std::string(job) + "'; expected 'ps' or 'worker'";
    return std::nullopt;
  }
  device.job = job;
  ++next;

  std::string_view replica = component();
  if (consumePrefix(replica, "replica:")) {
    if (!parseIndex(replica)) {
      error = "replica index '" + std::string(replica) +
              "' is not a non-negative integer";
      return std::nullopt;
    }
    ++next;
  }

  std::string_view task = component();
  if (!consumePrefix(task, "task:")) {
    error = "expected 'task:N' after the job, got '" +
            std::string(component()) + "'";
    return std::nullopt;
  }
  std::optional<int64_t> taskIndex = parseIndex(task);
  if (!taskIndex) {
    error =
        "task index '" + std::string(task) + "' is not a non-negative integer";
    return std::nullopt;
  }
  device.task = *taskIndex;
  ++next;

  if (next < parts.size()) {
    std::string_view part = parts[next];
    if (!consumePrefix(part, "device:")) {
      error = "expected 'device:TYPE:K' after the task, got '" +
              std::string(parts[next]) + "'";
      return std::nullopt;
    }
    if (!parseTypeAndIndex(part, /*indexOptional=*/false, device, error))
      return std::nullopt;
    ++next;
  }
  if (next < parts.size()) {
    error = "unexpected component '" + std::string(parts[next]) +
            "' after the device";
    return std::nullopt;
  }
  return device;
}

std::optional<DeviceName> DeviceName::parseDevice(std::string_view name,
                                                  std::string &error) {
  if (name.substr(0, 5) == "/job:") {
    std::optional<DeviceName> device = parseFull(name, error);
    if (device && !device->hasDevice()) {
      error = "'" + std::string(name) + "' names a task, not a device on it";
      return std::nullopt;
    }
    return device;
  }
  if (!consumePrefix(name, "/device:"))
    consumePrefix(name, "/");
  DeviceName device;
  if (!parseTypeAndIndex(name, /*indexOptional=*/true, device, error))
    return std::nullopt;
  return device;
}

std::string DeviceName::taskName() const {
  if (job.empty())
    return "";
  return "/job:" + job + "/task:" + std::to_string(task);
}

std::string DeviceName::str() const {
  std::string name = taskName();
  if (hasDevice())
    name += "/device:" + type + ":" + std::to_string(index);
  return name;
}

} // namespace dtf
