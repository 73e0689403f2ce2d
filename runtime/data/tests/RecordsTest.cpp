//===- RecordsTest.cpp - TFRecord files: compression, ranges, units -------===//

#include "runtime/data/Records.h"

#include "runtime/core/tests/TestUtil.h"
#include "runtime/data/Examples.h"
#include "runtime/data/LocalWorkSource.h"
#include "runtime/data/Streaming.h"
#include "runtime/data/tests/TestFiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace dtf::data {
namespace {

using namespace testing;

using dtf::testing::errorOf;

/// Records of assorted sizes: empty, tiny, larger than a header, large.
std::vector<std::string> assortedRecords(int count) {
  std::vector<std::string> records;
  for (int i = 0; i < count; ++i) {
    size_t size = (i * 37) % 150;
    if (i % 11 == 0)
      size = 0;
    if (i % 13 == 5)
      size = 3000 + i;
    std::string data(size, '\0');
    for (size_t k = 0; k < size; ++k)
      data[k] = static_cast<char>((i * 131 + k * 7) & 0xff);
    records.push_back(data);
  }
  return records;
}

std::vector<std::string> readAll(RecordReader &reader) {
  std::vector<std::string> out;
  while (std::optional<std::string> record = reader.next())
    out.push_back(*record);
  return out;
}

TEST(RecordsTest, ReadsPlainGzipAndZlibFiles) {
  std::string dir = tempDir();
  std::vector<std::string> records = assortedRecords(40);
  for (Compression compression :
       {Compression::None, Compression::Gzip, Compression::Zlib}) {
    std::string path = dir + "/f." + compressionName(compression);
    writeCompressed(path, framed(records), compression);
    EXPECT_EQ(detectCompression(path), compression) << path;
    RecordReader told(path, compression);
    EXPECT_EQ(readAll(told), records) << path;
    EXPECT_EQ(told.index(), 40);
    // What the offsets say was read is the uncompressed stream.
    EXPECT_EQ(told.offset(), framed(records).size());
    RecordReader detected(path);
    EXPECT_EQ(readAll(detected), records) << path;
  }
}

TEST(RecordsTest, ZlibStreamsOneAfterAnotherReadAsOne) {
  std::string dir = tempDir();
  writeCompressed(dir + "/a", framed({"one", "two"}), Compression::Zlib);
  writeCompressed(dir + "/b", framed({"three"}), Compression::Zlib);
  writeFile(dir + "/ab", readFile(dir + "/a") + readFile(dir + "/b"));
  RecordReader reader(dir + "/ab", Compression::Zlib);
  EXPECT_EQ(readAll(reader), (std::vector<std::string>{"one", "two", "three"}));
}

TEST(RecordsTest, TruncatedAndCorruptCompressedStreamsAreErrors) {
  std::string dir = tempDir();
  for (Compression compression : {Compression::Gzip, Compression::Zlib}) {
    std::string path = dir + "/f." + compressionName(compression);
    writeCompressed(path, framed(assortedRecords(30)), compression);
    std::string bytes = readFile(path);
    writeFile(path, bytes.substr(0, bytes.size() / 2));
    std::string message = errorOf([&] {
      RecordReader reader(path, compression);
      readAll(reader);
    });
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("truncated"), std::string::npos) << message;
    // Cut at the end: the stream's trailer is missing.
    writeFile(path, bytes.substr(0, bytes.size() - 2));
    message = errorOf([&] {
      RecordReader reader(path, compression);
      readAll(reader);
    });
    EXPECT_NE(message.find(path), std::string::npos) << message;
  }
  std::string path = dir + "/corrupt.zlib";
  writeCompressed(path, framed(assortedRecords(30)), Compression::Zlib);
  std::string bytes = readFile(path);
  for (size_t i = 10; i < 40; ++i)
    bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  writeFile(path, bytes);
  std::string message = errorOf([&] {
    RecordReader reader(path, Compression::Zlib);
    readAll(reader);
  });
  EXPECT_NE(message.find(path), std::string::npos) << message;
}

TEST(RecordsTest, DetectsCompressionFromTheFirstBytes) {
  std::string dir = tempDir();
  writeFile(dir + "/empty", "");
  EXPECT_EQ(detectCompression(dir + "/empty"), Compression::None);
  RecordReader empty(dir + "/empty", Compression::None);
  EXPECT_EQ(empty.next(), std::nullopt);
  writeFile(dir + "/text", "this is no TFRecord file at all");
  std::string message = errorOf([&] { detectCompression(dir + "/text"); });
  EXPECT_NE(message.find(dir + "/text: not a TFRecord file"), std::string::npos)
      << message;
  writeFile(dir + "/short", "abc");
  EXPECT_THROW(detectCompression(dir + "/short"), RecordError);
  message = errorOf([&] { detectCompression(dir + "/missing"); });
  EXPECT_NE(message.find("cannot open " + dir + "/missing"), std::string::npos)
      << message;
  // A data CRC error keeps the framing: the reader goes on after it.
  std::string bytes = framed({"first", "second", "third"});
  bytes[21 + 12] ^= 1;
  writeFile(dir + "/bad", bytes);
  RecordReader reader(dir + "/bad", Compression::None);
  EXPECT_EQ(reader.next(), "first");
  message = errorOf([&] { reader.next(); });
  EXPECT_NE(message.find(dir + "/bad: record 1 at offset 21: data CRC "
                               "mismatch"),
            std::string::npos)
      << message;
  EXPECT_TRUE(reader.canContinue());
  EXPECT_EQ(reader.next(), "third");
}

