//===- IdxReaderTest.cpp - IDX / MNIST loading ----------------------------===//

#include "runtime/data/IdxReader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace dtf;
using namespace dtf::data;

namespace {

std::vector<uint8_t> idxBytes(uint32_t magic, const std::vector<uint32_t> &dims,
                              const std::vector<uint8_t> &data) {
  std::vector<uint8_t> bytes;
  auto push32 = [&](uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8)
      bytes.push_back(static_cast<uint8_t>(v >> shift));
  };
  push32(magic);
  for (uint32_t d : dims)
    push32(d);
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

void writePlain(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  ASSERT_TRUE(out.good()) << path;
}

void writeGzip(const std::string &path, const std::vector<uint8_t> &bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr) << path;
  ASSERT_EQ(gzwrite(file, bytes.data(), bytes.size()),
            static_cast<int>(bytes.size()));
  ASSERT_EQ(gzclose(file), Z_OK);
}

std::vector<uint8_t> readAll(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

/// A fresh directory per test under gtest's temp dir.
class IdxReaderTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "dtf_idx_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    std::string command = "rm -rf '" + dir + "'";
    EXPECT_EQ(std::system(command.c_str()), 0);
  }

  std::string path(const std::string &name) const { return dir + "/" + name; }

  /// Writes a tiny 3-image 2x2 split named `split`.
  void writeSplit(const std::string &split, bool gzip,
                  std::vector<uint8_t> labels = {3, 0, 9}) {
    std::vector<uint8_t> pixels = {0, 255, 51, 102, 1, 2, 3, 4, 255, 255, 0, 0};
    auto write = gzip ? writeGzip : writePlain;
    const std::string suffix = gzip ? ".gz" : "";
    write(path(split + "-images-idx3-ubyte" + suffix),
          idxBytes(0x803, {3, 2, 2}, pixels));
    write(path(split + "-labels-idx1-ubyte" + suffix),
          idxBytes(0x801, {static_cast<uint32_t>(labels.size())}, labels));
  }

  /// Expects readIdxFile / loadMnistSplit to throw a runtime_error whose
  /// message names `file` and contains `fragment`.
  template <typename Fn>
  void expectError(Fn fn, const std::string &file,
                   const std::string &fragment) {
    try {
      fn();
      ADD_FAILURE() << "expected std::runtime_error";
    } catch (const std::runtime_error &e) {
      std::string message = e.what();
      EXPECT_NE(message.find(file), std::string::npos) << message;
      EXPECT_NE(message.find(fragment), std::string::npos) << message;
    }
  }

  std::string dir;
};

} // namespace

TEST_F(IdxReaderTest, ReadsPlainAndGzip) {
  std::vector<uint8_t> bytes = idxBytes(0x801, {4}, {1, 2, 3, 250});
  writePlain(path("plain"), bytes);
  writeGzip(path("packed.gz"), bytes);
  for (const char *name : {"plain", "packed.gz"}) {
    IdxArray array = readIdxFile(path(name), 1);
    EXPECT_EQ(array.dims, Shape{4}) << name;
    EXPECT_EQ(array.bytes, (std::vector<uint8_t>{1, 2, 3, 250})) << name;
  }
  // The gzip file really is compressed (it starts with the gzip magic).
  std::vector<uint8_t> packed = readAll(path("packed.gz"));
  ASSERT_GE(packed.size(), 2u);
  EXPECT_EQ(packed[0], 0x1f);
  EXPECT_EQ(packed[1], 0x8b);
}

TEST_F(IdxReaderTest, ReadsImageDims) {
  writeGzip(path("images.gz"), idxBytes(0x803, {2, 1, 3}, {1, 2, 3, 4, 5, 6}));
  IdxArray array = readIdxFile(path("images.gz"), 3);
  EXPECT_EQ(array.dims, (Shape{2, 1, 3}));
  EXPECT_EQ(array.bytes.size(), 6u);
}

TEST_F(IdxReaderTest, MissingFile) {
  expectError([&] { readIdxFile(path("absent"), 1); }, path("absent"),
              "cannot open");
}

TEST_F(IdxReaderTest, BadMagic) {
  // An image file where labels are expected, and a non-byte element type.
  writePlain(path("images"), idxBytes(0x803, {1, 1, 1}, {7}));
  expectError([&] { readIdxFile(path("images"), 1); }, path("images"),
              "bad magic number 0x00000803 (expected 0x00000801)");
  writeGzip(path("ints.gz"), idxBytes(0xC01, {1}, {0, 0, 0, 7}));
  expectError([&] { readIdxFile(path("ints.gz"), 1); }, path("ints.gz"),
              "bad magic");
}

