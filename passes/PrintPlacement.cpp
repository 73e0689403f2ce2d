//===- PrintPlacement.cpp - Print the variables of each PS task -----------===//
//
// A report for people tuning placement: which variables each PS task holds
// and how many bytes, so that an unbalanced placement (one PS serving most
// of the parameters) is visible at a glance.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "passes/Placement.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace dtf::ir {
#define GEN_PASS_DEF_PRINTPLACEMENTPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

namespace {

/// One row of the table.
struct VariableRow {
  std::string name;
  std::string type;
  int64_t bytes;
};

/// The variables of one device and their total size.
struct DeviceRows {
  SmallVector<VariableRow> rows;
  int64_t bytes = 0;
};

struct PrintPlacementPass
    : public dtf::ir::impl::PrintPlacementPassBase<PrintPlacementPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ClusterAttr cluster = getCluster(module);
    int64_t numPSTasks = cluster ? cluster.getNumTasks("ps") : 0;

    // Every PS task of the cluster gets a section, empty or not, so that an
    // idle PS shows; then other devices in order of first appearance.
    llvm::MapVector<DeviceAttr, DeviceRows> byDevice;
    for (int64_t task = 0; task < numPSTasks; ++task)
      byDevice[getPSDevice(&getContext(), task)];
    DeviceRows unplaced;
    int64_t numVariables = 0, totalBytes = 0;
    size_t nameWidth = 0, typeWidth = 0;
    module.walk<WalkOrder::PreOrder>([&](VariableOp variable) {
      VariableRow row;
      row.name = variable.getName().str();
      llvm::raw_string_ostream(row.type) << variable.getValueType();
      row.bytes = getTensorBytes(variable.getValueType()).value_or(0);
      nameWidth = std::max(nameWidth, row.name.size());
      typeWidth = std::max(typeWidth, row.type.size());
      DeviceAttr device = getDevice(variable);
      DeviceRows &rows = device ? byDevice[device] : unplaced;
      rows.bytes += row.bytes;
      rows.rows.push_back(std::move(row));
      ++numVariables;
      totalBytes += row.bytes;
    });

    llvm::raw_ostream &os = llvm::outs();
    os << "PS placement: " << numPSTasks
       << (numPSTasks == 1 ? " PS task, " : " PS tasks, ") << numVariables
       << (numVariables == 1 ? " variable, " : " variables, ") << totalBytes
       << " bytes\n";
    auto printSection = [&](StringRef title, const DeviceRows &rows) {
      os << title << ": " << rows.rows.size()
         << (rows.rows.size() == 1 ? " variable, " : " variables, ")
         << rows.bytes << " bytes\n";
      for (const VariableRow &row : rows.rows)
        os << "  " << llvm::left_justify(row.name, nameWidth) << "  "
           << llvm::left_justify(row.type, typeWidth) << "  "
           << llvm::format_decimal(row.bytes, 10) << "\n";
    };
    for (auto &[device, rows] : byDevice)
      printSection(device.getName(), rows);
    if (!unplaced.rows.empty())
      printSection("(unplaced)", unplaced);
    os.flush();
    markAllAnalysesPreserved();
  }
};

} // namespace
