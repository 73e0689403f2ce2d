//===- IdxReader.cpp - MNIST-format IDX file loading ----------------------===//

#include "runtime/data/IdxReader.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <sys/stat.h>

namespace dtf::data {

namespace {

[[noreturn]] void fail(const std::string &path, const std::string &message) {
  throw std::runtime_error("IDX file " + path + ": " + message);
}

struct GzCloser {
  void operator()(gzFile_s *file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

/// Reads exactly `size` bytes, or throws saying what was being read.
void readExactly(gzFile file, const std::string &path, void *buffer,
                 size_t size, const char *what) {
  auto *out = static_cast<uint8_t *>(buffer);
  size_t done = 0;
  while (done < size) {
    // gzread takes an unsigned count; read large payloads in pieces.
    const unsigned request =
        static_cast<unsigned>(std::min<size_t>(size - done, 1u << 30));
    int got = gzread(file, out + done, request);
    if (got < 0) {
      int code;
      const char *message = gzerror(file, &code);
      // Z_BUF_ERROR is a gzip stream cut short: report it as truncation.
      if (code != Z_BUF_ERROR)
        fail(path, std::string("read error in ") + what + ": " + message);
      got = 0;
    }
    if (got == 0)
      fail(path, "truncated " + std::string(what) + ": expected " +
                     std::to_string(size) + " bytes, got " +
                     std::to_string(done));
    done += static_cast<size_t>(got);
  }
}

uint32_t bigEndian32(const uint8_t *bytes) {
  return (uint32_t(bytes[0]) << 24) | (uint32_t(bytes[1]) << 16) |
         (uint32_t(bytes[2]) << 8) | uint32_t(bytes[3]);
}

std::string hex32(uint32_t value) {
  char text[11];
  std::snprintf(text, sizeof(text), "0x%08x", value);
  return text;
}

bool fileExists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

/// `<dir>/<name>.gz` if present, else `<dir>/<name>` if present; otherwise
/// throws naming both candidates.
std::string locate(const std::string &dir, const std::string &name) {
  const std::string plain = dir + "/" + name;
  const std::string gz = plain + ".gz";
  if (fileExists(gz))
    return gz;
  if (fileExists(plain))
    return plain;
  throw std::runtime_error("IDX file " + gz + ": not found (nor " + plain +
                           ")");
}

} // namespace

IdxArray readIdxFile(const std::string &path, int rank) {
  errno = 0;
  GzFile file(gzopen(path.c_str(), "rb"));
  if (!file)
    fail(path, std::string("cannot open: ") +
                   (errno ? std::strerror(errno) : "out of memory"));

  uint8_t header[4];
  readExactly(file.get(), path, header, sizeof(header), "header");
  const uint32_t magic = bigEndian32(header);
  if (rank == kAnyRank) {
    // 0x000008NN: unsigned bytes in NN dimensions.
    if ((magic & 0xffffff00u) != 0x00000800u || (magic & 0xff) == 0)
      fail(path, "bad magic number " + hex32(magic) +
                     " (expected 0x000008NN: unsigned bytes of rank NN)");
    rank = static_cast<int>(magic & 0xff);
  }
  const uint32_t expected = 0x00000800u | static_cast<uint32_t>(rank);
  if (magic != expected)
    fail(path, "bad magic number " + hex32(magic) + " (expected " +
                   hex32(expected) + ")");

  IdxArray array;
  std::vector<uint8_t> dimBytes(4 * static_cast<size_t>(rank));
  readExactly(file.get(), path, dimBytes.data(), dimBytes.size(), "dimensions");
  for (int i = 0; i < rank; ++i)
    array.dims.push_back(bigEndian32(dimBytes.data() + 4 * i));

  array.bytes.resize(static_cast<size_t>(numElementsOf(array.dims)));
  readExactly(file.get(), path, array.bytes.data(), array.bytes.size(), "data");
  return array;
}

MnistFiles locateMnistSplit(const std::string &dir, const std::string &split) {
  if (split != "train" && split != "t10k")
    throw std::invalid_argument("locateMnistSplit: split must be \"train\" "
                                "or \"t10k\", got \"" +
                                split + "\"");
  return {locate(dir, split + "-images-idx3-ubyte"),
          locate(dir, split + "-labels-idx1-ubyte")};
}

MnistSplit loadMnistSplit(const std::string &dir, const std::string &split) {
  MnistFiles files = locateMnistSplit(dir, split);
  const std::string &imagePath = files.images;
  const std::string &labelPath = files.labels;
  IdxArray images = readIdxFile(imagePath, 3);
  IdxArray labels = readIdxFile(labelPath, 1);

  const int64_t count = images.dims[0];
  if (labels.dims[0] != count)
    throw std::runtime_error("IDX files " + imagePath + " and " + labelPath +
                             ": " + std::to_string(count) + " images but " +
                             std::to_string(labels.dims[0]) + " labels");

  const int64_t pixels = images.dims[1] * images.dims[2];
  MnistSplit result;
  result.images = Tensor(DType::F32, {count, pixels});
  float *imageData = result.images.data<float>();
  for (size_t i = 0; i < images.bytes.size(); ++i)
    imageData[i] = static_cast<float>(images.bytes[i]) / 255.0f;

  result.labels = Tensor(DType::I64, {count});
  result.oneHotLabels = Tensor(DType::F32, {count, kMnistClasses});
  int64_t *labelData = result.labels.data<int64_t>();
  float *oneHot = result.oneHotLabels.data<float>();
  for (int64_t i = 0; i < count; ++i) {
    const int64_t label = labels.bytes[i];
    if (label >= kMnistClasses)
      throw std::runtime_error("IDX file " + labelPath + ": label " +
                               std::to_string(label) + " of item " +
                               std::to_string(i) + " is not in [0, " +
                               std::to_string(kMnistClasses) + ")");
    labelData[i] = label;
    oneHot[i * kMnistClasses + label] = 1.0f;
  }
  return result;
}

} // namespace dtf::data
