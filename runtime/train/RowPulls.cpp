//===- RowPulls.cpp - dtf.pull_rows on a worker's CPU step ----------------===//

#include "runtime/train/RowPulls.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "runtime/core/Error.h"
#include "runtime/core/Kernels.h"
#include "runtime/core/Sparse.h"

#include <limits>
#include <string>

namespace dtf::train {

namespace {

/// The ids of a lookup as the PS task is asked for them: each distinct id
/// once, padding left out, and where each position of the lookup finds its
/// row among the answer's (kPaddingId for padding).
struct DistinctIds {
  Tensor ids;
  Tensor positions;
};

/// `flat`: the lookup's ids as i64, flattened; `shape`: the lookup's.
DistinctIds distinctIds(const Tensor &flat, const Shape &shape) {
  auto [unique, index] = kernels::unique(flat);
  const int64_t *values = unique.data<int64_t>();
  int64_t padding = -1;
  for (int64_t i = 0; i < unique.numElements(); ++i)
    if (values[i] == kernels::kPaddingId)
      padding = i;
  if (padding < 0)
    return {std::move(unique), kernels::reshape(std::move(index), shape)};
  // Take the padding id out of the request and out of the positions.
  Tensor requested =
      Tensor::uninitialized(DType::I64, {unique.numElements() - 1});
  int64_t *out = requested.data<int64_t>();
  for (int64_t i = 0, k = 0; i < unique.numElements(); ++i)
    if (i != padding)
      out[k++] = values[i];
  int64_t *position = index.data<int64_t>();
  for (int64_t i = 0; i < index.numElements(); ++i)
    position[i] = position[i] == padding  ? kernels::kPaddingId
                  : position[i] > padding ? position[i] - 1
                                          : position[i];
  return {std::move(requested), kernels::reshape(std::move(index), shape)};
}

/// Throws InvalidArgument for the first id of `flat` (the lookup's ids as
/// i64, flattened from `shape`) that is neither a row of a table of `rows`
/// rows (any non-negative id for a dynamic table: rows = INT64_MAX) nor
/// padding, naming the placeholder that fed the ids (when one
/// did), the id's position in the batch and the table.
void checkIdsInTable(ir::PullRowsOp pull, const Tensor &flat,
                     const Shape &shape, int64_t rows) {
  const int64_t *values = flat.data<int64_t>();
  for (int64_t i = 0, n = flat.numElements(); i < n; ++i) {
    if (values[i] == kernels::kPaddingId ||
        (values[i] >= 0 && values[i] < rows))
      continue;
    Shape position(shape.size());
    for (int64_t rest = i, d = static_cast<int64_t>(shape.size()) - 1; d >= 0;
         --d) {
      position[d] = rest % shape[d];
      rest /= shape[d];
    }
    std::string source = "the ids";
    if (auto feed = pull.getIds().getDefiningOp<ir::PlaceholderOp>())
      source = "placeholder '" + feed.getName().str() + "'";
    std::string at = source + ": id " + std::to_string(values[i]) + " at " +
                     shapeToString(position) + " of the batch";
    if (values[i] < 0)
      throw Error(ErrorCode::InvalidArgument,
                  at + " is negative, but ids index the rows of '" +
                      pull.getName().str() + "' (the padding id is -1)");
    throw Error(ErrorCode::InvalidArgument,
                at + " is outside the " + std::to_string(rows) + " rows of '" +
                    pull.getName().str() + "'");
  }
}

} // namespace

std::shared_ptr<exec::ExternalOpHandler>
makePullRowsHandler(std::vector<ps::PsConnection *> ps) {
  return exec::makeExternalOpHandler(
      [ps = std::move(ps)](const exec::ExternalOpCall &call) {
        auto pull = llvm::cast<ir::PullRowsOp>(call.op);
        int64_t task = pull.getDevice().getTask();
        if (task < 0 || task >= static_cast<int64_t>(ps.size()))
          throw Error(ErrorCode::InvalidArgument,
                      "dtf.pull_rows of '" + pull.getName().str() +
                          "' from PS task " + std::to_string(task) +
                          ", but the cluster has " + std::to_string(ps.size()) +
                          " PS tasks");
        const Tensor &ids = *call.operands[0];
        Tensor flat = kernels::reshape(kernels::cast(ids, DType::I64),
                                       {ids.numElements()});
        // An id outside the table is the input's fault: say which
        // placeholder fed it and where in the batch it is, before asking.
        // A dynamic table (no table_rows) takes every non-negative id.
        std::optional<uint64_t> tableRows = pull.getTableRows();
        checkIdsInTable(pull, flat, ids.shape(),
                        tableRows ? static_cast<int64_t>(*tableRows)
                                  : std::numeric_limits<int64_t>::max());
        // A shard of a partitioned table holds some of the ids, at rows of
        // its own; the others read as padding here.
        if (ir::RowShardAttr shard = pull.getShardAttr())
          flat = exec::shardLocalIds(shard, flat);
        DistinctIds distinct = distinctIds(flat, ids.shape());
        std::vector<Tensor> results;
        if (distinct.ids.numElements() == 0) {
          // Padding only: zero rows, and nothing to ask the task.
          results.push_back(
              Tensor(exec::toDType(pull.getType().getElementType(), {}),
                     exec::toShape(pull.getType())));
          return results;
        }
        std::vector<ps::RowRequest> request(1);
        request[0].name = pull.getName().str();
        request[0].ids = std::move(distinct.ids);
        std::vector<Tensor> rows = ps[task]->pullRows(request);
        results.push_back(kernels::gather(rows.front(), distinct.positions));
        return results;
      });
}

} // namespace dtf::train
