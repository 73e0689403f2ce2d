//===- PlaceVariables.cpp - Put variables on PS tasks ---------------------===//
//
// TensorFlow's tf.train.replica_device_setter as a pass: variables go to PS
// tasks (round-robin or least bytes), the ops touching them follow them, and
// all other ops go to one worker. Large variables are split into shards
// along dimension 0 first, as tf.min_max_variable_partitioner would have
// created them.
//
// The pass works in three steps so that it fails before changing anything:
//  1. group every variable with the variables colocated with it, decide how
//     many shards each group gets and which PS task each shard goes to, and
//     check that every use of a variable to be sharded can be rewritten;
//  2. materialize: set the devices, create the shards and rewrite the reads
//     and updates of sharded variables;
//  3. place every other op.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/Placement.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include <limits>
#include <numeric>

namespace dtf::ir {
#define GEN_PASS_DEF_PLACEVARIABLESPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

namespace {

enum class Strategy { RoundRobin, GreedyBytes };

/// Hands out the PS task of each new variable (or shard), as the strategies
/// of replica_device_setter do.
class TaskChooser {
public:
  TaskChooser(Strategy strategy, int64_t numTasks)
      : strategy(strategy), load(numTasks, 0) {}

  /// The task of the next variable, holding `bytes`; records its load.
  int64_t choose(int64_t bytes) {
    int64_t task;
    if (strategy == Strategy::RoundRobin) {
      task = nextTask;
      nextTask = (nextTask + 1) % static_cast<int64_t>(load.size());
    } else {
      // min_element returns the first minimum: ties go to the lowest index.
      task = llvm::min_element(load) - load.begin();
    }
    load[task] += bytes;
    return task;
  }

  /// Records `bytes` put on `task` without asking the strategy, for pinned
  /// variables: they do not advance the round-robin but do load their task.
  void addLoad(int64_t task, int64_t bytes) {
    if (task < static_cast<int64_t>(load.size()))
      load[task] += bytes;
  }

private:
  Strategy strategy;
  SmallVector<int64_t> load;
  int64_t nextTask = 0;
};

/// A variable together with the variables colocated with it, directly or
/// through a chain of `colocate_with`: they live on one device and are
/// sharded together.
struct ColocationGroup {
  VariableOp root;
  /// Every variable of the group, the root first, then in block order.
  SmallVector<VariableOp> members;
  /// The device a member already has; the whole group goes there.
  DeviceAttr pinned;
  /// The rows along dimension 0 of each shard; one entry when unsharded.
  SmallVector<int64_t> shardRows;
  /// Which ids each shard holds: contiguous ranges unless the root's
  /// dtf.partitioner says mod.
  PartitionStrategy strategy = PartitionStrategy::Div;
  /// The device of each shard.
  SmallVector<DeviceAttr> shardDevices;

