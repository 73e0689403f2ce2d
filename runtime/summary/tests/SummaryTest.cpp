//===- SummaryTest.cpp - Event files: CRC-32C, records, events ------------===//

#include "runtime/core/Crc32c.h"
#include "runtime/data/Records.h"
#include "runtime/summary/SummaryWriter.h"

#include "event.pb.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace dtf::summary;
using dtf::data::RecordReader;
using dtf::data::frameRecord;
using dtf::crc32c;
using dtf::maskCrc;

namespace {

/// A fresh directory under the test's temporary directory.
std::string makeTempDir() {
  const char *base = std::getenv("TMPDIR");
  std::string pattern = std::string(base ? base : "/tmp") + "/dtf-summary-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  char *dir = ::mkdtemp(buffer.data());
  EXPECT_NE(dir, nullptr);
  return dir;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  DIR *stream = ::opendir(dir.c_str());
  while (dirent *entry = ::readdir(stream))
    if (entry->d_name[0] != '.')
      names.push_back(entry->d_name);
  ::closedir(stream);
  return names;
}

uint64_t littleEndian(const std::string &bytes, size_t offset, int size) {
  uint64_t value = 0;
  for (int i = 0; i < size; ++i)
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[offset + i]))
             << (8 * i);
  return value;
}

std::vector<std::string> readAll(const std::string &path) {
  RecordReader reader(path);
  std::vector<std::string> records;
  while (std::optional<std::string> record = reader.next())
    records.push_back(*record);
  return records;
}

} // namespace

TEST(Records, Framing) {
  std::string data = "some record";
  std::string record = frameRecord(data);
  ASSERT_EQ(record.size(), 8 + 4 + data.size() + 4);
  EXPECT_EQ(littleEndian(record, 0, 8), data.size());
  EXPECT_EQ(littleEndian(record, 8, 4), maskCrc(crc32c(record.data(), 8)));
  EXPECT_EQ(record.substr(12, data.size()), data);
  EXPECT_EQ(littleEndian(record, 12 + data.size(), 4), maskCrc(crc32c(data)));
}

TEST(Records, RoundTrip) {
  std::string dir = makeTempDir();
  std::string path = dir + "/records";
  std::vector<std::string> written = {"", "a", std::string(100000, 'x'),
                                      std::string("\0\1\2", 3)};
  {
    RecordWriter writer(path);
    for (const std::string &data : written)
      writer.write(data);
  }
  EXPECT_EQ(readAll(path), written);
  size_t expectedBytes = 0;
  for (const std::string &data : written)
    expectedBytes += data.size() + 16;
  EXPECT_EQ(readFile(path).size(), expectedBytes);
}

TEST(Records, DetectsCorruption) {
  std::string dir = makeTempDir();
  std::string path = dir + "/records";
  {
    RecordWriter writer(path);
    writer.write("first");
    writer.write("second");
  }
  std::string bytes = readFile(path);

  std::string badData = bytes;
  badData[21 + 12] ^= 1; // a byte of "second"
  writeFile(path, badData);
  RecordReader reader(path);
  EXPECT_EQ(reader.next(), "first");
  try {
    reader.next();
    FAIL() << "a flipped data byte was not detected";
  } catch (const RecordError &error) {
    EXPECT_NE(std::string(error.what()).find("offset 21: data CRC mismatch"),
              std::string::npos)
        << error.what();
  }

  std::string badLength = bytes;
  badLength[0] = 6;
  writeFile(path, badLength);
  EXPECT_THROW(readAll(path), RecordError);

  writeFile(path, bytes.substr(0, bytes.size() - 3));
  try {
    readAll(path);
    FAIL() << "a truncated record was not detected";
  } catch (const RecordError &error) {
    EXPECT_NE(std::string(error.what()).find("truncated"), std::string::npos)
        << error.what();
  }
}

TEST(Records, NamesUnwritablePaths) {
  try {
    RecordWriter writer("/nonexistent-dir/events");
    FAIL();
  } catch (const RecordError &error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent-dir/events"),
              std::string::npos);
  }
}

