//===- SparseTest.cpp - Sparse embedding and CTR kernels ------------------===//
//
// Every numeric result is compared with a double-precision reference
// computed here by plain loops over the formulas of the TensorFlow ops.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/Sparse.h"

#include "runtime/core/Kernels.h"
#include "runtime/core/tests/TestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

using namespace dtf;
using namespace dtf::kernels;
using dtf::testing::expectInvalidArgument;
using dtf::testing::expectOutOfRange;
using dtf::testing::expectTensorEq;
using dtf::testing::expectTensorNear;

namespace {

Tensor f64(Shape shape, std::vector<double> values) {
  return Tensor::fromVector<double>(std::move(shape), values);
}
Tensor i32(Shape shape, std::vector<int32_t> values) {
  return Tensor::fromVector<int32_t>(std::move(shape), values);
}
Tensor i64(Shape shape, std::vector<int64_t> values) {
  return Tensor::fromVector<int64_t>(std::move(shape), values);
}

/// The elements of a float tensor as doubles.
std::vector<double> doublesOf(const Tensor &t) {
  return cast(t, DType::F64).toVector<double>();
}

/// Uniform values in [lo, hi) as a tensor of `dtype`, and the same values
/// (after rounding to dtype) as doubles for the reference.
Tensor uniformTensor(DType dtype, const Shape &shape, uint64_t seed,
                     double lo = -1, double hi = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> values(static_cast<size_t>(numElementsOf(shape)));
  for (double &v : values)
    v = dist(rng);
  return cast(f64(shape, values), dtype);
}

/// Expects `actual` (a float tensor) near the double values `expected`,
/// within `tolerance` relative to max(1, |expected|).
void expectNearValues(const Tensor &actual, const std::vector<double> &expected,
                      double tolerance) {
  std::vector<double> a = doublesOf(actual);
  ASSERT_EQ(a.size(), expected.size()) << actual.typeString();
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a[i], expected[i],
                tolerance * std::max(1.0, std::abs(expected[i])))
        << "at flat index " << i;
}

double toleranceOf(DType dtype) { return dtype == DType::F64 ? 1e-12 : 2e-6; }

} // namespace

//===----------------------------------------------------------------------===//
// gather
//===----------------------------------------------------------------------===//

TEST(SparseGather, RowsForIdsOfAnyShape) {
  for (DType dtype : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Tensor params = uniformTensor(dtype, {5, 3}, 1);
    std::vector<double> table = doublesOf(params);
    std::vector<int64_t> ids = {4, 0, 4, 2, 1, 3};
    Tensor out = gather(params, i64({2, 3}, ids));
    ASSERT_EQ(out.shape(), (Shape{2, 3, 3}));
    std::vector<double> expected;
    for (int64_t id : ids)
      for (int64_t d = 0; d < 3; ++d)
        expected.push_back(table[id * 3 + d]);
    expectNearValues(out, expected, 0);
  }
}

TEST(SparseGather, PaddingIdsGetZeroRowsAndI32Ids) {
  Tensor params = uniformTensor(DType::F32, {4, 2, 2}, 2);
  std::vector<double> table = doublesOf(params);
  Tensor out = gather(params, i32({3}, {3, -1, 0}));
  ASSERT_EQ(out.shape(), (Shape{3, 2, 2}));
  std::vector<double> expected;
  for (int64_t id : {3, -1, 0})
    for (int64_t d = 0; d < 4; ++d)
      expected.push_back(id < 0 ? 0.0 : table[id * 4 + d]);
  expectNearValues(out, expected, 0);
}

TEST(SparseGather, ScalarIdEmptyIdsAndIntegerTables) {
  Tensor params = i64({3, 2}, {1, 2, 3, 4, 5, 6});
  expectTensorEq<int64_t>(gather(params, Tensor::scalar<int64_t>(1)),
                          i64({2}, {3, 4}));
  Tensor none = gather(params, i64({0}, {}));
  EXPECT_EQ(none.shape(), (Shape{0, 2}));
  expectTensorEq<int64_t>(gather(params, i32({2, 1}, {2, 0})),
                          i64({2, 1, 2}, {5, 6, 1, 2}));
}

TEST(SparseGather, OutOfRangeIdNamesIdPositionAndRange) {
  Tensor params(DType::F32, {10, 4});
  std::vector<int64_t> ids(12, 1);
  ids[3 * 3 + 2] = 10;
  expectOutOfRange(
      [&] {
        gather(params, i64({4, 3}, ids));
      },
      {"gather", "id 10", "[3,2]", "[0, 10)"});
  expectOutOfRange(
      [&] {
        gather(params, i32({2}, {0, -2}));
      },
      {"gather", "id -2", "[1]", "[0, 10)"});
  expectInvalidArgument([&] { gather(params, f64({1}, {0})); },
                        {"gather", "ids must be i32 or i64", "f64[1]"});
  expectInvalidArgument(
      [&] { gather(Tensor::scalar<float>(1), i64({1}, {0})); },
      {"gather", "params", "rank >= 1", "f32[]"});
}

//===----------------------------------------------------------------------===//
// RowPartition
//===----------------------------------------------------------------------===//

namespace {
/// TF's embedding_lookup "div" assignment, as its Python computes it.
int64_t tfDivShard(int64_t id, int64_t rows, int64_t shards) {
  const int64_t q = rows / shards, r = rows % shards;
  if (q == 0) // TF divides by q here; every id is in a one-row shard.
    return id;
  return std::max(id / (q + 1), (id - r) / q);
}
int64_t tfDivLocal(int64_t id, int64_t rows, int64_t shards) {
  const int64_t q = rows / shards, r = rows % shards;
  return tfDivShard(id, rows, shards) < r ? id % (q + 1) : (id - r) % q;
}
} // namespace

