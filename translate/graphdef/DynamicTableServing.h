//===- DynamicTableServing.h - Trained dynamic tables, fixed -*- C++ -*-===//
//
// A dynamic embedding table (#dtf.dynamic_table) holds only the rows its
// job created, keyed by arbitrary int64 ids, so its value is no tensor a
// serving graph can index by id. freezeDynamicTables() makes each one a
// fixed table for serving (runtime/train/Inference.h feeds it a
// checkpoint's rows and ids; SavedModelExport.h and --predict then treat it
// as any fixed table): its rows sorted by id, then one default row, looked
// up at dtf.rows_of_ids of the ids against a constant of the sorted ids.
//
//   %t = dtf.variable "x0/weights" init(#dtf.zeros)
//       {dtf.dynamic_table = #dtf.dynamic_table<min_count = 2>}
//       : !dtf.resource<tensor<?x1xf32>>
//   %r = dtf.embedding_lookup %t[%ids] : !dtf.resource<tensor<?x1xf32>>, ...
//
// with the rows of ids 40, 3 and 17 becomes
//
//   %t = dtf.variable "x0/weights" init(#dtf.dense_init<dense<[[r3], [r17],
//       [r40], [0.0]]> : tensor<4x1xf32>>) : !dtf.resource<tensor<4x1xf32>>
//   %keys = dtf.constant dense<[3, 17, 40]> : tensor<3xi64>
//   %rows = dtf.rows_of_ids %ids, %keys : ... -> ...
//   %r = dtf.embedding_lookup %t[%rows] : !dtf.resource<tensor<4x1xf32>>, ...
//
// The default row, read by every id the table never created, is the
// initializer's value for #dtf.zeros and #dtf.constant (what training's
// lookup reads for such an id) and the initializer's mean for a random one
// (#dtf.random_normal and #dtf.truncated_normal: their mean;
// #dtf.random_uniform: (minval + maxval) / 2): a random draw carries no
// training, and no TensorFlow op reproduces DTF's per-id draw.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dtf::translate {

/// The rows a dynamic table created, as a checkpoint holds them.
struct DynamicTableRows {
  /// The id of each row, in the order of `rows`: the table's own ids (a
  /// shard's local ids already mapped back), distinct, in any order.
  std::vector<int64_t> ids;
  /// `[n, D...]` of the table's element type: row i is the row of ids[i].
  mlir::DenseElementsAttr rows;
};

/// Rewrites every dynamic table of `model` as above, from its rows in
/// `tables` (by the table's name): the variable becomes a fixed one of its
/// rows sorted by id and the default row, without #dtf.dynamic_table and
/// #dtf.partitioner (the value is whole), its unused slots (variables of
/// dynamic rows colocated with it) are erased, and each dtf.embedding_lookup
/// of it looks up dtf.rows_of_ids of its ids (an i32 id cast to i64 first).
/// Errors, emitted on the table: a table `tables` lacks, rows of another
/// type or count than the ids, an id given twice, an initializer without a
/// default row (#dtf.orthogonal), a use other than an unsharded lookup (a
/// model already compiled for training).
mlir::LogicalResult
freezeDynamicTables(mlir::ModuleOp model,
                    const std::map<std::string, DynamicTableRows> &tables);

} // namespace dtf::translate
