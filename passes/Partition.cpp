//===- Partition.cpp - Split placed functions per device ------------------===//
//
// TensorFlow's graph partitioning (graph_partition.cc), in graph: the ops of
// a placed function are spread over one function per device, and every edge
// between two devices becomes a dtf.send / dtf.recv pair.
//
// Why the result cannot deadlock. Sends never block: the rendezvous buffers
// a tensor until its recv takes it, as TensorFlow's does, so only a recv can
// wait. Let S be the original op order (a topological order, since the
// function is a single block) with each send inserted right after its
// producer and each recv right before its first consumer on the receiving
// device. Every partition is a subsequence of S, and the send of each recv
// precedes it in S, because a producer precedes its consumers. Suppose some
// op never completes and take the earliest such op in S. It is a recv (no
// other op waits on another partition); its send is earlier in S, so it
// completed and buffered the tensor, and the recv completes: a
// contradiction. Equivalently, program order within partitions plus the
// send-to-recv edges form an acyclic graph, which --dtf-verify-partitions
// checks on the output.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/Placement.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

namespace dtf::ir {
#define GEN_PASS_DEF_PARTITIONPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

/// The suffix of the partition of `device`: "_ps_0", "_worker_1_gpu_0".
static std::string getPartitionSuffix(DeviceAttr device) {
  std::string suffix =
      ("_" + device.getJob() + "_" + Twine(device.getTask())).str();
  if (device.hasDevicePart())
    suffix += ("_" + device.getDeviceType().lower() + "_" +
               Twine(device.getDeviceIndex()))
                  .str();
  return suffix;
}

/// The part of the tensor name of a transfer that says what is sent: the
/// producer's op name (with the result number when it has several), or the
/// argument number.
static std::string describeProducer(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return ("arg" + Twine(arg.getArgNumber())).str();
  Operation *producer = value.getDefiningOp();
  std::string name = producer->getName().getStringRef().str();
  if (producer->getNumResults() > 1)
    name += ":" + std::to_string(cast<OpResult>(value).getResultNumber());
  return name;
}

namespace {

/// One function per device being built.
struct Partition {
  func::FuncOp func;
  /// Original values to their counterparts in this partition: the clones of
  /// the ops placed here, and the recvs of values computed elsewhere.
  IRMapping mapping;
};

/// Splits one function. Holds the state of the walk over its ops.
class FunctionPartitioner {
public:
  FunctionPartitioner(func::FuncOp func, DeviceAttr client,
                      DeviceAttr defaultDevice, int64_t &nextTransferId)
      : func(func), client(client), defaultDevice(defaultDevice),
        nextTransferId(nextTransferId) {}

  /// Builds the partitions (inserted before the function), or fails with an
  /// error and builds nothing.
  LogicalResult run(SymbolTable &symbols);

  int64_t getNumPartitions() const { return partitions.size(); }
  int64_t getNumTransfers() const { return numTransfers; }

private:
  /// The device of `op` (a top-level op of the function).
  FailureOr<DeviceAttr> getOpDevice(Operation *op);
  /// Checks that `value`, produced on `from`, may be sent to `to` for `user`.
  LogicalResult checkTransferable(Value value, DeviceAttr from, DeviceAttr to,
                                  Operation *user);
  /// The counterpart of `value` on `device`, receiving it (and sending it
  /// from its home) on first use there.
  Value materialize(Value value, DeviceAttr device, Location loc);
  /// Creates the partition functions, empty.
  void createPartitions(ArrayRef<DeviceAttr> devices, SymbolTable &symbols);

  func::FuncOp func;
  DeviceAttr client;
  DeviceAttr defaultDevice;
  /// The next `n` of a tensor name, counted over the module so that the
  /// rendezvous keys of all partitions of the module are distinct.
  int64_t &nextTransferId;