TEST(SparseRowPartition, DivTenRowsOverThreeShards) {
  // TF's documented example: shards of 4, 3 and 3 rows.
  RowPartition p{10, 3, PartitionStrategy::Div};
  EXPECT_EQ(p.shardRows(0), 4);
  EXPECT_EQ(p.shardRows(1), 3);
  EXPECT_EQ(p.shardRows(2), 3);
  const int64_t shards[10] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2};
  const int64_t locals[10] = {0, 1, 2, 3, 0, 1, 2, 0, 1, 2};
  for (int64_t id = 0; id < 10; ++id) {
    EXPECT_EQ(p.shardOf(id), shards[id]) << id;
    EXPECT_EQ(p.localId(id), locals[id]) << id;
    EXPECT_EQ(p.globalId(shards[id], locals[id]), id);
  }
}

TEST(SparseRowPartition, ModTenRowsOverThreeShards) {
  RowPartition p{10, 3, PartitionStrategy::Mod};
  EXPECT_EQ(p.shardOf(7), 1);
  EXPECT_EQ(p.localId(7), 2);
  EXPECT_EQ(p.globalId(1, 2), 7);
  EXPECT_EQ(p.shardRows(0), 4); // 0, 3, 6, 9
  EXPECT_EQ(p.shardRows(1), 3);
  EXPECT_EQ(p.shardRows(2), 3);
}

TEST(SparseRowPartition, AgreesWithTfFormulasAndRoundTrips) {
  for (auto strategy : {PartitionStrategy::Div, PartitionStrategy::Mod})
    for (int64_t rows = 0; rows <= 23; ++rows)
      for (int64_t shards = 1; shards <= 7; ++shards) {
        SCOPED_TRACE(std::to_string(rows) + " rows over " +
                     std::to_string(shards) +
                     (strategy == PartitionStrategy::Div ? " div" : " mod"));
        RowPartition p{rows, shards, strategy};
        std::vector<int64_t> counted(shards, 0);
        for (int64_t id = 0; id < rows; ++id) {
          const int64_t shard = strategy == PartitionStrategy::Div
                                    ? tfDivShard(id, rows, shards)
                                    : id % shards;
          const int64_t local = strategy == PartitionStrategy::Div
                                    ? tfDivLocal(id, rows, shards)
                                    : id / shards;
          ASSERT_EQ(p.shardOf(id), shard) << id;
          ASSERT_EQ(p.localId(id), local) << id;
          ASSERT_EQ(p.globalId(shard, local), id);
          // Local ids of a shard are 0, 1, 2, ... in id order.
          ASSERT_EQ(local, counted[shard]++);
        }
        for (int64_t s = 0; s < shards; ++s)
          ASSERT_EQ(p.shardRows(s), counted[s]) << s;
      }
}

TEST(SparseRowPartition, RejectsIdsOutsideAndBadPartitions) {
  RowPartition p{10, 3, PartitionStrategy::Div};
  expectOutOfRange([&] { p.shardOf(10); }, {"shardOf", "id 10", "[0, 10)"});
  expectOutOfRange([&] { p.localId(-1); }, {"localId", "id -1"});
  expectOutOfRange([&] { p.shardRows(3); }, {"shardRows", "shard 3"});
  expectOutOfRange([&] { p.globalId(1, 3); },
                   {"globalId", "row 3 of shard 1", "[0, 3)"});
  RowPartition none{10, 0, PartitionStrategy::Mod};
  expectInvalidArgument([&] { none.shardOf(0); },
                        {"RowPartition", "10 rows over 0 shards"});
}

//===----------------------------------------------------------------------===//
// embedding_lookup_sparse and its gradient
//===----------------------------------------------------------------------===//

TEST(SparseCombiner, ParsesTfNames) {
  EXPECT_EQ(parseCombiner("sum"), Combiner::Sum);
  EXPECT_EQ(parseCombiner("mean"), Combiner::Mean);
  EXPECT_EQ(parseCombiner("sqrtn"), Combiner::SqrtN);
  expectInvalidArgument([] { parseCombiner("avg"); },
                        {"parseCombiner", "\"avg\""});
}

namespace {
/// The reference lookup and the per-slot gradient scale: for each example
/// the non-padding slots' sum w * row, divided as the combiner says.
struct LookupReference {
  std::vector<double> out;     // [B, D]
  std::vector<double> divisor; // [B], 1 for Sum
};

LookupReference referenceLookup(const std::vector<double> &table, int64_t dim,
                                const std::vector<int64_t> &ids, int64_t batch,
                                int64_t slots, const std::vector<double> *w,
                                Combiner combiner) {
  LookupReference ref{std::vector<double>(batch * dim, 0.0),
                      std::vector<double>(batch, 1.0)};
  for (int64_t b = 0; b < batch; ++b) {
    double sumW = 0, sumW2 = 0;
    bool any = false;
    for (int64_t l = 0; l < slots; ++l) {
      const int64_t id = ids[b * slots + l];
      if (id == kPaddingId)
        continue;
      const double weight = w ? (*w)[b * slots + l] : 1.0;
      sumW += weight;
      sumW2 += weight * weight;
      any = true;
      for (int64_t d = 0; d < dim; ++d)
        ref.out[b * dim + d] += weight * table[id * dim + d];
    }
    if (combiner == Combiner::Mean)
      ref.divisor[b] = sumW;
    else if (combiner == Combiner::SqrtN)
      ref.divisor[b] = std::sqrt(sumW2);
    if (any)
      for (int64_t d = 0; d < dim; ++d)
        ref.out[b * dim + d] /= ref.divisor[b];
  }
  return ref;
}

// Four examples of up to four ids: duplicates, padding in the middle, an
// empty example, a full one.
const std::vector<int64_t> kRaggedIds = {3,  1,  3,  -1, //
                                         0,  -1, 6,  -1, //
                                         -1, -1, -1, -1, //
                                         2,  5,  4,  1};
} // namespace

