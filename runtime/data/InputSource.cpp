//===- InputSource.cpp - Batches for a model's placeholders ---------------===//

#include "runtime/data/InputSource.h"

#include "runtime/core/Error.h"

namespace dtf::data {

InputSource::~InputSource() = default;

bool nextBatchUnlessEnded(InputSource &input, int64_t batch, FeedMap &feeds) {
  try {
    input.nextBatch(batch, feeds);
    return true;
  } catch (const Error &error) {
    if (error.code() != ErrorCode::OutOfRange)
      throw;
    return false;
  }
}

} // namespace dtf::data