  llvm::MapVector<DeviceAttr, Partition> partitions;
  /// The device of every top-level op, decided before anything is built.
  DenseMap<Operation *, DeviceAttr> opDevices;
  /// Where each original value is computed.
  DenseMap<Value, DeviceAttr> homes;
  /// The op in the home partition after which the next send of a value goes:
  /// its producer, then its latest send, so that sends of one value keep
  /// the order of their destinations' first uses.
  DenseMap<Value, Operation *> sendAnchors;
  /// Anchor of sends of the function's arguments: they go first, in order.
  Operation *argumentSendAnchor = nullptr;
  /// The number `n` of the tensor name of each transferred value.
  DenseMap<Value, int64_t> transferIds;
  int64_t numTransfers = 0;
};

} // namespace

FailureOr<DeviceAttr> FunctionPartitioner::getOpDevice(Operation *op) {
  // Results go to the client, which called the function.
  if (op->hasTrait<OpTrait::IsTerminator>())
    return client;
  DeviceAttr device = getDevice(op);
  if (!device)
    device = defaultDevice;
  if (!device)
    return op->emitOpError("has no '")
           << DTFDialect::getDeviceAttrName()
           << "'; place the function first (--dtf-place-variables) or give "
              "--dtf-partition a default-device";
  // An op with regions is partitioned as a whole: its nested ops run where
  // it runs.
  WalkResult nested = op->walk([&](Operation *inner) {
    if (inner == op)
      return WalkResult::advance();
    DeviceAttr innerDevice = getDevice(inner);
    if (!innerDevice || innerDevice == device)
      return WalkResult::advance();
    inner->emitOpError("is placed on '")
        << innerDevice.getName() << "' inside an op placed on '"
        << device.getName()
        << "'; partitioning keeps nested ops with their parent";
    return WalkResult::interrupt();
  });
  if (nested.wasInterrupted())
    return failure();
  return device;
}

LogicalResult FunctionPartitioner::checkTransferable(Value value,
                                                     DeviceAttr from,
                                                     DeviceAttr to,
                                                     Operation *user) {
  if (isa<RankedTensorType>(value.getType()))
    return success();
  InFlightDiagnostic diag = user->emitOpError("on '") << to.getName() << "' ";
  if (isa<ResourceType>(value.getType())) {
    diag << "uses a resource handle";
    if (auto variable = value.getDefiningOp<VariableOp>())
      diag << " of variable '" << variable.getName() << "'";
    diag << " that lives on '" << from.getName()
         << "'; a resource handle cannot cross devices, so place the op "
            "with its variable";
  } else {
    diag << "uses a value of type " << value.getType() << " computed on '"
         << from.getName() << "'; only tensors can be sent between devices";
  }
  if (Operation *producer = value.getDefiningOp())
    diag.attachNote(producer->getLoc()) << "defined here";
  return failure();
}

void FunctionPartitioner::createPartitions(ArrayRef<DeviceAttr> devices,
                                           SymbolTable &symbols) {
  OpBuilder builder(func);
  for (DeviceAttr device : devices) {
    bool isClient = device == client;
    // The client's partition is what the client calls: it keeps the
    // signature. The others run for their side effects and transfers.
    FunctionType type = isClient
                            ? func.getFunctionType()
                            : builder.getFunctionType(TypeRange(), TypeRange());
    auto partition = builder.create<func::FuncOp>(
        func.getLoc(), (func.getSymName() + getPartitionSuffix(device)).str(),
        type);
    if (isClient) {
      if (ArrayAttr argAttrs = func.getAllArgAttrs())
        partition.setAllArgAttrs(argAttrs);
      if (ArrayAttr resultAttrs = func.getAllResultAttrs())
        partition.setAllResultAttrs(resultAttrs);
    }
    partition.setVisibility(func.getVisibility());
    setDevice(partition, device);
    Block *entry = partition.addEntryBlock();
    // Partitions are inserted before the original function, which is erased
    // later: let the symbol table make the name unique meanwhile.
    symbols.insert(partition, Block::iterator(func));
    Partition &state = partitions[device];
    state.func = partition;
    if (isClient)
      for (auto [original, argument] :
           llvm::zip(func.getArguments(), entry->getArguments()))
        state.mapping.map(original, argument);
  }
}

Value FunctionPartitioner::materialize(Value value, DeviceAttr device,
                                       Location loc) {
  Partition &destination = partitions[device];
  if (Value local = destination.mapping.lookupOrNull(value))
    return local;

  // First use of `value` on `device`: one send right after its producer (or
  // after the previous send of it), one recv at the end of the destination
  // built so far, i.e. right before the consumer.
  DeviceAttr home = homes.lookup(value);
  Partition &source = partitions[home];
  auto [idIt, isNew] = transferIds.try_emplace(value, nextTransferId);
  if (isNew)
    ++nextTransferId;
  std::string tensorName =
      ("edge_" + Twine(idIt->second) + "_" + describeProducer(value)).str();

  OpBuilder sendBuilder(func.getContext());
  bool isArgument = isa<BlockArgument>(value);
  Operation *anchor =
      isArgument ? argumentSendAnchor : sendAnchors.lookup(value);
  if (anchor)
    sendBuilder.setInsertionPointAfter(anchor);
  else
    sendBuilder.setInsertionPointToStart(&source.func.front());
  // Transfers carry their devices themselves; they take no dtf.device.
  auto send = sendBuilder.create<SendOp>(
      value.getLoc(), source.mapping.lookup(value), tensorName, home, device);
  if (isArgument)
    argumentSendAnchor = send;
  else
    sendAnchors[value] = send;

  auto recvBuilder = OpBuilder::atBlockEnd(&destination.func.front());
  auto recv = recvBuilder.create<RecvOp>(loc, value.getType(), tensorName, home,
                                         device);
  destination.mapping.map(value, recv.getOutput());
  ++numTransfers;
  return recv.getOutput();
}

LogicalResult FunctionPartitioner::run(SymbolTable &symbols) {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("has ")
           << func.getBody().getBlocks().size()
           << " blocks; partitioning needs a single-block function";
  Block &body = func.getBody().front();

  // Decide every op's device and check every crossing edge before building
  // anything, so that a failure leaves the module untouched.
  llvm::SetVector<DeviceAttr> devices;
  devices.insert(client);
  for (BlockArgument argument : body.getArguments())
    homes[argument] = client;
  for (Operation &op : body) {
    FailureOr<DeviceAttr> device = getOpDevice(&op);
    if (failed(device))
      return failure();
    opDevices[&op] = *device;
    devices.insert(*device);

    llvm::SetVector<Value> used(op.operand_begin(), op.operand_end());
    getUsedValuesDefinedAbove(op.getRegions(), used);
    for (Value value : used) {
      DeviceAttr home = homes.lookup(value);
      if (home != *device &&
          failed(checkTransferable(value, home, *device, &op)))
        return failure();
    }
    for (Value result : op.getResults())
      homes[result] = *device;
  }

  // Partitions in device-name order: ps tasks, then workers.
  SmallVector<DeviceAttr> sorted(devices.begin(), devices.end());
  llvm::sort(sorted, [](DeviceAttr lhs, DeviceAttr rhs) {
    return lhs.getName() < rhs.getName();
  });
  createPartitions(sorted, symbols);

  for (Operation &op : body) {
    DeviceAttr device = opDevices.lookup(&op);
    llvm::SetVector<Value> used(op.operand_begin(), op.operand_end());
    getUsedValuesDefinedAbove(op.getRegions(), used);
    for (Value value : used)
      if (homes.lookup(value) != device)
        materialize(value, device, op.getLoc());

    Partition &partition = partitions[device];
    auto builder = OpBuilder::atBlockEnd(&partition.func.front());
    Operation *clone = builder.clone(op, partition.mapping);
    for (Value result : op.getResults())
      sendAnchors[result] = clone;
  }

  // The client's partition got the original terminator; the others end
  // with an empty return.
  for (auto &[device, partition] : partitions) {
    if (device == client)
      continue;
    auto builder = OpBuilder::atBlockEnd(&partition.func.front());
    builder.create<func::ReturnOp>(func.getLoc());
  }
  return success();
}

namespace {

struct PartitionPass : public dtf::ir::impl::PartitionPassBase<PartitionPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    ClusterAttr cluster = getCluster(module);
    FailureOr<DeviceAttr> client =
        parseDeviceOption(module, cluster, "client-device", clientDevice);
    if (failed(client))
      return signalPassFailure();
    DeviceAttr defaultPlacement;
    if (!defaultDevice.empty()) {
      FailureOr<DeviceAttr> parsed =
          parseDeviceOption(module, cluster, "default-device", defaultDevice);
      if (failed(parsed))
        return signalPassFailure();
      defaultPlacement = *parsed;
    }

    SymbolTable symbols(module);
    int64_t nextTransferId = 0;
    // Partition only functions with placed ops, and not the partitions
    // themselves (they carry dtf.device), so that the pass is idempotent.
    // The list is taken first since partitioning adds functions.
    SmallVector<func::FuncOp> placed;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || getDevice(func))
        continue;
      WalkResult found = func.getBody().walk([](Operation *op) {
        return getDevice(op) ? WalkResult::interrupt() : WalkResult::advance();
      });
      if (found.wasInterrupted())
        placed.push_back(func);
    }

    for (func::FuncOp func : placed) {
      // A caller would have to call every partition on its device.
      if (!SymbolTable::symbolKnownUseEmpty(func, module)) {
        func.emitOpError("is referenced in the module; only functions "
                         "nothing calls can be partitioned");
        return signalPassFailure();
      }
      FunctionPartitioner partitioner(func, *client, defaultPlacement,
                                      nextTransferId);
      if (failed(partitioner.run(symbols)))
        return signalPassFailure();
      numPartitions += partitioner.getNumPartitions();
      numTransfers += partitioner.getNumTransfers();
      symbols.erase(func);
    }
  }
};

} // namespace
