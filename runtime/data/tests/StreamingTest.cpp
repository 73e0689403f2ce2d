//===- StreamingTest.cpp - Batches streamed from TFRecord files -----------===//

#include "runtime/data/Streaming.h"

#include "runtime/core/Error.h"
#include "runtime/data/LocalWorkSource.h"
#include "runtime/data/tests/TestFiles.h"

#include "example.pb.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <map>
#include <set>
#include <thread>

namespace dtf::data {
namespace {

using namespace testing;

/// An Example of id `id`: "id" int64 id, "x" floats (id, 2 id).
std::string exampleBytes(int64_t id, bool withX = true) {
  tensorflow::Example example;
  auto &features = *example.mutable_features()->mutable_feature();
  features["id"].mutable_int64_list()->add_value(id);
  if (withX) {
    features["x"].mutable_float_list()->add_value(float(id));
    features["x"].mutable_float_list()->add_value(float(2 * id));
  }
  return example.SerializeAsString();
}

/// A file of the examples [first, first + count).
void writeExamples(const std::string &path, int64_t first, int64_t count,
                   Compression compression = Compression::None) {
  std::string bytes;
  for (int64_t id = first; id < first + count; ++id)
    bytes += frameRecord(exampleBytes(id));
  writeCompressed(path, bytes, compression);
}

const std::map<std::string, ExampleType> kModel = {{"id", {DType::I64, {}}},
                                                   {"x", {DType::F32, {2}}}};

std::vector<InputSpec> bindings(const std::string &pattern) {
  return {parseInputSpec("id=tfrecord:" + pattern, "--input"),
          parseInputSpec("x=tfrecord:" + pattern, "--input")};
}

std::unique_ptr<StreamingInput> streaming(const std::string &pattern,
                                          std::shared_ptr<WorkSource> work,
                                          StreamingOptions options) {
  return std::make_unique<StreamingInput>(bindings(pattern), kModel,
                                          std::map<std::string, IdTable>{},
                                          std::move(work), std::move(options));
}

std::shared_ptr<LocalWorkSource>
localWork(const std::string &pattern, uint64_t unitBytes, int64_t epochs,
          std::optional<uint64_t> seed = std::nullopt) {
  return std::make_shared<LocalWorkSource>(
      splitIntoUnits(matchFilePatterns(pattern), unitBytes), epochs, seed);
}

/// The ids of a batch, checking that x matches them.
std::vector<int64_t> idsOf(const FeedMap &feeds) {
  std::vector<int64_t> ids = feeds.at("id").toVector<int64_t>();
  std::vector<float> x = feeds.at("x").toVector<float>();
  EXPECT_EQ(x.size(), 2 * ids.size());
  for (size_t i = 0; i < ids.size() && 2 * i + 1 < x.size(); ++i) {
    EXPECT_EQ(x[2 * i], float(ids[i]));
    EXPECT_EQ(x[2 * i + 1], float(2 * ids[i]));
  }
  return ids;
}

/// Every id of every batch until the end; the end must be OutOfRange.
std::vector<int64_t> drain(StreamingInput &input, int64_t batch) {
  std::vector<int64_t> all;
  while (true) {
    FeedMap feeds;
    try {
      input.nextBatch(batch, feeds);
    } catch (const Error &error) {
      EXPECT_EQ(error.code(), ErrorCode::OutOfRange) << error.what();
      break;
    }
    EXPECT_EQ(feeds.at("id").shape(), Shape({batch}));
    std::vector<int64_t> ids = idsOf(feeds);
    all.insert(all.end(), ids.begin(), ids.end());
  }
  return all;
}

/// The error nextBatch ends with before the end of the data.
std::string failureOf(StreamingInput &input, int64_t batch) {
  for (int i = 0; i < 10000; ++i) {
    FeedMap feeds;
    try {
      input.nextBatch(batch, feeds);
    } catch (const Error &error) {
      return std::string("Error ") + errorCodeName(error.code()) + ": " +
             error.what();
    } catch (const std::exception &error) {
      return error.what();
    }
  }
  return "(no error)";
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// Files of 100 (plain), 57 (plain), 0 (plain), 40 (gzip) and 33 (zlib)
/// examples: 230, ids 0..229.
std::string writeDataSet(const std::string &dir) {
  writeExamples(dir + "/data-0", 0, 100);
  writeExamples(dir + "/data-1", 100, 57);
  writeExamples(dir + "/data-2", 157, 0);
  writeExamples(dir + "/data-3", 157, 40, Compression::Gzip);
  writeExamples(dir + "/data-4", 197, 33, Compression::Zlib);
  return dir + "/data-*";
}

TEST(StreamingTest, OneEpochYieldsEveryExampleOnce) {
  std::string dir = tempDir();
  std::string pattern = writeDataSet(dir);
  auto work = localWork(pattern, 300, 1, 7);
  int64_t units =
      int64_t(splitIntoUnits(matchFilePatterns(pattern), 300).size());
  StreamingOptions options;
  options.readerThreads = 3;
  options.cycleLength = 4;
  options.shuffleBuffer = 50;
  options.chunkRecords = 16;
  auto input = streaming(pattern, work, options);
  EXPECT_EQ(input->size(), -1);
  EXPECT_EQ(input->placeholders(), (std::vector<std::string>{"id", "x"}));
  std::vector<int64_t> ids = drain(*input, 10);
  EXPECT_EQ(ids.size(), 230u);
  std::set<int64_t> distinct(ids.begin(), ids.end());
  EXPECT_EQ(distinct.size(), 230u);
  EXPECT_EQ(*distinct.begin(), 0);
  EXPECT_EQ(*distinct.rbegin(), 229);
  StreamingStats stats = input->stats();
  EXPECT_EQ(stats.records, 230);
  EXPECT_EQ(stats.units, units);
  EXPECT_EQ(stats.batches, 23);
  EXPECT_EQ(stats.droppedAtEnd, 0);
  EXPECT_EQ(stats.skippedRecords, 0);
  EXPECT_EQ(stats.bufferCapacity, 50);
  EXPECT_GT(stats.bytes, 230 * 16);
  EXPECT_EQ(work->counts().unitsRead, units);
  EXPECT_EQ(work->counts().records, 230);
  EXPECT_EQ(input->lastBatchId(), 0u);
}

TEST(StreamingTest, EpochsRepeatTheData) {
  std::string dir = tempDir();
  std::string pattern = writeDataSet(dir);
  StreamingOptions options;
  options.shuffleBuffer = 1000;
  auto input = streaming(pattern, localWork(pattern, 500, 3, 1), options);
  std::vector<int64_t> ids = drain(*input, 10);
  ASSERT_EQ(ids.size(), 690u);
  std::map<int64_t, int> seen;
  for (int64_t id : ids)
    ++seen[id];
  EXPECT_EQ(seen.size(), 230u);
  for (const auto &[id, times] : seen)
    EXPECT_EQ(times, 3) << "id " << id;
}

TEST(StreamingTest, ShuffledDiffersFromOrderedWithTheSameExamples) {
  std::string dir = tempDir();
  std::string pattern = writeDataSet(dir);
  StreamingOptions ordered;
  ordered.readerThreads = 1;
  ordered.cycleLength = 1;
  ordered.shuffleBuffer = 0;
  auto input = streaming(pattern, localWork(pattern, 1 << 20, 1), ordered);
  std::vector<int64_t> inOrder = drain(*input, 5);
  std::vector<int64_t> expected(230);
  for (int64_t i = 0; i < 230; ++i)
    expected[i] = i;
  EXPECT_EQ(inOrder, expected);
  EXPECT_EQ(input->stats().bufferCapacity, 0);

  StreamingOptions shuffled;
  shuffled.shuffleBuffer = 64;
  shuffled.shuffleSeed = 3;
  input = streaming(pattern, localWork(pattern, 1 << 20, 1, 5), shuffled);
  std::vector<int64_t> mixed = drain(*input, 5);
  EXPECT_NE(mixed, expected);
  std::sort(mixed.begin(), mixed.end());
  EXPECT_EQ(mixed, expected);
}

TEST(StreamingTest, TheEndIsOutOfRangeAndDropsWhatIsLeft) {
  std::string dir = tempDir();
  writeExamples(dir + "/f", 0, 25);
  for (int64_t buffer : {0, 7, 100}) {
    StreamingOptions options;
    options.shuffleBuffer = buffer;
    auto input = streaming(dir + "/f", localWork(dir + "/f", 64, 1), options);
    FeedMap feeds;
    input->nextBatch(10, feeds);
    input->nextBatch(10, feeds);
    for (int again = 0; again < 2; ++again) {
      try {
        input->nextBatch(10, feeds);
        FAIL() << "no end";
      } catch (const Error &error) {
        EXPECT_EQ(error.code(), ErrorCode::OutOfRange);
        EXPECT_TRUE(contains(error.what(), "5 examples left")) << error.what();
      }
    }
    StreamingStats stats = input->stats();
    EXPECT_EQ(stats.droppedAtEnd, 5);
    EXPECT_EQ(stats.batches, 2);
    EXPECT_EQ(stats.bufferedExamples, 0);
    EXPECT_THROW(input->nextBatch(5, feeds), std::invalid_argument);
  }
}

TEST(StreamingTest, SkipsTheRecordsAUnitWasTrainedOn) {
  std::string dir = tempDir();
  writeExamples(dir + "/f", 0, 30);
  std::vector<WorkUnit> units = splitIntoUnits({dir + "/f"}, 1 << 20);
  ASSERT_EQ(units.size(), 1u);
  units[0].trained = {{0, 3}, {10, 20}, {29, 30}};
  auto work = std::make_shared<LocalWorkSource>(units, 1);
  StreamingOptions options;
  options.shuffleBuffer = 0;
  options.readerThreads = 1;
  auto input = streaming(dir + "/f", work, options);
  std::vector<int64_t> ids = drain(*input, 1);
  EXPECT_EQ(ids, (std::vector<int64_t>{3, 4, 5, 6, 7, 8, 9, 20, 21, 22, 23, 24,
                                       25, 26, 27, 28}));
  // The unit holds 30 records, trained or not.
  EXPECT_EQ(work->counts().records, 30);
}

TEST(StreamingTest, AccountsBatchesAndServesALostOneAgain) {
  std::string dir = tempDir();
  writeExamples(dir + "/f", 0, 200);
  auto work = localWork(dir + "/f", 500, 1, 2);
  StreamingOptions options;
  options.accountBatches = true;
  options.shuffleBuffer = 20;
  auto input = streaming(dir + "/f", work, options);
  FeedMap feeds;
  input->nextBatch(8, feeds);
  EXPECT_EQ(input->lastBatchId(), 1u);
  std::vector<int64_t> first = idsOf(feeds);
  input->batchPushing(1);
  EXPECT_EQ(work->counts().pushing, 8);
  input->batchLost(1, /*inDoubt=*/false);
  FeedMap again;
  input->nextBatch(8, again);
  EXPECT_EQ(input->lastBatchId(), 2u);
  EXPECT_EQ(idsOf(again), first);
  input->batchTrained(2, 17);
  EXPECT_EQ(work->counts().trained, 8);
  EXPECT_EQ(work->counts().lastStep, 17);
  try {
    input->batchTrained(2, 18);
    FAIL() << "a settled batch settled again";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::Internal);
  }
  EXPECT_THROW(input->batchLost(99, /*inDoubt=*/false), Error);
  // Every example once, the lost batch's included, when all are trained.
  std::vector<int64_t> all = first;
  while (true) {
    FeedMap next;
    try {
      input->nextBatch(8, next);
    } catch (const Error &error) {
      EXPECT_EQ(error.code(), ErrorCode::OutOfRange);
      break;
    }
    std::vector<int64_t> ids = idsOf(next);
    all.insert(all.end(), ids.begin(), ids.end());
    input->batchTrained(input->lastBatchId(), 20);
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all.size(), 200u);
  EXPECT_EQ(std::unique(all.begin(), all.end()), all.end());
  EXPECT_EQ(work->counts().trained, 200);
}

TEST(StreamingTest, UnsettledBatchesAreBounded) {
  std::string dir = tempDir();
  writeExamples(dir + "/f", 0, 100);
  StreamingOptions options;
  options.accountBatches = true;
  auto input =
      streaming(dir + "/f", localWork(dir + "/f", 1 << 20, 0), options);
  FeedMap feeds;
  for (size_t i = 0; i < StreamingInput::kMaxUnsettledBatches; ++i)
    input->nextBatch(2, feeds);
  try {
    input->nextBatch(2, feeds);
    FAIL() << "no bound";
  } catch (const Error &error) {
    EXPECT_EQ(error.code(), ErrorCode::Internal);
    EXPECT_TRUE(contains(error.what(), "settle")) << error.what();
  }
  input->batchTrained(1, 1);
  input->nextBatch(2, feeds);
}

/// A plain file of 40 examples whose record 5's data is flipped.
std::string writeCorrupt(const std::string &dir) {
  std::string bytes;
  size_t corruptAt = 0;
  for (int64_t id = 0; id < 40; ++id) {
    if (id == 5)
      corruptAt = bytes.size() + 14;
    bytes += frameRecord(exampleBytes(id));
  }
  bytes[corruptAt] ^= 0x40;
  writeFile(dir + "/corrupt", bytes);
  return dir + "/corrupt";
}

TEST(StreamingTest, ABadCrcFailsNamingTheFileAndRecordOrIsSkipped) {
  std::string dir = tempDir();
  std::string path = writeCorrupt(dir);
  StreamingOptions options;
  options.shuffleBuffer = 4;
  auto input = streaming(path, localWork(path, 1 << 20, 1), options);
  std::string message = failureOf(*input, 4);
  EXPECT_TRUE(contains(message, path + ": record 5 at offset")) << message;
  EXPECT_TRUE(contains(message, "data CRC mismatch")) << message;
  // It stays failed.
  FeedMap feeds;
  EXPECT_THROW(input->nextBatch(4, feeds), RecordError);

  options.badRecords = BadRecordPolicy::Skip;
  auto work = localWork(path, 1 << 20, 1);
  input = streaming(path, work, options);
  ::testing::internal::CaptureStderr();
  std::vector<int64_t> ids = drain(*input, 1);
  std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(warnings, path + ": record 5")) << warnings;
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids.size(), 39u);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 5), 0);
  EXPECT_EQ(input->stats().skippedRecords, 1);
  EXPECT_EQ(work->counts().unitsRead, 1);
  EXPECT_EQ(work->counts().records, 40);
}