TEST(SparseEmbeddingLookup, CombinersAgainstReference) {
  for (DType dtype : {DType::F64, DType::F32})
    for (Combiner combiner : {Combiner::Sum, Combiner::Mean, Combiner::SqrtN})
      for (bool weighted : {false, true}) {
        SCOPED_TRACE(std::string(dtypeName(dtype)) + " combiner " +
                     std::to_string(static_cast<int>(combiner)) +
                     (weighted ? " weighted" : ""));
        Tensor params = uniformTensor(dtype, {7, 5}, 3);
        Tensor weights = uniformTensor(dtype, {4, 4}, 4, 0.1, 2);
        std::vector<double> w = doublesOf(weights);
        LookupReference ref =
            referenceLookup(doublesOf(params), 5, kRaggedIds, 4, 4,
                            weighted ? &w : nullptr, combiner);
        Tensor out =
            embedding_lookup_sparse(params, i64({4, 4}, kRaggedIds),
                                    weighted ? &weights : nullptr, combiner);
        ASSERT_EQ(out.shape(), (Shape{4, 5}));
        expectNearValues(out, ref.out, toleranceOf(dtype));
        // The empty example's row is exactly zero.
        for (int64_t d = 0; d < 5; ++d)
          EXPECT_EQ(doublesOf(out)[2 * 5 + d], 0.0);
      }
}

TEST(SparseEmbeddingLookup, GradRowsPerSlot) {
  for (DType dtype : {DType::F64, DType::F32})
    for (Combiner combiner : {Combiner::Sum, Combiner::Mean, Combiner::SqrtN})
      for (bool weighted : {false, true}) {
        SCOPED_TRACE(std::string(dtypeName(dtype)) + " combiner " +
                     std::to_string(static_cast<int>(combiner)) +
                     (weighted ? " weighted" : ""));
        Tensor dy = uniformTensor(dtype, {4, 3}, 5);
        Tensor weights = uniformTensor(dtype, {4, 4}, 6, 0.1, 2);
        std::vector<double> w = doublesOf(weights);
        std::vector<double> g = doublesOf(dy);
        LookupReference ref =
            referenceLookup(std::vector<double>(7 * 3, 0.0), 3, kRaggedIds, 4,
                            4, weighted ? &w : nullptr, combiner);
        std::vector<double> expected;
        for (int64_t b = 0; b < 4; ++b)
          for (int64_t l = 0; l < 4; ++l)
            for (int64_t d = 0; d < 3; ++d)
              expected.push_back(kRaggedIds[b * 4 + l] == kPaddingId
                                     ? 0.0
                                     : g[b * 3 + d] *
                                           (weighted ? w[b * 4 + l] : 1.0) /
                                           ref.divisor[b]);
        Tensor grad = embedding_lookup_sparse_grad(
            dy,
            i32({4, 4},
                std::vector<int32_t>(kRaggedIds.begin(), kRaggedIds.end())),
            weighted ? &weights : nullptr, combiner);
        ASSERT_EQ(grad.shape(), (Shape{4, 4, 3}));
        expectNearValues(grad, expected, toleranceOf(dtype));
      }
}

TEST(SparseEmbeddingLookup, GradMatchesFiniteDifferences) {
  // d/dparams of sum(dy * lookup(params)), from the slot rows summed per id
  // (unsorted_segment_sum drops the padding slots' -1), against central
  // differences of the lookup in double.
  const int64_t rows = 7, dim = 2;
  Tensor params = uniformTensor(DType::F64, {rows, dim}, 7);
  Tensor weights = uniformTensor(DType::F64, {4, 4}, 8, 0.1, 2);
  Tensor dy = uniformTensor(DType::F64, {4, dim}, 9);
  Tensor ids = i64({4, 4}, kRaggedIds);
  for (Combiner combiner : {Combiner::Sum, Combiner::Mean, Combiner::SqrtN}) {
    Tensor slots = embedding_lookup_sparse_grad(dy, ids, &weights, combiner);
    Tensor grad = unsorted_segment_sum(reshape(std::move(slots), {16, dim}),
                                       reshape(ids.clone(), {16}), rows);
    auto objective = [&](const Tensor &p) {
      std::vector<double> out =
          doublesOf(embedding_lookup_sparse(p, ids, &weights, combiner));
      std::vector<double> g = doublesOf(dy);
      double sum = 0;
      for (size_t i = 0; i < out.size(); ++i)
        sum += out[i] * g[i];
      return sum;
    };
    std::vector<double> numeric;
    for (int64_t i = 0; i < rows * dim; ++i) {
      const double h = 1e-6;
      Tensor plus = params.clone(), minus = params.clone();
      plus.data<double>()[i] += h;
      minus.data<double>()[i] -= h;
      numeric.push_back((objective(plus) - objective(minus)) / (2 * h));
    }
    expectNearValues(grad, numeric, 1e-8);
  }
}

TEST(SparseEmbeddingLookup, RejectsBadOperands) {
  Tensor params(DType::F32, {10, 4});
  std::vector<int64_t> ids(8, kPaddingId);
  ids[1 * 4 + 2] = 12;
  expectOutOfRange(
      [&] {
        embedding_lookup_sparse(params, i64({2, 4}, ids), nullptr,
                                Combiner::Mean);
      },
      {"gather", "id 12", "[1,2]", "[0, 10)"});
  Tensor good = i64({2, 4}, std::vector<int64_t>(8, 0));
  Tensor weights(DType::F32, {2, 3});
  expectInvalidArgument(
      [&] { embedding_lookup_sparse(params, good, &weights, Combiner::Sum); },
      {"embedding_lookup_sparse", "weights f32[2,3]", "ids i64[2,4]"});
  Tensor weights64(DType::F64, {2, 4});
  expectInvalidArgument(
      [&] { embedding_lookup_sparse(params, good, &weights64, Combiner::Sum); },
      {"embedding_lookup_sparse", "dtype mismatch", "f64[2,4]", "f32[10,4]"});
  expectInvalidArgument(
      [&] {
        embedding_lookup_sparse(params, i64({8}, std::vector<int64_t>(8, 0)),
                                nullptr, Combiner::Sum);
      },
      {"embedding_lookup_sparse", "ids must have rank 2", "i64[8]"});
  Tensor dy(DType::F32, {3, 4});
  expectInvalidArgument(
      [&] { embedding_lookup_sparse_grad(dy, good, nullptr, Combiner::Sum); },
      {"embedding_lookup_sparse_grad", "f32[3,4]", "i64[2,4]"});
  expectOutOfRange(
      [&] {
        embedding_lookup_sparse_grad(Tensor(DType::F32, {1, 4}),
                                     i64({1, 2}, {0, -3}), nullptr,
                                     Combiner::Sum);
      },
      {"embedding_lookup_sparse_grad", "id -3", "[0,1]"});
}

