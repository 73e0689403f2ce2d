//===- TensorSlicesTest.cpp - In-memory examples, sharded and shuffled ----===//

#include "runtime/data/TensorSlices.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace dtf::data {
namespace {

/// Ten examples: features [10, 2] holding (i, -i), labels [10] holding i.
std::vector<std::pair<std::string, Tensor>> tenExamples() {
  std::vector<float> features;
  std::vector<int64_t> labels;
  for (int i = 0; i < 10; ++i) {
    features.push_back(static_cast<float>(i));
    features.push_back(static_cast<float>(-i));
    labels.push_back(i);
  }
  std::vector<std::pair<std::string, Tensor>> columns;
  columns.emplace_back("features",
                       Tensor::fromVector<float>({10, 2}, features));
  columns.emplace_back("label", Tensor::fromVector<int64_t>({10}, labels));
  return columns;
}

TEST(TensorSlicesTest, InOrderWithoutASeedAndWrapsAround) {
  TensorSlices input(tenExamples());
  EXPECT_EQ(input.placeholders(),
            (std::vector<std::string>{"features", "label"}));
  EXPECT_EQ(input.size(), 10);
  FeedMap feeds;
  input.nextBatch(4, feeds);
  EXPECT_EQ(feeds.at("features").shape(), (Shape{4, 2}));
  EXPECT_EQ(feeds.at("features").toVector<float>(),
            (std::vector<float>{0, 0, 1, -1, 2, -2, 3, -3}));
  EXPECT_EQ(feeds.at("label").toVector<int64_t>(),
            (std::vector<int64_t>{0, 1, 2, 3}));
  input.nextBatch(4, feeds);
  input.nextBatch(4, feeds);
  EXPECT_EQ(feeds.at("label").toVector<int64_t>(),
            (std::vector<int64_t>{8, 9, 0, 1}));
}

TEST(TensorSlicesTest, ShardsSplitTheExamplesAndEachPassIsShuffled) {
  std::set<int64_t> seen;
  for (int index = 0; index < 3; ++index) {
    TensorSlices input(tenExamples(), Shard{index, 3}, /*shuffleSeed=*/7);
    FeedMap feeds;
    input.nextBatch(input.size(), feeds);
    std::vector<int64_t> labels = feeds.at("label").toVector<int64_t>();
    std::vector<float> features = feeds.at("features").toVector<float>();
    // Rows stay together: the features of a row are its label's.
    for (size_t row = 0; row < labels.size(); ++row)
      EXPECT_EQ(features[2 * row], static_cast<float>(labels[row]));
    for (int64_t label : labels)
      EXPECT_TRUE(seen.insert(label).second) << "in two shards: " << label;
  }
  EXPECT_EQ(seen.size(), 10u);

  // Dataset.shard(3, 1): every third example from the second.
  TensorSlices shard(tenExamples(), Shard{1, 3});
  FeedMap feeds;
  shard.nextBatch(shard.size(), feeds);
  EXPECT_EQ(feeds.at("label").toVector<int64_t>(),
            (std::vector<int64_t>{1, 4, 7}));

  // Two passes of one shard visit its examples in different orders.
  TensorSlices input(tenExamples(), Shard{0, 1}, /*shuffleSeed=*/7);
  FeedMap first, second;
  input.nextBatch(10, first);
  input.nextBatch(10, second);
  std::vector<int64_t> a = first.at("label").toVector<int64_t>();
  std::vector<int64_t> b = second.at("label").toVector<int64_t>();
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
}

TEST(TensorSlicesTest, RejectsColumnsOfDifferentLengthsNamingThem) {
  std::vector<std::pair<std::string, Tensor>> columns = tenExamples();
  columns.emplace_back("weights", Tensor(DType::F32, {9}));
  try {
    TensorSlices input(std::move(columns));
    FAIL() << "accepted 9 weights for 10 examples";
  } catch (const std::invalid_argument &error) {
    EXPECT_NE(std::string(error.what()).find("'weights' has 9 examples"),
              std::string::npos)
        << error.what();
  }
}

TEST(TensorSlicesTest, RejectsAnEmptyShard) {
  std::vector<std::pair<std::string, Tensor>> columns;
  columns.emplace_back("x", Tensor(DType::F32, {2, 3}));
  // Shards 0 and 1 of 3 hold one example each; shard 2 none.
  EXPECT_THROW(TensorSlices(std::move(columns), Shard{2, 3}),
               std::invalid_argument);
}

} // namespace
} // namespace dtf::data
