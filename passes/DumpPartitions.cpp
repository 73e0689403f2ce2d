//===- DumpPartitions.cpp - Write partitions and their Graphviz DOT -------===//
//
// A picture of what --dtf-partition did: one .mlir file per partition, and
// the partitioned graph as Graphviz DOT, one cluster per device, with every
// send/recv pair drawn as a red edge between the clusters.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/Placement.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace dtf::ir {
#define GEN_PASS_DEF_DUMPPARTITIONSPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

namespace {

/// `text` quoted for a DOT string: quotes and backslashes escaped, line
/// breaks as DOT's centered "\n".
std::string quote(StringRef text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '\n') {
      quoted += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

/// "100x784xf32" for tensor<100x784xf32>, "i64" for tensor<i64>, else the
/// type as MLIR prints it.
std::string shortType(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    for (int64_t dim : tensor.getShape()) {
      if (ShapedType::isDynamic(dim))
        os << "?";
      else
        os << dim;
      os << "x";
    }
    os << tensor.getElementType();
  } else {
    os << type;
  }
  return os.str();
}

/// The label and style of the node of `op`.
struct NodeStyle {
  std::string label;
  std::string attributes;
};

NodeStyle styleOf(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("dtf."))
    name.consume_front("func.");
  NodeStyle style;
  style.label = name.str();
  if (auto variable = dyn_cast<VariableOp>(op)) {
    style.label += "\n" + variable.getName().str();
    style.attributes = "fillcolor=\"#fff4c2\"";
  } else if (auto placeholder = dyn_cast<PlaceholderOp>(op)) {
    style.label += "\n" + placeholder.getName().str();
    style.attributes = "shape=ellipse, fillcolor=\"#f3e5f5\"";
  } else if (isa<SendOp, RecvOp>(op)) {
    style.attributes = "color=red, fontcolor=\"#b00020\", "
                       "fillcolor=\"#fde0dd\", penwidth=1.5";
  } else if (name.starts_with("apply_") ||
             isa<AssignOp, AssignAddOp, AssignMovingAverageOp>(op)) {
    style.attributes = "fillcolor=\"#ffe0b2\"";
  }
  return style;
}

struct DumpPartitionsPass
    : public dtf::ir::impl::DumpPartitionsPassBase<DumpPartitionsPass> {
  using Base::Base;

  /// `--dtf-dump-partitions=DIR` means `dir=DIR`.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    StringRef trimmed = options.trim();
    if (!trimmed.empty() && !trimmed.contains('=')) {
      dir = trimmed.str();
      return success();
    }
    return Pass::initializeOptions(options, errorHandler);
  }

  void runOnOperation() override;

private:
  /// Writes `path` with `print`; reports a failure on the module.
  LogicalResult writeFile(StringRef path,
                          function_ref<void(raw_ostream &)> print);
  void writeDot(raw_ostream &os, ArrayRef<func::FuncOp> partitions);
};

LogicalResult DumpPartitionsPass::writeFile(
    StringRef path, function_ref<void(raw_ostream &)> print) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_Text);
  if (!error) {
    print(os);
    os.close();
    error = os.error();
  }
  if (error)
    return getOperation().emitError("--dtf-dump-partitions: cannot write '")
           << path << "': " << error.message();
  return success();
}

void DumpPartitionsPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (dir.empty()) {
    module.emitError("--dtf-dump-partitions: no directory given; use "
                     "--dtf-dump-partitions=DIR");
    return signalPassFailure();
  }

  SmallVector<func::FuncOp> partitions;
  for (auto func : module.getOps<func::FuncOp>())
    if (getDevice(func) && !func.isExternal())
      partitions.push_back(func);
  if (partitions.empty()) {
    module.emitError("--dtf-dump-partitions: the module has no partitions "
                     "(functions with '")
        << DTFDialect::getDeviceAttrName() << "'); run --dtf-partition first";
    return signalPassFailure();
  }

  if (std::error_code error = llvm::sys::fs::create_directories(dir)) {
    module.emitError("--dtf-dump-partitions: cannot create directory '")
        << dir << "': " << error.message();
    return signalPassFailure();
  }

  // Each partition alone, in a module with the original's attributes.
  for (func::FuncOp func : partitions) {
    OwningOpRef<ModuleOp> copy = ModuleOp::create(module.getLoc());
    copy.get()->setAttrs(module->getAttrDictionary());
    OpBuilder builder = OpBuilder::atBlockEnd(copy->getBody());
    builder.clone(*func.getOperation());
    SmallString<256> path(dir);
    llvm::sys::path::append(path, func.getSymName() + ".mlir");
    if (failed(writeFile(path, [&](raw_ostream &os) {
          copy->print(os);
          os << "\n";
        })))
      return signalPassFailure();
    ++numDumpedPartitions;
  }

  // Check the transfers before writing the picture of them.
  llvm::StringMap<SendOp> sends;
  for (func::FuncOp func : partitions)
    func.walk([&](SendOp send) { sends[send.getRendezvousKey()] = send; });
  for (func::FuncOp func : partitions) {
    WalkResult result = func.walk([&](RecvOp recv) {
      if (sends.count(recv.getRendezvousKey()))
        return WalkResult::advance();
      recv.emitOpError("--dtf-dump-partitions: no dtf.send of '")
          << recv.getTensorName() << "' from '"
          << recv.getSendDevice().getName() << "' in the module";
      return WalkResult::interrupt();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
  }

  SmallString<256> path(dir);
  llvm::sys::path::append(path, "partitions.dot");
  if (failed(writeFile(path,
                       [&](raw_ostream &os) { writeDot(os, partitions); })))
    return signalPassFailure();
  markAllAnalysesPreserved();
}

void DumpPartitionsPass::writeDot(raw_ostream &os,
                                  ArrayRef<func::FuncOp> partitions) {
  llvm::DenseMap<Operation *, std::string> nodes;
  llvm::DenseMap<Value, std::string> argumentNodes;
  int nextNode = 0;
  auto newNode = [&] { return "n" + std::to_string(nextNode++); };

  int64_t numTransfers = 0;
  for (func::FuncOp func : partitions)
    func.walk([&](SendOp) { ++numTransfers; });

  os << "// The partitions of a dtf module, one cluster per device; red edges\n"
        "// are send/recv pairs (cross-device transfers). Render with\n"
        "//   dot -Tpng partitions.dot -o partitions.png\n";
  os << "digraph partitions {\n"
     << "  graph [fontname=\"Helvetica\", fontsize=12, newrank=true, "
        "nodesep=0.2, ranksep=0.3, labelloc=t, label="
     << quote((Twine(partitions.size()) + " partitions, " +
               Twine(numTransfers) +
               " cross-device transfers (red: dtf.send -> dtf.recv)")
                  .str())
     << "];\n"
     << "  node [shape=box, style=\"rounded,filled\", fillcolor=white, "
        "fontname=\"Helvetica\", fontsize=10, height=0.3];\n"
     << "  edge [color=\"#444444\", arrowsize=0.6, fontname=\"Helvetica\"];\n";

  std::string edges;
  llvm::raw_string_ostream edgeStream(edges);
  int clusterIndex = 0;
  for (func::FuncOp func : partitions) {
    DeviceAttr device = getDevice(func);
    bool isPs = device.getJob() == "ps";
    os << "  subgraph cluster_" << clusterIndex++ << " {\n"
       << "    label=" << quote(device.getName() + "\n@" + func.getSymName().str())
       << "; style=\"rounded,filled\"; fontsize=14; "
       << (isPs ? "fillcolor=\"#e3ecfa\"; color=\"#5b7db1\";"
                : "fillcolor=\"#e6f4ea\"; color=\"#4e9a63\";")
       << "\n";
    Block &body = func.getBody().front();
    for (Operation &op : body) {
      if (op.hasTrait<OpTrait::IsTerminator>() && op.getNumOperands() == 0)
        continue;
      std::string id = newNode();
      nodes[&op] = id;
      NodeStyle style = styleOf(&op);
      os << "    " << id << " [label=" << quote(style.label);
      if (!style.attributes.empty())
        os << ", " << style.attributes;
      os << "];\n";
      for (Value operand : op.getOperands()) {
        std::string from;
        if (auto argument = dyn_cast<BlockArgument>(operand)) {
          auto [it, inserted] = argumentNodes.try_emplace(operand);
          if (inserted) {
            it->second = newNode();
            os << "    " << it->second << " [label="
               << quote("arg " + std::to_string(argument.getArgNumber())) << ", shape=ellipse];\n";
          }
          from = it->second;
        } else {
          Operation *producer =
              body.findAncestorOpInBlock(*operand.getDefiningOp());
          if (!producer || !nodes.count(producer))
            continue;
          from = nodes[producer];
        }
        edgeStream << "  " << from << " -> " << id;
        if (isa<ResourceType>(operand.getType()))
          edgeStream << " [style=dashed, color=\"#999999\"]";
        edgeStream << ";\n";
      }
    }
    os << "  }\n";
  }
  os << edgeStream.str();

  // The cross-device edges: each send to its recv.
  llvm::StringMap<std::string> sendNodes;
  for (func::FuncOp func : partitions)
    func.walk([&](SendOp send) {
      sendNodes[send.getRendezvousKey()] = nodes.lookup(send);
    });
  for (func::FuncOp func : partitions)
    func.walk([&](RecvOp recv) {
      os << "  " << sendNodes.lookup(recv.getRendezvousKey()) << " -> "
         << nodes.lookup(recv) << " [color=red, fontcolor=red, penwidth=2.5, "
         << "fontsize=9, label="
         << quote(recv.getTensorName().str() + "\n" +
                  shortType(recv.getType()))
         << "];\n";
      ++numDrawnTransfers;
    });
  os << "}\n";
}

} // namespace
