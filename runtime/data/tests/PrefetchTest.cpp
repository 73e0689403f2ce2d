//===- PrefetchTest.cpp - Batches prepared by a reader thread -------------===//

#include "runtime/data/Prefetch.h"
#include "runtime/data/TensorSlices.h"

#include <gtest/gtest.h>

namespace dtf::data {
namespace {

std::unique_ptr<InputSource> counting(int64_t count) {
  std::vector<int64_t> labels;
  for (int64_t i = 0; i < count; ++i)
    labels.push_back(i);
  std::vector<std::pair<std::string, Tensor>> columns;
  columns.emplace_back("label", Tensor::fromVector<int64_t>({count}, labels));
  return std::make_unique<TensorSlices>(std::move(columns));
}

/// Fails on its second batch.
class FailingInput final : public InputSource {
public:
  const std::vector<std::string> &placeholders() const override {
    return names;
  }
  int64_t size() const override { return 1; }
  void nextBatch(int64_t batch, FeedMap &feeds) override {
    if (calls++ == 1)
      throw std::runtime_error("data.tfrecord: record 1: data CRC mismatch");
    feeds["label"] = Tensor(DType::I64, {batch});
  }

private:
  std::vector<std::string> names = {"label"};
  int calls = 0;
};

TEST(PrefetchTest, ServesTheSourcesBatchesInOrder) {
  PrefetchedInput input(counting(10), /*depth=*/2);
  EXPECT_EQ(input.placeholders(), (std::vector<std::string>{"label"}));
  EXPECT_EQ(input.size(), 10);
  FeedMap feeds;
  for (int64_t first : {0, 4, 8, 2}) {
    input.nextBatch(4, feeds);
    std::vector<int64_t> expected;
    for (int64_t i = 0; i < 4; ++i)
      expected.push_back((first + i) % 10);
    EXPECT_EQ(feeds.at("label").toVector<int64_t>(), expected);
  }
  EXPECT_THROW(input.nextBatch(3, feeds), std::invalid_argument);
}

TEST(PrefetchTest, RethrowsTheSourcesErrorAtItsBatch) {
  PrefetchedInput input(std::make_unique<FailingInput>(), /*depth=*/4);
  FeedMap feeds;
  input.nextBatch(2, feeds);
  EXPECT_EQ(feeds.at("label").shape(), (Shape{2}));
  try {
    input.nextBatch(2, feeds);
    FAIL() << "the source's error was lost";
  } catch (const std::runtime_error &error) {
    EXPECT_STREQ(error.what(), "data.tfrecord: record 1: data CRC mismatch");
  }
}

TEST(PrefetchTest, StopsItsReaderWhenDestroyedMidStream) {
  // The reader is blocked on a full queue; the destructor must wake it.
  auto input = std::make_unique<PrefetchedInput>(counting(100), 1);
  FeedMap feeds;
  input->nextBatch(5, feeds);
  input.reset();
  SUCCEED();
}

} // namespace
} // namespace dtf::data
