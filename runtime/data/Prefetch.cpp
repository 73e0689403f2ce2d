//===- Prefetch.cpp - Batches prepared while the step runs ----------------===//

#include "runtime/data/Prefetch.h"

#include "runtime/core/Denormals.h"

#include <stdexcept>

namespace dtf::data {

PrefetchedInput::PrefetchedInput(std::unique_ptr<InputSource> source,
                                 size_t depth)
    : source(std::move(source)), depth(depth) {
  if (depth < 1)
    throw std::invalid_argument("prefetch depth must be at least 1");
}

PrefetchedInput::~PrefetchedInput() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  changed.notify_all();
  if (reader.joinable())
    reader.join();
}

void PrefetchedInput::fill() {
  // Readers convert and scale what they read (Denormals.h).
  flushDenormalsInThisThread();
  while (true) {
    FeedMap batch;
    try {
      source->nextBatch(batchSize, batch);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      error = std::current_exception();
      changed.notify_all();
      return;
    }
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return stopping || ready.size() < depth; });
    if (stopping)
      return;
    ready.push_back(std::move(batch));
    changed.notify_all();
  }
}

void PrefetchedInput::nextBatch(int64_t batch, FeedMap &feeds) {
  std::unique_lock<std::mutex> lock(mutex);
  if (!reader.joinable()) {
    batchSize = batch;
    reader = std::thread([this] { fill(); });
  } else if (batch != batchSize) {
    throw std::invalid_argument("a prefetched input serves batches of " +
                                std::to_string(batchSize) + ", not " +
                                std::to_string(batch));
  }
  changed.wait(lock, [&] { return !ready.empty() || error; });
  if (ready.empty())
    std::rethrow_exception(error);
  for (auto &[name, tensor] : ready.front())
    feeds[name] = std::move(tensor);
  ready.pop_front();
  changed.notify_all();
}

} // namespace dtf::data
