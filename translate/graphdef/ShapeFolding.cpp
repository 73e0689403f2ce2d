//===- ShapeFolding.cpp - Shapes a GraphDef computes, folded --------------===//

#include "translate/graphdef/ShapeFolding.h"

#include "translate/graphdef/ImportContext.h"

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
                     << "ConcatV2, Pack, Add, Sub), got '"
                     << import.node(at).name() << "' (" << op << ")";
  return failure();
}

} // namespace

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
