//===- DynamicTableServing.cpp - Trained dynamic tables as fixed ones -----===//

#include "translate/graphdef/DynamicTableServing.h"

#include "dialects/dtf/IR/DTFDialect.h"
#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <numeric>
#include <optional>

using namespace mlir;
using namespace dtf::ir;

namespace dtf::translate {
namespace {

/// The value of every element of the default row of `table` (see the
/// header), or nullopt for an initializer that has none.
std::optional<double> defaultRowValue(VariableOp table) {
  Attribute init = table.getInitializer();
  if (isa<ZerosInitAttr>(init))
    return 0.0;
  if (auto constant = dyn_cast<ConstantInitAttr>(init))
    return constant.getValue().convertToDouble();
  if (auto normal = dyn_cast<RandomNormalInitAttr>(init))
    return normal.getMean().convertToDouble();
  if (auto normal = dyn_cast<TruncatedNormalInitAttr>(init))
    return normal.getMean().convertToDouble();
  if (auto uniform = dyn_cast<RandomUniformInitAttr>(init))
    return (uniform.getMinval().convertToDouble() +
            uniform.getMaxval().convertToDouble()) /
           2;
  return std::nullopt;
}

/// The bytes of element `index` of `attr` (of a float type, whose elements
/// are whole bytes), a splat's one element for any index.
ArrayRef<char> elementBytes(DenseElementsAttr attr, int64_t index,
                            size_t width) {
  ArrayRef<char> raw = attr.getRawData();
  if (attr.isSplat())
    return raw.take_front(width);
  return raw.slice(static_cast<size_t>(index) * width, width);
}

/// The fixed table of `rows`: its rows in the order of their sorted ids,
/// then the default row.
LogicalResult freezeTable(VariableOp table, const DynamicTableRows &rows) {
  StringRef name = table.getName();
  RankedTensorType dynamicType = table.getValueType();
  auto element = dyn_cast<FloatType>(dynamicType.getElementType());
  if (!element)
    return table.emitOpError("dynamic table '")
           << name << "' of " << dynamicType
           << " is not of floats; only float tables are served";
  std::optional<double> defaultValue = defaultRowValue(table);
  if (!defaultValue)
    return table.emitOpError("dynamic table '")
           << name << "' has the initializer " << table.getInitializer()
           << ", which gives no default row for the ids it never created "
              "(zeros, constant, random_normal, truncated_normal and "
              "random_uniform do)";
  auto rowsType = cast<RankedTensorType>(rows.rows.getType());
  int64_t count = static_cast<int64_t>(rows.ids.size());
  if (rowsType.getElementType() != element ||
      rowsType.getRank() != dynamicType.getRank() ||
      rowsType.getShape().drop_front() != dynamicType.getShape().drop_front() ||
      rowsType.getDimSize(0) != count)
    return table.emitOpError("dynamic table '")
           << name << "' of " << dynamicType << " is given rows of " << rowsType
           << " for " << count << " ids";

  SmallVector<int64_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  llvm::sort(order, [&](int64_t lhs, int64_t rhs) {
    return rows.ids[lhs] < rows.ids[rhs];
  });
  SmallVector<int64_t> keys;
  for (int64_t index : order) {
    int64_t id = rows.ids[index];
    if (id < 0 || (!keys.empty() && keys.back() == id))
      return table.emitOpError("dynamic table '")
             << name << "' is given the id " << id
             << (id < 0 ? ", which is negative" : " twice");
    keys.push_back(id);
  }

  SmallVector<int64_t> shape(dynamicType.getShape());
  shape[0] = count + 1;
  auto servedType = RankedTensorType::get(shape, element);
  size_t width = element.getWidth() / 8;
  int64_t rowElements = servedType.getNumElements() / (count + 1);
  std::vector<char> bytes;
  bytes.reserve(static_cast<size_t>(servedType.getNumElements()) * width);
  for (int64_t index : order)
    for (int64_t i = 0; i < rowElements; ++i)
      llvm::append_range(
          bytes, elementBytes(rows.rows, index * rowElements + i, width));
  DenseElementsAttr defaultElement =
      DenseElementsAttr::get(RankedTensorType::get({}, element),
                             FloatAttr::get(element, *defaultValue));
  for (int64_t i = 0; i < rowElements; ++i)
    llvm::append_range(bytes, elementBytes(defaultElement, 0, width));
  auto served = DenseElementsAttr::getFromRawBuffer(servedType, bytes);

  // Every use is checked before anything changes.
  SmallVector<EmbeddingLookupOp> lookups;
  for (Operation *user : table.getHandle().getUsers()) {
    auto lookup = dyn_cast<EmbeddingLookupOp>(user);
    if (!lookup || lookup.getShardAttr())
      return user->emitOpError("uses dynamic table '")
             << name
             << "' as a model compiled for training does; serve the model "
                "as written, whose tables are only looked up";
    lookups.push_back(lookup);
  }
  SmallVector<VariableOp> slots;
  for (auto variable : table->getBlock()->getOps<VariableOp>())
    if (variable.getColocateWith() == name &&
        !variable.getValueType().hasStaticShape()) {
      if (!variable.getHandle().use_empty())
        return variable.emitOpError("slot '")
               << variable.getName() << "' of dynamic table '" << name
               << "' is used; serve the model as written, before its "
                  "optimizer has slots";
      slots.push_back(variable);
    }
  for (VariableOp slot : slots)
    slot.erase();

  MLIRContext *context = table.getContext();
  table.getHandle().setType(ResourceType::get(context, servedType));
  table.setInitializerAttr(DenseInitAttr::get(context, served));
  table->removeAttr(DTFDialect::getDynamicTableAttrName());
  table->removeAttr(DTFDialect::getPartitionerAttrName());

  OpBuilder builder(table);
  builder.setInsertionPointAfter(table);
  auto i64 = builder.getI64Type();
  auto keysAttr = DenseElementsAttr::get(RankedTensorType::get({count}, i64),
                                         ArrayRef<int64_t>(keys));
  // Named after the table: the SavedModel's Const of the ids beside the
  // Const of the rows.
  Location keysLoc =
      NameLoc::get(builder.getStringAttr(name + "/ids"), table.getLoc());
  Value keysValue =
      builder.create<ConstantOp>(keysLoc, keysAttr.getType(), keysAttr);
  for (EmbeddingLookupOp lookup : lookups) {
    builder.setInsertionPoint(lookup);
    Value ids = lookup.getIds();
    auto idsType = cast<RankedTensorType>(ids.getType());
    auto rowsOfIdsType = RankedTensorType::get(idsType.getShape(), i64);
    if (idsType.getElementType() != i64)
      ids = builder.create<CastOp>(lookup.getLoc(), rowsOfIdsType, ids);
    Value rowsOfIds = builder.create<RowsOfIdsOp>(
        lookup.getLoc(), rowsOfIdsType, ids, keysValue);
    lookup.getIdsMutable().assign(rowsOfIds);
  }
  return success();
}

} // namespace

LogicalResult
freezeDynamicTables(ModuleOp model,
                    const std::map<std::string, DynamicTableRows> &tables) {
  SmallVector<VariableOp> dynamicTables;
  model.walk([&](VariableOp variable) {
    if (variable.isDynamicTable())
      dynamicTables.push_back(variable);
  });
  for (VariableOp table : dynamicTables) {
    auto rows = tables.find(table.getName().str());
    if (rows == tables.end())
      return table.emitOpError("dynamic table '")
             << table.getName() << "' is given no rows to serve";
    if (failed(freezeTable(table, rows->second)))
      return failure();
  }
  return mlir::verify(model);
}

} // namespace dtf::translate
