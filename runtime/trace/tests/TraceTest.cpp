//===- TraceTest.cpp - Chrome trace JSON: recording, files, merging -------===//

#include "runtime/trace/TraceRecorder.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <thread>

using namespace dtf::trace;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

std::string makeTempDir() {
  const char *base = std::getenv("TMPDIR");
  std::string pattern = std::string(base ? base : "/tmp") + "/dtf-trace-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  char *dir = ::mkdtemp(buffer.data());
  EXPECT_NE(dir, nullptr);
  return dir;
}

std::vector<json> eventsWithPhase(const json &trace, const std::string &phase) {
  std::vector<json> found;
  for (const json &event : trace["traceEvents"])
    if (event["ph"] == phase)
      found.push_back(event);
  return found;
}

} // namespace

TEST(TraceRecorder, RecordsSpansWithMetadata) {
  TraceRecorder recorder(3, "worker0");
  recorder.nameThread(1, "step");
  recorder.nameThread(2, "ops");
  auto begin = TraceRecorder::Clock::now();
  auto end = begin + 250us;
  recorder.addSpan(1, "step 0", "step", begin, end, {{"global_step", 7}});
  recorder.addSpan(2, "dtf.matmul", "op", begin + 10us, begin + 90us);
  recorder.addInstant(1, "stop", "control", end);
  EXPECT_EQ(recorder.numEvents(), 3u);

  json trace = recorder.toJson();
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  std::vector<json> metadata = eventsWithPhase(trace, "M");
  std::map<std::string, json> byName;
  for (const json &event : metadata) {
    EXPECT_EQ(event["pid"], 3);
    byName[event["name"].get<std::string>() + "/" +
           std::to_string(event["tid"].get<int>())] = event;
  }
  EXPECT_EQ(byName["process_name/0"]["args"]["name"], "worker0");
  EXPECT_EQ(byName["process_sort_index/0"]["args"]["sort_index"], 3);
  EXPECT_EQ(byName["thread_name/1"]["args"]["name"], "step");
  EXPECT_EQ(byName["thread_name/2"]["args"]["name"], "ops");

  std::vector<json> spans = eventsWithPhase(trace, "X");
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0]["name"], "step 0");
  EXPECT_EQ(spans[0]["cat"], "step");
  EXPECT_EQ(spans[0]["tid"], 1);
  EXPECT_NEAR(spans[0]["dur"].get<double>(), 250.0, 1e-6);
  EXPECT_EQ(spans[0]["args"]["global_step"], 7);
  EXPECT_NEAR(spans[1]["ts"].get<double>() - spans[0]["ts"].get<double>(),
              10.0, 0.01);
  EXPECT_FALSE(spans[1].contains("args"));
  // Epoch microseconds: within a minute of now.
  double now = std::chrono::duration<double, std::micro>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  EXPECT_NEAR(spans[0]["ts"].get<double>(), now, 60e6);

  std::vector<json> instants = eventsWithPhase(trace, "i");
  ASSERT_EQ(instants.size(), 1u);
  EXPECT_EQ(instants[0]["s"], "t");
}

TEST(TraceRecorder, IsThreadSafe) {
  TraceRecorder recorder(1, "ps0");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&recorder, t] {
      for (int i = 0; i < 500; ++i) {
        auto now = TraceRecorder::Clock::now();
        recorder.addSpan(t + 1, "span", "test", now, now + 1us);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(recorder.numEvents(), 2000u);
}

TEST(TraceFiles, WriteReadAndMerge) {
  std::string dir = makeTempDir();
  TraceRecorder ps(1, "ps0"), worker(2, "worker0");
  ps.nameThread(1, "apply");
  worker.nameThread(1, "step");
  auto now = TraceRecorder::Clock::now();
  ps.addSpan(1, "apply", "ps", now, now + 5us);
  worker.addSpan(1, "step 0", "step", now, now + 50us);
  worker.addSpan(1, "step 1", "step", now + 60us, now + 90us);
  ps.writeFile(dir + "/ps0.json");
  worker.writeFile(dir + "/worker0.json");

  json read = readTraceFile(dir + "/worker0.json");
  EXPECT_EQ(read, worker.toJson());

  size_t count = mergeTraceFiles({dir + "/ps0.json", dir + "/worker0.json"},
                                 dir + "/merged.json");
  json merged = readTraceFile(dir + "/merged.json");
  EXPECT_EQ(merged["traceEvents"].size(), count);
  // One process track per task, each named.
  std::map<int, std::string> processes;
  std::set<int> pidsWithSpans;
  for (const json &event : merged["traceEvents"]) {
    if (event["name"] == "process_name")
      processes[event["pid"]] = event["args"]["name"];
    if (event["ph"] == "X")
      pidsWithSpans.insert(event["pid"].get<int>());
  }
  EXPECT_EQ(processes, (std::map<int, std::string>{{1, "ps0"}, {2, "worker0"}}));
  EXPECT_EQ(pidsWithSpans, (std::set<int>{1, 2}));
  EXPECT_EQ(eventsWithPhase(merged, "X").size(), 3u);
}

TEST(TraceFiles, ErrorsNameTheFile) {
  std::string dir = makeTempDir();
  TraceRecorder recorder(1, "ps0");
  try {
    recorder.writeFile(dir + "/missing/trace.json");
    FAIL();
  } catch (const TraceError &error) {
    EXPECT_NE(std::string(error.what()).find(dir + "/missing/trace.json"),
              std::string::npos)
        << error.what();
  }
  std::ofstream(dir + "/bad.json") << "{\"traceEvents\": 3}";
  try {
    readTraceFile(dir + "/bad.json");
    FAIL();
  } catch (const TraceError &error) {
    EXPECT_NE(std::string(error.what()).find("bad.json"), std::string::npos);
  }
  EXPECT_THROW(mergeTraceFiles({dir + "/absent.json"}, dir + "/out.json"),
               TraceError);
}
