//===- DynamicTable.cpp - The rows of a dynamic embedding table -----------===//

#include "runtime/ps/DynamicTable.h"

#include "runtime/core/Error.h"

#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_set>

namespace dtf::ps {

std::string negativeIdMessage(int64_t id, int64_t position) {
  return "id " + std::to_string(id) + " at position " +
         std::to_string(position) +
         " is negative; a dynamic table's ids are >= 0 (-1 pads)";
}

void refuseNegativeId(int64_t id, int64_t position) {
  throw std::invalid_argument(negativeIdMessage(id, position));
}

namespace {

constexpr uint32_t kEmptyBucket = std::numeric_limits<uint32_t>::max();

/// SplitMix64's finalizer: sequential ids land in unrelated buckets.
uint64_t mixBits(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Shape withRows(int64_t rows, const Shape &rowShape) {
  Shape shape{rows};
  shape.insert(shape.end(), rowShape.begin(), rowShape.end());
  return shape;
}

} // namespace

DynamicTable::DynamicTable(std::vector<DynamicColumn> columns, int64_t minCount,
                           int64_t chunkRows)
    : columns_(std::move(columns)), minCount_(minCount), chunkRows_(chunkRows),
      chunks(columns_.size()), buckets(16, kEmptyBucket) {
  if (minCount_ < 1)
    throw std::invalid_argument("a dynamic table's min_count must be >= 1, "
                                "got " +
                                std::to_string(minCount_));
  if (chunkRows_ < 1)
    throw std::invalid_argument("a dynamic table's chunks must hold >= 1 "
                                "row, got " +
                                std::to_string(chunkRows_));
}

size_t DynamicTable::bucketOf(int64_t id) const {
  return static_cast<size_t>(mixBits(static_cast<uint64_t>(id))) &
         (buckets.size() - 1);
}

int64_t DynamicTable::find(int64_t id) const {
  for (size_t bucket = bucketOf(id);;
       bucket = (bucket + 1) & (buckets.size() - 1)) {
    uint32_t row = buckets[bucket];
    if (row == kEmptyBucket)
      return -1;
    if (ids_[row] == id)
      return row;
  }
}

void DynamicTable::rehash(size_t size) {
  buckets.assign(size, kEmptyBucket);
  for (size_t row = 0; row < ids_.size(); ++row) {
    size_t bucket = bucketOf(ids_[row]);
    while (buckets[bucket] != kEmptyBucket)
      bucket = (bucket + 1) & (buckets.size() - 1);
    buckets[bucket] = static_cast<uint32_t>(row);
  }
}

size_t DynamicTable::rowBytes(size_t column) const {
  return static_cast<size_t>(numElementsOf(columns_[column].rowShape)) *
         dtypeSize(columns_[column].dtype);
}

std::byte *DynamicTable::rowData(size_t column, int64_t row) {
  return static_cast<std::byte *>(chunks[column][row / chunkRows_].rawData()) +
         (row % chunkRows_) * rowBytes(column);
}

const std::byte *DynamicTable::rowData(size_t column, int64_t row) const {
  return static_cast<const std::byte *>(
             chunks[column][row / chunkRows_].rawData()) +
         (row % chunkRows_) * rowBytes(column);
}

void DynamicTable::append(int64_t id) {
  if (ids_.size() >= kEmptyBucket)
    throw Error(ErrorCode::ResourceExhausted, "a dynamic table holds at most " +
                                                  std::to_string(kEmptyBucket) +
                                                  " rows per PS task");
  int64_t row = size();
  if (row % chunkRows_ == 0)
    for (size_t column = 0; column < columns_.size(); ++column)
      chunks[column].push_back(Tensor::uninitialized(
          columns_[column].dtype,
          withRows(chunkRows_, columns_[column].rowShape)));
  ids_.push_back(id);
  // At most 70% full, so that probes stay short.
  if (ids_.size() * 10 > buckets.size() * 7) {
    rehash(buckets.size() * 2);
    return;
  }
  size_t bucket = bucketOf(id);
  while (buckets[bucket] != kEmptyBucket)
    bucket = (bucket + 1) & (buckets.size() - 1);
  buckets[bucket] = static_cast<uint32_t>(row);
}

std::vector<int64_t> DynamicTable::count(const Tensor &ids) {
  if (ids.dtype() != DType::I64 || ids.rank() != 1)
    throw std::invalid_argument("the ids of a dynamic table are i64 [n], got " +
                                ids.typeString());
  const int64_t *data = ids.data<int64_t>();
  std::vector<int64_t> reached;
  std::unordered_set<int64_t> seen;
  for (int64_t i = 0; i < ids.numElements(); ++i) {
    int64_t id = data[i];
    if (id == -1)
      continue;
    if (id < 0)
      refuseNegativeId(id, i);
    if (find(id) >= 0 || !seen.insert(id).second)
      continue;
    if (minCount_ == 1) {
      reached.push_back(id);
      continue;
    }
    auto it = pendingCounts.try_emplace(id, 0).first;
    if (++it->second >= minCount_) {
      pendingCounts.erase(it);
      reached.push_back(id);
    }
  }
  return reached;
}

void DynamicTable::create(const std::vector<int64_t> &newIds,
                          const std::vector<Tensor> &initialRows) {
  for (size_t column = 0; column < columns_.size(); ++column) {
    Shape expected = withRows(static_cast<int64_t>(newIds.size()),
                              columns_[column].rowShape);
    if (initialRows[column].dtype() != columns_[column].dtype ||
        initialRows[column].shape() != expected)
      throw std::invalid_argument(
          "the initial rows of column " + std::to_string(column) + " are " +
          initialRows[column].typeString() + ", not " +
          dtypeName(columns_[column].dtype) + shapeToString(expected));
  }
  int64_t first = size();
  for (int64_t id : newIds)
    append(id);
  for (size_t column = 0; column < columns_.size(); ++column) {
    const auto *source =
        static_cast<const std::byte *>(initialRows[column].rawData());
    size_t bytes = rowBytes(column);
    for (size_t i = 0; i < newIds.size(); ++i)
      std::memcpy(rowData(column, first + static_cast<int64_t>(i)),
                  source + i * bytes, bytes);
  }
}

Tensor DynamicTable::gather(size_t column,
                            const std::vector<int64_t> &localRows) const {
  Tensor out = Tensor::uninitialized(
      columns_[column].dtype, withRows(static_cast<int64_t>(localRows.size()),
                                       columns_[column].rowShape));
  auto *target = static_cast<std::byte *>(out.rawData());
  size_t bytes = rowBytes(column);
  for (size_t i = 0; i < localRows.size(); ++i)
    std::memcpy(target + i * bytes, rowData(column, localRows[i]), bytes);
  return out;
}

void DynamicTable::scatter(size_t column, const std::vector<int64_t> &localRows,
                           const Tensor &rows) {
  const auto *source = static_cast<const std::byte *>(rows.rawData());
  size_t bytes = rowBytes(column);
  for (size_t i = 0; i < localRows.size(); ++i)
    std::memcpy(rowData(column, localRows[i]), source + i * bytes, bytes);
}

Tensor DynamicTable::ids() const {
  return Tensor::fromVector<int64_t>({size()}, ids_);
}

Tensor DynamicTable::rows(size_t column) const {
  std::vector<int64_t> all(ids_.size());
  for (size_t row = 0; row < all.size(); ++row)
    all[row] = static_cast<int64_t>(row);
  return gather(column, all);
}

void DynamicTable::assign(const Tensor &newIds,
                          const std::vector<Tensor> &columnRows) {
  if (newIds.dtype() != DType::I64 || newIds.rank() != 1)
    throw std::invalid_argument("its ids are " + newIds.typeString() +
                                ", not i64 [n]");
  int64_t numRows = newIds.dim(0);
  for (size_t column = 0; column < columns_.size(); ++column) {
    Shape expected = withRows(numRows, columns_[column].rowShape);
    if (columnRows[column].dtype() != columns_[column].dtype ||
        columnRows[column].shape() != expected)
      throw std::invalid_argument(
          std::string(column ? "a slot's" : "its") + " rows are " +
          columnRows[column].typeString() + " but " + std::to_string(numRows) +
          " ids need " + dtypeName(columns_[column].dtype) +
          shapeToString(expected));
  }
  DynamicTable loaded(columns_, minCount_, chunkRows_);
  const int64_t *data = newIds.data<int64_t>();
  for (int64_t i = 0; i < numRows; ++i) {
    if (data[i] < 0)
      throw std::invalid_argument("id " + std::to_string(data[i]) +
                                  " at position " + std::to_string(i) +
                                  " is negative");
    if (loaded.find(data[i]) >= 0)
      throw std::invalid_argument("id " + std::to_string(data[i]) +
                                  " occurs twice (position " +
                                  std::to_string(i) + ")");
    loaded.append(data[i]);
  }
  std::vector<int64_t> all(static_cast<size_t>(numRows));
  for (int64_t row = 0; row < numRows; ++row)
    all[row] = row;
  for (size_t column = 0; column < columns_.size(); ++column)
    loaded.scatter(column, all, columnRows[column]);
  *this = std::move(loaded);
}

} // namespace dtf::ps
