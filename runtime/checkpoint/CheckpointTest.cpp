//===- CheckpointTest.cpp - Checkpoint files: round trip, damage, rotation ===//

#include "runtime/checkpoint/Checkpoint.h"
#include "runtime/core/Crc32c.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <sys/stat.h>
#include <unistd.h>

namespace dtf::checkpoint {
namespace {

/// A fresh directory under $TMPDIR, removed with its files afterwards.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern = std::string(base ? base : "/tmp") + "/dtfckpt.XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!::mkdtemp(buffer.data()))
      ADD_FAILURE() << "mkdtemp failed";
    path = buffer.data();
  }
  ~TempDir() {
    for (const std::string &name : names())
      ::unlink((path + "/" + name).c_str());
    ::rmdir(path.c_str());
  }
  std::vector<std::string> names() const {
    std::vector<std::string> result;
    if (DIR *dir = ::opendir(path.c_str())) {
      while (dirent *entry = ::readdir(dir)) {
        std::string name = entry->d_name;
        if (name != "." && name != "..")
          result.push_back(name);
      }
      ::closedir(dir);
    }
    std::sort(result.begin(), result.end());
    return result;
  }
  std::string path;
};

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// A small model's state: every dtype, a scalar, an empty tensor.
Checkpoint sample(int64_t step, float scale = 1.0f) {
  Checkpoint checkpoint;
  checkpoint.step = step;
  checkpoint.tensors.emplace(
      "hid_w", Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, scale}));
  checkpoint.tensors.emplace("hid_w/Adam",
                             Tensor::fromVector<double>({2}, {0.5, -0.25}));
  checkpoint.tensors.emplace("global_step", Tensor::scalar<int64_t>(step));
  checkpoint.tensors.emplace("counts",
                             Tensor::fromVector<int32_t>({3}, {7, -8, 9}));
  checkpoint.tensors.emplace("mask", Tensor::fromVector<bool>({2}, {true, false}));
  checkpoint.tensors.emplace("empty", Tensor(DType::F32, {0, 4}));
  return checkpoint;
}

void expectEqual(const Checkpoint &a, const Checkpoint &b) {
  EXPECT_EQ(a.step, b.step);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto &[name, tensor] : a.tensors) {
    auto it = b.tensors.find(name);
    ASSERT_NE(it, b.tensors.end()) << name;
    EXPECT_EQ(tensor.dtype(), it->second.dtype()) << name;
    EXPECT_EQ(tensor.shape(), it->second.shape()) << name;
    ASSERT_EQ(tensor.byteSize(), it->second.byteSize()) << name;
    EXPECT_EQ(0, std::memcmp(tensor.rawData(), it->second.rawData(),
                             tensor.byteSize()))
        << name;
  }
}

TEST(CheckpointTest, RoundTripsEveryDType) {
  TempDir dir;
  std::string path = dir.path + "/model.ckpt-42.dtf";
  writeCheckpointFile(path, sample(42));
  expectEqual(readCheckpointFile(path), sample(42));
  // Nothing but the file: the temporary was renamed.
  EXPECT_EQ(dir.names(), std::vector<std::string>{"model.ckpt-42.dtf"});
}

TEST(CheckpointTest, EveryTruncationIsDetected) {
  TempDir dir;
  std::string path = dir.path + "/model.ckpt-1.dtf";
  writeCheckpointFile(path, sample(1));
  std::string whole = readBytes(path);
  for (size_t length = 0; length < whole.size(); ++length) {
    writeBytes(path, whole.substr(0, length));
    EXPECT_THROW(readCheckpointFile(path), CheckpointError) << length;
  }
  writeBytes(path, whole + "x");
  EXPECT_THROW(readCheckpointFile(path), CheckpointError);
}

