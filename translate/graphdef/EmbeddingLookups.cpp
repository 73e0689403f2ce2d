//===- EmbeddingLookups.cpp - TF1's embedding lookups, recognized ---------===//

#include "translate/graphdef/EmbeddingLookups.h"

#include "translate/graphdef/ImportContext.h"

#include "dialects/dtf/IR/DTFDialect.h"

#include <string>

using namespace mlir;
using namespace dtf::ir;

namespace dtf::translate::graphdef {
namespace {

/// The node input `input` of `index` names, and which of its outputs.
FailureOr<std::pair<int, int>> inputValue(ImportContext &import, int index,
                                          int input) {
  FailureOr<InputRef> ref = import.dataInput(index, input);
  if (failed(ref))
    return failure();
  FailureOr<int> node = import.lookup(index, ref->node);
  if (failed(node))
    return failure();
  return std::make_pair(*node, ref->output);
}

/// Input `input` of `index` through the Identity and Reshape nodes that
/// TensorFlow's lookups put around the values they pass on.
FailureOr<std::pair<int, int>> throughReshapes(ImportContext &import, int index,
                                               int input) {
  FailureOr<std::pair<int, int>> value = inputValue(import, index, input);
  for (int steps = 0; succeeded(value) && value->second == 0 &&
                      (import.node(value->first).op() == "Identity" ||
                       import.node(value->first).op() == "Reshape");
       ++steps) {
    if (steps == import.nodeCount()) {
      import.fail(value->first) << "is part of a cycle";
      return failure();
    }
    value = inputValue(import, value->first, 0);
  }
  return value;
}

/// Whether `index` is a Gather of rows on axis 0: GatherV2 with axis 0, or
/// ResourceGather.
LogicalResult requireRowGather(ImportContext &import, int index) {
  const std::string &op = import.node(index).op();
  if (op == "ResourceGather")
    return success();
  if (op == "GatherV2") {
    FailureOr<SmallVector<int64_t>> axis = import.integers(index, 2);
    if (failed(axis))
      return failure();
    if (*axis == SmallVector<int64_t>{0})
      return success();
  }
  import.fail(index) << "is not a Gather of rows (GatherV2 on axis 0 or "
                        "ResourceGather), as an embedding lookup gathers";
  return failure();
}

/// The table the lookup `data` (a Gather of a variable, or the
/// DynamicStitch of a partitioned table's) reads, checking that it looks up
/// `ids` (a node and its output).
FailureOr<VariableOp> tableOf(ImportContext &import, int user,
                              std::pair<int, int> data,
                              std::pair<int, int> ids) {
  const std::string &op = import.node(data.first).op();
  if (op == "ParallelDynamicStitch" || op == "DynamicStitch") {
    FailureOr<PartitionedLookup> lookup =
        recognizePartitionedLookup(import, data.first);
    if (failed(lookup))
      return failure();
    FailureOr<std::pair<int, int>> flat =
        import.node(lookup->ids).op() == "Reshape"
            ? throughReshapes(import, lookup->ids, 0)
            : FailureOr<std::pair<int, int>>(
                  std::make_pair(lookup->ids, lookup->idsOutput));
    if (failed(flat))
      return failure();
    if (*flat != ids) {
      import.fail(data.first) << "looks up other ids than the unique ids of '"
                              << import.node(user).name() << "'";
      return failure();
    }
    return lookup->table;
  }
  if (failed(requireRowGather(import, data.first)))
    return failure();
  FailureOr<int> source = import.throughIdentities(data.first, 0);
  FailureOr<std::pair<int, int>> gathered =
      throughReshapes(import, data.first, 1);
  if (failed(source) || failed(gathered))
    return failure();
  VariableOp table = import.variable(*source);
  if (!table) {
    import.fail(data.first) << "gathers from '" << import.node(*source).name()
                            << "', which is not a variable: "
                            << "embedding_lookup_sparse looks up a table";
    return failure();
  }
  if (*gathered != ids) {
    import.fail(data.first) << "looks up other ids than the unique ids of '"
                            << import.node(user).name() << "'";
    return failure();
  }
  return table;
}

/// The name of the SparseTensor whose values placeholder is `values`
/// ("name/values", beside "name/indices").
FailureOr<std::string> sparseTensorName(ImportContext &import, int user,
                                        int values) {
  const std::string &name = import.node(values).name();
  size_t slash = name.rfind('/');
  if (import.node(values).op() != "Placeholder" || slash == std::string::npos ||
      name.substr(slash) != "/values" ||
      !import.findNode(name.substr(0, slash) + "/indices")) {
    import.fail(user) << "takes its ids from '" << name << "' ("
                      << import.node(values).op()
                      << "), where DTF imports the values of a "
                         "tf.sparse_placeholder (NAME/values beside "
                         "NAME/indices)";
    return failure();
  }
  return name.substr(0, slash);
}

/// Checks that the segment ids at input `input` of `index` are the example
/// of each value of SparseTensor `name`: its indices' first column.
LogicalResult requireSegmentsOf(ImportContext &import, int index, int input,
                                const std::string &name) {
  FailureOr<int> segments = import.throughIdentities(index, input);
  if (succeeded(segments) && import.node(*segments).op() == "Cast")
    segments = import.throughIdentities(*segments, 0);
  if (failed(segments))
    return failure();
  if (import.node(*segments).op() == "StridedSlice") {
    FailureOr<int> indices = import.throughIdentities(*segments, 0);
    if (failed(indices))
      return failure();
    if (import.node(*indices).name() == name + "/indices")
      return success();
  }
  import.fail(index) << "segments its rows by '"
                     << import.node(*segments).name()
                     << "', not by the examples of '" << name
                     << "' (the first column of " << name << "/indices)";
  return failure();
}

/// The weights' values placeholder of a weighted lookup: `reshaped` is
/// Reshape(weights/values, [-1, 1]).
FailureOr<int> weightsOf(ImportContext &import, int reshaped,
                         const std::string &idsName) {
  if (import.node(reshaped).op() != "Reshape") {
    import.fail(reshaped) << "is not the Reshape of the weights' values that "
                             "embedding_lookup_sparse multiplies rows with";
    return failure();
  }
  FailureOr<int> values = import.throughIdentities(reshaped, 0);
  if (failed(values))
    return failure();
  FailureOr<std::string> name = sparseTensorName(import, reshaped, *values);
  if (failed(name))
    return failure();
  if (*name == idsName) {
    import.fail(reshaped) << "weighs the ids by themselves";
    return failure();
  }
  return *values;
}

} // namespace

FailureOr<PartitionedLookup> recognizePartitionedLookup(ImportContext &import,
                                                        int stitch) {
  const tensorflow::AttrValue *count = import.attr(stitch, "N");
  int shards = count ? int(count->i()) : 0;
  if (shards < 1 || import.node(stitch).input_size() < 2 * shards) {
    import.fail(stitch) << "is not the DynamicStitch of N index and N data "
                           "inputs that a partitioned lookup joins";
    return failure();
  }
  VariableOp table;
  std::optional<int> partition;
  for (int shard = 0; shard < shards; ++shard) {
    FailureOr<int> gather = import.throughIdentities(stitch, shards + shard);
    if (failed(gather) || failed(requireRowGather(import, *gather)))
      return failure();
    FailureOr<int> source = import.throughIdentities(*gather, 0);
    FailureOr<std::pair<int, int>> ids = inputValue(import, *gather, 1);
    if (failed(source) || failed(ids))
      return failure();
    std::optional<std::pair<VariableOp, int>> part = import.shardOf(*source);
    if (!part || part->second != shard || (table && part->first != table)) {
      import.fail(*gather) << "gathers from '" << import.node(*source).name()
                           << "', where the lookup's data input " << shard
                           << " gathers from shard " << shard
                           << " of one partitioned table";
      return failure();
    }
    table = part->first;
    if (import.node(ids->first).op() != "DynamicPartition" ||
        ids->second != shard || (partition && ids->first != *partition)) {
      import.fail(*gather) << "gathers at '" << import.node(ids->first).name()
                           << "', not at output " << shard
                           << " of the DynamicPartition of the ids";
      return failure();
    }
    partition = ids->first;
  }
  if (import.findNode(table.getName().str() + "/part_" +
                      std::to_string(shards))) {
    import.fail(stitch) << "joins " << shards << " shards of '"
                        << table.getName() << "', which has more";
    return failure();
  }
  const tensorflow::AttrValue *partitions =
      import.attr(*partition, "num_partitions");
  if (!partitions || partitions->i() != shards) {
    import.fail(*partition)
        << "must partition the ids into the table's " << shards << " shards";
    return failure();
  }

  // mod: the shard of id i is i % N (FloorMod), its row i / N.
  // div: the shard is the larger of fixed_size_partitioner's two candidate
  // ranges (Maximum of FloorDivs), its row the rest.
  FailureOr<int> assignment = import.throughIdentities(*partition, 1);
  if (succeeded(assignment) && import.node(*assignment).op() == "Cast")
    assignment = import.throughIdentities(*assignment, 0);
  if (failed(assignment))
    return failure();
  PartitionStrategy strategy;
  FailureOr<std::pair<int, int>> flat = failure();
  const std::string &kind = import.node(*assignment).op();
  if (kind == "FloorMod") {
    FailureOr<double> modulus = import.scalar(*assignment, 1);
    if (failed(modulus))
      return failure();
    if (*modulus != shards) {
      import.fail(*assignment) << "assigns ids to " << *modulus
                               << " shards, where the table has " << shards;
      return failure();
    }
    strategy = PartitionStrategy::Mod;
    flat = inputValue(import, *assignment, 0);
  } else if (kind == "Maximum") {
    FailureOr<int> range = import.throughIdentities(*assignment, 0);
    if (failed(range))
      return failure();
    if (import.node(*range).op() != "FloorDiv") {
      import.fail(*assignment) << "is not the Maximum of FloorDivs that the "
                                  "div strategy assigns ids to shards by";
      return failure();
    }
    strategy = PartitionStrategy::Div;
    flat = inputValue(import, *range, 0);
  } else {
    import.fail(*partition)
        << "partitions the ids by '" << import.node(*assignment).name() << "' ("
        << kind << "), neither the mod (FloorMod) nor "
        << "the div (Maximum of FloorDivs) strategy of "
           "tf.nn.embedding_lookup";
    return failure();
  }
  if (failed(flat))
    return failure();

  auto partitioner =
      PartitionerAttr::get(import.getContext(), shards, strategy);
  auto existing = table->getAttrOfType<PartitionerAttr>(
      DTFDialect::getPartitionerAttrName());
  if (existing && existing != partitioner) {
    import.fail(stitch) << "looks '" << table.getName() << "' up by "
                        << partitioner << " where another lookup does by "
                        << existing << "; DTF splits a table one way";
    return failure();
  }
  table->setAttr(DTFDialect::getPartitionerAttrName(), partitioner);
  return PartitionedLookup{table, flat->first, flat->second};
}

FailureOr<SparseLookup> recognizeSparseLookup(ImportContext &import,
                                              int index) {
  const std::string &op = import.node(index).op();
  SparseLookup lookup;
  // The weighted forms: SegmentSum(rows * weights) (sum), divided by
  // SegmentSum(weights) (mean) or by Sqrt(SegmentSum(weights^2)) (sqrtn).
  int weightedSum = index;
  if (op == "DivNoNan") {
    FailureOr<int> sum = import.throughIdentities(index, 0),
                   norm = import.throughIdentities(index, 1);
    if (failed(sum) || failed(norm))
      return failure();
    bool sqrtn = import.node(*norm).op() == "Sqrt";
    if (import.node(*sum).op() != "SegmentSum" ||
        (!sqrtn && import.node(*norm).op() != "SegmentSum")) {
      import.fail(index) << "is imported as the combiner of a weighted "
                            "tf.nn.embedding_lookup_sparse: SegmentSum "
                            "divided by SegmentSum (mean) or by "
                            "Sqrt(SegmentSum) (sqrtn)";
      return failure();
    }
    lookup.combiner = sqrtn ? Combiner::sqrtn : Combiner::mean;
    weightedSum = *sum;
  } else if (op == "SegmentSum") {
    lookup.combiner = Combiner::sum;
  } else {
    lookup.combiner = op == "SparseSegmentSum"    ? Combiner::sum
                      : op == "SparseSegmentMean" ? Combiner::mean
                                                  : Combiner::sqrtn;
    // TensorFlow's SparseSegment* of an unpartitioned table takes the table
    // and the ids themselves; otherwise the rows of the unique ids and
    // where each id is among them.
    FailureOr<std::pair<int, int>> positions = inputValue(import, index, 1);
    if (failed(positions))
      return failure();
    if (import.node(positions->first).op() == "Unique") {
      if (positions->second != 1) {
        import.fail(index) << "takes output " << positions->second << " of '"
                           << import.node(positions->first).name()
                           << "' where the position of each id is output 1";
        return failure();
      }
      FailureOr<int> values = import.throughIdentities(positions->first, 0);
      FailureOr<std::pair<int, int>> data = throughReshapes(import, index, 0);
      if (failed(values) || failed(data))
        return failure();
      FailureOr<VariableOp> table =
          tableOf(import, index, *data, {positions->first, 0});
      if (failed(table))
        return failure();
      lookup.table = *table;
      lookup.ids = *values;
    } else {
      FailureOr<int> source = import.throughIdentities(index, 0);
      if (failed(source))
        return failure();
      if (import.node(*source).op() == "ReadVariableOp")
        source = import.throughIdentities(*source, 0);
      if (failed(source))
        return failure();
      lookup.table = import.variable(*source);
      if (!lookup.table) {
        import.fail(index) << "sums the rows of '"
                           << import.node(*source).name()
                           << "', which is not a variable: "
                              "embedding_lookup_sparse looks up a table";
        return failure();
      }
      lookup.ids = positions->first;
    }
    FailureOr<std::string> name = sparseTensorName(import, index, lookup.ids);
    if (failed(name) || failed(requireSegmentsOf(import, index, 2, *name)))
      return failure();
    return lookup;
  }

  // SegmentSum(Gather(rows of the unique ids, positions) * weights).
  FailureOr<int> product = import.throughIdentities(weightedSum, 0);
  if (failed(product))
    return failure();
  if (import.node(*product).op() != "Mul") {
    import.fail(weightedSum) << "sums '" << import.node(*product).name()
                             << "', not the product of rows and weights of "
                                "a weighted embedding_lookup_sparse";
    return failure();
  }
  FailureOr<int> spread = import.throughIdentities(*product, 0),
                 reshaped = import.throughIdentities(*product, 1);
  if (failed(spread) || failed(reshaped) ||
      failed(requireRowGather(import, *spread)))
    return failure();
  FailureOr<std::pair<int, int>> positions = inputValue(import, *spread, 1);
  if (failed(positions))
    return failure();
  if (import.node(positions->first).op() != "Unique" ||
      positions->second != 1) {
    import.fail(*spread) << "gathers at '"
                         << import.node(positions->first).name()
                         << "', not at the positions of the ids among the "
                            "unique ids (output 1 of a Unique)";
    return failure();
  }
  FailureOr<int> values = import.throughIdentities(positions->first, 0);
  FailureOr<std::pair<int, int>> data = throughReshapes(import, *spread, 0);
  if (failed(values) || failed(data))
    return failure();
  FailureOr<VariableOp> table =
      tableOf(import, *spread, *data, {positions->first, 0});
  if (failed(table))
    return failure();
  lookup.table = *table;
  lookup.ids = *values;
  FailureOr<std::string> name = sparseTensorName(import, index, lookup.ids);
  if (failed(name) || failed(requireSegmentsOf(import, weightedSum, 1, *name)))
    return failure();
  FailureOr<int> weights = weightsOf(import, *reshaped, *name);
  if (failed(weights))
    return failure();
  lookup.weights = *weights;
  return lookup;
}

FailureOr<Value> paddedSparseInput(ImportContext &import, int values) {
  if (Value padded = import.sparseInput(values))
    return padded;
  const std::string &name = import.node(values).name();
  std::string input = name.substr(0, name.rfind('/'));
  int64_t maxIds = import.maxIdsOf(input);
  if (maxIds <= 0) {
    import.fail(values) << "is the values of a SparseTensor input, which "
                           "DTF feeds padded to [batch, L]: give L with "
                           "--max-ids-per-example (L for every input, or "
                        << input << "=L for this one)";
    return failure();
  }
  const tensorflow::AttrValue *dtype = import.attr(values, "dtype");
  if (!dtype) {
    import.fail(values) << "has no 'dtype' attribute";
    return failure();
  }
  FailureOr<Type> element = import.elementType(values, dtype->type());
  if (failed(element))
    return failure();
  OpBuilder &builder = import.getBuilder();
  auto padded = builder.create<PlaceholderOp>(
      import.locationOf(values),
      RankedTensorType::get({ShapedType::kDynamic, maxIds}, *element),
      builder.getStringAttr(input));
  if (failed(import.pin(padded, values)))
    return failure();
  import.recordSparseInput(values, padded);
  return Value(padded);
}

} // namespace dtf::translate::graphdef
