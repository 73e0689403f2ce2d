//===- VerifyPartitions.cpp - Check partitions and their transfers --------===//
//
// The contract --dtf-partition promises, checked on any module: partitions
// only exchange tensors through matched send/recv pairs, and those pairs
// cannot deadlock. Used on the partitioner's output in the tests, and
// useful on hand-edited partitions.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/Placement.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"

namespace dtf::ir {
#define GEN_PASS_DEF_VERIFYPARTITIONSPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

namespace {

/// The two ends of one rendezvous key.
struct Transfer {
  SendOp send;
  RecvOp recv;
};
} // namespace

/// Checks that every operand of every op of `partition` is computed in the
/// partition, on its device: a value from another device must have been
/// received. Checked before the placement of each op, so that a use across
/// devices is reported at the use, pointing at the producer.
static LogicalResult checkOperands(func::FuncOp partition, DeviceAttr device) {
  WalkResult result = partition.getBody().walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      Operation *producer = value.getDefiningOp();
      DeviceAttr producerDevice = producer ? getDevice(producer) : DeviceAttr();
      // Functions are isolated from above, so the value is defined in this
      // function; what remains to check is the device it is computed on.
      if (!producerDevice || producerDevice == device)
        continue;
      op->emitOpError("operand #")
              .append(operand.getOperandNumber(), " is computed on '",
                      producerDevice.getName(), "', not in partition @",
                      partition.getSymName(), " on '", device.getName(),
                      "'; a cross-device use needs a dtf.send/dtf.recv pair")
              .attachNote(producer->getLoc())
          << "computed here";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Checks that every op of `partition` is placed on its device, and that
/// its transfers start or end there.
static LogicalResult checkPlacement(func::FuncOp partition, DeviceAttr device) {
  WalkResult result = partition.getBody().walk([&](Operation *op) {
    DeviceAttr placed = getDevice(op);
    if (placed && placed != device) {
      op->emitOpError("is placed on '")
          << placed.getName() << "' but its partition @"
          << partition.getSymName() << " runs on '" << device.getName() << "'";
      return WalkResult::interrupt();
    }
    if (auto send = dyn_cast<SendOp>(op);
        send && send.getSendDevice() != device) {
      send.emitOpError("sends from '")
          << send.getSendDevice().getName() << "' but its partition @"
          << partition.getSymName() << " runs on '" << device.getName() << "'";
      return WalkResult::interrupt();
    }
    if (auto recv = dyn_cast<RecvOp>(op);
        recv && recv.getRecvDevice() != device) {
      recv.emitOpError("receives on '")
          << recv.getRecvDevice().getName() << "' but its partition @"
          << partition.getSymName() << " runs on '" << device.getName() << "'";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Pairs every send with its recv by rendezvous key.
static LogicalResult
matchTransfers(ArrayRef<func::FuncOp> partitions,
               llvm::MapVector<StringAttr, Transfer> &transfers) {
  for (func::FuncOp partition : partitions) {
    WalkResult result = partition.getBody().walk([&](Operation *op) {
      if (auto send = dyn_cast<SendOp>(op)) {
        auto key = StringAttr::get(op->getContext(), send.getRendezvousKey());
        Transfer &transfer = transfers[key];
        if (transfer.send) {
          send.emitOpError("reuses the rendezvous key '")
                  .append(key.getValue(), "' of another dtf.send")
                  .attachNote(transfer.send.getLoc())
              << "first sent here";
          return WalkResult::interrupt();
        }
        transfer.send = send;
      } else if (auto recv = dyn_cast<RecvOp>(op)) {
        auto key = StringAttr::get(op->getContext(), recv.getRendezvousKey());
        Transfer &transfer = transfers[key];
        if (transfer.recv) {
          recv.emitOpError("reuses the rendezvous key '")
                  .append(key.getValue(), "' of another dtf.recv")
                  .attachNote(transfer.recv.getLoc())
              << "first received here";
          return WalkResult::interrupt();
        }
        transfer.recv = recv;
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return failure();
  }

  for (auto &[key, transfer] : transfers) {
    if (!transfer.recv)
      return transfer.send.emitOpError("has no matching dtf.recv of key '")
             << key.getValue() << "': the tensor would never be received";
    if (!transfer.send)
      return transfer.recv.emitOpError("has no matching dtf.send of key '")
             << key.getValue() << "': it would wait forever";
    if (transfer.send.getValue().getType() != transfer.recv.getType())
      return transfer.recv.emitOpError("receives ")
                 .append(transfer.recv.getType(), " but its dtf.send sends ",
                         transfer.send.getValue().getType())
                 .attachNote(transfer.send.getLoc())
             << "sent here";
  }
  return success();
}

/// Checks that no recv can wait forever: sends never block, so the only
/// way to deadlock is a cycle of program order within partitions and
/// send-to-recv edges. Kahn's algorithm runs the partitions as the runtime
/// would; an op it cannot reach is stuck.
static LogicalResult
checkDeadlockFreedom(ArrayRef<func::FuncOp> partitions,
                     const llvm::MapVector<StringAttr, Transfer> &transfers) {
  // The ops of each partition in program order.
  SmallVector<SmallVector<Operation *>> programs;
  DenseMap<Operation *, std::pair<size_t, size_t>> position;
  for (func::FuncOp partition : partitions) {
    SmallVector<Operation *> &program = programs.emplace_back();
    partition.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      position[op] = {programs.size() - 1, program.size()};
      program.push_back(op);
    });
  }
  DenseMap<Operation *, Operation *> sendOf;
  for (const auto &[key, transfer] : transfers)
    sendOf[transfer.recv] = transfer.send;

  // Simulate: each partition advances while its next op is ready; a recv is
  // ready once its send ran. Stop when no partition can advance.
  SmallVector<size_t> next(programs.size(), 0);
  llvm::SmallPtrSet<Operation *, 16> done;
  bool progress = true;
  while (progress) {
    progress = false;
    for (auto [index, program] : llvm::enumerate(programs)) {
      while (next[index] < program.size()) {
        Operation *op = program[next[index]];
        if (Operation *send = sendOf.lookup(op); send && !done.contains(send))
          break;
        done.insert(op);
        ++next[index];
        progress = true;
      }
    }
  }
  for (auto [index, program] : llvm::enumerate(programs)) {
    if (next[index] == program.size())
      continue;
    Operation *stuck = program[next[index]];
    Operation *send = sendOf.lookup(stuck);
    return stuck
               ->emitOpError("can never complete: its dtf.send waits, "
                             "directly or through other partitions, for "
                             "this recv (deadlock)")
               .attachNote(send->getLoc())
           << "the dtf.send it waits for";
  }
  return success();
}

namespace {
struct VerifyPartitionsPass
    : public dtf::ir::impl::VerifyPartitionsPassBase<VerifyPartitionsPass> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> partitions;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      DeviceAttr device = getDevice(func);
      if (!device || func.isExternal())
        continue;
      if (failed(checkOperands(func, device)) ||
          failed(checkPlacement(func, device)))
        return signalPassFailure();
      partitions.push_back(func);
    }
    llvm::MapVector<StringAttr, Transfer> transfers;
    if (failed(matchTransfers(partitions, transfers)) ||
        failed(checkDeadlockFreedom(partitions, transfers)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }
};

} // namespace