TEST(StreamingTest, ATruncatedFileFailsOrItsRestIsSkipped) {
  std::string dir = tempDir();
  std::string bytes;
  for (int64_t id = 0; id < 20; ++id)
    bytes += frameRecord(exampleBytes(id));
  size_t cut = bytes.size() - 7; // inside record 19
  writeFile(dir + "/cut", bytes.substr(0, cut));
  writeExamples(dir + "/whole", 100, 10);
  std::string pattern = dir + "/*";
  StreamingOptions options;
  options.shuffleBuffer = 0;
  auto input = streaming(pattern, localWork(pattern, 1 << 20, 1), options);
  std::string message = failureOf(*input, 1);
  EXPECT_TRUE(contains(message, dir + "/cut: record 19")) << message;
  EXPECT_TRUE(contains(message, "truncated")) << message;

  options.badRecords = BadRecordPolicy::Skip;
  auto work = localWork(pattern, 1 << 20, 1);
  input = streaming(pattern, work, options);
  ::testing::internal::CaptureStderr();
  std::vector<int64_t> ids = drain(*input, 1);
  std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(warnings, "skipping the rest of " + dir + "/cut"))
      << warnings;
  EXPECT_TRUE(contains(warnings, "offset")) << warnings;
  EXPECT_EQ(ids.size(), 29u);
  EXPECT_EQ(input->stats().skippedRecords, 1);
  EXPECT_EQ(work->counts().unitsRead, 2);
}

