//===- InputsTest.cpp - Which examples each worker trains on --------------===//
//
// The workers of between-graph replication must together read every example
// once per pass: a worker that read another's shard (or all of it) trains
// the model on duplicated data and never on the rest, which no accuracy bar
// of one run reliably sees.
//
//===----------------------------------------------------------------------===//

#include "runtime/train/Inputs.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace dtf::train {
namespace {

/// The labels worker `index` of `count` reads in one pass over `examples`
/// examples labelled 0, 1, ..., in its reading order.
std::vector<int64_t> labelsOfOnePass(const DataShard &reader,
                                     int64_t examples) {
  std::vector<int64_t> labels(examples);
  for (int64_t i = 0; i < examples; ++i)
    labels[i] = i;
  std::vector<std::pair<std::string, Tensor>> columns;
  columns.emplace_back("label",
                       Tensor::fromVector<int64_t>({examples}, labels));
  data::TensorSlices input(std::move(columns), reader.shard,
                           reader.shuffleSeed);
  FeedMap feeds;
  input.nextBatch(input.size(), feeds);
  return feeds.at("label").toVector<int64_t>();
}

TEST(DataShardTest, EachWorkerReadsEveryCountthExampleFromItsIndex) {
  for (int index = 0; index < 3; ++index) {
    DataShard reader = betweenGraphDataShard(index, 3);
    EXPECT_EQ(reader.shard.index, index);
    EXPECT_EQ(reader.shard.count, 3);
    std::vector<int64_t> labels = labelsOfOnePass(reader, 11);
    std::set<int64_t> expected;
    for (int64_t label = index; label < 11; label += 3)
      expected.insert(label);
    EXPECT_EQ(std::set<int64_t>(labels.begin(), labels.end()), expected)
        << "worker " << index;
    EXPECT_EQ(labels.size(), expected.size()) << "worker " << index;
  }
}

TEST(DataShardTest, TheWorkersTogetherReadEachExampleOncePerPass) {
  for (int count : {1, 2, 3, 5}) {
    std::map<int64_t, int> reads;
    std::set<uint64_t> seeds;
    for (int index = 0; index < count; ++index) {
      DataShard reader = betweenGraphDataShard(index, count);
      seeds.insert(reader.shuffleSeed);
      for (int64_t label : labelsOfOnePass(reader, 23))
        ++reads[label];
    }
    EXPECT_EQ(reads.size(), 23u) << count << " workers";
    for (auto [label, times] : reads)
      EXPECT_EQ(times, 1) << "example " << label << ", " << count << " workers";
    EXPECT_EQ(seeds.size(), static_cast<size_t>(count))
        << "two workers shuffle alike";
  }
}

TEST(DataShardTest, InGraphReadsAllOfItAsOneBetweenGraphWorker) {
  DataShard master = inGraphDataShard();
  DataShard single = betweenGraphDataShard(0, 1);
  EXPECT_EQ(master.shard.index, 0);
  EXPECT_EQ(master.shard.count, 1);
  EXPECT_EQ(labelsOfOnePass(master, 17), labelsOfOnePass(single, 17));
}

TEST(DataShardTest, RejectsAWorkerOutsideTheCluster) {
  EXPECT_THROW(betweenGraphDataShard(2, 2), std::invalid_argument);
  EXPECT_THROW(betweenGraphDataShard(-1, 2), std::invalid_argument);
  EXPECT_THROW(betweenGraphDataShard(0, 0), std::invalid_argument);
}

} // namespace
} // namespace dtf::train
