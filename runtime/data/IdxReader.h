//===- IdxReader.h - MNIST-format IDX file loading ------------------------===//
//
// IDX is the big-endian format of MNIST and Fashion-MNIST: a magic number
// 0x00000800 | rank (0x08 = unsigned byte elements), `rank` 32-bit
// dimensions, then the elements. Files may be gzip-compressed or plain; zlib
// reads both transparently. Every failure throws std::runtime_error naming the
// file.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dtf::data {

/// Raw contents of an unsigned-byte IDX file.
struct IdxArray {
  Shape dims;
  std::vector<uint8_t> bytes;
};

/// Reads an unsigned-byte IDX file of the given rank (1 for labels, magic
/// 0x00000801; 3 for images, magic 0x00000803), or of any rank when `rank`
/// is kAnyRank.
constexpr int kAnyRank = -1;
IdxArray readIdxFile(const std::string &path, int rank);

/// One split of an MNIST-like data set.
struct MnistSplit {
  /// f32 [N, rows * cols], pixel values scaled to [0, 1].
  Tensor images;
  /// i64 [N], class indices in [0, 10).
  Tensor labels;
  /// f32 [N, 10], labels one-hot encoded.
  Tensor oneHotLabels;
};

constexpr int64_t kMnistClasses = 10;

/// The IDX files of one split of an MNIST-like data set:
/// `<dir>/<split>-images-idx3-ubyte[.gz]` and
/// `<dir>/<split>-labels-idx1-ubyte[.gz]`, the .gz name preferred. Throws
/// naming a file that is not there.
struct MnistFiles {
  std::string images;
  std::string labels;
};
MnistFiles locateMnistSplit(const std::string &dir, const std::string &split);

/// Loads `<dir>/<split>-images-idx3-ubyte[.gz]` and
/// `<dir>/<split>-labels-idx1-ubyte[.gz]` (the .gz name is preferred when both
/// exist); split is "train" or "t10k". Throws if the counts differ or a label
/// is outside [0, 10).
MnistSplit loadMnistSplit(const std::string &dir, const std::string &split);

} // namespace dtf::data