//===----------------------------------------------------------------------===//
// unsorted_segment_sum and unique
//===----------------------------------------------------------------------===//

// Three replicas' pushes concatenated: id 7 in all three, id 3 in two, id 5
// in one. After dividing, the rows of each id sum to the mean over the
// replicas that pushed it (SparseConditionalAccumulator), so the rare id 5
// keeps its whole gradient.
TEST(SparseDivideByIdCount, EachIdAveragesOverTheReplicasThatPushedIt) {
  for (DType dtype : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    const std::vector<int64_t> ids = {7, 3, 7, 5, 3, 7};
    Tensor rows = uniformTensor(dtype, {6, 2}, 10);
    std::vector<double> x = doublesOf(rows);
    std::vector<double> expected(x);
    const std::vector<double> occurrences = {3, 2, 3, 1, 2, 3};
    for (size_t i = 0; i < ids.size(); ++i)
      for (int64_t d = 0; d < 2; ++d)
        expected[i * 2 + d] /= occurrences[i];
    Tensor out = divide_by_id_count(rows, i64({6}, ids));
    ASSERT_EQ(out.shape(), (Shape{6, 2}));
    expectNearValues(out, expected, toleranceOf(dtype));
    // i32 ids count the same way.
    expectNearValues(divide_by_id_count(rows, i32({6}, {7, 3, 7, 5, 3, 7})),
                     expected, toleranceOf(dtype));
  }
  dtf::testing::expectInvalidArgument(
      [] {
        divide_by_id_count(f64({3, 2}, std::vector<double>(6, 1.0)),
                           i64({2}, {1, 2}));
      },
      {"divide_by_id_count", "one row per id"});
}

TEST(SparseUnsortedSegmentSum, AgainstReferenceDroppingNegativeIds) {
  for (DType dtype : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    const std::vector<int64_t> segments = {2, 0, -1, 2, 4, -5, 0};
    Tensor data = uniformTensor(dtype, {7, 2, 3}, 10);
    std::vector<double> x = doublesOf(data);
    std::vector<double> expected(5 * 6, 0.0);
    for (size_t i = 0; i < segments.size(); ++i)
      if (segments[i] >= 0)
        for (int64_t d = 0; d < 6; ++d)
          expected[segments[i] * 6 + d] += x[i * 6 + d];
    Tensor out = unsorted_segment_sum(data, i64({7}, segments), 5);
    ASSERT_EQ(out.shape(), (Shape{5, 2, 3}));
    expectNearValues(out, expected, toleranceOf(dtype));
  }
}

TEST(SparseUnsortedSegmentSum, IntegersPrefixShapesAndEmptyInput) {
  // segment_ids [2, 2] over data [2, 2, 1]: a prefix of data's shape.
  expectTensorEq<int32_t>(unsorted_segment_sum(i32({2, 2, 1}, {1, 2, 3, 4}),
                                               i32({2, 2}, {1, 1, 0, -1}), 3),
                          i32({3, 1}, {3, 3, 0}));
  Tensor empty =
      unsorted_segment_sum(Tensor(DType::F32, {0, 4}), i64({0}, {}), 3);
  expectTensorEq<float>(empty, Tensor(DType::F32, {3, 4}));
  EXPECT_EQ(
      unsorted_segment_sum(Tensor(DType::F64, {0}), i64({0}, {}), 0).shape(),
      (Shape{0}));
}

TEST(SparseUnsortedSegmentSum, RejectsBadSegments) {
  Tensor data(DType::F32, {3, 2});
  expectOutOfRange(
      [&] {
        unsorted_segment_sum(data, i64({3}, {0, 3, 1}), 3);
      },
      {"unsorted_segment_sum", "segment id 3", "[1]", "[0, 3)"});
  expectInvalidArgument(
      [&] {
        unsorted_segment_sum(data, i64({2}, {0, 1}), 3);
      },
      {"unsorted_segment_sum", "i64[2]", "f32[3,2]"});
  expectInvalidArgument(
      [&] {
        unsorted_segment_sum(data, i64({3}, {0, 1, 2}), -1);
      },
      {"unsorted_segment_sum", "num_segments", "-1"});
}

TEST(SparseUnique, FirstOccurrenceOrderAndIndices) {
  auto [y, idx] = unique(i64({8}, {7, -3, 7, 1, 1000000000000, -3, 1, 7}));
  expectTensorEq<int64_t>(y, i64({4}, {7, -3, 1, 1000000000000}));
  expectTensorEq<int64_t>(idx, i64({8}, {0, 1, 0, 2, 3, 1, 2, 0}));
  auto [y32, idx32] = unique(i32({3}, {5, 5, 2}));
  expectTensorEq<int32_t>(y32, i32({2}, {5, 2}));
  expectTensorEq<int64_t>(idx32, i64({3}, {0, 0, 1}));
}

