//===- TensorBundleTest.cpp - TensorFlow's V2 checkpoints: both ways ------===//

#include "runtime/checkpoint/TensorBundle.h"
#include "runtime/core/Crc32c.h"

#include "tensor_bundle.pb.h"

#include <gtest/gtest.h>
#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>
#include <leveldb/table_builder.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace dtf::checkpoint {
namespace {

/// A fresh directory under $TMPDIR, removed with everything in it.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base ? base : "/tmp") + "/dtfbundle.XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!::mkdtemp(buffer.data()))
      ADD_FAILURE() << "mkdtemp failed";
    path = buffer.data();
  }
  ~TempDir() { removeTree(path); }

  static std::vector<std::string> names(const std::string &directory) {
    std::vector<std::string> result;
    if (DIR *dir = ::opendir(directory.c_str())) {
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
  std::vector<std::string> names() const { return names(path); }

  std::string path;

private:
  static void removeTree(const std::string &directory) {
    for (const std::string &name : names(directory)) {
      std::string child = directory + "/" + name;
      struct stat info;
      if (::lstat(child.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
        removeTree(child);
      else
        ::unlink(child.c_str());
    }
    ::rmdir(directory.c_str());
  }
};

std::string readBytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool sameTensor(const Tensor &a, const Tensor &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.rawData(), b.rawData(), a.byteSize()) == 0;
}

#define EXPECT_SAME_TENSOR(actual, expected)                                   \
  EXPECT_TRUE(sameTensor(actual, expected))                                    \
      << "got " << (actual).typeString() << ", expected "                      \
      << (expected).typeString()

/// A model's variables: every dtype, the values at the edges of each, a
/// scalar, an empty tensor.
std::map<std::string, Tensor> sampleTensors() {
  std::map<std::string, Tensor> tensors;
  tensors.emplace("dense/kernel",
                  Tensor::fromVector<float>(
                      {2, 3}, {1.5f, -0.0f, std::numeric_limits<float>::min(),
                               std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN(), 7}));
  tensors.emplace("dense/kernel/Adam",
                  Tensor::fromVector<double>({2}, {0.5, -1e300}));
  tensors.emplace("global_step", Tensor::scalar<int64_t>(300));
  tensors.emplace("counts", Tensor::fromVector<int32_t>(
                                {3}, {std::numeric_limits<int32_t>::min(), -8,
                                      std::numeric_limits<int32_t>::max()}));
  tensors.emplace("ids", Tensor::fromVector<int64_t>(
                             {2}, {std::numeric_limits<int64_t>::min(),
                                   std::numeric_limits<int64_t>::max()}));
  tensors.emplace("mask", Tensor::fromVector<bool>({3}, {true, false, true}));
  tensors.emplace("empty", Tensor(DType::F32, {0, 4}));
  return tensors;
}

/// Rows 0-2 and 3-4 of a [5, 3] variable: how a variable partitioned over
/// 2 PS tasks is saved.
Tensor embeddingValue() {
  std::vector<float> values(15);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = 0.5f * float(i) - 1.0f;
  return Tensor::fromVector<float>({5, 3}, values);
}

/// Rows [begin, end) of a rank-2 tensor.
Tensor rowsOf(const Tensor &tensor, int64_t begin, int64_t end) {
  Shape shape = tensor.shape();
  int64_t rowBytes = int64_t(tensor.byteSize()) / shape[0];
  shape[0] = end - begin;
  Tensor rows(tensor.dtype(), shape);
  std::memcpy(rows.rawData(),
              static_cast<const char *>(tensor.rawData()) + begin * rowBytes,
              size_t((end - begin) * rowBytes));
  return rows;
}

TensorSlice rows(int64_t start, int64_t length) {
  TensorSlice slice;
  slice.extents = {{start, length}, {}};
  return slice;
}

/// The keys of an index, as LevelDB reads them.
std::vector<std::string> indexKeys(const std::string &path) {
  leveldb::Env *env = leveldb::Env::Default();
  uint64_t size = 0;
  leveldb::RandomAccessFile *file = nullptr;
  EXPECT_TRUE(env->GetFileSize(path, &size).ok());
  EXPECT_TRUE(env->NewRandomAccessFile(path, &file).ok());
  std::unique_ptr<leveldb::RandomAccessFile> owned(file);
  leveldb::Table *table = nullptr;
  EXPECT_TRUE(
      leveldb::Table::Open(leveldb::Options(), file, size, &table).ok());
  std::unique_ptr<leveldb::Table> ownedTable(table);
  std::vector<std::string> keys;
  std::unique_ptr<leveldb::Iterator> it(
      table->NewIterator(leveldb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next())
    keys.push_back(it->key().ToString());
  return keys;
}

/// Expects `call` to throw a CheckpointError whose message contains each
/// of `parts`.
template <typename Call>
void expectError(const Call &call, const std::vector<std::string> &parts) {
  try {
    call();
    ADD_FAILURE() << "no error";
  } catch (const CheckpointError &error) {
    for (const std::string &part : parts)
      EXPECT_NE(std::string(error.what()).find(part), std::string::npos)
          << error.what() << "\n  does not mention " << part;
  }
}

//===----------------------------------------------------------------------===//
// The slice key
//===----------------------------------------------------------------------===//

TEST(TensorSliceKeyTest, EncodesAsTensorFlowsOrderedCode) {
  // ordered_code.cc's examples: 0x424242 -> f0 42 42 42; a whole
  // dimension is start 0 (80) and length -1 (7f); 0 -> 80; the largest
  // int64 takes 10 bytes. The name escapes 00 as 00 ff and ff as ff 00 and
  // ends with 00 01; the leading 0 and the rank are unsigned numbers (a
  // length byte, then the bytes).
  TensorSlice slice;
  slice.extents = {{0x424242, 0}, {}, {7, std::numeric_limits<int64_t>::max()}};
  std::string expected("\x00"
                       "a\x00\xff"
                       "b\xff\x00"
                       "\x00\x01"
                       "\x01\x03"
                       "\xf0\x42\x42\x42\x80"
                       "\x80\x7f"
                       "\x87\xff\xc0\x7f\xff\xff\xff\xff\xff\xff\xff",
                       29);
  EXPECT_EQ(encodeTensorNameSlice(std::string("a\0b\xff", 4), slice), expected);
  // Two-byte numbers: 64 is the first positive one, -65 the first
  // negative one (-0x800 -> 38 00); 2^56 takes 9 bytes, whose length bits
  // run into the second byte.
  TensorSlice longer;
  longer.extents = {{64, int64_t(1) << 56}, {-0x800, -65}};
  EXPECT_EQ(encodeTensorNameSlice("", longer),
            std::string("\x00"
                        "\x00\x01"
                        "\x01\x02"
                        "\xc0\x40"
                        "\xff\x81\x00\x00\x00\x00\x00\x00\x00"
                        "\x38\x00\x3f\xbf",
                        20));
}

TEST(TensorSliceKeyTest, MatchesTheKeysTensorFlowWrote) {
  // The fixture's `partitioned/embedding` [5, 3] is saved in rows 0-2 and
  // 3-4; TensorFlow's Saver spells the whole second dimension as start 0,
  // length 3.
  std::set<std::string> sliceKeys;
  for (const std::string &key :
       indexKeys(std::string(DTF_TF_BUNDLE_FIXTURE) + "/model.ckpt-2.index"))
    if (!key.empty() && key[0] == '\0')
      sliceKeys.insert(key);
  EXPECT_EQ(sliceKeys,
            (std::set<std::string>{
                encodeTensorNameSlice(
                    "partitioned/embedding",
                    TensorSlice::fromStartsAndLengths({{0, 3}, {0, 3}})),
                encodeTensorNameSlice(
                    "partitioned/embedding",
                    TensorSlice::fromStartsAndLengths({{3, 2}, {0, 3}}))}));
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST(TensorBundleTest, RoundTripsEveryDType) {
  TempDir dir;
  std::string prefix = dir.path + "/model.ckpt-300";
  std::map<std::string, Tensor> tensors = sampleTensors();
  BundleWriter writer(prefix);
  for (const auto &[name, tensor] : tensors)
    writer.add(name, tensor);
  writer.finish();
  EXPECT_EQ(dir.names(),
            (std::vector<std::string>{"model.ckpt-300.data-00000-of-00001",
                                      "model.ckpt-300.index"}));

  BundleReader reader(prefix);
  EXPECT_EQ(reader.numShards(), 1);
  ASSERT_EQ(reader.tensors().size(), tensors.size());
  std::map<std::string, Tensor> read = reader.readAll();
  for (const auto &[name, tensor] : tensors) {
    SCOPED_TRACE(name);
    const BundleReader::TensorInfo &info = reader.tensors().at(name);
    EXPECT_EQ(info.dtype, tensor.dtype());
    EXPECT_EQ(info.shape, tensor.shape());
    EXPECT_TRUE(info.slices.empty());
    EXPECT_SAME_TENSOR(read.at(name), tensor);
  }
  expectError([&] { reader.read("missing"); }, {prefix + ".index", "missing"});
}

TEST(TensorBundleTest, AssemblesAPartitionedVariableAndReadsAnySlice) {
  TempDir dir;
  std::string prefix = dir.path + "/model.ckpt-1";
  Tensor embedding = embeddingValue();
  Tensor flags = Tensor::fromVector<bool>({4}, {true, false, false, true});
  {
    BundleWriter writer(prefix);
    writer.addSlice("embedding", {5, 3}, rows(3, 2), rowsOf(embedding, 3, 5));
    writer.addSlice("embedding", {5, 3}, rows(0, 3), rowsOf(embedding, 0, 3));
    TensorSlice firstFlags = TensorSlice::fromStartsAndLengths({{0, 1}});
    writer.addSlice("flags", {4}, firstFlags, rowsOf(flags, 0, 1));
    writer.addSlice("flags", {4}, TensorSlice::fromStartsAndLengths({{1, 3}}),
                    rowsOf(flags, 1, 4));
    // A slice that is the whole tensor is stored as the tensor.
    writer.addSlice("whole", {2}, TensorSlice::fromStartsAndLengths({{0, 2}}),
                    Tensor::fromVector<int32_t>({2}, {4, 5}));
    writer.finish();
  }
  BundleReader reader(prefix);
  ASSERT_EQ(reader.tensors().size(), 3u) << "slice keys are not names";
  const BundleReader::TensorInfo &info = reader.tensors().at("embedding");
  EXPECT_EQ(info.shape, (Shape{5, 3}));
  EXPECT_EQ(info.slices.size(), 2u);
  EXPECT_TRUE(reader.tensors().at("whole").slices.empty());
  EXPECT_SAME_TENSOR(reader.read("embedding"), embedding);
  EXPECT_SAME_TENSOR(reader.read("flags"), flags);

  // Saved in 2 parts, restored into 3: rows 0-1, 2-3 and 4.
  for (auto [begin, end] :
       std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {2, 4}, {4, 5}}) {
    SCOPED_TRACE("rows " + std::to_string(begin) + "-" + std::to_string(end));
    EXPECT_SAME_TENSOR(reader.readSlice("embedding", rows(begin, end - begin)),
                       rowsOf(embedding, begin, end));
  }
  // Across both stored slices and along the second dimension: rows 2-3,
  // columns 1-2.
  Tensor block = reader.readSlice(
      "embedding", TensorSlice::fromStartsAndLengths({{2, 2}, {1, 2}}));
  EXPECT_EQ(block.toVector<float>(),
            (std::vector<float>{2.5f, 3.0f, 4.0f, 4.5f}));
  // A tensor stored whole is sliced too.
  EXPECT_EQ(
      reader.readSlice("whole", TensorSlice::fromStartsAndLengths({{1, 1}}))
          .toVector<int32_t>(),
      std::vector<int32_t>{5});
  expectError(
      [&] {
        reader.readSlice("embedding",
                         TensorSlice::fromStartsAndLengths({{4, 2}, {0, 3}}));
      },
      {"does not fit", "'embedding'"});
}

TEST(TensorBundleTest, RejectsSlicesThatDoNotFit) {
  TempDir dir;
  BundleWriter writer(dir.path + "/model.ckpt-1");
  Tensor three = rowsOf(embeddingValue(), 0, 3);
  writer.addSlice("embedding", {5, 3}, rows(0, 3), three);
  expectError(
      [&] {
        writer.addSlice("embedding", {5, 3}, rows(2, 3), three);
      },
      {"overlaps"});
  expectError(
      [&] {
        writer.addSlice("embedding", {5, 3}, rows(3, 3), three);
      },
      {"does not fit"});
  expectError(
      [&] {
        writer.addSlice("embedding", {5, 3}, rows(3, 2), three);
      },
      {"holds a tensor of shape [3,3]"});
  expectError(
      [&] {
        writer.addSlice("embedding", {6, 3}, rows(3, 3), three);
      },
      {"added before as another tensor"});
  expectError([&] { writer.add("embedding", three); }, {"added twice"});
}

//===----------------------------------------------------------------------===//
// Sharded saves
//===----------------------------------------------------------------------===//

/// Each of 2 PS tasks saves its variables and its slice of `embedding`
/// as a sharded Saver's task does.
void writeTwoShards(const std::string &prefix) {
  Tensor embedding = embeddingValue();
  {
    BundleWriter task0(shardedSavePrefix(prefix, 0, 2));
    task0.add("dense/kernel", Tensor::fromVector<float>({2}, {1, 2}));
    task0.add("global_step", Tensor::scalar<int64_t>(7));
    task0.addSlice("embedding", {5, 3}, rows(0, 3), rowsOf(embedding, 0, 3));
    task0.finish();
  }
  BundleWriter task1(shardedSavePrefix(prefix, 1, 2));
  task1.add("dense/bias", Tensor::fromVector<double>({1}, {3}));
  task1.addSlice("embedding", {5, 3}, rows(3, 2), rowsOf(embedding, 3, 5));
  task1.finish();
}

TEST(TensorBundleTest, MergesTheShardsOfASaveAsTensorFlowDoes) {
  TempDir dir;
  std::string prefix = dir.path + "/model.ckpt-7";
  EXPECT_EQ(shardedSavePrefix(prefix, 1, 2),
            prefix + "_temp/part-00001-of-00002");
  writeTwoShards(prefix);
  mergeBundles(
      {shardedSavePrefix(prefix, 0, 2), shardedSavePrefix(prefix, 1, 2)},
      prefix);
  EXPECT_EQ(dir.names(),
            (std::vector<std::string>{"model.ckpt-7.data-00000-of-00002",
                                      "model.ckpt-7.data-00001-of-00002",
                                      "model.ckpt-7.index"}))
      << "the shards' directory is removed";

  BundleReader reader(prefix);
  EXPECT_EQ(reader.numShards(), 2);
  std::map<std::string, Tensor> read = reader.readAll();
  ASSERT_EQ(read.size(), 4u);
  EXPECT_SAME_TENSOR(read.at("dense/kernel"),
                     Tensor::fromVector<float>({2}, {1, 2}));
  EXPECT_SAME_TENSOR(read.at("dense/bias"),
                     Tensor::fromVector<double>({1}, {3}));
  EXPECT_SAME_TENSOR(read.at("global_step"), Tensor::scalar<int64_t>(7));
  EXPECT_SAME_TENSOR(read.at("embedding"), embeddingValue());
  EXPECT_EQ(reader.tensors().at("embedding").slices.size(), 2u);
}

TEST(TensorBundleTest, AMergeWithAMissingShardChangesNothing) {
  TempDir dir;
  std::string prefix = dir.path + "/model.ckpt-7";
  writeTwoShards(prefix);
  std::string missing = bundleDataPath(shardedSavePrefix(prefix, 1, 2), 0, 1);
  ASSERT_EQ(::unlink(missing.c_str()), 0);
  expectError(
      [&] {
        mergeBundles(
            {shardedSavePrefix(prefix, 0, 2), shardedSavePrefix(prefix, 1, 2)},
            prefix);
      },
      {missing, "missing"});
  EXPECT_EQ(dir.names(), std::vector<std::string>{"model.ckpt-7_temp"});
  EXPECT_EQ(TempDir::names(prefix + "_temp").size(), 3u);
}

TEST(TensorBundleTest, AMergeRefusesATensorSavedTwice) {
  TempDir dir;
  std::string prefix = dir.path + "/model.ckpt-1";
  for (int shard = 0; shard < 2; ++shard) {
    BundleWriter writer(shardedSavePrefix(prefix, shard, 2));
    writer.add("global_step", Tensor::scalar<int64_t>(1));
    writer.finish();
  }
  expectError(
      [&] {
        mergeBundles(
            {shardedSavePrefix(prefix, 0, 2), shardedSavePrefix(prefix, 1, 2)},
            prefix);
      },
      {"'global_step'", "part-00000-of-00002.index"});
}

TEST(TensorBundleTest, AnUnfinishedSaveLeavesThePreviousCheckpoint) {
  TempDir dir;
  std::string previous = dir.path + "/model.ckpt-100";
  {
    BundleWriter writer(previous);
    writer.add("global_step", Tensor::scalar<int64_t>(100));
    writer.finish();
  }
  writeCheckpointState(dir.path, {"model.ckpt-100", {"model.ckpt-100"}});
  std::vector<std::string> before = dir.names();

  // A writer that dies before finish() (its process killed, or an error
  // while saving) leaves no trace; neither does a sharded save whose merge
  // never ran, but its shards.
  {
    BundleWriter writer(dir.path + "/model.ckpt-200");
    writer.add("global_step", Tensor::scalar<int64_t>(200));
  }
  EXPECT_EQ(dir.names(), before);
  writeTwoShards(dir.path + "/model.ckpt-300");
  expectError([&] { BundleReader(dir.path + "/model.ckpt-300"); },
              {"model.ckpt-300.index"});

  EXPECT_EQ(readCheckpointState(dir.path)->modelCheckpointPath,
            "model.ckpt-100");
  EXPECT_EQ(BundleReader(previous).read("global_step").toVector<int64_t>(),
            std::vector<int64_t>{100});
}

TEST(TensorBundleTest, SavingAPrefixAgainReplacesIt) {
  TempDir dir;
  std::string prefix = dir.path + "/model.ckpt-5";
  for (int64_t value : {1, 2}) {
    BundleWriter writer(prefix);
    writer.add("global_step", Tensor::scalar<int64_t>(value));
    writer.finish();
  }
  EXPECT_EQ(BundleReader(prefix).read("global_step").toVector<int64_t>(),
            std::vector<int64_t>{2});
  EXPECT_EQ(dir.names().size(), 2u);

  // A save that fails once the new data file has taken the name (here: its
  // index cannot be created) leaves no index naming the new bytes.
  std::string blocked =
      bundleIndexPath(prefix) + ".tempstate" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(blocked.c_str(), 0755), 0);
  BundleWriter writer(prefix);
  writer.add("global_step", Tensor::scalar<int64_t>(3));
  expectError([&] { writer.finish(); }, {blocked});
  expectError([&] { BundleReader reader(prefix); },
              {bundleIndexPath(prefix), "No such file"});
}

//===----------------------------------------------------------------------===//
// Damage
//===----------------------------------------------------------------------===//

/// A small bundle of 2 shards with a partitioned variable.
std::string writeSmallBundle(const TempDir &dir) {
  std::string prefix = dir.path + "/model.ckpt-7";
  writeTwoShards(prefix);
  mergeBundles(
      {shardedSavePrefix(prefix, 0, 2), shardedSavePrefix(prefix, 1, 2)},
      prefix);
  return prefix;
}

void readEverything(const std::string &prefix) {
  BundleReader(prefix).readAll();
}

TEST(TensorBundleTest, EveryTruncationIsDetected) {
  TempDir dir;
  std::string prefix = writeSmallBundle(dir);
  for (const std::string &path :
       {bundleIndexPath(prefix), bundleDataPath(prefix, 0, 2),
        bundleDataPath(prefix, 1, 2)}) {
    std::string bytes = readBytes(path);
    for (size_t size = 0; size < bytes.size(); ++size) {
      SCOPED_TRACE(path + " truncated to " + std::to_string(size));
      writeBytes(path, bytes.substr(0, size));
      expectError([&] { readEverything(prefix); }, {path});
    }
    writeBytes(path, bytes);
  }
  readEverything(prefix);
}

TEST(TensorBundleTest, EveryCorruptByteIsDetected) {
  TempDir dir;
  std::string prefix = writeSmallBundle(dir);
  for (const std::string &path :
       {bundleIndexPath(prefix), bundleDataPath(prefix, 0, 2),
        bundleDataPath(prefix, 1, 2)}) {
    std::string bytes = readBytes(path);
    for (size_t at = 0; at < bytes.size(); ++at) {
      SCOPED_TRACE(path + " byte " + std::to_string(at));
      std::string corrupt = bytes;
      corrupt[at] = static_cast<char>(corrupt[at] ^ 0x41);
      writeBytes(path, corrupt);
      expectError([&] { readEverything(prefix); }, {path});
    }
    writeBytes(path, bytes);
  }
}

TEST(TensorBundleTest, ErrorsNameTheFileAndTheTensor) {
  TempDir dir;
  std::string prefix = writeSmallBundle(dir);
  // dense/bias is the only tensor of shard 1: a changed byte of it is its
  // CRC's mismatch.
  std::string shard1 = bundleDataPath(prefix, 1, 2);
  std::string bytes = readBytes(shard1);
  std::string corrupt = bytes;
  corrupt[0] ^= 1;
  writeBytes(shard1, corrupt);
  expectError([&] { BundleReader(prefix).read("dense/bias"); },
              {shard1, "'dense/bias'", "checksum"});
  EXPECT_NO_THROW(BundleReader(prefix).read("dense/kernel"));

  writeBytes(shard1, bytes.substr(0, bytes.size() - 1));
  expectError(
      [&] { BundleReader reader(prefix); },
      {shard1, "slice 3,2:- of tensor 'embedding'", "runs past the end"});

  ASSERT_EQ(::unlink(shard1.c_str()), 0);
  expectError([&] { BundleReader reader(prefix); },
              {shard1, prefix + ".index", "No such file"});
}

/// Writes an index of `entries` after `header`, as a hostile writer could.
void writeIndexOf(
    const std::string &prefix, const tensor_bundle::BundleHeaderProto &header,
    const std::map<std::string, tensor_bundle::BundleEntryProto> &entries) {
  leveldb::WritableFile *file = nullptr;
  ASSERT_TRUE(leveldb::Env::Default()
                  ->NewWritableFile(bundleIndexPath(prefix), &file)
                  .ok());
  std::unique_ptr<leveldb::WritableFile> owned(file);
  leveldb::Options options;
  options.compression = leveldb::kNoCompression;
  leveldb::TableBuilder builder(options, file);
  builder.Add("", header.SerializeAsString());
  for (const auto &[key, entry] : entries)
    builder.Add(key, entry.SerializeAsString());
  ASSERT_TRUE(builder.Finish().ok());
  ASSERT_TRUE(file->Close().ok());
}

TEST(TensorBundleTest, HostileEntriesAreRejectedBeforeAllocating) {
  TempDir dir;
  std::string prefix = dir.path + "/hostile";
  writeBytes(bundleDataPath(prefix, 0, 1), std::string(16, '\0'));
  tensor_bundle::BundleHeaderProto header;
  header.set_num_shards(1);
  header.mutable_version()->set_producer(1);

  auto entryOf = [](Shape shape, int64_t size) {
    tensor_bundle::BundleEntryProto entry;
    entry.set_dtype(tensor_bundle::DT_FLOAT);
    for (int64_t dim : shape)
      entry.mutable_shape()->add_dim()->set_size(dim);
    entry.set_size(size);
    return entry;
  };
  struct Case {
    const char *what;
    tensor_bundle::BundleEntryProto entry;
    const char *error;
  };
  std::vector<Case> cases = {
      {"a terabyte", entryOf({int64_t(1) << 38}, int64_t(1) << 40),
       "runs past the end"},
      {"an overflowing shape", entryOf({int64_t(1) << 40, int64_t(1) << 40}, 0),
       "invalid shape"},
      {"a negative dimension", entryOf({-4}, -16), "invalid shape"},
      {"a size that is not the shape's", entryOf({2}, 16),
       "16 bytes for f32[2]"},
      {"a negative offset", entryOf({2}, 8), "runs past the end"},
      {"another data file", entryOf({2}, 8), "data file 3 of 1"},
      {"a dtype DTF does not have", entryOf({2}, 8), "has dtype 7"},
      {"a slice outside the shape", entryOf({4}, 0), "outside its shape"},
      {"a slice without an entry", entryOf({4}, 0), "has no entry"},
  };
  cases[4].entry.set_offset(-8);
  cases[5].entry.set_shard_id(3);
  cases[6].entry.set_dtype(static_cast<tensor_bundle::DataType>(7)); // string
  auto *extent = cases[7].entry.add_slices()->add_extent();
  extent->set_start(2);
  extent->set_length(3);
  cases[8].entry.add_slices()->add_extent()->set_length(2);
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    writeIndexOf(prefix, header, {{"victim", c.entry}});
    expectError([&] { BundleReader reader(prefix); },
                {"hostile", "'victim'", c.error});
  }

  // Two slices of `victim` [4] that both hold element 2.
  tensor_bundle::BundleEntryProto victim = entryOf({4}, 0);
  std::map<std::string, tensor_bundle::BundleEntryProto> overlapping;
  for (auto [start, length] :
       std::vector<std::pair<int64_t, int64_t>>{{0, 3}, {2, 2}}) {
    auto *extent = victim.add_slices()->add_extent();
    extent->set_start(start);
    extent->set_length(length);
    tensor_bundle::BundleEntryProto slice = entryOf({length}, 0);
    slice.set_size(4 * length);
    overlapping[encodeTensorNameSlice(
        "victim", TensorSlice::fromStartsAndLengths({{start, length}}))] =
        slice;
  }
  overlapping["victim"] = victim;
  writeBytes(bundleDataPath(prefix, 0, 1), std::string(20, '\0'));
  writeIndexOf(prefix, header, overlapping);
  expectError([&] { BundleReader reader(prefix); },
              {"slice 2,2 of tensor 'victim'", "overlaps"});

  header.set_endianness(tensor_bundle::BundleHeaderProto::BIG);
  writeIndexOf(prefix, header, {});
  expectError([&] { BundleReader reader(prefix); }, {"big-endian"});
  header.set_endianness(tensor_bundle::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_min_consumer(2);
  writeIndexOf(prefix, header, {});
  expectError([&] { BundleReader reader(prefix); }, {"version 2"});
}

TEST(TensorBundleTest, HostileBlockHandlesAreRejectedBeforeAllocating) {
  TempDir dir;
  std::string prefix = writeSmallBundle(dir);
  std::string path = bundleIndexPath(prefix);
  std::string bytes = readBytes(path);
  // The footer's first handle (the metaindex block's offset and size) made
  // an exabyte long.
  std::string hostile = bytes;
  size_t footer = bytes.size() - 48;
  size_t offsetBytes = 0;
  while (static_cast<unsigned char>(bytes[footer + offsetBytes]) & 0x80)
    ++offsetBytes;
  hostile.replace(footer + offsetBytes + 1, 9,
                  "\xff\xff\xff\xff\xff\xff\xff\xff\x0f");
  writeBytes(path, hostile);
  expectError([&] { BundleReader reader(prefix); },
              {path, "the metaindex block lies outside the file"});

  // An index block, with a correct checksum, whose one entry names a data
  // block an exabyte long.
  auto varint = [](uint64_t value) {
    std::string encoded;
    for (; value >= 0x80; value >>= 7)
      encoded.push_back(static_cast<char>(value | 0x80));
    encoded.push_back(static_cast<char>(value));
    return encoded;
  };
  auto fixed32 = [](uint32_t value) {
    std::string encoded(4, '\0');
    std::memcpy(&encoded[0], &value, 4);
    return encoded;
  };
  size_t position = footer;
  auto readVarint = [&] {
    uint64_t value = 0;
    for (int shift = 0;; shift += 7) {
      auto byte = static_cast<unsigned char>(bytes[position++]);
      value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return value;
    }
  };
  uint64_t metaOffset = readVarint(), metaSize = readVarint();
  // The entry: no shared key bytes, the key "k", the handle (offset 0,
  // size 2^60); then the restart offsets (one, at 0) and their count.
  std::string handle = varint(0) + varint(uint64_t(1) << 60);
  std::string block = varint(0) + varint(1) + varint(handle.size()) + "k" +
                      handle + fixed32(0) + fixed32(1);
  std::string trailer = std::string(1, '\0') +
                        fixed32(maskCrc(crc32c(block + std::string(1, '\0'))));
  std::string newFooter = varint(metaOffset) + varint(metaSize) +
                          varint(footer) + varint(block.size());
  newFooter.resize(40, '\0');
  newFooter += bytes.substr(footer + 40);
  writeBytes(path, bytes.substr(0, footer) + block + trailer + newFooter);
  expectError([&] { BundleReader reader(prefix); },
              {path, "a data block lies outside the file"});
}

//===----------------------------------------------------------------------===//
// TensorFlow's own checkpoint
//===----------------------------------------------------------------------===//

/// The tensors of an `expected.txt` (written by testdata/write_tf_bundle.py
/// and dtf-write-test-bundle): `<name> <dtype> <dims|-> <elements>`, the
/// floating-point elements as the hexadecimal bits of their encoding.
std::map<std::string, Tensor> readExpected(const std::string &path) {
  std::map<std::string, Tensor> tensors;
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name, dtypeName, dims;
    fields >> name >> dtypeName >> dims;
    Shape shape;
    if (dims != "-") {
      std::istringstream sizes(dims);
      for (std::string size; std::getline(sizes, size, ',');)
        shape.push_back(std::stoll(size));
    }
    const std::map<std::string, DType> dtypes = {{"float", DType::F32},
                                                 {"double", DType::F64},
                                                 {"int32", DType::I32},
                                                 {"int64", DType::I64},
                                                 {"bool", DType::Bool}};
    Tensor tensor(dtypes.at(dtypeName), shape);
    auto *bytes = static_cast<char *>(tensor.rawData());
    size_t elementBytes = dtypeSize(tensor.dtype());
    for (int64_t i = 0; i < tensor.numElements(); ++i) {
      std::string text;
      fields >> text;
      bool bits = tensor.dtype() == DType::F32 || tensor.dtype() == DType::F64;
      uint64_t value = bits ? std::stoull(text, nullptr, 16)
                            : static_cast<uint64_t>(std::stoll(text));
      std::memcpy(bytes + i * elementBytes, &value, elementBytes);
    }
    EXPECT_TRUE(fields) << line;
    tensors.emplace(name, std::move(tensor));
  }
  return tensors;
}

TEST(TensorFlowBundleTest, ReadsEveryTensorTensorFlowWrote) {
  std::string fixture = DTF_TF_BUNDLE_FIXTURE;
  std::optional<CheckpointState> state = readCheckpointState(fixture);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->modelCheckpointPath, "model.ckpt-2");
  EXPECT_EQ(state->allModelCheckpointPaths,
            std::vector<std::string>{"model.ckpt-2"});

  std::map<std::string, Tensor> expected =
      readExpected(fixture + "/expected.txt");
  ASSERT_GE(expected.size(), 15u);
  BundleReader reader(fixture + "/" + state->modelCheckpointPath);
  std::map<std::string, Tensor> read = reader.readAll();
  std::vector<std::string> names, expectedNames;
  for (const auto &entry : read)
    names.push_back(entry.first);
  for (const auto &entry : expected)
    expectedNames.push_back(entry.first);
  EXPECT_EQ(names, expectedNames);
  for (const auto &[name, tensor] : expected) {
    SCOPED_TRACE(name);
    if (read.count(name)) {
      EXPECT_SAME_TENSOR(read.at(name), tensor);
    }
  }
  EXPECT_EQ(reader.tensors().at("partitioned/embedding").slices.size(), 2u);
  // TensorFlow's 2 slices read as 3.
  const Tensor &embedding = expected.at("partitioned/embedding");
  for (auto [begin, end] :
       std::vector<std::pair<int64_t, int64_t>>{{0, 2}, {2, 4}, {4, 5}})
    EXPECT_SAME_TENSOR(
        reader.readSlice("partitioned/embedding", rows(begin, end - begin)),
        rowsOf(embedding, begin, end));
}

