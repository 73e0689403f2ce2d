//===- Prefetch.h - Batches prepared while the step runs ------------------===//
//
// tf.data's `prefetch(n)`: a reader thread fills the next batches of an
// input while the training step computes, so that gathering a batch (a
// shuffled copy of its rows) does not add to the step time. The first
// nextBatch() starts the thread with its batch size; the source is then
// read by that thread alone.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/data/InputSource.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

namespace dtf::data {

class PrefetchedInput final : public InputSource {
public:
  /// Keeps up to `depth` (>= 1) batches of `source` ready.
  PrefetchedInput(std::unique_ptr<InputSource> source, size_t depth);
  ~PrefetchedInput() override;

  const std::vector<std::string> &placeholders() const override {
    return source->placeholders();
  }
  int64_t size() const override { return source->size(); }
  /// The next prepared batch. Every call must ask for the batch size of
  /// the first (std::invalid_argument otherwise); an error of the source
  /// is rethrown here.
  void nextBatch(int64_t batch, FeedMap &feeds) override;

private:
  void fill();

  std::unique_ptr<InputSource> source;
  const size_t depth;
  int64_t batchSize = 0;
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<FeedMap> ready;
  std::exception_ptr error;
  bool stopping = false;
  std::thread reader;
};

} // namespace dtf::data