TEST(SparseUnique, EmptyInputAndBadOperands) {
  auto [y, idx] = unique(i32({0}, {}));
  EXPECT_EQ(y.typeString(), "i32[0]");
  EXPECT_EQ(idx.typeString(), "i64[0]");
  expectInvalidArgument(
      [] {
        unique(i64({1, 2}, {1, 2}));
      },
      {"unique", "rank 1", "i64[1,2]"});
  expectInvalidArgument(
      [] {
        unique(f64({2}, {1, 2}));
      },
      {"unique", "i32 or i64", "f64[2]"});
}

TEST(SparseUnique, ManyIdsAgainstHashMap) {
  std::mt19937_64 rng(11);
  std::vector<int64_t> ids(50000);
  for (int64_t &id : ids)
    id = static_cast<int64_t>(rng() % 3000) * 7919 - 1000000;
  auto [y, idx] = unique(i64({50000}, ids));
  std::unordered_map<int64_t, int64_t> seen;
  std::vector<int64_t> order;
  std::vector<int64_t> expectedIdx;
  for (int64_t id : ids) {
    auto [it, inserted] = seen.emplace(id, static_cast<int64_t>(order.size()));
    if (inserted)
      order.push_back(id);
    expectedIdx.push_back(it->second);
  }
  EXPECT_EQ(y.toVector<int64_t>(), order);
  EXPECT_EQ(idx.toVector<int64_t>(), expectedIdx);
}

//===----------------------------------------------------------------------===//
// Logistic regression
//===----------------------------------------------------------------------===//

namespace {
const std::vector<double> kLogits = {-800, -40, -5, -0.5, 0,
                                     1e-3, 0.7, 6,  35,   900};
double referenceSigmoid(double x) { return 1 / (1 + std::exp(-x)); }
} // namespace

TEST(SparseSigmoid, ValuesAndGradient) {
  for (DType dtype : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Tensor x = cast(f64({10}, kLogits), dtype);
    std::vector<double> expected;
    for (double v : kLogits)
      expected.push_back(referenceSigmoid(v));
    Tensor y = sigmoid(x);
    // Relative to the value: tiny outputs keep their precision.
    std::vector<double> got = doublesOf(y);
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], expected[i],
                  toleranceOf(dtype) * std::abs(expected[i]))
          << kLogits[i];
    Tensor dy = uniformTensor(dtype, {10}, 12);
    std::vector<double> g = doublesOf(dy), yv = doublesOf(y), grad;
    for (size_t i = 0; i < g.size(); ++i)
      grad.push_back(g[i] * yv[i] * (1 - yv[i]));
    expectNearValues(sigmoid_grad(y, dy), grad, toleranceOf(dtype));
  }
  expectInvalidArgument([] { sigmoid(i32({1}, {0})); },
                        {"sigmoid", "unsupported dtype i32"});
  expectInvalidArgument(
      [] {
        sigmoid_grad(f64({2}, {0.5, 0.5}), f64({1}, {1}));
      },
      {"sigmoid_grad", "f64[2]", "f64[1]"});
}

TEST(SparseSigmoidCrossEntropy, LossAndGradAgainstReference) {
  for (DType dtype : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    std::vector<double> labels = {1, 0, 1, 0.3, 0, 1, 0, 1, 0, 1};
    Tensor x = cast(f64({2, 5}, kLogits), dtype);
    Tensor z = cast(f64({2, 5}, labels), dtype);
    std::vector<double> loss, grad;
    Tensor dloss = uniformTensor(dtype, {2, 5}, 13);
    std::vector<double> d = doublesOf(dloss);
    for (size_t i = 0; i < kLogits.size(); ++i) {
      const double v = kLogits[i];
      // -z log(p) - (1 - z) log(1 - p), with log(p) = -log(1 + e^-x) and
      // log(1 - p) = -x - log(1 + e^-x) written out for either sign of x.
      const double softplusNeg =
          v >= 0 ? std::log1p(std::exp(-v)) : -v + std::log1p(std::exp(v));
      loss.push_back(labels[i] * softplusNeg +
                     (1 - labels[i]) * (v + softplusNeg));
      grad.push_back(d[i] * (referenceSigmoid(v) - labels[i]));
    }
    expectNearValues(sigmoid_cross_entropy_with_logits(x, z), loss,
                     toleranceOf(dtype));
    expectNearValues(sigmoid_cross_entropy_with_logits_grad(dloss, x, z), grad,
                     toleranceOf(dtype));
  }
  expectInvalidArgument(
      [] {
        sigmoid_cross_entropy_with_logits(f64({2}, {0, 1}),
                                          Tensor(DType::F32, {2}));
      },
      {"sigmoid_cross_entropy_with_logits", "dtype mismatch", "f32[2]"});
  expectInvalidArgument(
      [] {
        sigmoid_cross_entropy_with_logits_grad(f64({1}, {1}), f64({2}, {0, 1}),
                                               f64({2}, {0, 1}));
      },
      {"sigmoid_cross_entropy_with_logits_grad", "dloss is f64[1]"});
}

//===----------------------------------------------------------------------===//
// sum_duplicate_rows
//===----------------------------------------------------------------------===//

namespace {
/// Ids in order of first occurrence and their summed rows, padding dropped.
std::pair<std::vector<int64_t>, std::vector<double>>
referenceDedup(const std::vector<int64_t> &ids, const std::vector<double> &rows,
               int64_t rowSize) {
  std::vector<int64_t> order;
  std::map<int64_t, size_t> position;
  std::vector<double> sums;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] == kPaddingId)
      continue;
    auto [it, inserted] = position.emplace(ids[i], order.size());
    if (inserted) {
      order.push_back(ids[i]);
      sums.resize(sums.size() + rowSize, 0.0);
    }
    for (int64_t d = 0; d < rowSize; ++d)
      sums[it->second * rowSize + d] += rows[i * rowSize + d];
  }
  return {order, sums};
}
} // namespace