  int64_t getNumShards() const { return shardRows.size(); }
  bool isSharded() const { return shardRows.size() > 1; }
};

} // namespace

/// Whether `op` updates rows of its variables by ids (a sparse gradient's
/// update), which the sharding rewrite gives each shard whole.
static bool isSparseUpdate(Operation *op) {
  return isa<SparseApplyGradientDescentOp, SparseApplyAdagradOp,
             SparseApplyAdamOp, SparseApplyFtrlOp>(op);
}

/// The new value or gradient an update op writes into its variable, or null
/// when `op` is not an update the sharding rewrite knows how to split.
static Value getUpdateValue(Operation *op) {
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<AssignOp, AssignAddOp, AssignMovingAverageOp>(
          [](auto update) { return update.getValue(); })
      .Case<ApplyGradientDescentOp, ApplyMomentumOp, ApplyAdamOp,
            ApplyAdagradOp, ApplyFtrlOp, ApplyRMSPropOp, ApplyCenteredRMSPropOp,
            ApplyAdadeltaOp>([](auto update) { return update.getGrad(); })
      .Default([](Operation *) { return Value(); });
}

/// The variables `op` reads or writes through a resource operand: TensorFlow
/// colocates such ops with their variable, since a handle is only valid on
/// the variable's device.
static SmallVector<VariableOp> getAccessedVariables(Operation *op) {
  SmallVector<VariableOp> variables;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return variables;
  for (Value operand : op->getOperands()) {
    auto variable = operand.getDefiningOp<VariableOp>();
    if (!variable || llvm::is_contained(variables, variable))
      continue;
    SmallVector<MemoryEffects::EffectInstance> onOperand;
    effects.getEffectsOnValue(operand, onOperand);
    if (!onOperand.empty())
      variables.push_back(variable);
  }
  return variables;
}

/// Rows of each of `numShards` shards of `dim0` rows: the first
/// `dim0 % numShards` shards get one row more, as TensorFlow's partitioned
/// variables.
static SmallVector<int64_t> splitRows(int64_t dim0, int64_t numShards) {
  SmallVector<int64_t> rows;
  for (int64_t shard = 0; shard < numShards; ++shard)
    rows.push_back(dim0 / numShards + (shard < dim0 % numShards ? 1 : 0));
  return rows;
}

/// The rows of `values` that shard `shard` of `shardRows.size()` holds:
/// rows `shard`, `shard + numShards`, ... by `strategy` mod, the shard's
/// range of consecutive rows by div.
static DenseElementsAttr getShardRows(DenseElementsAttr values,
                                      ArrayRef<int64_t> shardRows,
                                      PartitionStrategy strategy,
                                      int64_t shard) {
  auto type = cast<RankedTensorType>(values.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = shardRows[shard];
  auto shardType = RankedTensorType::get(shape, type.getElementType());
  if (values.isSplat())
    return DenseElementsAttr::get(shardType, values.getSplatValue<Attribute>());
  int64_t numShards = shardRows.size();
  int64_t rowSize = type.getNumElements() / type.getDimSize(0);
  auto elements = llvm::to_vector(values.getValues<Attribute>());
  int64_t firstRow =
      strategy == PartitionStrategy::Mod
          ? shard
          : std::accumulate(shardRows.begin(), shardRows.begin() + shard,
                            int64_t(0));
  int64_t rowStride = strategy == PartitionStrategy::Mod ? numShards : 1;
  SmallVector<Attribute> rows;
  for (int64_t k = 0; k < shardRows[shard]; ++k)
    llvm::append_range(
        rows, ArrayRef(elements).slice((firstRow + k * rowStride) * rowSize,
                                       rowSize));
  return DenseElementsAttr::get(shardType, rows);
}

/// The initializer of shard `shard` of a variable of `group` initialized by
/// `init`. Random initializers get a distinct seed per shard, so that the
/// shards are not all the same stream of samples: `(seed + 1) * 2^20 +
/// shard`. A dense initializer gives each shard its rows.
static Attribute getShardInitializer(Attribute init,
                                     const ColocationGroup &group,
                                     int64_t shard) {
  auto shardSeed = [&](int64_t seed) {
    return static_cast<int64_t>((static_cast<uint64_t>(seed) + 1) << 20) +
           shard;
  };
  return llvm::TypeSwitch<Attribute, Attribute>(init)
      .Case([&](TruncatedNormalInitAttr normal) -> Attribute {
        return TruncatedNormalInitAttr::get(
            normal.getContext(), normal.getMean(), normal.getStddev(),
            shardSeed(normal.getSeed()));
      })
      .Case([&](RandomNormalInitAttr normal) -> Attribute {
        return RandomNormalInitAttr::get(normal.getContext(), normal.getMean(),
                                         normal.getStddev(),
                                         shardSeed(normal.getSeed()));
      })
      .Case([&](RandomUniformInitAttr uniform) -> Attribute {
        return RandomUniformInitAttr::get(
            uniform.getContext(), uniform.getMinval(), uniform.getMaxval(),
            shardSeed(uniform.getSeed()));
      })
      .Case([&](DenseInitAttr dense) -> Attribute {
        return DenseInitAttr::get(
            dense.getContext(), getShardRows(dense.getValue(), group.shardRows,
                                             group.strategy, shard));
      })
      .Default([](Attribute other) { return other; });
}

/// `type` with `rows` rows along dimension 0.
static RankedTensorType withRows(RankedTensorType type, int64_t rows) {
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = rows;
  return RankedTensorType::get(shape, type.getElementType());
}

namespace {

struct PlaceVariablesPass
    : public dtf::ir::impl::PlaceVariablesPassBase<PlaceVariablesPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Collects the colocation groups of the module, roots in creation order.
  LogicalResult collectGroups(ModuleOp module);
  /// Decides the shards of `group` (one when it is not split).
  LogicalResult planShards(ColocationGroup &group, int64_t numPSTasks);
  /// Whether `variable` is split with its group, i.e. it has the root's type
  /// and its colocation target is split too.
  bool isShardedMember(VariableOp variable);
  /// Checks that every use of the sharded members of `group` can be
  /// rewritten to shards.
  LogicalResult checkShardableUses(ColocationGroup &group);
  /// Creates the shards of `group` and rewrites the uses of its members.
  void shardGroup(ColocationGroup &group);
  /// Places the ops of `func` that have no device yet.
  LogicalResult placeOps(func::FuncOp func, DeviceAttr worker);

  SmallVector<ColocationGroup> groups;
  /// The group of each variable, as an index into `groups`.
  DenseMap<Operation *, unsigned> groupOf;
  /// The variable named by each variable's `colocate_with`.
  DenseMap<Operation *, VariableOp> targetOf;
  /// Memo of isShardedMember.
  DenseMap<Operation *, bool> shardedMember;
};

} // namespace

LogicalResult PlaceVariablesPass::collectGroups(ModuleOp module) {
  SmallVector<VariableOp> variables;
  module.walk<WalkOrder::PreOrder>(
      [&](VariableOp variable) { variables.push_back(variable); });

  // Resolve `colocate_with` per block, where the verifier checked it.
  DenseMap<Block *, llvm::StringMap<VariableOp>> byName;
  for (VariableOp variable : variables)
    byName[variable->getBlock()][variable.getName()] = variable;
  for (VariableOp variable : variables)
    if (std::optional<StringRef> target = variable.getColocateWith())
      targetOf[variable] = byName[variable->getBlock()].lookup(*target);

  // Roots start groups in creation order; every other variable joins the
  // group at the end of its chain (acyclic, as verified).
  for (VariableOp variable : variables) {
    if (targetOf.count(variable))
      continue;
    groupOf[variable] = groups.size();
    groups.push_back(
        {variable, {variable}, {}, {}, PartitionStrategy::Div, {}});
  }
  for (VariableOp variable : variables) {
    VariableOp root = variable;
    while (VariableOp target = targetOf.lookup(root))
      root = target;
    if (root == variable)
      continue;
    groupOf[variable] = groupOf.lookup(root);
    groups[groupOf.lookup(root)].members.push_back(variable);
  }

  // A device given to any member pins the whole group.
  for (ColocationGroup &group : groups) {
    VariableOp pinnedBy;
    for (VariableOp member : group.members) {
      DeviceAttr device = getDevice(member);
      if (!device)
        continue;
      if (!group.pinned) {
        group.pinned = device;
        pinnedBy = member;
        continue;
      }
      if (device != group.pinned) {
        InFlightDiagnostic diag =
            member.emitOpError("is placed on '")
            << device.getName() << "', but it is colocated with '"
            << pinnedBy.getName() << "', which is placed on '"
            << group.pinned.getName() << "'";
        diag.attachNote(pinnedBy.getLoc())
            << "'" << pinnedBy.getName() << "' is defined here";
        return failure();
      }
    }
  }
  return success();
}

LogicalResult PlaceVariablesPass::planShards(ColocationGroup &group,
                                             int64_t numPSTasks) {
  VariableOp root = group.root;
  RankedTensorType type = root.getValueType();
  std::optional<int64_t> bytes = getTensorBytes(type);
  group.shardRows = {type.getRank() == 0 ? 1 : type.getDimSize(0)};
  // A table's own partitioner (fixed_size_partitioner) decides for it.
  if (auto partitioner = root->getAttrOfType<PartitionerAttr>(
          DTFDialect::getPartitionerAttrName())) {
    if (group.pinned)
      return root.emitOpError("variable '")
             << root.getName() << "' is placed on '" << group.pinned.getName()
             << "', but its dtf.partitioner spreads it over PS tasks";
    group.strategy = partitioner.getStrategy();
    if (partitioner.getShards() > 1)
      group.shardRows =
          type.isDynamicDim(0)
              ? SmallVector<int64_t>(partitioner.getShards(),
                                     ShapedType::kDynamic)
              : splitRows(type.getDimSize(0), partitioner.getShards());
    return success();
  }
  // A dynamic table has no size to shard by: only its partitioner splits
  // it.
  if (root.isDynamicTable())
    return success();
  // A pinned group stays whole where the user put it.
  if (group.pinned)
    return success();
  if (!bytes) {
    if (minShardBytes > 0 || maxShardBytes > 0)
      return root.emitOpError("cannot size variable '")
             << root.getName() << "' of type " << type
             << " to decide its sharding";
    return success();
  }

  // Plain copies of the options: pass options are not streamable numbers.
  int64_t minBytes = minShardBytes, maxBytes = maxShardBytes;
  int64_t limit = maxShards > 0 ? maxShards.getValue() : numPSTasks;
  int64_t numShards = 1;
  if (type.getRank() >= 1 && minBytes > 0 && *bytes > minBytes) {
    int64_t dim0 = type.getDimSize(0);
    auto byMinSize = static_cast<int64_t>(llvm::divideCeil(*bytes, minBytes));
    numShards = std::min({limit, byMinSize, dim0});
  }

  if (maxBytes > 0 && *bytes > maxBytes) {
    if (type.getRank() == 0 || type.getDimSize(0) <= 1)
      return root.emitOpError("variable '")
             << root.getName() << "' (" << type << ", " << *bytes
             << " bytes) exceeds max-shard-bytes=" << maxBytes
             << " but cannot be split: it has no dimension 0 of more than "
                "one row";
    int64_t dim0 = type.getDimSize(0);
    int64_t rowBytes = *bytes / dim0;
    if (rowBytes > maxBytes)
      return root.emitOpError("variable '")
             << root.getName() << "' (" << type << ", " << *bytes
             << " bytes) cannot be split into shards of at most " << maxBytes
             << " bytes: one row along dimension 0 holds " << rowBytes
             << " bytes";
    auto needed =
        static_cast<int64_t>(llvm::divideCeil(dim0, maxBytes / rowBytes));
    if (needed > limit)
      return root.emitOpError("variable '")
             << root.getName() << "' (" << type << ", " << *bytes
             << " bytes) needs " << needed << " shards of at most " << maxBytes
             << " bytes, but at most " << limit << " are allowed (max-shards"
             << (maxShards > 0 ? "" : " defaults to the number of PS tasks")
             << ")";
    numShards = std::max(numShards, needed);
  }
  if (numShards > 1)
    group.shardRows = splitRows(type.getDimSize(0), numShards);
  return success();
}

bool PlaceVariablesPass::isShardedMember(VariableOp variable) {
  auto [it, inserted] = shardedMember.try_emplace(variable, false);
  if (!inserted)
    return it->second;
  ColocationGroup &group = groups[groupOf.lookup(variable)];
  bool sharded = false;
  if (group.isSharded()) {
    if (variable == group.root)
      sharded = true;
    else
      sharded = variable.getValueType() == group.root.getValueType() &&
                isShardedMember(targetOf.lookup(variable));
  }
  // The recursive call may have grown the map: look the entry up again.
  shardedMember[variable] = sharded;
  return sharded;
}

LogicalResult PlaceVariablesPass::checkShardableUses(ColocationGroup &group) {
  for (VariableOp member : group.members) {
    if (!isShardedMember(member))
      continue;
    // Each shard is initialized alone, and the rows of an orthogonal matrix
    // are not independent samples.
    if (isa<OrthogonalInitAttr>(member.getInitializer()))
      return member.emitOpError("variable '")
             << member.getName() << "' is initialized #dtf.orthogonal, "
             << "whose rows depend on each other, so it cannot be split "
                "into "
             << group.getNumShards()
             << " shards; keep it whole (larger shards, or no "
                "dtf.partitioner)";
    for (Operation *user : member->getUsers()) {
      // Only lookups and sparse updates address the rows of a mod
      // partition, whose shards are not ranges of the whole.
      if (group.strategy == PartitionStrategy::Mod &&
          !isa<EmbeddingLookupOp>(user) && !isSparseUpdate(user)) {
        InFlightDiagnostic diag =
            user->emitOpError("uses variable '")
            << member.getName() << "', whose rows are partitioned by id modulo "
            << group.getNumShards()
            << ", as a whole; only dtf.embedding_lookup and the sparse "
               "updates address such a table (partition it by div)";
        diag.attachNote(member.getLoc()) << "variable defined here";
        return failure();
      }
      if (isa<ReadOp, EmbeddingLookupOp>(user))
        continue;
      if (!getUpdateValue(user) && !isSparseUpdate(user)) {
        InFlightDiagnostic diag =
            user->emitOpError("uses variable '")
            << member.getName() << "', which is split into "
            << group.getNumShards()
            << " shards, but only dtf.read, dtf.assign, dtf.assign_add and "
               "the dtf.apply_* updates can be rewritten to use shards";
        diag.attachNote(member.getLoc()) << "variable defined here";
        return failure();
      }
      // An update touches one shard of each of its variables at a time, so
      // they all must be split the same way.
      for (Value operand : user->getOperands()) {
        if (!isa<ResourceType>(operand.getType()))
          continue;
        auto other = operand.getDefiningOp<VariableOp>();
        if (other && groupOf.lookup(other) == groupOf.lookup(member) &&
            isShardedMember(other))
          continue;
        InFlightDiagnostic diag = user->emitOpError("updates variable '")
                                  << member.getName()
                                  << "', which is split into "
                                  << group.getNumShards() << " shards, with ";
        if (other)
          diag << "variable '" << other.getName()
               << "', which is not split with it (colocate it with '"
               << member.getName() << "' and give it the same type)";
        else
          diag << "a resource that is not a variable";
        diag.attachNote(member.getLoc()) << "variable defined here";
        return failure();
      }
    }
  }
  return success();
}

void PlaceVariablesPass::shardGroup(ColocationGroup &group) {
  int64_t numShards = group.getNumShards();
  SmallVector<int64_t> offsets;
  int64_t offset = 0;
  for (int64_t rows : group.shardRows) {
    offsets.push_back(offset);
    offset += rows;
  }

  // Create the shards of each sharded member right where the member was, so
  // that creation order (and hence round-robin order, were the pass run
  // again) is kept.
  DenseMap<Value, SmallVector<Value>> shardsOf;
  for (VariableOp member : group.members) {
    if (!isShardedMember(member)) {
      // A differently shaped variable colocated with a sharded one (say
      // beta1_power with a sharded hid_b) goes beside its first shard.
      VariableOp target = targetOf.lookup(member);
      if (target && isShardedMember(target))
        member.setColocateWith((target.getName() + "/part_0").str());
      setDevice(member, group.shardDevices.front());
      continue;
    }
    OpBuilder builder(member);
    VariableOp target = targetOf.lookup(member);
    for (int64_t shard = 0; shard < numShards; ++shard) {
      auto name = (member.getName() + "/part_" + Twine(shard)).str();
      StringAttr colocateWith;
      if (target)
        colocateWith =
            builder.getStringAttr(target.getName() + "/part_" + Twine(shard));
      auto part = builder.create<VariableOp>(
          member.getLoc(),
          ResourceType::get(
              builder.getContext(),
              withRows(member.getValueType(), group.shardRows[shard])),
          builder.getStringAttr(name),
          getShardInitializer(member.getInitializer(), group, shard),
          builder.getBoolAttr(member.getTrainable()), colocateWith);
      // A shard is not partitioned again.
      for (NamedAttribute attr : member->getDiscardableAttrs())
        if (attr.getName() != DTFDialect::getPartitionerAttrName())
          part->setAttr(attr.getName(), attr.getValue());
      setDevice(part, group.shardDevices[shard]);
      shardsOf[member.getHandle()].push_back(part.getHandle());
    }
  }

  llvm::SetVector<Operation *> users;
  for (VariableOp member : group.members)
    if (isShardedMember(member))
      users.insert(member->user_begin(), member->user_end());

  // A dynamic table's shards split its id space, [0, 2^63 - 1).
  int64_t totalRows = group.root.isDynamicTable()
                          ? std::numeric_limits<int64_t>::max()
                          : offset;
  auto rowShard = [&](int64_t shard) {
    return RowShardAttr::get(group.root.getContext(), group.strategy, shard,
                             numShards, totalRows);
  };
  for (Operation *user : users) {
    OpBuilder builder(user);
    Location loc = user->getLoc();
    if (auto lookup = dyn_cast<EmbeddingLookupOp>(user)) {
      // Each shard gives the rows of its ids and zeros elsewhere: their sum
      // is the lookup of the whole table, as embedding_lookup's
      // dynamic_stitch of the partitions' gathers.
      Value rows;
      for (int64_t shard = 0; shard < numShards; ++shard) {
        Value part = builder.create<EmbeddingLookupOp>(
            loc, shardsOf.lookup(lookup.getTable())[shard], lookup.getIds(),
            rowShard(shard));
        rows = rows ? builder.create<AddOp>(loc, rows, part).getResult() : part;
      }
      lookup.replaceAllUsesWith(rows);
      lookup.erase();
      continue;
    }
    if (isSparseUpdate(user)) {
      // Each shard updates the rows of its own ids.
      for (int64_t shard = 0; shard < numShards; ++shard) {
        IRMapping mapping;
        for (Value operand : user->getOperands())
          if (auto it = shardsOf.find(operand); it != shardsOf.end())
            mapping.map(operand, it->second[shard]);
        Operation *part = builder.clone(*user, mapping);
        part->setAttr("shard", rowShard(shard));
        part->removeAttr(DTFDialect::getDeviceAttrName());
      }
      user->erase();
      continue;
    }
    if (auto read = dyn_cast<ReadOp>(user)) {
      // The value of the whole variable, joined from its shards on the
      // reader's side (the worker, unless the read was placed).
      SmallVector<Value> parts;
      for (Value shard : shardsOf.lookup(read.getResource()))
        parts.push_back(builder.create<ReadOp>(loc, shard));
      auto concat = builder.create<ConcatOp>(loc, parts, /*axis=*/0);
      if (DeviceAttr device = getDevice(read))
        setDevice(concat, device);
      read.replaceAllUsesWith(concat.getOutput());
      read.erase();
      continue;
    }

    // One update per shard, of the matching rows of the new value. The
    // slices run where the value is produced, so that each PS task only
    // receives its part.
    Value update = getUpdateValue(user);
    auto updateType = cast<RankedTensorType>(update.getType());
    DeviceAttr producerDevice;
    if (Operation *producer = update.getDefiningOp())
      producerDevice = getDevice(producer);
    for (int64_t shard = 0; shard < numShards; ++shard) {
      SmallVector<int64_t> sliceOffsets(updateType.getRank(), 0);
      SmallVector<int64_t> sliceSizes(
          withRows(updateType, group.shardRows[shard]).getShape());
      sliceOffsets[0] = offsets[shard];
      auto slice =
          builder.create<SliceOp>(loc, update, sliceOffsets, sliceSizes);
      if (producerDevice)
        setDevice(slice, producerDevice);
      IRMapping mapping;
      mapping.map(update, slice.getOutput());
      for (Value operand : user->getOperands())
        if (auto it = shardsOf.find(operand); it != shardsOf.end())
          mapping.map(operand, it->second[shard]);
      Operation *part = builder.clone(*user, mapping);
      // The update now belongs beside its shard; step 3 places it there.
      part->removeAttr(DTFDialect::getDeviceAttrName());
    }
    user->erase();
  }

  for (VariableOp member : group.members)
    if (isShardedMember(member))
      member.erase();
}

LogicalResult PlaceVariablesPass::placeOps(func::FuncOp func,
                                           DeviceAttr worker) {
  if (func.isExternal())
    return success();
  for (Operation &op : func.getBody().getOps()) {
    // Terminators belong to the function, not to a device: partitioning
    // gives the results to the client.
    if (op.hasTrait<OpTrait::IsTerminator>() || getDevice(&op))
      continue;
    SmallVector<VariableOp> variables = getAccessedVariables(&op);
    if (variables.empty()) {
      setDevice(&op, worker);
      continue;
    }
    DeviceAttr device = getDevice(variables.front());
    for (VariableOp other : llvm::drop_begin(variables)) {
      DeviceAttr otherDevice = getDevice(other);
      if (otherDevice == device)
        continue;
      return op.emitOpError("touches variable '")
             << variables.front().getName() << "' on '" << device.getName()
             << "' and variable '" << other.getName() << "' on '"
             << otherDevice.getName()
             << "'; a variable is only reachable on its own device, so "
                "colocate them (colocate_with)";
    }
    setDevice(&op, device);
  }
  return success();
}

void PlaceVariablesPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *context = &getContext();

