//===- RowPulls.cpp - dtf.pull_rows on a worker's CPU step ----------------===//

#include "runtime/train/RowPulls.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "runtime/core/Error.h"
#include "runtime/core/Kernels.h"
#include "runtime/core/Sparse.h"

#include <exception>
#include <limits>
#include <map>
#include <string>
#include <utility>

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

/// One pull's request: the PS task to ask, and the distinct ids of its
/// lookup with where each position finds its row.
struct PreparedPull {
  int64_t task = 0;
  DistinctIds distinct;
};

/// The PS task `pull` reads from, checked against the cluster's.
int64_t taskOf(ir::PullRowsOp pull, size_t numTasks) {
  int64_t task = pull.getDevice().getTask();
  if (task < 0 || task >= static_cast<int64_t>(numTasks))
    throw Error(ErrorCode::InvalidArgument,
                "dtf.pull_rows of '" + pull.getName().str() +
                    "' from PS task " + std::to_string(task) +
                    ", but the cluster has " + std::to_string(numTasks) +
                    " PS tasks");
  return task;
}

/// A lookup's ids (the pull's operand) as i64, flattened.
Tensor flatIds(const Tensor &ids) {
  return kernels::reshape(kernels::cast(ids, DType::I64), {ids.numElements()});
}

/// Checks the table's rows: an id outside the table is the input's fault,
/// so the error names the placeholder that fed it and where in the batch
/// it is, before anything is asked. A dynamic table (no table_rows) takes
/// every non-negative id.
void checkIds(ir::PullRowsOp pull, const Tensor &flat, const Shape &shape) {
  std::optional<uint64_t> tableRows = pull.getTableRows();
  checkIdsInTable(pull, flat, shape,
                  tableRows ? static_cast<int64_t>(*tableRows)
                            : std::numeric_limits<int64_t>::max());
}

/// The distinct ids `pull` asks its task for: a shard of a partitioned
/// table holds some of the ids, at rows of its own, and the others read as
/// padding.
DistinctIds distinctIdsOf(ir::PullRowsOp pull, const Tensor &flat,
                          const Shape &shape) {
  if (ir::RowShardAttr shard = pull.getShardAttr())
    return distinctIds(exec::shardLocalIds(shard, flat), shape);
  return distinctIds(flat, shape);
}

/// The pull's result from the task's answer to its request: each position
/// its row; zero rows when it asked nothing (padding only).
Tensor rowsOf(ir::PullRowsOp pull, const DistinctIds &distinct,
              const Tensor *answer) {
  if (!answer)
    return Tensor(exec::toDType(pull.getType().getElementType(), {}),
                  exec::toShape(pull.getType()));
  return kernels::gather(*answer, distinct.positions);
}

/// The pulls of one step whose ids were fed, done when the step began:
/// each op's rows, or the error that its request met. Filled before any op
/// runs; each op then takes its own entry.
struct PrefetchedPulls {
  struct Outcome {
    Tensor rows;
    std::exception_ptr error;
  };
  llvm::DenseMap<mlir::Operation *, Outcome> outcomes;
};

/// dtf.pull_rows on a worker. A step's pulls whose ids are placeholders are
/// asked for when the step begins, all the pulls of one PS task in one
/// request, as TensorFlow reads a step's values from a PS task in one
/// RunGraph; the lookups of one feature (its tables and their shards)
/// share the work on its ids. A pull whose ids are computed asks its task
/// when it runs.
class PullRowsHandler final : public exec::ExternalOpHandler {
public:
  explicit PullRowsHandler(std::vector<ps::PsConnection *> ps)
      : ps(std::move(ps)) {}

  std::shared_ptr<void> beginStep(mlir::func::FuncOp function,
                                  const FeedMap &feeds) override;
  void runAsync(const exec::ExternalOpCall &call,
                exec::ExternalOpDone done) override;

private:
  /// The rows of `pull` for the fed or computed `ids`, asked for alone.
  Tensor pullAlone(ir::PullRowsOp pull, const Tensor &ids);

  std::vector<ps::PsConnection *> ps;
};