TEST(SparseSumDuplicateRows, BothRowLayoutsAgainstReference) {
  const std::vector<int64_t> ids = {9, 2, -1, 9, 0, 2};
  for (DType dtype : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Tensor rows = uniformTensor(dtype, {2, 3, 4}, 14);
    auto [order, sums] = referenceDedup(ids, doublesOf(rows), 4);
    // rows shaped ids.shape + [D], then [N, D].
    SparseRows a = sum_duplicate_rows(
        i32({2, 3}, std::vector<int32_t>(ids.begin(), ids.end())), rows);
    EXPECT_EQ(a.ids.typeString(), "i64[3]");
    EXPECT_EQ(a.ids.toVector<int64_t>(), order);
    ASSERT_EQ(a.rows.shape(), (Shape{3, 4}));
    expectNearValues(a.rows, sums, toleranceOf(dtype));
    SparseRows b =
        sum_duplicate_rows(i64({2, 3}, ids), reshape(rows.clone(), {6, 4}));
    EXPECT_EQ(b.ids.toVector<int64_t>(), order);
    ASSERT_EQ(b.rows.shape(), (Shape{3, 4}));
    expectNearValues(b.rows, sums, toleranceOf(dtype));
  }
}

TEST(SparseSumDuplicateRows, ManyIdsAgainstReference) {
  std::mt19937_64 rng(15);
  const int64_t n = 40000, dim = 16;
  std::vector<int64_t> ids(n);
  for (int64_t &id : ids)
    id = rng() % 10 == 0 ? kPaddingId
                         : static_cast<int64_t>(rng() % 5000) * 2003;
  Tensor rows = uniformTensor(DType::F32, {n, dim}, 16);
  auto [order, sums] = referenceDedup(ids, doublesOf(rows), dim);
  SparseRows result = sum_duplicate_rows(i64({n}, ids), rows);
  EXPECT_EQ(result.ids.toVector<int64_t>(), order);
  expectNearValues(result.rows, sums, 1e-5);
}

TEST(SparseSumDuplicateRows, EmptyAndBadOperands) {
  SparseRows none =
      sum_duplicate_rows(i64({2}, {-1, -1}), Tensor(DType::F32, {2, 3}));
  EXPECT_EQ(none.ids.typeString(), "i64[0]");
  EXPECT_EQ(none.rows.typeString(), "f32[0,3]");
  SparseRows empty =
      sum_duplicate_rows(i64({0}, {}), Tensor(DType::F64, {0, 8}));
  EXPECT_EQ(empty.rows.typeString(), "f64[0,8]");
  expectOutOfRange(
      [] {
        sum_duplicate_rows(i64({2, 2}, {0, 1, 2, -7}),
                           Tensor(DType::F32, {2, 2, 3}));
      },
      {"sum_duplicate_rows", "id -7", "[1,1]", "kPaddingId (-1)"});
  expectInvalidArgument(
      [] {
        sum_duplicate_rows(i64({2, 2}, {0, 1, 2, 3}),
                           Tensor(DType::F32, {3, 3}));
      },
      {"sum_duplicate_rows", "rows f32[3,3]", "ids i64[2,2]"});
}

//===----------------------------------------------------------------------===//
// Sparse and dense optimizer updates
//===----------------------------------------------------------------------===//

namespace {
// Six rows of three; row 4 twice (applied one after the other), a padding
// slot, rows 2, 3 and 5 untouched.
const std::vector<int64_t> kUpdateIds = {4, 1, 4, -1, 0};
constexpr int64_t kRows = 6, kDim = 3;

/// Calls step(row, gradRowIndex) for each non-padding id in order.
template <typename Step> void forEachUpdate(Step step) {
  for (size_t i = 0; i < kUpdateIds.size(); ++i)
    if (kUpdateIds[i] != kPaddingId)
      step(kUpdateIds[i], static_cast<int64_t>(i));
}

void ftrlReference(double &w, double &n, double &z, double g, double lr,
                   double l1, double l2, double shrinkage, double power) {
  // TF's ApplyFtrlV2 functor, dense form.
  const double gShrunk = g + 2 * shrinkage * w;
  const double newN = n + g * g;
  z += gShrunk - (std::pow(newN, -power) - std::pow(n, -power)) / lr * w;
  const double y = std::pow(newN, -power) / lr + 2 * l2;
  const double sign = z > 0 ? 1 : (z < 0 ? -1 : 0);
  w = std::abs(z) > l1 ? (l1 * sign - z) / y : 0;
  n = newN;
}
} // namespace

TEST(SparseApplyGradientDescent, DuplicatesAndPadding) {
  for (DType dtype : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Tensor var = uniformTensor(dtype, {kRows, kDim}, 20);
    Tensor rows = uniformTensor(dtype, {5, kDim}, 21);
    std::vector<double> w = doublesOf(var), g = doublesOf(rows);
    forEachUpdate([&](int64_t row, int64_t i) {
      for (int64_t d = 0; d < kDim; ++d)
        w[row * kDim + d] -= 0.3 * g[i * kDim + d];
    });
    sparse_apply_gradient_descent(var, 0.3, i64({5}, kUpdateIds), rows);
    expectNearValues(var, w, toleranceOf(dtype));
  }
}

TEST(SparseApplyAdagrad, DenseAndSparseAgainstReference) {
  for (DType dtype : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Tensor var = uniformTensor(dtype, {kRows, kDim}, 22);
    Tensor accum = uniformTensor(dtype, {kRows, kDim}, 23, 0.1, 1);
    Tensor rows = uniformTensor(dtype, {5, kDim}, 24);
    std::vector<double> w = doublesOf(var), a = doublesOf(accum),
                        g = doublesOf(rows);
    auto step = [&](int64_t at, double grad) {
      a[at] += grad * grad;
      w[at] -= 0.05 * grad / std::sqrt(a[at]);
    };
    forEachUpdate([&](int64_t row, int64_t i) {
      for (int64_t d = 0; d < kDim; ++d)
        step(row * kDim + d, g[i * kDim + d]);
    });
    sparse_apply_adagrad(var, accum, 0.05, i64({5}, kUpdateIds), rows);
    expectNearValues(var, w, toleranceOf(dtype));
    expectNearValues(accum, a, toleranceOf(dtype));

    Tensor dense = uniformTensor(dtype, {kRows, kDim}, 25);
    std::vector<double> dg = doublesOf(dense);
    for (size_t i = 0; i < dg.size(); ++i)
      step(static_cast<int64_t>(i), dg[i]);
    apply_adagrad(var, accum, 0.05, dense);
    expectNearValues(var, w, toleranceOf(dtype));
    expectNearValues(accum, a, toleranceOf(dtype));
  }
}