TEST(StreamingTest, AMissingFeatureFailsNamingTheRecordOrIsSkipped) {
  std::string dir = tempDir();
  std::string bytes;
  for (int64_t id = 0; id < 30; ++id)
    bytes += frameRecord(exampleBytes(id, id != 12));
  writeFile(dir + "/f", bytes);
  StreamingOptions options;
  auto input = streaming(dir + "/f", localWork(dir + "/f", 100, 1), options);
  std::string message = failureOf(*input, 3);
  // Units of 100 bytes: record 12 is numbered within its unit.
  EXPECT_TRUE(contains(message, dir + "/f")) << message;
  EXPECT_TRUE(contains(message, "the Example has no feature 'x' (it has: id)"))
      << message;

  input = streaming(dir + "/f", localWork(dir + "/f", 1 << 20, 1), options);
  message = failureOf(*input, 3);
  EXPECT_TRUE(contains(message, dir + "/f: record 12: the Example has no "
                                      "feature 'x'"))
      << message;

  options.badRecords = BadRecordPolicy::Skip;
  input = streaming(dir + "/f", localWork(dir + "/f", 100, 1), options);
  ::testing::internal::CaptureStderr();
  std::vector<int64_t> ids = drain(*input, 1);
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(ids.size(), 29u);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 12), 0);
  EXPECT_EQ(input->stats().skippedRecords, 1);
}

