//===- ImportContext.h - What the parts of an import share ------*- C++ -*-===//
//
// One import of a GraphDef, as the importer's parts see it: the graph and its
// nodes by name, each node's location, the builder, the values translated so
// far and the variables declared, and the readers every part uses alike
// (attributes, dtypes, Const tensors read as attributes, devices). A node is
// named by its index in the GraphDef, the key of everything kept about it;
// errors are emitted at the node's location and name it.
//
// Values are translated on demand: operand() translates the node an input
// names, through its op's translator (OpTranslators.h), the first time one of
// its values is needed, so only what the roots of the import reach is
// translated.
//
// Internal to DTFGraphDefImport: it includes the generated protobuf headers.
//
//===----------------------------------------------------------------------===//

#pragma once

#include "dialects/dtf/IR/DTFOps.h"

#include "graph.pb.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dtf::translate::graphdef {

/// One input of a NodeDef: "node", "node:K" or "^node" (control).
struct InputRef {
  std::string node;
  int output = 0;
  bool control = false;
};

/// Parses one entry of NodeDef.input.
InputRef parseInput(const std::string &input);

/// The shortest decimal that is `value` in float32, as a double: a script's
/// learning rate of 0.01 reads 0.01, not 0.009999999776482582, the double
/// nearest to float32's 0.01.
double shortestDouble(float value);

/// The graph being imported and what has been made of it so far.
class ImportContext {
public:
  ImportContext(const tensorflow::GraphDef &graph, llvm::StringRef filename,
                std::vector<mlir::Location> nodeLocations,
                mlir::MLIRContext *context);

  mlir::MLIRContext *getContext() const { return context; }
  mlir::OpBuilder &getBuilder() { return builder; }

  //===--------------------------------------------------------------------===//
  // The graph
  //===--------------------------------------------------------------------===//

  int nodeCount() const { return graph.node_size(); }
  const tensorflow::NodeDef &node(int index) const { return graph.node(index); }
  mlir::Location locationOf(int index) const { return nodeLocations[index]; }
  /// The file as a location: where errors about the whole graph point.
  mlir::Location fileLocation() const;

  /// Indexes the nodes by name; fails on the first name two nodes share.
  mlir::LogicalResult indexNodeNames();
  /// The node called `name`, if any.
  std::optional<int> findNode(const std::string &name) const;
  /// The node called `name`, which input of `user` names; an error if none.
  mlir::FailureOr<int> lookup(int user, const std::string &name);
  /// Input `input` of node `index`, which must be a value: an error where the
  /// node has fewer inputs or that one is a control input.
  mlir::FailureOr<InputRef> dataInput(int index, int input);
  /// The node input `input` of `index` names (a value, not a control input).
  mlir::FailureOr<int> inputNode(int index, int input);
  /// Follows Identity nodes from input `input` of `index`.
  mlir::FailureOr<int> throughIdentities(int index, int input);
  /// Enters node `index` on the path the import follows through the graph,
  /// depth first (translating its values, folding the shape it computes):
  /// an error where the path goes round a cycle or deeper than the stack
  /// allows.
  mlir::LogicalResult enter(int index);
  /// Leaves node `index`, the last one entered.
  void leave(int index) { path.erase(index); }

  //===--------------------------------------------------------------------===//
  // Errors
  //===--------------------------------------------------------------------===//

  /// An error about node `index`: "node 'name' (Op): " and what follows.
  mlir::InFlightDiagnostic fail(int index) const;
  /// An error about the graph as a whole, at the file.
  mlir::InFlightDiagnostic failAtFile() const;
  /// Records node `index` as one whose op dtf-translate does not import. No
  /// error is emitted for it: the import goes on to find the others, and
  /// fails with the list of them all (GraphDefImport.cpp).
  void recordUnsupportedOp(int index) { unsupportedOpNodes.insert(index); }
  /// The nodes recorded by recordUnsupportedOp, in the graph's order.
  const std::set<int> &getUnsupportedOpNodes() const {
    return unsupportedOpNodes;
  }
  /// Runs `check`, one of MLIR's that reports through diagnostics (an op's
  /// type inference or verifier), and makes its failure an error about node
  /// `index` in the check's own words.
  mlir::LogicalResult
  asNodeError(int index, llvm::function_ref<mlir::LogicalResult()> check);

  //===--------------------------------------------------------------------===//
  // Attributes and constants
  //===--------------------------------------------------------------------===//