TEST(SparseApplyFtrl, DenseAndSparseAgainstReference) {
  struct Case {
    double l1, l2, shrinkage, power;
  };
  for (DType dtype : {DType::F64, DType::F32})
    for (Case c : {Case{0.05, 0.1, 0, -0.5}, Case{0.02, 0.3, 0.2, -0.5},
                   Case{0.05, 0.1, 0.1, -0.3}, Case{0, 0, 0, 0}}) {
      SCOPED_TRACE(std::string(dtypeName(dtype)) + " l1 " +
                   std::to_string(c.l1) + " shrinkage " +
                   std::to_string(c.shrinkage) + " lr_power " +
                   std::to_string(c.power));
      const double lr = 0.2;
      Tensor var = uniformTensor(dtype, {kRows, kDim}, 30);
      Tensor accum = uniformTensor(dtype, {kRows, kDim}, 31, 0.1, 1);
      Tensor linear = uniformTensor(dtype, {kRows, kDim}, 32);
      std::vector<double> w = doublesOf(var), n = doublesOf(accum),
                          z = doublesOf(linear);
      for (int step = 0; step < 3; ++step) {
        Tensor rows = uniformTensor(dtype, {5, kDim}, 33 + step);
        std::vector<double> g = doublesOf(rows);
        forEachUpdate([&](int64_t row, int64_t i) {
          for (int64_t d = 0; d < kDim; ++d) {
            const int64_t at = row * kDim + d;
            ftrlReference(w[at], n[at], z[at], g[i * kDim + d], lr, c.l1, c.l2,
                          c.shrinkage, c.power);
          }
        });
        sparse_apply_ftrl(var, accum, linear, i64({5}, kUpdateIds), rows, lr,
                          c.l1, c.l2, c.shrinkage, c.power);
        expectNearValues(var, w, toleranceOf(dtype));
        expectNearValues(accum, n, toleranceOf(dtype));
        expectNearValues(linear, z, toleranceOf(dtype));
      }
      Tensor dense = uniformTensor(dtype, {kRows, kDim}, 40);
      std::vector<double> dg = doublesOf(dense);
      for (size_t i = 0; i < dg.size(); ++i)
        ftrlReference(w[i], n[i], z[i], dg[i], lr, c.l1, c.l2, c.shrinkage,
                      c.power);
      apply_ftrl(var, accum, linear, dense, lr, c.l1, c.l2, c.shrinkage,
                 c.power);
      expectNearValues(var, w, toleranceOf(dtype));
      expectNearValues(accum, n, toleranceOf(dtype));
      expectNearValues(linear, z, toleranceOf(dtype));
    }
}

TEST(SparseApplyFtrl, L1ZeroesSmallLinearAndRejectsBadParams) {
  // |z| <= l1 after the step gives exactly 0.
  Tensor var = f64({1, 1}, {0.5});
  Tensor accum = f64({1, 1}, {1});
  Tensor linear = f64({1, 1}, {0});
  sparse_apply_ftrl(var, accum, linear, i64({1}, {0}), f64({1, 1}, {0.01}), 1.0,
                    10.0, 0, 0, -0.5);
  EXPECT_EQ(var.data<double>()[0], 0.0);
  Tensor g = f64({1, 1}, {1});
  expectInvalidArgument(
      [&] { apply_ftrl(var, accum, linear, g, 0, 0, 0, 0, -0.5); },
      {"apply_ftrl", "lr must be positive"});
  expectInvalidArgument(
      [&] { apply_ftrl(var, accum, linear, g, 0.1, -1, 0, 0, -0.5); },
      {"apply_ftrl", "l1"});
  expectInvalidArgument(
      [&] { apply_ftrl(var, accum, linear, g, 0.1, 0, 0, -0.1, -0.5); },
      {"apply_ftrl", "shrinkage"});
  expectInvalidArgument(
      [&] { apply_ftrl(var, accum, linear, g, 0.1, 0, 0, 0, 0.5); },
      {"apply_ftrl", "lr_power must be non-positive"});
  Tensor wrongLinear(DType::F64, {2, 1});
  expectInvalidArgument(
      [&] {
        sparse_apply_ftrl(var, accum, wrongLinear, i64({1}, {0}), g, 0.1, 0, 0,
                          0, -0.5);
      },
      {"sparse_apply_ftrl", "linear", "f64[2,1]"});
}