TEST(CheckpointTest, EveryCorruptByteIsDetected) {
  TempDir dir;
  std::string path = dir.path + "/model.ckpt-1.dtf";
  writeCheckpointFile(path, sample(1));
  std::string whole = readBytes(path);
  for (size_t position = 0; position < whole.size(); ++position) {
    std::string damaged = whole;
    damaged[position] = static_cast<char>(damaged[position] ^ 0x10);
    writeBytes(path, damaged);
    EXPECT_THROW(readCheckpointFile(path), CheckpointError) << position;
  }
}

TEST(CheckpointTest, ErrorsNameTheFileAndTheTensor) {
  TempDir dir;
  std::string path = dir.path + "/model.ckpt-1.dtf";
  Checkpoint checkpoint;
  checkpoint.step = 1;
  checkpoint.tensors.emplace("weights",
                             Tensor::filled(DType::F32, {100}, 3.0));
  writeCheckpointFile(path, checkpoint);
  std::string bytes = readBytes(path);
  bytes[bytes.size() - 16 - 4 - 200] ^= 1; // inside the data
  writeBytes(path, bytes);
  try {
    readCheckpointFile(path);
    FAIL() << "no error";
  } catch (const CheckpointError &error) {
    std::string message = error.what();
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("'weights'"), std::string::npos) << message;
    EXPECT_NE(message.find("checksum"), std::string::npos) << message;
  }
  EXPECT_THROW(readCheckpointFile(dir.path + "/absent.dtf"), CheckpointError);
}

TEST(CheckpointTest, HostileSizesAreRejectedBeforeAllocating) {
  // A valid header claiming one tensor, then a record whose header CRC is
  // right but whose data size is enormous: rejected as truncated, without
  // allocating it.
  TempDir dir;
  std::string path = dir.path + "/model.ckpt-0.dtf";
  Checkpoint checkpoint;
  checkpoint.tensors.emplace("w", Tensor::filled(DType::F32, {2}, 1.0));
  writeCheckpointFile(path, checkpoint);
  std::string bytes = readBytes(path);
  // Record: u32 name len (1) | 'w' | u32 dtype | u32 rank (1) | i64 dim |
  // u64 data bytes | u32 crc. Make the dim 2^40 and the size 2^42, and fix
  // the record's CRC.
  size_t record = 32;
  auto put64 = [&](size_t at, uint64_t value) {
    for (int i = 0; i < 8; ++i)
      bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
  };
  put64(record + 13, uint64_t(1) << 40);
  put64(record + 21, uint64_t(1) << 42);
  uint32_t crc = maskCrc(crc32c(bytes.data() + record, 29));
  for (int i = 0; i < 4; ++i)
    bytes[record + 29 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  writeBytes(path, bytes);
  try {
    readCheckpointFile(path);
    FAIL() << "no error";
  } catch (const CheckpointError &error) {
    EXPECT_NE(std::string(error.what()).find("truncated"), std::string::npos)
        << error.what();
  }
}

TEST(CheckpointDirectoryTest, KeepsTheNewestK) {
  TempDir dir;
  CheckpointDirectory checkpoints(dir.path + "/logdir");
  EXPECT_TRUE(checkpoints.list().empty()); // not created yet
  for (int64_t step : {0, 100, 200, 300, 400})
    checkpoints.save(sample(step), /*keep=*/3);
  std::vector<int64_t> steps;
  for (const auto &entry : checkpoints.list())
    steps.push_back(entry.step);
  EXPECT_EQ(steps, (std::vector<int64_t>{200, 300, 400}));
  std::vector<std::string> warnings;
  auto loaded =
      checkpoints.loadNewest([&](const std::string &w) { warnings.push_back(w); });
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->checkpoint.step, 400);
  EXPECT_EQ(loaded->path, dir.path + "/logdir/model.ckpt-400.dtf");
  EXPECT_TRUE(warnings.empty());
  for (const auto &entry : checkpoints.list())
    ::unlink(entry.path.c_str());
  ::rmdir((dir.path + "/logdir").c_str());
}

