//===- EmbeddingLookups.h - TF1's embedding lookups, recognized -*- C++ -*-===//
//
// tf.nn.embedding_lookup and tf.nn.embedding_lookup_sparse are Python
// functions, not ops: on a partitioned table they build a subgraph of
// DynamicPartition, one Gather per shard and a DynamicStitch, and on a
// SparseTensor input one of Unique, a lookup of the unique ids and a
// SparseSegment{Sum,Mean,SqrtN} (SegmentSum and DivNoNan with weights) of
// the flat values. DTF says each as one op on the whole table and padded
// ids: dtf.embedding_lookup, followed by dtf.embedding_combine for the
// sparse form. These recognizers find what those subgraphs compute (which
// table, which strategy, which SparseTensor, which combiner) without
// translating their inner ops; the translators of their last ops
// (OpTranslators.cpp) build the dtf ops.
//
// A SparseTensor input `name` (tf.sparse_placeholder: the placeholders
// name/indices, name/values and name/shape) becomes one placeholder `name`
// of the values' dtype and shape [batch, L], each example's ids in a row
// padded with -1 (runtime/ABI.md, "Ragged features"), where L is
// dtf-translate's --max-ids-per-example.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/Support/LLVM.h"

#include <optional>

namespace dtf::translate::graphdef {

class ImportContext;

/// A lookup of a partitioned table: tf.nn.embedding_lookup's
/// (Parallel)DynamicStitch of the shards' Gathers.
struct PartitionedLookup {
  /// The whole table, now with the dtf.partitioner of the lookup's strategy.
  ir::VariableOp table;
  /// The node, and its output, of the flat ids the lookup partitions.
  int ids;
  int idsOutput;
};

/// Recognizes the partitioned lookup whose DynamicStitch is node `stitch`
/// and gives its table the partitioner it says (`mod`: DynamicPartition by
/// FloorMod; `div`: by the Maximum of fixed_size_partitioner's ranges); an
/// error naming the node that does not fit.
mlir::FailureOr<PartitionedLookup>
recognizePartitionedLookup(ImportContext &import, int stitch);

/// A tf.nn.embedding_lookup_sparse.
struct SparseLookup {
  ir::Combiner combiner;
  ir::VariableOp table;
  /// The values placeholders of the ids' and the weights' SparseTensors.
  int ids;
  std::optional<int> weights;
};

/// Recognizes the embedding_lookup_sparse whose last op is node `index`
/// (SparseSegmentSum/Mean/SqrtN, or SegmentSum or DivNoNan with weights).
mlir::FailureOr<SparseLookup> recognizeSparseLookup(ImportContext &import,
                                                    int index);

/// The padded placeholder of the SparseTensor whose values placeholder is
/// node `values`, made on first use.
mlir::FailureOr<mlir::Value> paddedSparseInput(ImportContext &import,
                                               int values);

} // namespace dtf::translate::graphdef
