//===- ShapeFolding.cpp - Shapes a GraphDef computes, folded --------------===//

#include "translate/graphdef/ShapeFolding.h"

#include "translate/graphdef/ImportContext.h"

#include <algorithm>

using namespace mlir;

namespace dtf::translate::graphdef {
namespace {

/// The shape node `at`, input `input` of `index` read through Identity
/// nodes, computes.
FailureOr<SmallVector<int64_t>> foldShapeAt(ImportContext &import, int index,
                                            int input, int at) {
  const std::string &op = import.node(at).op();
  auto operandShape = [&](int i) { return foldShape(import, at, i); };
  if (op == "Const")
    return import.integers(index, input);
  if (op == "Shape" || op == "Rank") {
    FailureOr<Value> x = import.operand(at, 0);
    if (failed(x))
      return failure();
    auto type = cast<RankedTensorType>(x->getType());
    if (op == "Rank")
      return SmallVector<int64_t>{type.getRank()};
    return SmallVector<int64_t>(type.getShape());
  }
  if (op == "Slice") {
    FailureOr<SmallVector<int64_t>> vector = operandShape(0);
    FailureOr<SmallVector<int64_t>> begin = operandShape(1);
    FailureOr<SmallVector<int64_t>> size = operandShape(2);
    if (failed(vector) || failed(begin) || failed(size))
      return failure();
    if (begin->size() != 1 || size->size() != 1 || (*begin)[0] < 0 ||
        (*begin)[0] > int64_t(vector->size())) {
      import.fail(at) << "slices a shape with an unknown or out-of-range begin";
      return failure();
    }
    int64_t first = (*begin)[0];
    int64_t count =
        (*size)[0] < 0 ? int64_t(vector->size()) - first : (*size)[0];
    if (count > int64_t(vector->size()) - first) {
      import.fail(at) << "slices past the end of a shape";
      return failure();
    }
    return SmallVector<int64_t>(vector->begin() + first,
                                vector->begin() + first + count);
  }
  if (op == "ConcatV2" || op == "Pack") {
    // ConcatV2's last input is the axis, 0 for the vectors of a shape.
    int parts = import.node(at).input_size() - (op == "ConcatV2" ? 1 : 0);
    SmallVector<int64_t> joined;
    for (int i = 0; i < parts; ++i) {
      FailureOr<SmallVector<int64_t>> part = operandShape(i);
      if (failed(part))
        return failure();
      joined.append(*part);
    }
    return joined;
  }
  // A dimension made a vector of one (an RNN's zero state joins the batch
  // size, ExpandDims(StridedSlice(Shape)), to its units): the same values.
  if (op == "ExpandDims" || op == "Reshape")
    return operandShape(0);
  if (op == "Range") {
    // tf.range(start, limit, delta): the axes tf.losses reduce over.
    FailureOr<SmallVector<int64_t>> start = operandShape(0),
                                    limit = operandShape(1),
                                    delta = operandShape(2);
    if (failed(start) || failed(limit) || failed(delta))
      return failure();
    if (start->size() != 1 || limit->size() != 1 || delta->size() != 1 ||
        (*delta)[0] == 0 || ShapedType::isDynamic((*limit)[0])) {
      import.fail(at) << "is a range of unknown or non-scalar bounds, or of "
                         "step 0";
      return failure();
    }
    SmallVector<int64_t> values;
    for (int64_t v = (*start)[0];
         (*delta)[0] > 0 ? v < (*limit)[0] : v > (*limit)[0]; v += (*delta)[0])
      values.push_back(v);
    return values;
  }
  if (op == "StridedSlice")
    return foldStridedSlice(import, at);
  if (op == "Sub" || op == "Add" || op == "AddV2") {
    FailureOr<SmallVector<int64_t>> a = operandShape(0), b = operandShape(1);
    if (failed(a) || failed(b))
      return failure();
    if (a->size() != b->size() && a->size() != 1 && b->size() != 1) {
      import.fail(at) << "combines shapes of different lengths";
      return failure();
    }
    // A shape of one size broadcasts, to none where the other is empty.
    size_t length = a->size() == 1 ? b->size() : a->size();
    SmallVector<int64_t> result;
    for (size_t i = 0; i < length; ++i) {
      int64_t x = (*a)[a->size() == 1 ? 0 : i];
      int64_t y = (*b)[b->size() == 1 ? 0 : i];
      result.push_back(ShapedType::isDynamic(x) || ShapedType::isDynamic(y)
                           ? ShapedType::kDynamic
                       : op == "Sub" ? x - y
                                     : x + y);
    }
    return result;
  }
  import.fail(index) << "input " << input << " must be a shape DTF can compute "
                     << "before running (from Const, Shape, Rank, Slice, "
                     << "StridedSlice, ExpandDims, Reshape, ConcatV2, Pack, "
                        "Range, Add, Sub), got '"
                     << import.node(at).name() << "' (" << op << ")";
  return failure();
}

} // namespace

FailureOr<SmallVector<int64_t>> foldStridedSlice(ImportContext &import,
                                                 int index) {
  // The element of a shape that `tf.shape(x)[i]` takes (static_rnn's batch
  // size), or a plain range of it: one axis, no new or ellipsis axes.
  FailureOr<SmallVector<int64_t>> vector = foldShape(import, index, 0),
                                  begin = foldShape(import, index, 1),
                                  end = foldShape(import, index, 2),
                                  strides = foldShape(import, index, 3);
  if (failed(vector) || failed(begin) || failed(end) || failed(strides))
    return failure();
  auto mask = [&](const char *name) {
    const tensorflow::AttrValue *value = import.attr(index, name);
    return value ? value->i() : 0;
  };
  if (begin->size() != 1 || end->size() != 1 || strides->size() != 1 ||
      (*strides)[0] != 1 || mask("ellipsis_mask") || mask("new_axis_mask")) {
    import.fail(index) << "slices a shape other than by one axis with stride "
                          "1";
    return failure();
  }
  int64_t size = int64_t(vector->size());
  auto clamp = [&](int64_t i) {
    i = i < 0 ? i + size : i;
    return std::min(std::max<int64_t>(i, 0), size);
  };
  int64_t first = mask("begin_mask") & 1 ? 0 : clamp((*begin)[0]);
  if (mask("shrink_axis_mask") & 1) {
    if (first >= size) {
      import.fail(index) << "takes element " << (*begin)[0] << " of a shape of "
                         << size;
      return failure();
    }
    return SmallVector<int64_t>{(*vector)[first]};
  }
  int64_t last = mask("end_mask") & 1 ? size : clamp((*end)[0]);
  if (last < first)
    last = first;
  return SmallVector<int64_t>(vector->begin() + first, vector->begin() + last);
}

FailureOr<SmallVector<int64_t>> foldShape(ImportContext &import, int index,
                                          int input) {
  FailureOr<int> source = import.throughIdentities(index, input);
  if (failed(source) || failed(import.enter(*source)))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      foldShapeAt(import, index, input, *source);
  import.leave(*source);
  return shape;
}

} // namespace dtf::translate::graphdef