// The wire bytes of an Event are TensorFlow's: field numbers checked by hand,
// independently of our .proto copies.
TEST(Events, WireFormatMatchesTensorFlow) {
  dtf::tensorboard::Event event;
  event.set_step(5);
  auto *value = event.mutable_summary()->add_value();
  value->set_tag("loss");
  value->set_simple_value(0.5f);
  std::string bytes = event.SerializeAsString();
  // step = 2 (varint): key 0x10; summary = 5 (bytes): key 0x2a;
  // Summary.value = 1: key 0x0a; Value.tag = 1: key 0x0a;
  // Value.simple_value = 2 (fixed32): key 0x15.
  const char expected[] = {0x10, 0x05, 0x2a, 0x0d, 0x0a, 0x0b, 0x0a, 0x04,
                           'l',  'o',  's',  's',  0x15, 0x00, 0x00, 0x00,
                           0x3f};
  EXPECT_EQ(bytes, std::string(expected, sizeof(expected)));

  dtf::tensorboard::Event version;
  version.set_wall_time(1.0);
  version.set_file_version("brain.Event:2");
  std::string versionBytes = version.SerializeAsString();
  // wall_time = 1 (fixed64): key 0x09; file_version = 3: key 0x1a.
  ASSERT_GE(versionBytes.size(), 11u);
  EXPECT_EQ(versionBytes[0], 0x09);
  EXPECT_EQ(littleEndian(versionBytes, 1, 8), 0x3FF0000000000000u);
  EXPECT_EQ(versionBytes[9], 0x1a);
  EXPECT_EQ(versionBytes.substr(11, 13), "brain.Event:2");
}

TEST(SummaryWriter, WritesReadableEventFile) {
  std::string logdir = makeTempDir() + "/run/worker_0";
  double before = wallTime();
  std::string path;
  {
    SummaryWriter writer(logdir);
    path = writer.path();
    writer.addScalars(100, {{"loss", 0.75}, {"accuracy", 0.5}});
    writer.addScalar(200, "global_step/sec", 42.0);
  }
  std::vector<std::string> files = listDir(logdir);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(logdir + "/" + files[0], path);
  EXPECT_EQ(files[0].rfind("events.out.tfevents.", 0), 0u) << files[0];

  std::vector<std::string> records = readAll(path);
  ASSERT_EQ(records.size(), 3u);
  dtf::tensorboard::Event first, second, third;
  ASSERT_TRUE(first.ParseFromString(records[0]));
  ASSERT_TRUE(second.ParseFromString(records[1]));
  ASSERT_TRUE(third.ParseFromString(records[2]));

  EXPECT_EQ(first.file_version(), "brain.Event:2");
  EXPECT_GE(first.wall_time(), before - 1);
  EXPECT_EQ(first.source_metadata().writer(), "dtf");

  EXPECT_EQ(second.step(), 100);
  ASSERT_EQ(second.summary().value_size(), 2);
  EXPECT_EQ(second.summary().value(0).tag(), "loss");
  EXPECT_FLOAT_EQ(second.summary().value(0).simple_value(), 0.75f);
  EXPECT_EQ(second.summary().value(1).tag(), "accuracy");
  EXPECT_FLOAT_EQ(second.summary().value(1).simple_value(), 0.5f);
  EXPECT_GE(second.wall_time(), first.wall_time());

  EXPECT_EQ(third.step(), 200);
  ASSERT_EQ(third.summary().value_size(), 1);
  EXPECT_EQ(third.summary().value(0).tag(), "global_step/sec");
  EXPECT_FLOAT_EQ(third.summary().value(0).simple_value(), 42.0f);
}

TEST(SummaryWriter, FlushedEventsAreVisibleWhileWriting) {
  std::string logdir = makeTempDir();
  SummaryWriter writer(logdir);
  writer.addScalar(1, "loss", 1.0);
  writer.flush();
  EXPECT_EQ(readAll(writer.path()).size(), 2u);
}

TEST(SummaryWriter, NamesAnUncreatableLogdir) {
  std::string dir = makeTempDir();
  writeFile(dir + "/file", "not a directory");
  try {
    SummaryWriter writer(dir + "/file/run");
    FAIL();
  } catch (const RecordError &error) {
    EXPECT_NE(std::string(error.what()).find(dir + "/file"), std::string::npos)
        << error.what();
  }
}
