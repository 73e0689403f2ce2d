//===- TraceRecorder.cpp - Chrome trace / Perfetto JSON timelines ---------===//

#include "runtime/trace/TraceRecorder.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace dtf::trace {

using json = nlohmann::json;

TraceRecorder::TraceRecorder(int pid, std::string processName)
    : pid_(pid), processName(std::move(processName)) {
  steadyOrigin = Clock::now();
  wallOriginMicros = std::chrono::duration<double, std::micro>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  metadata.push_back({{"ph", "M"},
                      {"pid", pid_},
                      {"tid", 0},
                      {"name", "process_name"},
                      {"args", {{"name", this->processName}}}});
  metadata.push_back({{"ph", "M"},
                      {"pid", pid_},
                      {"tid", 0},
                      {"name", "process_sort_index"},
                      {"args", {{"sort_index", pid_}}}});
}

void TraceRecorder::nameThread(int tid, const std::string &name) {
  std::lock_guard<std::mutex> lock(mutex);
  metadata.push_back({{"ph", "M"},
                      {"pid", pid_},
                      {"tid", tid},
                      {"name", "thread_name"},
                      {"args", {{"name", name}}}});
  metadata.push_back({{"ph", "M"},
                      {"pid", pid_},
                      {"tid", tid},
                      {"name", "thread_sort_index"},
                      {"args", {{"sort_index", tid}}}});
}

double TraceRecorder::toMicros(Clock::time_point time) const {
  return wallOriginMicros +
         std::chrono::duration<double, std::micro>(time - steadyOrigin)
             .count();
}

void TraceRecorder::addSpan(int tid, std::string name, std::string category,
                            Clock::time_point begin, Clock::time_point end,
                            json args) {
  json event = {{"ph", "X"},
                {"pid", pid_},
                {"tid", tid},
                {"name", std::move(name)},
                {"cat", std::move(category)},
                {"ts", toMicros(begin)},
                {"dur", std::chrono::duration<double, std::micro>(end - begin)
                            .count()}};
  if (!args.empty())
    event["args"] = std::move(args);
  std::lock_guard<std::mutex> lock(mutex);
  events.push_back(std::move(event));
}

void TraceRecorder::addInstant(int tid, std::string name, std::string category,
                               Clock::time_point at, json args) {
  json event = {{"ph", "i"},         {"s", "t"},
                {"pid", pid_},       {"tid", tid},
                {"name", std::move(name)}, {"cat", std::move(category)},
                {"ts", toMicros(at)}};
  if (!args.empty())
    event["args"] = std::move(args);
  std::lock_guard<std::mutex> lock(mutex);
  events.push_back(std::move(event));
}

size_t TraceRecorder::numEvents() const {
  std::lock_guard<std::mutex> lock(mutex);
  return events.size();
}

json TraceRecorder::toJson() const {
  std::lock_guard<std::mutex> lock(mutex);
  json all = json::array();
  for (const json &event : metadata)
    all.push_back(event);
  for (const json &event : events)
    all.push_back(event);
  return {{"displayTimeUnit", "ms"}, {"traceEvents", std::move(all)}};
}

static void writeJson(const json &trace, const std::string &path) {
  std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out)
      throw TraceError("cannot create " + temporary + ": " +
                       std::strerror(errno));
    out << trace.dump() << "\n";
    if (!out.flush())
      throw TraceError("cannot write " + temporary + ": " +
                       std::strerror(errno));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    throw TraceError("cannot write " + path + ": " + std::strerror(errno));
}

void TraceRecorder::writeFile(const std::string &path) const {
  writeJson(toJson(), path);
}

json readTraceFile(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw TraceError("cannot open " + path + ": " + std::strerror(errno));
  json trace = json::parse(in, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (trace.is_discarded() || !trace.is_object() ||
      !trace.contains("traceEvents") || !trace["traceEvents"].is_array())
    throw TraceError(path + " is not a Chrome trace (a JSON object with a "
                            "\"traceEvents\" array)");
  return trace;
}

size_t mergeTraceFiles(const std::vector<std::string> &inputs,
                       const std::string &output) {
  json all = json::array();
  for (const std::string &input : inputs) {
    json trace = readTraceFile(input);
    for (json &event : trace["traceEvents"])
      all.push_back(std::move(event));
  }
  size_t count = all.size();
  writeJson({{"displayTimeUnit", "ms"}, {"traceEvents", std::move(all)}},
            output);
  return count;
}

} // namespace dtf::trace