  Strategy chosen;
  if (strategy == "round-robin") {
    chosen = Strategy::RoundRobin;
  } else if (strategy == "greedy-bytes") {
    chosen = Strategy::GreedyBytes;
  } else {
    module.emitError("unknown placement strategy '")
        << strategy << "'; expected 'round-robin' or 'greedy-bytes'";
    return signalPassFailure();
  }
  if (minShardBytes < 0 || maxShards < 0 || maxShardBytes < 0) {
    module.emitError("min-shard-bytes, max-shards and max-shard-bytes must "
                     "not be negative");
    return signalPassFailure();
  }

  ClusterAttr cluster = getCluster(module);
  if (!cluster) {
    module.emitError("placement needs the cluster: the module has no '")
        << DTFDialect::getClusterAttrName() << "' attribute";
    return signalPassFailure();
  }
  int64_t numPSTasks = cluster.getNumTasks("ps");
  if (numPSTasks == 0) {
    module.emitError("the cluster has no PS task to place variables on");
    return signalPassFailure();
  }
  FailureOr<DeviceAttr> worker =
      parseDeviceOption(module, cluster, "worker-device", workerDevice);
  if (failed(worker))
    return signalPassFailure();

  // Step 1: plan, without changing the IR.
  groups.clear();
  groupOf.clear();
  targetOf.clear();
  shardedMember.clear();
  if (failed(collectGroups(module)))
    return signalPassFailure();
  TaskChooser chooser(chosen, numPSTasks);
  for (ColocationGroup &group : groups) {
    if (failed(planShards(group, numPSTasks)))
      return signalPassFailure();
    // The load of shard i: the root's shard, the same shard of each sharded
    // member, and, on the first shard, the members that stay whole.
    SmallVector<int64_t> shardBytes(group.getNumShards(), 0);
    for (VariableOp member : group.members) {
      int64_t bytes = getTensorBytes(member.getValueType()).value_or(0);
      if (!isShardedMember(member)) {
        shardBytes.front() += bytes;
        continue;
      }
      for (auto [shard, rows] : llvm::enumerate(group.shardRows))
        shardBytes[shard] +=
            getTensorBytes(withRows(member.getValueType(), rows)).value_or(0);
    }
    if (group.pinned) {
      if (group.pinned.getJob() == "ps")
        chooser.addLoad(group.pinned.getTask(), shardBytes.front());
      group.shardDevices = {group.pinned};
      continue;
    }
    for (int64_t bytes : shardBytes)
      group.shardDevices.push_back(getPSDevice(context, chooser.choose(bytes)));
  }
  for (ColocationGroup &group : groups)
    if (failed(checkShardableUses(group)))
      return signalPassFailure();

  // Step 2: devices of variables, shards.
  for (ColocationGroup &group : groups) {
    if (group.isSharded()) {
      for (VariableOp member : group.members) {
        bool sharded = isShardedMember(member);
        numShardedVariables += sharded;
        numPlacedVariables += sharded ? group.getNumShards() : 1;
      }
      shardGroup(group);
      continue;
    }
    for (VariableOp member : group.members)
      if (!getDevice(member)) {
        setDevice(member, group.shardDevices.front());
        ++numPlacedVariables;
      }
  }

  // Step 3: everything else.
  for (auto func : module.getOps<func::FuncOp>())
    if (failed(placeOps(func, *worker)))
      return signalPassFailure();
}
