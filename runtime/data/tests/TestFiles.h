//===- TestFiles.h - TFRecord files for the data tests --------------------===//

#pragma once

#include "runtime/core/WorkUnits.h"
#include "runtime/data/Records.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace dtf::data::testing {

inline std::string tempDir() {
  const char *base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(base ? base : "/tmp") + "/dtf-streaming-XXXXXX";
  return ::mkdtemp(pattern.data());
}

inline void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

/// `bytes` (framed records) written to `path` as a file of `compression`:
/// GZIP as gzip writes it, ZLIB as TensorFlow's ZlibOutputBuffer does (one
/// zlib-wrapped deflate stream).
inline void writeCompressed(const std::string &path, const std::string &bytes,
                            Compression compression) {
  if (compression == Compression::None) {
    writeFile(path, bytes);
  } else if (compression == Compression::Gzip) {
    gzFile file = gzopen(path.c_str(), "wb");
    ASSERT_NE(file, nullptr);
    if (!bytes.empty()) {
      ASSERT_EQ(gzwrite(file, bytes.data(), unsigned(bytes.size())),
                int(bytes.size()));
    }
    gzclose(file);
  } else {
    uLongf size = compressBound(bytes.size());
    std::string out(size, '\0');
    ASSERT_EQ(compress2(reinterpret_cast<Bytef *>(out.data()), &size,
                        reinterpret_cast<const Bytef *>(bytes.data()),
                        bytes.size(), 6),
              Z_OK);
    out.resize(size);
    writeFile(path, out);
  }
}

/// Framed records of `records`.
inline std::string framed(const std::vector<std::string> &records) {
  std::string bytes;
  for (const std::string &record : records)
    bytes += frameRecord(record);
  return bytes;
}

} // namespace dtf::data::testing