// next(std::string &) reuses its buffer: a record shorter or longer than
// the one before it, or empty, comes out whole and nothing more, for every
// compression, and after a CRC error the buffer serves the next record.
TEST(RecordsTest, ReadsIntoAReusedBuffer) {
  std::string dir = tempDir();
  std::vector<std::string> records = assortedRecords(40);
  for (Compression compression :
       {Compression::None, Compression::Gzip, Compression::Zlib}) {
    std::string path = dir + "/reused." + compressionName(compression);
    writeCompressed(path, framed(records), compression);
    RecordReader reader(path, compression);
    std::string buffer = "left over from before";
    std::vector<std::string> read;
    while (reader.next(buffer))
      read.push_back(buffer);
    EXPECT_EQ(read, records) << path;
    EXPECT_FALSE(reader.next(buffer));
  }
  std::string bytes = framed({"a longer first record", "second", "3"});
  bytes[37 + 12] ^= 1; // the second record's data (the first ends at 37)
  writeFile(dir + "/bad", bytes);
  RecordReader reader(dir + "/bad", Compression::None);
  std::string buffer;
  ASSERT_TRUE(reader.next(buffer));
  EXPECT_EQ(buffer, "a longer first record");
  EXPECT_THROW(reader.next(buffer), RecordError);
  ASSERT_TRUE(reader.next(buffer));
  EXPECT_EQ(buffer, "3");
}

/// Every record of `path` read once over the ranges of `unitBytes`, in
/// order.
void expectRangesReadEveryRecordOnce(const std::string &path,
                                     const std::vector<std::string> &records,
                                     uint64_t unitBytes) {
  std::vector<WorkUnit> units = splitIntoUnits({path}, unitBytes);
  std::vector<std::string> read;
  uint64_t previousEnd = 0;
  for (const WorkUnit &unit : units) {
    EXPECT_EQ(unit.begin, previousEnd);
    previousEnd = unit.end;
    RecordReader reader(path, Compression::None, unit.begin, unit.end);
    while (std::optional<std::string> record = reader.next())
      read.push_back(*record);
  }
  EXPECT_EQ(previousEnd, readFile(path).size());
  ASSERT_EQ(read.size(), records.size()) << "units of " << unitBytes;
  EXPECT_TRUE(read == records) << "units of " << unitBytes;
}

TEST(RecordsTest, RangesOfAPlainFileReadEveryRecordOnce) {
  std::string dir = tempDir();
  std::string path = dir + "/plain";
  std::vector<std::string> records = assortedRecords(120);
  writeFile(path, framed(records));
  uint64_t size = readFile(path).size();
  for (uint64_t unitBytes :
       {uint64_t{1}, uint64_t{2}, uint64_t{11}, uint64_t{12}, uint64_t{16},
        uint64_t{17}, uint64_t{16 + 37}, uint64_t{100}, uint64_t{1000},
        uint64_t{4096}, size - 1, size, size + 5})
    expectRangesReadEveryRecordOnce(path, records, unitBytes);
  // Records of one size: ranges of exactly a record, and a record and one.
  std::vector<std::string> same(50, std::string(20, 'r'));
  writeFile(path, framed(same));
  for (uint64_t unitBytes : {uint64_t{36}, uint64_t{37}, uint64_t{35}})
    expectRangesReadEveryRecordOnce(path, same, unitBytes);
}

TEST(RecordsTest, ARangeReportsTheCorruptRecordItStartsWith) {
  std::string dir = tempDir();
  std::string path = dir + "/plain";
  std::string bytes = framed({"aaaa", "bbbb", "cccc"});
  // Record 1 starts at 20; its data at 32.
  bytes[33] ^= 1;
  writeFile(path, bytes);
  RecordReader before(path, Compression::None, 0, 20);
  EXPECT_EQ(readAll(before), std::vector<std::string>{"aaaa"});
  RecordReader reader(path, Compression::None, 10, 41);
  std::string message = errorOf([&] { reader.next(); });
  EXPECT_NE(message.find(path + " [bytes 10, 41): record 0 at offset 20: "
                                "data CRC mismatch"),
            std::string::npos)
      << message;
  EXPECT_TRUE(reader.canContinue());
  EXPECT_EQ(reader.next(), "cccc");
  EXPECT_EQ(reader.next(), std::nullopt);
}