TEST(StreamingTest, ValuesThePlaceholderCannotTakeNameTheRecord) {
  std::string dir = tempDir();
  writeExamples(dir + "/f", 0, 20);
  std::map<std::string, ExampleType> model = {{"id", {DType::F32, {3}}}};
  std::vector<InputSpec> specs = {
      parseInputSpec("id=tfrecord:" + dir + "/f,onehot=3", "inputs.txt:2")};
  StreamingOptions options;
  options.shuffleBuffer = 0;
  StreamingInput input(specs, model, {}, localWork(dir + "/f", 1 << 20, 1),
                       options);
  std::string message = failureOf(input, 2);
  EXPECT_TRUE(contains(message, "inputs.txt:2: input of placeholder 'id'"))
      << message;
  EXPECT_TRUE(contains(message, dir + "/f record 3")) << message;
  EXPECT_TRUE(contains(message, "class id 3 is outside [0, 3)")) << message;
}

/// A file of examples [first, first + count): "id", and "img" the bytes
/// (id % 256, 255, 0), or (`asFloats`) those values as a float_list.
void writePixels(const std::string &path, int64_t first, int64_t count,
                 bool asFloats = false) {
  std::string bytes;
  for (int64_t id = first; id < first + count; ++id) {
    tensorflow::Example example;
    auto &features = *example.mutable_features()->mutable_feature();
    features["id"].mutable_int64_list()->add_value(id);
    const uint8_t pixels[3] = {static_cast<uint8_t>(id % 256), 255, 0};
    if (asFloats)
      for (uint8_t pixel : pixels)
        features["img"].mutable_float_list()->add_value(pixel);
    else
      features["img"].mutable_bytes_list()->add_value(
          std::string(reinterpret_cast<const char *>(pixels), 3));
    bytes += frameRecord(example.SerializeAsString());
  }
  writeFile(path, bytes);
}

