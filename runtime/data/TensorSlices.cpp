//===- TensorSlices.cpp - Examples held in memory, sharded and shuffled ---===//

#include "runtime/data/TensorSlices.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace dtf::data {

TensorSlices::TensorSlices(std::vector<std::pair<std::string, Tensor>> input,
                           Shard shard, std::optional<uint64_t> shuffleSeed) {
  if (input.empty())
    throw std::invalid_argument("an input needs at least one placeholder");
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
    throw std::invalid_argument("shard " + std::to_string(shard.index) +
                                " of " + std::to_string(shard.count) +
                                " does not exist");
  int64_t examples = -1;
  for (auto &[name, tensor] : input) {
    if (tensor.rank() < 1)
      throw std::invalid_argument("the examples of placeholder '" + name +
                                  "' are a scalar; dimension 0 must index "
                                  "them");
    if (examples >= 0 && tensor.dim(0) != examples)
      throw std::invalid_argument("placeholder '" + name + "' has " +
                                  std::to_string(tensor.dim(0)) +
                                  " examples where '" + names.front() +
                                  "' has " + std::to_string(examples));
    examples = tensor.dim(0);
    names.push_back(name);
    rowBytes.push_back(examples == 0 ? 0 : tensor.byteSize() / examples);
    columns.push_back(std::move(tensor));
  }
  // Every count-th example from the index-th, as Dataset.shard(): shards
  // differ in size by one example at most.
  for (int64_t example = shard.index; example < examples;
       example += shard.count)
    order.push_back(example);
  if (order.empty())
    throw std::invalid_argument("shard " + std::to_string(shard.index) +
                                " of " + std::to_string(shard.count) + " of " +
                                std::to_string(examples) +
                                " examples is empty");
  if (shuffleSeed) {
    random.emplace(*shuffleSeed);
    std::shuffle(order.begin(), order.end(), *random);
  }
}

void TensorSlices::nextBatch(int64_t batch, FeedMap &feeds) {
  std::vector<std::byte *> outputs;
  for (size_t column = 0; column < columns.size(); ++column) {
    Shape shape = columns[column].shape();
    shape[0] = batch;
    Tensor &feed = feeds[names[column]] =
        Tensor::uninitialized(columns[column].dtype(), std::move(shape));
    outputs.push_back(static_cast<std::byte *>(feed.rawData()));
  }
  for (int64_t row = 0; row < batch; ++row) {
    if (next == order.size()) {
      if (random)
        std::shuffle(order.begin(), order.end(), *random);
      next = 0;
    }
    int64_t example = order[next++];
    for (size_t column = 0; column < columns.size(); ++column)
      std::memcpy(outputs[column] + row * rowBytes[column],
                  static_cast<const std::byte *>(columns[column].rawData()) +
                      example * rowBytes[column],
                  rowBytes[column]);
  }
}

} // namespace dtf::data
