//===- CompiledMlp.h - The example MLP compiled for N PS tasks --*- C++ -*-===//
//
// What the tests of checkpoints across shard layouts start from
// (WarmStartTest.cpp, CheckpointingTest.cpp): examples/mnist_mlp.mlir
// compiled for a cluster of `numPs` PS tasks, hid_w (313600 bytes) split
// into shards of at least 100000 bytes, and its PS task functions.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "runtime/core/Tensor.h"
#include "runtime/train/Compile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace dtf::train::testing {

inline mlir::OwningOpRef<mlir::ModuleOp> compileMlp(mlir::MLIRContext &context,
                                                    int numPs) {
  std::string psHosts;
  for (int task = 0; task < numPs; ++task)
    psHosts +=
        (task ? ",localhost:" : "localhost:") + std::to_string(2222 + task);
  PlacementOptions placement;
  placement.minSliceBytes = 100000;
  return compileModel(
      context, DTF_EXAMPLES "/mnist_mlp.mlir",
      cluster::ClusterSpec::fromHostLists(psHosts, "localhost:3333"),
      ReplicationOptions{}, placement);
}

/// @ps_0, @ps_1, ... of `program`.
inline std::vector<mlir::func::FuncOp> psFunctions(mlir::ModuleOp program) {
  std::vector<mlir::func::FuncOp> functions;
  for (int task = 0;; ++task) {
    auto function =
        program.lookupSymbol<mlir::func::FuncOp>("ps_" + std::to_string(task));
    if (!function)
      return functions;
    functions.push_back(function);
  }
}

/// The rows of the shards `name/part_0`, ... of `values` one after the
/// other.
inline std::vector<float> joinShards(const VariableStore &values,
                                     const std::string &name, int count) {
  std::vector<float> joined;
  for (int shard = 0; shard < count; ++shard) {
    std::vector<float> rows =
        values.at(name + "/part_" + std::to_string(shard)).toVector<float>();
    joined.insert(joined.end(), rows.begin(), rows.end());
  }
  return joined;
}

} // namespace dtf::train::testing
