//===- DynamicTable.h - The rows of a dynamic embedding table ---*- C++ -*-===//
//
// A dynamic table (a dtf.variable with `dtf.dynamic_table`, runtime/ABI.md)
// has no vocabulary: its ids are any int64 >= 0 (hashed features and
// crosses), and a row exists only for the ids that were pushed often
// enough, as in Monolith's collisionless table or TFRA's dynamic embedding.
// This is its store on a PS task: the rows of the table and of each of its
// optimizer slots (its columns), one local row per created id, shared by
// all columns, and the counts of the ids not created yet.
//
// - Rows live in chunks of `chunkRows` rows per column, allocated as the
//   table grows and never moved: growing costs no copy and no transient
//   second table, and at most one chunk per column is unused, so a task's
//   memory stays close to its rows (the issue bounds a PS task's peak RSS
//   at 1.2x its tables and slots plus 100 MB).
// - The index from id to local row is an open-addressing hash table of
//   32-bit local rows over the ids in creation order (which a checkpoint
//   needs anyway): 8 bytes of id and 6 to 12 of index per row.
// - The min-count filter counts each id once per push carrying it (a
//   replica's batch: a push holds distinct ids) and creates its row at the
//   push that brings its count to min_count; the counts of ids not created
//   are kept in memory only, so a restart forgets them.
//
// Not thread-safe: the ParameterServer holds it under its mutex.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace dtf::ps {

/// Why `id`, a negative id other than the padding -1 at `position` of a
/// request, is refused: a dynamic table's ids are >= 0.
std::string negativeIdMessage(int64_t id, int64_t position);
/// Throws std::invalid_argument with negativeIdMessage.
[[noreturn]] void refuseNegativeId(int64_t id, int64_t position);

/// One column of a dynamic table: the table itself or one of its slots.
struct DynamicColumn {
  DType dtype = DType::F32;
  /// The shape of one row (the variable's dimensions after the first).
  Shape rowShape;
};

class DynamicTable {
public:
  /// `columns`: the table's, then its slots'. `minCount` >= 1 and
  /// `chunkRows` >= 1 (std::invalid_argument otherwise).
  DynamicTable(std::vector<DynamicColumn> columns, int64_t minCount,
               int64_t chunkRows);

  /// Rows created.
  int64_t size() const { return static_cast<int64_t>(ids_.size()); }
  int64_t minCount() const { return minCount_; }
  const std::vector<DynamicColumn> &columns() const { return columns_; }
  /// The local row of `id`, or -1 when it has none.
  int64_t find(int64_t id) const;

  /// Counts one push's ids (i64 [n]; -1, the padding id, skipped; an id
  /// counted once however often it occurs) and returns, in order of first
  /// occurrence, the ids without a row whose count reached min_count now:
  /// the rows to create(). Throws std::invalid_argument naming the id for
  /// a negative id other than -1.
  std::vector<int64_t> count(const Tensor &ids);
  /// Creates the rows of `ids` (none created yet, distinct) with their
  /// initial values: one [n, row...] tensor per column.
  void create(const std::vector<int64_t> &ids,
              const std::vector<Tensor> &initialRows);

  /// Column `column`'s rows at `localRows`: [m, row...].
  Tensor gather(size_t column, const std::vector<int64_t> &localRows) const;
  /// Writes `rows` ([m, row...]) to column `column` at `localRows`.
  void scatter(size_t column, const std::vector<int64_t> &localRows,
               const Tensor &rows);

  /// The ids of the created rows in creation order: i64 [size].
  Tensor ids() const;
  /// Every row of column `column`, in the order of ids(): [size, row...].
  Tensor rows(size_t column) const;
  /// Replaces every row and forgets the counts: `ids` i64 [n], distinct
  /// and >= 0, and one [n, row...] tensor per column. Throws
  /// std::invalid_argument saying what does not fit.
  void assign(const Tensor &ids, const std::vector<Tensor> &columnRows);

  /// Ids counted but without a row: held back by the min-count filter.
  int64_t pendingIds() const {
    return static_cast<int64_t>(pendingCounts.size());
  }

private:
  /// Where row `row` of a column starts.
  std::byte *rowData(size_t column, int64_t row);
  const std::byte *rowData(size_t column, int64_t row) const;
  size_t rowBytes(size_t column) const;
  /// Appends `id` to the index (not present) with the next local row, and
  /// a chunk to every column when the last one is full.
  void append(int64_t id);
  void rehash(size_t buckets);
  size_t bucketOf(int64_t id) const;

  std::vector<DynamicColumn> columns_;
  int64_t minCount_;
  int64_t chunkRows_;
  /// chunks[column][k]: rows k*chunkRows.. of the column, [chunkRows, row...].
  std::vector<std::vector<Tensor>> chunks;
  /// The id of each local row.
  std::vector<int64_t> ids_;
  /// Open addressing, linear probing: a local row, or kEmptyBucket. A power
  /// of two of them, at most 70% full.
  std::vector<uint32_t> buckets;
  /// Pushes seen so far of each id without a row (min_count > 1 only).
  std::unordered_map<int64_t, int64_t> pendingCounts;
};

} // namespace dtf::ps