// Pixels stay bytes through the shuffle buffer and are scaled as the batch
// is assembled: the values the in-memory path gives, in f32 and f64.
TEST(StreamingTest, PixelsAreScaledAsTheBatchIsAssembled) {
  std::string dir = tempDir();
  writePixels(dir + "/f", 0, 300);
  for (DType dtype : {DType::F32, DType::F64})
    for (int64_t shuffle : {0, 64}) {
      std::map<std::string, ExampleType> model = {{"id", {DType::I64, {}}},
                                                  {"img", {dtype, {3}}}};
      std::vector<InputSpec> specs = {
          parseInputSpec("id=tfrecord:" + dir + "/f", "--input"),
          parseInputSpec("img=tfrecord:" + dir + "/f,scale=1/255", "--input")};
      StreamingOptions options;
      options.shuffleBuffer = shuffle;
      StreamingInput input(specs, model, {}, localWork(dir + "/f", 1000, 1),
                           options);
      std::set<int64_t> seen;
      for (int b = 0; b < 30; ++b) {
        FeedMap feeds;
        input.nextBatch(10, feeds);
        std::vector<int64_t> ids = feeds.at("id").toVector<int64_t>();
        const Tensor &img = feeds.at("img");
        ASSERT_EQ(img.shape(), Shape({10, 3}));
        for (size_t r = 0; r < ids.size(); ++r) {
          seen.insert(ids[r]);
          const double scale = 1.0 / 255;
          const double want[3] = {static_cast<double>(ids[r] % 256) * scale,
                                  255 * scale, 0};
          for (int v = 0; v < 3; ++v) {
            double got = dtype == DType::F32 ? img.data<float>()[r * 3 + v]
                                             : img.data<double>()[r * 3 + v];
            double expected =
                dtype == DType::F32 ? static_cast<float>(want[v]) : want[v];
            EXPECT_EQ(got, expected) << "example " << ids[r] << " value " << v
                                     << " shuffle " << shuffle;
          }
        }
      }
      EXPECT_EQ(seen.size(), 300u);
    }
}