  /// Attribute `name` of node `index`, or null.
  const tensorflow::AttrValue *attr(int index, const char *name) const;
  /// The seed of random op `index`: its own (seed2) is the one a script
  /// sets with seed=; seed is the graph's.
  int64_t randomSeed(int index) const;
  /// The element type of `dtype` (its _REF form too); an error where DTF
  /// does not compute with it.
  mlir::FailureOr<mlir::Type> elementType(int index,
                                          tensorflow::DataType dtype);
  /// The tensor type that node `index`'s dtype and shape attributes declare.
  mlir::FailureOr<mlir::RankedTensorType>
  tensorType(int index, const char *dtypeAttr, const char *shapeAttr);
  /// The tensor of Const node `index`.
  mlir::FailureOr<mlir::DenseElementsAttr> constant(int index);
  /// The integers that the Const at input `input` of `index` holds (axes, a
  /// shape, a dimension), read through Identity nodes.
  mlir::FailureOr<llvm::SmallVector<int64_t>> integers(int index, int input);
  /// The scalar that the Const at input `input` of `index` holds, read
  /// through Identity nodes and a Cast.
  mlir::FailureOr<double> scalar(int index, int input);

  //===--------------------------------------------------------------------===//
  // Devices
  //===--------------------------------------------------------------------===//

  /// The task node `index` is pinned to; none where its device names no
  /// task. Sets `failed` where the device name does not parse.
  std::optional<ir::DeviceAttr> deviceOf(int index, bool &failed);
  /// Pins `op` to node `index`'s task, if it names one.
  mlir::LogicalResult pin(mlir::Operation *op, int index);

  //===--------------------------------------------------------------------===//
  // Values
  //===--------------------------------------------------------------------===//

  /// The value of input `input` of `user`, translated if it is not yet; an
  /// error where it is a variable itself rather than a read of it.
  mlir::FailureOr<mlir::Value> operand(int user, int input);
  /// Output `output` of node `index`, translated if it is not yet; a node
  /// whose translation failed fails again without a second error.
  mlir::FailureOr<mlir::Value> resolve(int index, int output);
  /// Records `variable` as the declaration of variable node `index`: its
  /// handle is the node's value.
  void recordVariable(int index, ir::VariableOp variable);
  /// The declaration of variable node `index`; null where it has none.
  ir::VariableOp variable(int index) const { return variables.lookup(index); }

  /// Records variable node `index` as shard `shard` of the partitioned table
  /// `table` (TensorFlow's "name/part_K"): it is not a variable of the module
  /// itself, only the lookups that address all shards reach it.
  void recordShard(int index, ir::VariableOp table, int shard);
  /// The table variable node `index` is a shard of, and which one; none
  /// where it is not a shard.
  std::optional<std::pair<ir::VariableOp, int>> shardOf(int index) const;

  /// The padded `[batch, L]` placeholder standing for the SparseTensor whose
  /// values placeholder is node `values`; null before it is made.
  mlir::Value sparseInput(int values) const {
    return sparseInputs.lookup(values);
  }
  void recordSparseInput(int values, mlir::Value padded) {
    sparseInputs[values] = padded;
  }
  /// L of the padded placeholder of SparseTensor input `input`: its own if
  /// given, else the default; 0 where none was given. Records that `input`
  /// was asked for.
  int64_t maxIdsOf(llvm::StringRef input) {
    sparseInputNames.insert(input);
    auto own = maxIdsPerInput.find(input.str());
    return own != maxIdsPerInput.end() ? own->second : maxIds;
  }
  void setMaxIds(int64_t ids, std::map<std::string, int64_t> perInput) {
    maxIds = ids;
    maxIdsPerInput = std::move(perInput);
  }
  /// Whether `input` is a SparseTensor input the import met.
  bool isSparseInput(llvm::StringRef input) const {
    return sparseInputNames.contains(input);
  }

private:
  /// Translates node `index` with its op's translator: one value per output
  /// of the node, null for the outputs DTF does not import. A node of an op
  /// without a translator is recorded by recordUnsupportedOp, and its inputs
  /// are translated for the unsupported ops they use.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> translate(int index);

  const tensorflow::GraphDef &graph;
  std::string filename;
  std::vector<mlir::Location> nodeLocations;
  mlir::MLIRContext *context;
  mlir::OpBuilder builder;

  llvm::StringMap<int> byName;
  /// The values of each translated node, by output.
  llvm::DenseMap<int, llvm::SmallVector<mlir::Value>> results;
  /// The nodes whose translation failed, which the import goes on past (to
  /// list every unsupported op) and must not translate again: each of their
  /// users would, as often as paths lead to them.
  std::set<int> untranslatable;
  std::set<int> unsupportedOpNodes;
  llvm::DenseMap<int, ir::VariableOp> variables;
  llvm::DenseMap<int, std::pair<ir::VariableOp, int>> shards;
  llvm::DenseMap<int, mlir::Value> sparseInputs;
  int64_t maxIds = 0;
  std::map<std::string, int64_t> maxIdsPerInput;
  llvm::StringSet<> sparseInputNames;
  /// The nodes on the path the import follows, to find cycles.
  std::set<int> path;
};

} // namespace dtf::translate::graphdef
