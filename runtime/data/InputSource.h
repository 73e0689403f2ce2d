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
  /// Examples in one pass over the source (this shard of it); -1 when not
  /// known before reading it all (streaming input).
  virtual int64_t size() const = 0;
  /// Sets `feeds[name]` for each placeholder to the next `batch` examples
  /// (dimension 0), starting the next pass where one ends. A source with a
  /// last pass (--num_epochs) throws Error(OutOfRange) when no whole batch
  /// is left, as tf.data's OutOfRangeError ends a TF1 training loop.
  virtual void nextBatch(int64_t batch, FeedMap &feeds) = 0;

  // Accounting of what is trained on, for sources whose units of work a
  // coordinator hands out (WorkUnits.h): each batch has an id; the trainer
  // says what became of it. Other sources number no batch (id 0) and
  // ignore the calls.

  /// The id of the batch the last nextBatch() returned; 0 when the source
  /// does not account.
  virtual uint64_t lastBatchId() const { return 0; }
  /// Batch `id` is being trained on: its gradients may be pushed from now
  /// on. Does not wait; awaitAccounted() does.
  virtual void batchPushing(uint64_t id) { (void)id; }
  /// Returns once whatever keeps the account (a data coordinator) knows of
  /// every batch said to be pushing: a push may then go.
  virtual void awaitAccounted() {}
  /// Batch `id` was trained on: part of the model from `globalStep` on.
  virtual void batchTrained(uint64_t id, int64_t globalStep) {
    (void)id;
    (void)globalStep;
  }
  /// Batch `id` was not trained on: a later nextBatch() serves its
  /// examples again. `inDoubt`: a push of it failed with no answer, so its
  /// gradients may be in the model all the same (counted; the examples may
  /// be trained twice); else no push of it went, or the PS refused it.
  virtual void batchLost(uint64_t id, bool inDoubt) {
    (void)id;
    (void)inDoubt;
  }
};

/// `input.nextBatch(batch, feeds)`; false, rather than the error, at the
/// end of a source's last pass (OutOfRange), where a training loop ends.
bool nextBatchUnlessEnded(InputSource &input, int64_t batch, FeedMap &feeds);

} // namespace dtf::data