TEST(CheckpointDirectoryTest, FallsBackFromCorruptAndTruncatedFiles) {
  TempDir dir;
  CheckpointDirectory checkpoints(dir.path);
  checkpoints.save(sample(100, 1.0f), 0);
  checkpoints.save(sample(200, 2.0f), 0);
  checkpoints.save(sample(300, 3.0f), 0);
  // 300 truncated (as by a crash without the atomic rename), 200 with a
  // flipped bit.
  std::string newest = readBytes(checkpoints.pathFor(300));
  writeBytes(checkpoints.pathFor(300), newest.substr(0, newest.size() / 2));
  std::string middle = readBytes(checkpoints.pathFor(200));
  middle[40] ^= 0x01;
  writeBytes(checkpoints.pathFor(200), middle);

  std::vector<std::string> warnings;
  auto loaded =
      checkpoints.loadNewest([&](const std::string &w) { warnings.push_back(w); });
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->checkpoint.step, 100);
  expectEqual(loaded->checkpoint, sample(100, 1.0f));
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("model.ckpt-300.dtf"), std::string::npos);
  EXPECT_NE(warnings[0].find("truncated"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("model.ckpt-200.dtf"), std::string::npos);
  EXPECT_NE(warnings[1].find("checksum"), std::string::npos) << warnings[1];

  // Nothing valid at all: nullopt, one warning per file.
  writeBytes(checkpoints.pathFor(100), "");
  warnings.clear();
  EXPECT_FALSE(checkpoints.loadNewest(
      [&](const std::string &w) { warnings.push_back(w); }));
  EXPECT_EQ(warnings.size(), 3u);
}

TEST(CheckpointDirectoryTest, AFileWhoseStepDiffersFromItsNameIsSkipped) {
  TempDir dir;
  CheckpointDirectory checkpoints(dir.path);
  checkpoints.save(sample(5), 0);
  writeCheckpointFile(checkpoints.pathFor(9), sample(7));
  std::vector<std::string> warnings;
  auto loaded =
      checkpoints.loadNewest([&](const std::string &w) { warnings.push_back(w); });
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->checkpoint.step, 5);
  EXPECT_EQ(warnings.size(), 1u);
}

TEST(CheckpointDirectoryTest, IgnoresOtherFilesAndRemovesTemporaries) {
  TempDir dir;
  CheckpointDirectory checkpoints(dir.path);
  writeBytes(dir.path + "/events.out", "x");
  writeBytes(dir.path + "/model.ckpt-abc.dtf", "x");
  writeBytes(dir.path + "/.model.ckpt-7.dtf.tmp.12345", "partial");
  EXPECT_TRUE(checkpoints.list().empty());
  EXPECT_FALSE(checkpoints.loadNewest({}));
  checkpoints.removeTemporaries();
  EXPECT_EQ(dir.names(),
            (std::vector<std::string>{"events.out", "model.ckpt-abc.dtf"}));
}

TEST(CheckpointDirectoryTest, SavingTheSameStepAgainReplacesIt) {
  TempDir dir;
  CheckpointDirectory checkpoints(dir.path);
  checkpoints.save(sample(10, 1.0f), 2);
  checkpoints.save(sample(10, 5.0f), 2);
  expectEqual(readCheckpointFile(checkpoints.pathFor(10)), sample(10, 5.0f));
  EXPECT_EQ(dir.names(), std::vector<std::string>{"model.ckpt-10.dtf"});
}

TEST(CheckpointDirectoryTest, AnUnwritableDirectoryIsAnError) {
  // A directory below a regular file cannot exist, even for root.
  TempDir dir;
  writeBytes(dir.path + "/file", "x");
  CheckpointDirectory checkpoints(dir.path + "/file/logdir");
  EXPECT_THROW(checkpoints.save(sample(1), 1), CheckpointError);
}

} // namespace
} // namespace dtf::checkpoint