TEST(RecordsTest, SplitsFilesIntoUnits) {
  std::string dir = tempDir();
  writeFile(dir + "/a", framed(assortedRecords(10)));
  writeFile(dir + "/b", "");
  writeCompressed(dir + "/c", framed(assortedRecords(10)), Compression::Gzip);
  writeCompressed(dir + "/d", framed(assortedRecords(10)), Compression::Zlib);
  uint64_t size = readFile(dir + "/a").size();
  std::vector<WorkUnit> units =
      splitIntoUnits({dir + "/a", dir + "/b", dir + "/c", dir + "/d"}, 1000);
  size_t plainUnits = (size + 999) / 1000;
  ASSERT_EQ(units.size(), plainUnits + 3);
  for (size_t i = 0; i < units.size(); ++i) {
    EXPECT_EQ(units[i].id, int64_t(i));
    EXPECT_EQ(units[i].epoch, 0);
  }
  EXPECT_EQ(units[plainUnits - 1].end, size);
  EXPECT_EQ(units[plainUnits].path, dir + "/b");
  EXPECT_EQ(units[plainUnits].end, 0u);
  EXPECT_EQ(units[plainUnits + 1].compression, Compression::Gzip);
  EXPECT_EQ(units[plainUnits + 1].end, readFile(dir + "/c").size());
  EXPECT_EQ(units[plainUnits + 2].compression, Compression::Zlib);
  EXPECT_THROW(splitIntoUnits({dir + "/a"}, 0), std::invalid_argument);
}

TEST(RecordsTest, MatchesCommaSeparatedPatterns) {
  std::string dir = tempDir();
  for (const char *name : {"a-1", "a-2", "b-1", "c"})
    writeFile(dir + "/" + name, "");
  EXPECT_EQ(
      matchFilePatterns(dir + "/b-*:" + dir + "/a-*:" + dir + "/a-1"),
      (std::vector<std::string>{dir + "/a-1", dir + "/a-2", dir + "/b-1"}));
  EXPECT_EQ(matchFilePatterns(dir + "/c"),
            std::vector<std::string>{dir + "/c"});
  std::string message =
      errorOf([&] { matchFilePatterns(dir + "/a-*:" + dir + "/z*"); });
  EXPECT_NE(message.find(dir + "/z*: no file matches"), std::string::npos)
      << message;
  EXPECT_THROW(matchFilePatterns(""), std::runtime_error);
  EXPECT_THROW(matchFilePatterns(dir + "/a-1::"), std::runtime_error);
}

TEST(LocalWorkSourceTest, HandsOutEveryUnitOncePerEpoch) {
  std::vector<WorkUnit> units(7);
  for (size_t i = 0; i < units.size(); ++i) {
    units[i].id = int64_t(i);
    units[i].path = "f" + std::to_string(i);
  }
  LocalWorkSource ordered(units, 2);
  for (int64_t epoch = 0; epoch < 2; ++epoch)
    for (int64_t id = 0; id < 7; ++id) {
      std::optional<WorkUnit> unit = ordered.next();
      ASSERT_TRUE(unit);
      EXPECT_EQ(unit->id, id);
      EXPECT_EQ(unit->epoch, epoch);
    }
  EXPECT_EQ(ordered.next(), std::nullopt);
  EXPECT_EQ(ordered.counts().unitsHandedOut, 14);

  LocalWorkSource shuffled(units, 3, 42);
  std::vector<std::vector<int64_t>> orders(3);
  for (int epoch = 0; epoch < 3; ++epoch)
    for (int i = 0; i < 7; ++i)
      orders[epoch].push_back(shuffled.next()->id);
  EXPECT_EQ(shuffled.next(), std::nullopt);
  for (auto order : orders) {
    std::sort(order.begin(), order.end());
    EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6}));
  }
  EXPECT_TRUE(orders[0] != orders[1] || orders[1] != orders[2]);
  LocalWorkSource again(units, 1, 42);
  for (int i = 0; i < 7; ++i)
    EXPECT_EQ(again.next()->id, orders[0][i]);

  LocalWorkSource endless(units, 0);
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(endless.next());
  LocalWorkSource none({}, 0);
  EXPECT_EQ(none.next(), std::nullopt);
  LocalWorkSource cancelled(units, 0);
  cancelled.cancel();
  EXPECT_EQ(cancelled.next(), std::nullopt);
  endless.unitRead(units[0], 12);
  endless.pushing({{}, {}});
  endless.trained({{}, {}, {}}, 9);
  LocalWorkSource::Counts counts = endless.counts();
  EXPECT_EQ(counts.unitsRead, 1);
  EXPECT_EQ(counts.records, 12);
  EXPECT_EQ(counts.pushing, 2);
  EXPECT_EQ(counts.trained, 3);
  EXPECT_EQ(counts.lastStep, 9);
}

} // namespace
} // namespace dtf::data