std::shared_ptr<void> PullRowsHandler::beginStep(mlir::func::FuncOp function,
                                                 const FeedMap &feeds) {
  auto prefetched = std::make_shared<PrefetchedPulls>();
  // The requests of each task, and the pulls they answer in order.
  std::map<int64_t, std::vector<ps::RowRequest>> requests;
  std::map<int64_t,
           std::vector<std::pair<mlir::Operation *, const DistinctIds *>>>
      pending;
  // A placeholder's ids as i64, and its distinct ids as one shard (or a
  // whole table) is asked for them: the same for each table the feature
  // looks up.
  std::map<mlir::Operation *, Tensor> flatOf;
  std::map<std::pair<mlir::Operation *, const void *>, DistinctIds> shared;
  function.walk([&](ir::PullRowsOp pull) {
    auto placeholder = pull.getIds().getDefiningOp<ir::PlaceholderOp>();
    if (!placeholder)
      return;
    auto fed = feeds.find(placeholder.getName().str());
    if (fed == feeds.end())
      return;
    try {
      int64_t task = taskOf(pull, ps.size());
      auto flat = flatOf.find(placeholder.getOperation());
      if (flat == flatOf.end())
        flat = flatOf.emplace(placeholder.getOperation(), flatIds(fed->second))
                   .first;
      checkIds(pull, flat->second, fed->second.shape());
      auto key = std::make_pair(placeholder.getOperation(),
                                pull.getShardAttr().getAsOpaquePointer());
      auto it = shared.find(key);
      if (it == shared.end())
        it = shared
                 .emplace(key, distinctIdsOf(pull, flat->second,
                                             fed->second.shape()))
                 .first;
      const DistinctIds &distinct = it->second;
      if (distinct.ids.numElements() == 0) {
        prefetched->outcomes[pull] = {rowsOf(pull, distinct, nullptr), {}};
        return;
      }
      requests[task].push_back({pull.getName().str(), distinct.ids.clone()});
      pending[task].emplace_back(pull.getOperation(), &distinct);
    } catch (...) {
      prefetched->outcomes[pull] = {Tensor(), std::current_exception()};
    }
  });
  for (auto &[task, taskRequests] : requests) {
    std::vector<std::pair<mlir::Operation *, const DistinctIds *>> &pulls =
        pending[task];
    try {
      std::vector<Tensor> answers = ps[task]->pullRows(taskRequests);
      for (size_t k = 0; k < pulls.size(); ++k) {
        auto pull = llvm::cast<ir::PullRowsOp>(pulls[k].first);
        prefetched->outcomes[pull] = {
            rowsOf(pull, *pulls[k].second, &answers[k]), {}};
      }
    } catch (...) {
      for (auto &[pull, distinct] : pulls)
        prefetched->outcomes[pull] = {Tensor(), std::current_exception()};
    }
  }
  if (prefetched->outcomes.empty())
    return nullptr;
  return prefetched;
}

void PullRowsHandler::runAsync(const exec::ExternalOpCall &call,
                               exec::ExternalOpDone done) {
  auto pull = llvm::cast<ir::PullRowsOp>(call.op);
  if (auto *prefetched = static_cast<PrefetchedPulls *>(call.stepState)) {
    auto it = prefetched->outcomes.find(call.op);
    if (it != prefetched->outcomes.end()) {
      if (it->second.error)
        return done(it->second.error, {});
      std::vector<Tensor> results;
      results.push_back(std::move(it->second.rows));
      return done(nullptr, std::move(results));
    }
  }
  std::vector<Tensor> results;
  try {
    results.push_back(pullAlone(pull, *call.operands[0]));
  } catch (...) {
    return done(std::current_exception(), {});
  }
  done(nullptr, std::move(results));
}

Tensor PullRowsHandler::pullAlone(ir::PullRowsOp pull, const Tensor &ids) {
  int64_t task = taskOf(pull, ps.size());
  Tensor flat = flatIds(ids);
  checkIds(pull, flat, ids.shape());
  DistinctIds distinct = distinctIdsOf(pull, flat, ids.shape());
  if (distinct.ids.numElements() == 0)
    return rowsOf(pull, distinct, nullptr);
  std::vector<ps::RowRequest> request(1);
  request[0].name = pull.getName().str();
  request[0].ids = std::move(distinct.ids);
  std::vector<Tensor> rows = ps[task]->pullRows(request);
  return rowsOf(pull, distinct, &rows.front());
}

} // namespace

std::shared_ptr<exec::ExternalOpHandler>
makePullRowsHandler(std::vector<ps::PsConnection *> ps) {
  return std::make_shared<PullRowsHandler>(std::move(ps));
}

} // namespace dtf::train