// A feature that is bytes in some records and floats in others fails,
// naming it: whichever reader met both, or the batching thread.
TEST(StreamingTest, AFeatureOfBytesAndOfFloatsFails) {
  std::string dir = tempDir();
  writePixels(dir + "/a", 0, 50);
  writePixels(dir + "/b", 50, 50, /*asFloats=*/true);
  std::map<std::string, ExampleType> model = {{"img", {DType::F32, {3}}}};
  std::vector<InputSpec> specs = {
      parseInputSpec("img=tfrecord:" + dir + "/*,scale=1/255", "--input")};
  StreamingInput input(specs, model, {}, localWork(dir + "/*", 1 << 20, 1),
                       StreamingOptions());
  std::string message = failureOf(input, 10);
  EXPECT_TRUE(contains(message, "feature 'img'")) << message;
  EXPECT_TRUE(contains(message, "bytes in some records and a list of "
                                "numbers in others") ||
              contains(message, "where the first example's is a"))
      << message;
}

TEST(StreamingTest, AVanishedFileFailsOrIsSkipped) {
  std::string dir = tempDir();
  writeExamples(dir + "/a", 0, 10);
  writeExamples(dir + "/b", 10, 10);
  std::string pattern = dir + "/*";
  auto work = localWork(pattern, 1 << 20, 1);
  std::remove((dir + "/a").c_str());
  StreamingOptions options;
  auto input = streaming(pattern, work, options);
  std::string message = failureOf(*input, 2);
  EXPECT_TRUE(contains(message, "cannot open " + dir + "/a")) << message;

  writeExamples(dir + "/a", 0, 10);
  work = localWork(pattern, 1 << 20, 1);
  std::remove((dir + "/a").c_str());
  options.badRecords = BadRecordPolicy::Skip;
  input = streaming(pattern, work, options);
  ::testing::internal::CaptureStderr();
  std::vector<int64_t> ids = drain(*input, 2);
  std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(warnings, dir + "/a from offset 0")) << warnings;
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids.front(), 10);
  EXPECT_EQ(ids.size(), 10u);
  EXPECT_EQ(input->stats().skippedRecords, 1);
  EXPECT_EQ(work->counts().unitsRead, 2);
}

TEST(StreamingTest, RejectsBindingsItCannotStream) {
  std::string dir = tempDir();
  writeExamples(dir + "/f", 0, 4);
  auto work = localWork(dir + "/f", 1 << 20, 1);
  auto message = [&](std::vector<InputSpec> specs) -> std::string {
    try {
      StreamingInput input(specs, kModel, {}, work, StreamingOptions());
    } catch (const std::invalid_argument &error) {
      return error.what();
    }
    return "(no error)";
  };
  std::string other =
      message({parseInputSpec("id=tfrecord:" + dir + "/f", "--input"),
               parseInputSpec("x=tfrecord:" + dir + "/g", "inputs.txt:4")});
  EXPECT_TRUE(contains(other, "inputs.txt:4: input of placeholder 'x'"))
      << other;
  EXPECT_TRUE(contains(other, "streaming reads one set of TFRecord files"))
      << other;
  std::string npy = message({parseInputSpec("x=npy:x.npy", "--input")});
  EXPECT_TRUE(contains(npy, "streaming reads one set of TFRecord files"))
      << npy;
  std::string unknown =
      message({parseInputSpec("y=tfrecord:" + dir + "/f", "--input")});
  EXPECT_EQ(unknown, "--input: the model has no placeholder 'y'");
  std::string twice =
      message({parseInputSpec("x=tfrecord:" + dir + "/f", "--input"),
               parseInputSpec("x=tfrecord:" + dir + "/f", "--input")});
  EXPECT_EQ(twice, "--input: placeholder 'x' is bound twice");
}

