//===- Sparse.h - Sparse embedding and CTR kernels (TF 1.x semantics) -----===//
//
// The CPU kernels of a sparse model (wide & deep, DeepFM, a CTR model): the
// embedding lookups of categorical features, their gradients as sparse rows
// (TensorFlow's IndexedSlices), the logistic loss, and the optimizers that
// update only the rows a batch touched. They follow the TensorFlow 1.x ops
// they are named after, so that a model trained here matches one trained by
// TensorFlow; where the two differ the comment says so.
//
// Conventions as in Kernels.h: tensors in and out, operands checked with
// std::invalid_argument naming the op, the shapes and the dtypes; one dtype
// per kernel for the float operands (no promotion); "float" means f32 and
// f64. Ids are i32 or i64 tensors. An id outside its range throws
// std::out_of_range (a std::logic_error, which errorCodeOf reads as
// InvalidArgument) naming the op, the id, its position in the ids tensor
// and the valid range; no output is written and no variable changes then.
//
// A padded ragged feature: a batch of B examples with up to L ids each is
// held as a dense [B, L] ids tensor whose unused slots hold kPaddingId.
// Every kernel here treats kPaddingId the same way: its looked-up row is
// zeros and it receives no gradient (a sparse update skips it).
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"

#include <cstdint>
#include <string_view>
#include <utility>

namespace dtf::kernels {

/// The id of an empty slot of a padded ragged feature.
inline constexpr int64_t kPaddingId = -1;

//===----------------------------------------------------------------------===//
// Lookups
//===----------------------------------------------------------------------===//

/// TF Gather / ResourceGather on axis 0 (tf.nn.embedding_lookup of one
/// shard): params [V, D...] of any dtype, ids of any shape ->
/// ids.shape + [D...]. A kPaddingId slot gets a zero row (TF's Gather would
/// reject it); any other id outside [0, V) throws std::out_of_range.
Tensor gather(const Tensor &params, const Tensor &ids);

/// How the rows of one table are split over shards: TF's embedding_lookup
/// `partition_strategy`.
///  - Div: contiguous ranges; with q = totalRows / numShards and
///    r = totalRows % numShards, the first r shards hold q + 1 rows and the
///    others q (the slicing of tf.fixed_size_partitioner, and what
///    embedding_lookup computes for "div": 10 rows over 3 shards are
///    {0..3}, {4..6}, {7..9}).
///  - Mod: shard id % numShards, row id / numShards within it (10 rows over
///    3 shards: shard 0 holds 0, 3, 6, 9).
enum class PartitionStrategy { Div, Mod };

/// The row-id partition of a table of `totalRows` rows (>= 0) over
/// `numShards` shards (>= 1). The methods throw std::invalid_argument for a
/// bad partition and std::out_of_range for an id, shard or local row outside
/// it; they are cheap enough to call per id.
struct RowPartition {
  int64_t totalRows;
  int64_t numShards;
  PartitionStrategy strategy;