//===----------------------------------------------------------------------===//
// The checkpoint state file
//===----------------------------------------------------------------------===//

TEST(CheckpointStateTest, RoundTripsInTensorFlowsTextFormat) {
  TempDir dir;
  EXPECT_FALSE(readCheckpointState(dir.path));
  writeCheckpointState(
      dir.path, {"model.ckpt-300", {"model.ckpt-200", "model.ckpt-300"}});
  EXPECT_EQ(readBytes(dir.path + "/checkpoint"),
            "model_checkpoint_path: \"model.ckpt-300\"\n"
            "all_model_checkpoint_paths: \"model.ckpt-200\"\n"
            "all_model_checkpoint_paths: \"model.ckpt-300\"\n");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"checkpoint"});
  std::optional<CheckpointState> state = readCheckpointState(dir.path);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->modelCheckpointPath, "model.ckpt-300");
  EXPECT_EQ(state->allModelCheckpointPaths,
            (std::vector<std::string>{"model.ckpt-200", "model.ckpt-300"}));
}

TEST(CheckpointStateTest, ReadsTimestampsAndRejectsGarbage) {
  TempDir dir;
  // TensorFlow 1.13 and later may add when each was saved.
  writeBytes(dir.path + "/checkpoint",
             "model_checkpoint_path: \"/abs/model.ckpt-9\"\n"
             "all_model_checkpoint_paths: \"/abs/model.ckpt-9\"\n"
             "all_model_checkpoint_timestamps: 1733464000.5\n"
             "last_preserved_timestamp: 1733463000.25\n");
  EXPECT_EQ(readCheckpointState(dir.path)->modelCheckpointPath,
            "/abs/model.ckpt-9");
  writeBytes(dir.path + "/checkpoint", "model_checkpoint_path: 300 {");
  expectError([&] { readCheckpointState(dir.path); },
              {dir.path + "/checkpoint"});
}

} // namespace
} // namespace dtf::checkpoint