/// A WorkSource whose next() blocks until cancel().
class BlockingWork final : public WorkSource {
public:
  std::optional<WorkUnit> next() override {
    std::unique_lock<std::mutex> lock(mutex);
    ++waiting;
    changed.notify_all();
    changed.wait(lock, [&] { return cancelled; });
    return std::nullopt;
  }
  void unitRead(const WorkUnit &, int64_t) override {}
  void pushing(const std::vector<ExampleOrigin> &) override {}
  void trained(const std::vector<ExampleOrigin> &, int64_t) override {}
  void cancel() override {
    std::lock_guard<std::mutex> lock(mutex);
    cancelled = true;
    changed.notify_all();
  }
  void waitForReaders(int readers) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return waiting >= readers; });
  }

private:
  std::mutex mutex;
  std::condition_variable changed;
  bool cancelled = false;
  int waiting = 0;
};

TEST(StreamingTest, StopsWhileThreadsBlock) {
  std::string dir = tempDir();
  writeExamples(dir + "/f", 0, 4);
  auto work = std::make_shared<BlockingWork>();
  StreamingOptions options;
  auto input = streaming(dir + "/f", work, options);
  auto waiter = std::async(std::launch::async, [&] {
    FeedMap feeds;
    try {
      input->nextBatch(2, feeds);
    } catch (const Error &error) {
      return error.code();
    }
    return ErrorCode::Unknown;
  });
  work->waitForReaders(2);
  auto start = std::chrono::steady_clock::now();
  input->cancel();
  EXPECT_EQ(waiter.get(), ErrorCode::Cancelled);
  input.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));

  // Readers blocked on a full queue, the batcher on full batches: the
  // destructor returns at once.
  writeExamples(dir + "/big", 0, 5000);
  options = StreamingOptions();
  options.chunkRecords = 8;
  options.shuffleBuffer = 16;
  input = streaming(dir + "/big", localWork(dir + "/big", 1000, 0), options);
  FeedMap feeds;
  input->nextBatch(4, feeds);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  start = std::chrono::steady_clock::now();
  input.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

/// Counts the units handed out and not yet reported read.
class CountingWork final : public WorkSource {
public:
  explicit CountingWork(std::shared_ptr<WorkSource> inner)
      : inner(std::move(inner)) {}
  std::optional<WorkUnit> next() override {
    std::optional<WorkUnit> unit = inner->next();
    if (unit) {
      int now = ++open;
      int seen = maxOpen.load();
      while (now > seen && !maxOpen.compare_exchange_weak(seen, now)) {
      }
    }
    return unit;
  }
  void unitRead(const WorkUnit &unit, int64_t records) override {
    --open;
    inner->unitRead(unit, records);
  }
  void pushing(const std::vector<ExampleOrigin> &examples) override {
    inner->pushing(examples);
  }
  void trained(const std::vector<ExampleOrigin> &examples,
               int64_t step) override {
    inner->trained(examples, step);
  }
  void cancel() override { inner->cancel(); }
  std::shared_ptr<WorkSource> inner;
  std::atomic<int> open{0}, maxOpen{0};
};

TEST(StreamingTest, MemoryIsBoundedByTheBuffersNotTheData) {
  std::string dir = tempDir();
  writeExamples(dir + "/f", 0, 3000);
  // Units of about 4 records.
  auto work = std::make_shared<CountingWork>(localWork(dir + "/f", 120, 2, 9));
  StreamingOptions options;
  options.readerThreads = 2;
  options.cycleLength = 3;
  options.shuffleBuffer = 8;
  options.chunkRecords = 4;
  options.prefetchBatches = 2;
  auto input = streaming(dir + "/f", work, options);
  const int64_t batch = 4;
  const int64_t bound = options.shuffleBuffer +
                        int64_t(options.prefetchBatches + 1) * batch +
                        (2 * options.readerThreads + 1) * options.chunkRecords;
  int64_t taken = 0;
  while (true) {
    FeedMap feeds;
    try {
      input->nextBatch(batch, feeds);
    } catch (const Error &error) {
      EXPECT_EQ(error.code(), ErrorCode::OutOfRange);
      break;
    }
    taken += batch;
    if (taken % 200 == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    StreamingStats stats = input->stats();
    ASSERT_LE(stats.bufferedExamples, stats.bufferCapacity);
    ASSERT_LE(stats.records - taken, bound);
  }
  EXPECT_EQ(taken, 6000);
  EXPECT_GT(work->maxOpen.load(), 0);
  EXPECT_LE(work->maxOpen.load(),
            std::max(options.cycleLength, options.readerThreads));
}

} // namespace
} // namespace dtf::data