  /// The shard holding row `id`, id in [0, totalRows).
  int64_t shardOf(int64_t id) const;
  /// The row of `id` within its shard.
  int64_t localId(int64_t id) const;
  /// The inverse: the id of row `local` of `shard`.
  int64_t globalId(int64_t shard, int64_t local) const;
  /// How many rows `shard` holds (0 for a shard past the rows when
  /// totalRows < numShards).
  int64_t shardRows(int64_t shard) const;
};

/// The ids of a table partitioned by `partition` (i32 or i64, any shape) as
/// rows of its shard `shard`: the local row of each id the shard holds, and
/// kPaddingId for padding and for the ids of other shards, as i64 of the
/// same shape. What a worker asks one shard for, and pushes to it. Throws
/// std::out_of_range naming the id and its position for an id outside
/// [0, totalRows) other than kPaddingId.
Tensor shard_local_ids(const Tensor &ids, const RowPartition &partition,
                       int64_t shard);

/// How the rows of one example are combined (TF's `combiner`).
enum class Combiner { Sum, Mean, SqrtN };
/// "sum", "mean" or "sqrtn" as TF spells them; throws std::invalid_argument
/// naming the text otherwise.
Combiner parseCombiner(std::string_view name);

/// tf.nn.embedding_lookup_sparse over a padded ragged feature: params
/// [V, D] float, ids [B, L] (kPaddingId pads), weights [B, L] of params'
/// dtype or null (every weight 1). With the sums over the example's
/// non-padding slots (a padding slot's weight is ignored):
///   Sum:   sum w * row
///   Mean:  sum w * row / sum w
///   SqrtN: sum w * row / sqrt(sum w^2)
/// as TF's segment_sum followed by div. An example with no ids gets a zero
/// row (as safe_embedding_lookup_sparse; plain TF drops trailing empty
/// examples); an example with ids whose weights sum to 0 divides by 0, as
/// TF does. -> [B, D].
Tensor embedding_lookup_sparse(const Tensor &params, const Tensor &ids,
                               const Tensor *weights, Combiner combiner);
/// The combining half of embedding_lookup_sparse, which is
/// embedding_combine(gather(params, ids), ids, weights, combiner): rows
/// [B, L, D] float looked up at ids [B, L], reduced per example as above
/// (padding slots left out). -> [B, D]. The dtf dialect keeps the two
/// halves apart so that a worker can pull the rows from a PS task.
Tensor embedding_combine(const Tensor &rows, const Tensor &ids,
                         const Tensor *weights, Combiner combiner);
/// The gradient of embedding_lookup_sparse w.r.t. params as one row per
/// (b, l) slot: dy [B, D] float -> [B, L, D], slot row = dy[b] * w[b,l] *
/// scale(b) with scale 1 (Sum), 1 / sum w (Mean) or 1 / sqrt(sum w^2)
/// (SqrtN), the sums as in the forward pass; padding slots get zero rows.
/// Paired with `ids` flattened this is TF's IndexedSlices gradient of params
/// (sum_duplicate_rows makes it one row per id). The ids are not checked
/// against a table here (the lookup did), only that none is negative but
/// kPaddingId.
Tensor embedding_lookup_sparse_grad(const Tensor &dy, const Tensor &ids,
                                    const Tensor *weights, Combiner combiner);

//===----------------------------------------------------------------------===//
// Segments and unique ids
//===----------------------------------------------------------------------===//

/// TF UnsortedSegmentSum: data [N, D...] (f32, f64, i32, i64), segment_ids
/// i32/i64 of shape [N] (or, as TF allows, any prefix of data's shape) ->
/// [num_segments, D...] with out[s] = sum of data[i] where segment_ids[i] ==
/// s. Negative segment ids are dropped as TF drops them; an id >=
/// num_segments throws std::out_of_range. Empty segments are 0.
Tensor unsorted_segment_sum(const Tensor &data, const Tensor &segment_ids,
                            int64_t num_segments);
/// Each row of `rows` ([N, D...], f32/f64) divided by the number of entries
/// of `ids` (i32/i64, [N]) equal to its id. Sync replication concatenates
/// the sparse gradients of R replicas, each push's ids distinct: summing
/// the rows of equal ids afterwards gives each id the mean over the
/// replicas that touched it, TensorFlow's SparseConditionalAccumulator's
/// element-wise average (not the sum over R).
Tensor divide_by_id_count(const Tensor &rows, const Tensor &ids);
/// TF Unique on a 1-D i32/i64 tensor x: {y, idx} with y the distinct values
/// of x in order of first occurrence (x's dtype) and x[i] == y[idx[i]].
/// idx is i64 here where TF's out_idx defaults to i32: an index into y is a
/// row number, and rows are i64 throughout this API.
std::pair<Tensor, Tensor> unique(const Tensor &x);

//===----------------------------------------------------------------------===//
// Sparse gradients and updates
//===----------------------------------------------------------------------===//

/// A sparse gradient (TF IndexedSlices) with each id once: ids [U] i64,
/// rows [U, D...] float.
struct SparseRows {
  Tensor ids;
  Tensor rows;
};

/// What a worker sends for one table: flattens ids (any shape, i32/i64) and
/// rows (float, shaped ids.shape + [D...], or [ids.numElements(), D...]; the
/// first reading wins where both fit), drops the kPaddingId slots and sums
/// the rows of equal ids (TF's _deduplicate_indexed_slices), the ids in
/// order of first occurrence. A negative id other than kPaddingId throws
/// std::out_of_range.
SparseRows sum_duplicate_rows(const Tensor &ids, const Tensor &rows);

// Sparse updates of the rows `ids` ([U] i64, or i32; local row numbers, each
// in [0, var.dim(0)), kPaddingId skipped) of var [V, D...] with grad rows
// [U, D...] of var's dtype. Duplicate ids are applied one after another, as
// TF's SparseApply* kernels do (sum_duplicate_rows first to apply each row
// once, as TF's optimizers do). The ids are all checked before anything
// changes. The formulas are those of TensorFlow's training_ops.cc
// (ResourceSparseApply* and the dense Apply* functors), computed in var's
// precision with the hyper-parameters converted to it first.

/// var[id] -= lr * row (TF ResourceScatterSub of lr * grad, what
/// GradientDescentOptimizer does with IndexedSlices).
void sparse_apply_gradient_descent(Tensor &var, double lr, const Tensor &ids,
                                   const Tensor &rows);

/// Adagrad (tf.compat.v1.train.AdagradOptimizer, ApplyAdagrad with
/// update_slots = true): accum += g * g; var -= lr * g / sqrt(accum). var,
/// accum and grad have one type.
void apply_adagrad(Tensor &var, Tensor &accum, double lr, const Tensor &grad);
/// SparseApplyAdagrad: the same per row of `ids`.
void sparse_apply_adagrad(Tensor &var, Tensor &accum, double lr,
                          const Tensor &ids, const Tensor &rows);

/// FTRL-Proximal as TF's ApplyFtrlV2 (tf.compat.v1.train.FtrlOptimizer;
/// accum is n, linear is z; l2_shrinkage 0 is ApplyFtrl), per element:
///   g_s = g + 2 * l2_shrinkage * var
///   n' = n + g * g
///   z += g_s - (n'^(-lr_power) - n^(-lr_power)) / lr * var
///   var = |z| > l1 ? (sign(z) * l1 - z) / (n'^(-lr_power) / lr + 2 * l2) : 0
///   n = n'
/// with sqrt for the power when lr_power == -0.5 (TF's special case). As
/// TF, throws std::invalid_argument unless lr > 0, l1 >= 0, l2 >= 0,
/// l2_shrinkage >= 0 and lr_power <= 0.
void apply_ftrl(Tensor &var, Tensor &accum, Tensor &linear, const Tensor &grad,
                double lr, double l1, double l2, double l2_shrinkage,
                double lr_power);
/// SparseApplyFtrlV2: the same per row of `ids`.
void sparse_apply_ftrl(Tensor &var, Tensor &accum, Tensor &linear,
                       const Tensor &ids, const Tensor &rows, double lr,
                       double l1, double l2, double l2_shrinkage,
                       double lr_power);

/// Lazy Adam (tf.contrib.opt.LazyAdamOptimizer._apply_sparse): only the
/// rows of `ids` move, m, v and var alike; untouched rows' moments do not
/// decay. With lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power), per
/// row: m = beta1 * m + (1 - beta1) * g; v = beta2 * v + (1 - beta2) * g * g;
/// var -= lr_t * m / (sqrt(v) + epsilon), as apply_adam (Kernels.h).
void sparse_apply_adam(Tensor &var, Tensor &m, Tensor &v, double beta1_power,
                       double beta2_power, double lr, double beta1,
                       double beta2, double epsilon, const Tensor &ids,
                       const Tensor &rows);

} // namespace dtf::kernels