TEST(SparseApplyAdam, LazyRowsAgainstReference) {
  for (DType dtype : {DType::F64, DType::F32}) {
    SCOPED_TRACE(dtypeName(dtype));
    Tensor var = uniformTensor(dtype, {kRows, kDim}, 50);
    Tensor m = uniformTensor(dtype, {kRows, kDim}, 51, -0.1, 0.1);
    Tensor v = uniformTensor(dtype, {kRows, kDim}, 52, 0, 0.01);
    std::vector<double> w = doublesOf(var), pm = doublesOf(m),
                        pv = doublesOf(v);
    const double b1 = 0.9, b2 = 0.999, eps = 1e-8, lr = 0.01;
    for (int t = 1; t <= 3; ++t) {
      const double b1p = std::pow(b1, t), b2p = std::pow(b2, t);
      Tensor rows = uniformTensor(dtype, {5, kDim}, 53 + t);
      std::vector<double> g = doublesOf(rows);
      const double lrT = lr * std::sqrt(1 - b2p) / (1 - b1p);
      forEachUpdate([&](int64_t row, int64_t i) {
        for (int64_t d = 0; d < kDim; ++d) {
          const int64_t at = row * kDim + d;
          const double gi = g[i * kDim + d];
          pm[at] = b1 * pm[at] + (1 - b1) * gi;
          pv[at] = b2 * pv[at] + (1 - b2) * gi * gi;
          w[at] -= lrT * pm[at] / (std::sqrt(pv[at]) + eps);
        }
      });
      sparse_apply_adam(
          var, m, v, b1p, b2p, lr, b1, b2, eps,
          i32({5}, std::vector<int32_t>(kUpdateIds.begin(), kUpdateIds.end())),
          rows);
      // f32: the moments' rounding is amplified by 1 / sqrt(v).
      expectNearValues(var, w, dtype == DType::F64 ? 1e-12 : 2e-5);
      expectNearValues(m, pm, toleranceOf(dtype));
      expectNearValues(v, pv, toleranceOf(dtype));
    }
  }
}

TEST(SparseApply, RowsOnceMatchDenseUpdates) {
  // Every row once, in a shuffled order: the sparse update is the dense one.
  Tensor var = uniformTensor(DType::F32, {4, 16}, 60);
  Tensor accum = uniformTensor(DType::F32, {4, 16}, 61, 0.1, 1);
  Tensor grad = uniformTensor(DType::F32, {4, 16}, 62);
  Tensor denseVar = var.clone(), denseAccum = accum.clone();
  apply_adagrad(denseVar, denseAccum, 0.1, grad);
  std::vector<int64_t> order = {2, 0, 3, 1};
  Tensor rows = gather(grad, i64({4}, order));
  sparse_apply_adagrad(var, accum, 0.1, i64({4}, order), rows);
  expectTensorNear<float>(var, denseVar, 1e-6);
  expectTensorNear<float>(accum, denseAccum, 1e-6);
}

TEST(SparseApply, OutOfRangeIdChangesNothing) {
  Tensor var = uniformTensor(DType::F32, {kRows, kDim}, 70);
  Tensor accum = Tensor::filled(DType::F32, {kRows, kDim}, 0.1);
  Tensor before = var.clone();
  Tensor rows = uniformTensor(DType::F32, {3, kDim}, 71);
  expectOutOfRange(
      [&] {
        sparse_apply_adagrad(var, accum, 0.1, i64({3}, {0, 1, 6}), rows);
      },
      {"sparse_apply_adagrad", "id 6", "[2]", "[0, 6)"});
  expectTensorEq<float>(var, before);
  expectOutOfRange(
      [&] {
        sparse_apply_gradient_descent(var, 0.1, i32({3}, {-2, 0, 1}), rows);
      },
      {"sparse_apply_gradient_descent", "id -2", "[0]"});
  expectTensorEq<float>(var, before);
  Tensor m(DType::F32, {kRows, kDim}), v(DType::F32, {kRows, kDim});
  expectInvalidArgument(
      [&] {
        sparse_apply_adam(var, m, v, 0.9, 0.999, 0.1, 0.9, 0.999, 1e-8,
                          i64({3}, {0, 1, 2}), Tensor(DType::F32, {3, 2}));
      },
      {"sparse_apply_adam", "rows f32[3,2]", "[3,3]"});
  expectInvalidArgument(
      [&] {
        sparse_apply_adam(var, m, v, 0.9, 0.999, 0.1, 0.9, 0.999, 1e-8,
                          i64({3}, {0, 1, 2}), Tensor(DType::F64, {3, 3}));
      },
      {"sparse_apply_adam", "dtype mismatch", "f64[3,3]"});
  expectInvalidArgument(
      [&] { apply_adagrad(var, accum, 0.1, Tensor(DType::F32, {2})); },
      {"apply_adagrad", "grad is f32[2]"});
}

namespace {

TEST(SparseShardLocalIds, EachShardSeesItsOwnRowsOnly) {
  // 10 rows over 3 shards: div holds [0,4), [4,7), [7,10); mod id % 3.
  Tensor ids = i64({2, 3}, {0, 7, kPaddingId, 4, 9, 5});
  RowPartition div{10, 3, PartitionStrategy::Div};
  expectTensorEq<int64_t>(shard_local_ids(ids, div, 0),
                          i64({2, 3}, {0, -1, -1, -1, -1, -1}));
  expectTensorEq<int64_t>(shard_local_ids(ids, div, 1),
                          i64({2, 3}, {-1, -1, -1, 0, -1, 1}));
  expectTensorEq<int64_t>(shard_local_ids(ids, div, 2),
                          i64({2, 3}, {-1, 0, -1, -1, 2, -1}));
  RowPartition mod{10, 3, PartitionStrategy::Mod};
  expectTensorEq<int64_t>(shard_local_ids(ids, mod, 0),
                          i64({2, 3}, {0, -1, -1, -1, 3, -1}));
  expectTensorEq<int64_t>(shard_local_ids(ids, mod, 1),
                          i64({2, 3}, {-1, 2, -1, 1, -1, -1}));
  expectTensorEq<int64_t>(shard_local_ids(i32({2}, {5, 8}), mod, 2),
                          i64({2}, {1, 2}));
}

TEST(SparseShardLocalIds, AnIdOutsideTheTableNamesItsPosition) {
  RowPartition mod{10, 3, PartitionStrategy::Mod};
  expectOutOfRange(
      [&] {
        shard_local_ids(i64({2}, {3, 10}), mod, 0);
      },
      {"shard_local_ids", "id 10", "[1]", "[0, 10)"});
  expectOutOfRange([&] { shard_local_ids(i64({1}, {3}), mod, 3); },
                   {"shard 3 is outside [0, 3)"});
}

} // namespace
