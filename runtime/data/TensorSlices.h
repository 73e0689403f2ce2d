//===- TensorSlices.h - Examples held in memory, sharded and shuffled -----===//
//
// tf.data.Dataset.from_tensor_slices(...).shard(count, index).shuffle(...):
// each placeholder is fed from one tensor whose dimension 0 indexes the
// examples (images [N, 784] and their one-hot labels [N, 10], say). Shard
// `index` of `count` holds examples index, index + count, index + 2 count,
// ... as Dataset.shard() does; with a seed, each pass visits them in a new
// random order.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/data/InputSource.h"

#include <optional>
#include <random>
#include <utility>

namespace dtf::data {

/// Which part of a data set one worker reads: TensorFlow's
/// `Dataset.shard(count, index)`.
struct Shard {
  int index = 0;
  int count = 1;
};

class TensorSlices final : public InputSource {
public:
  /// `columns` pairs each placeholder with its examples; every tensor must
  /// have rank >= 1 and the same dimension 0. Without `shuffleSeed`,
  /// examples come in order (an evaluation pass). Throws
  /// std::invalid_argument naming the placeholder at fault.
  TensorSlices(std::vector<std::pair<std::string, Tensor>> columns,
               Shard shard = {},
               std::optional<uint64_t> shuffleSeed = std::nullopt);

  const std::vector<std::string> &placeholders() const override {
    return names;
  }
  int64_t size() const override { return static_cast<int64_t>(order.size()); }
  void nextBatch(int64_t batch, FeedMap &feeds) override;

private:
  std::vector<std::string> names;
  std::vector<Tensor> columns;
  /// Bytes of one example of each column.
  std::vector<size_t> rowBytes;
  std::vector<int64_t> order;
  size_t next = 0;
  std::optional<std::mt19937_64> random;
};

} // namespace dtf::data