TEST_F(IdxReaderTest, TruncatedHeaderDimsAndData) {
  writePlain(path("short-header"), {0, 0, 8});
  expectError([&] { readIdxFile(path("short-header"), 1); },
              path("short-header"), "truncated header");
  std::vector<uint8_t> dimsCut = idxBytes(0x803, {5, 2, 2}, {});
  dimsCut.resize(dimsCut.size() - 2);
  writePlain(path("short-dims"), dimsCut);
  expectError([&] { readIdxFile(path("short-dims"), 3); }, path("short-dims"),
              "truncated dimensions");
  std::vector<uint8_t> dataCut = idxBytes(0x801, {10}, {1, 2, 3});
  writePlain(path("short-data"), dataCut);
  writeGzip(path("short-data.gz"), dataCut);
  expectError([&] { readIdxFile(path("short-data"), 1); }, path("short-data"),
              "truncated data: expected 10 bytes, got 3");
  expectError([&] { readIdxFile(path("short-data.gz"), 1); },
              path("short-data.gz"), "truncated data");
}

TEST_F(IdxReaderTest, TruncatedGzipStream) {
  std::vector<uint8_t> data(5000);
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<uint8_t>(i * 7919 % 251);
  writeGzip(path("full.gz"), idxBytes(0x801, {5000}, data));
  std::vector<uint8_t> packed = readAll(path("full.gz"));
  packed.resize(packed.size() / 2);
  writePlain(path("cut.gz"), packed);
  expectError([&] { readIdxFile(path("cut.gz"), 1); }, path("cut.gz"),
              "truncated");
}

TEST_F(IdxReaderTest, LoadMnistSplitGzipAndPlain) {
  writeSplit("train", /*gzip=*/true);
  writeSplit("t10k", /*gzip=*/false);
  for (const char *split : {"train", "t10k"}) {
    SCOPED_TRACE(split);
    MnistSplit data = loadMnistSplit(dir, split);
    ASSERT_EQ(data.images.shape(), (Shape{3, 4}));
    const float *images = data.images.data<float>();
    EXPECT_FLOAT_EQ(images[0], 0.0f);
    EXPECT_FLOAT_EQ(images[1], 1.0f);
    EXPECT_FLOAT_EQ(images[2], 0.2f);
    EXPECT_FLOAT_EQ(images[3], 0.4f);
    EXPECT_EQ(data.labels.toVector<int64_t>(), (std::vector<int64_t>{3, 0, 9}));
    ASSERT_EQ(data.oneHotLabels.shape(), (Shape{3, 10}));
    std::vector<float> expected(30, 0.0f);
    expected[3] = expected[10] = expected[29] = 1.0f;
    EXPECT_EQ(data.oneHotLabels.toVector<float>(), expected);
  }
}

TEST_F(IdxReaderTest, LoadMnistSplitErrors) {
  expectError([&] { loadMnistSplit(dir, "train"); },
              path("train-images-idx3-ubyte.gz"), "not found");

  writeSplit("train", true, {1, 2});
  expectError([&] { loadMnistSplit(dir, "train"); },
              path("train-labels-idx1-ubyte.gz"), "3 images but 2 labels");

  writeSplit("t10k", false, {1, 10, 2});
  expectError([&] { loadMnistSplit(dir, "t10k"); },
              path("t10k-labels-idx1-ubyte"), "label 10 of item 1");

  EXPECT_THROW(loadMnistSplit(dir, "test"), std::invalid_argument);
}

TEST(FashionMnist, RealDataIfPresent) {
  const char *override = std::getenv("DTF_FASHION_MNIST_DIR");
  const std::string dir =
      override ? override : "/usr/share/datasets/fashion-mnist";
  struct stat info;
  if (::stat((dir + "/train-labels-idx1-ubyte.gz").c_str(), &info) != 0)
    GTEST_SKIP() << "Fashion-MNIST not found in " << dir
                 << " (set DTF_FASHION_MNIST_DIR to point elsewhere)";

  struct Expected {
    const char *split;
    int64_t count;
  };
  for (Expected e : {Expected{"train", 60000}, Expected{"t10k", 10000}}) {
    SCOPED_TRACE(e.split);
    MnistSplit data = loadMnistSplit(dir, e.split);
    EXPECT_EQ(data.images.shape(), (Shape{e.count, 784}));
    EXPECT_EQ(data.labels.shape(), Shape{e.count});
    EXPECT_EQ(data.oneHotLabels.shape(), (Shape{e.count, 10}));
    const float *pixels = data.images.data<float>();
    float lo = 1, hi = 0;
    for (int64_t i = 0; i < data.images.numElements(); ++i) {
      lo = std::min(lo, pixels[i]);
      hi = std::max(hi, pixels[i]);
    }
    EXPECT_EQ(lo, 0.0f);
    EXPECT_EQ(hi, 1.0f);
    // Fashion-MNIST is exactly balanced over its 10 classes.
    std::vector<int64_t> perClass(10, 0);
    for (int64_t label : data.labels.toVector<int64_t>())
      ++perClass[label];
    EXPECT_EQ(perClass, std::vector<int64_t>(10, e.count / 10));
    const float *oneHot = data.oneHotLabels.data<float>();
    const int64_t *labels = data.labels.data<int64_t>();
    for (int64_t i = 0; i < e.count; ++i)
      ASSERT_EQ(oneHot[i * 10 + labels[i]], 1.0f) << "item " << i;
  }
}
