//===- InputSource.h - Batches for a model's placeholders -----------------===//
//
// What a training loop reads its batches from: tensors for some of the
// model's placeholders, by name, as a TensorFlow feed_dict holds them. A
// source knows nothing of the model or of the loop; the loop checks that the
// model has the placeholders a source feeds and asks for batches of the
// model's size.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace dtf::data {

class InputSource {
public:
  virtual ~InputSource();

  /// The placeholders each batch feeds.
  virtual const std::vector<std::string> &placeholders() const = 0;
  /// Examples in one pass over the source (this shard of it).
  virtual int64_t size() const = 0;
  /// Sets `feeds[name]` for each placeholder to the next `batch` examples
  /// (dimension 0), starting the next pass where one ends.
  virtual void nextBatch(int64_t batch, FeedMap &feeds) = 0;
};

} // namespace dtf::data
