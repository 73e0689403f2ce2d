//===- GraphDefImport.cpp - A TF1 GraphDef as a dtf module ----------------===//
//
// The import walks back from the loss and the requested outputs, so only the
// forward graph is translated: whatever the training machinery of the graph
// holds (gradients, slots, initializer assignments, summaries) is never
// reached. Constants are materialized only where an op takes them as a
// tensor; where a dtf op takes an attribute (axes, shapes, clip bounds,
// optimizer hyper-parameters) the Const is read instead.
//
// This file is the driver: it parses the GraphDef, finds the roots, and
// builds the module around what its parts make of the graph: the training
// machinery (TrainingGraph.h), the forward ops (OpTranslators.h, with the
// shapes of ShapeFolding.h), and what they share (ImportContext.h).
//
//===----------------------------------------------------------------------===//

#include "translate/graphdef/GraphDefImport.h"

#include "translate/graphdef/ImportContext.h"
#include "translate/graphdef/OpTranslators.h"
#include "translate/graphdef/TrainingGraph.h"

#include "dialects/dtf/IR/DTFDialect.h"
#include "dialects/dtf/IR/DTFOps.h"

#include "graph.pb.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace mlir;
using namespace dtf::ir;
using namespace dtf::translate::graphdef;

namespace dtf::translate {
namespace {

/// Collects the first error of a text-format parse.
class FirstError : public google::protobuf::io::ErrorCollector {
public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string &message) override {
    if (!error)
      error = {line, column, message};
  }
  struct Error {
    int line;
    int column;
    std::string message;
  };
  std::optional<Error> error;
};

/// Adds to `needed` the nodes whose values `root` is computed from.
LogicalResult collectNeeded(ImportContext &import, int root,
                            std::set<int> &needed) {
  std::vector<int> stack = {root};
  while (!stack.empty()) {
    int index = stack.back();
    stack.pop_back();
    if (!needed.insert(index).second)
      continue;
    // A variable's reads reach it; its initializer is an attribute.
    if (isVariableOp(import.node(index).op()))
      continue;
    for (const std::string &input : import.node(index).input()) {
      InputRef ref = parseInput(input);
      if (ref.control)
        continue;
      FailureOr<int> source = import.lookup(index, ref.node);
      if (failed(source))
        return failure();
      stack.push_back(*source);
    }
  }
  return success();
}

/// The error of a graph whose import meets ops dtf-translate does not import
/// (ImportContext::recordUnsupportedOp): each op, the most used first, with
/// how many nodes use it and which, the first few in the graph's order. The
/// error of one node points at its line, as any error about a node.
void reportUnsupportedOps(const ImportContext &import) {
  const std::set<int> &nodes = import.getUnsupportedOpNodes();
  std::map<std::string, SmallVector<int>> nodesByOp;
  for (int index : nodes)
    nodesByOp[import.node(index).op()].push_back(index);
  // Ops as many nodes use stay in the map's order, by name.
  SmallVector<std::pair<std::string, SmallVector<int>>> ops(nodesByOp.begin(),
                                                            nodesByOp.end());
  llvm::stable_sort(ops, [](const auto &a, const auto &b) {
    return a.second.size() > b.second.size();
  });
  InFlightDiagnostic error =
      emitError(nodes.size() == 1 ? import.locationOf(*nodes.begin())
                                  : import.fileLocation());
  error << nodes.size() << (nodes.size() == 1 ? " node uses " : " nodes use ")
        << ops.size() << (ops.size() == 1 ? " op" : " ops")
        << " dtf-translate does not import: ";
  // Enough names to find the nodes by; a line, not a listing of the graph.
  constexpr size_t maxNames = 4;
  llvm::interleave(
      ops,
      [&](const auto &op) {
        ArrayRef<int> users = op.second;
        size_t shown = users.size() <= maxNames ? users.size() : maxNames - 1;
        error << "'" << op.first << "' (" << users.size() << ": ";
        for (auto [position, index] : llvm::enumerate(users.take_front(shown)))
          error << (position ? ", '" : "'") << import.node(index).name() << "'";
        if (shown < users.size())
          error << " and " << users.size() - shown << " more";
        error << ")";
      },
      [&] { error << ", "; });
}

/// The module's dtf.cluster: the tasks the graph's devices name.
LogicalResult declareCluster(ImportContext &import, ModuleOp module,
                             const std::set<int> &needed) {
  OpBuilder &builder = import.getBuilder();
  // As many tasks of each job as the graph's devices name (at least one),
  // on loopback ports; dtf-run replaces them with its own cluster.
  int tasks[2] = {1, 1};
  for (int index : needed) {
    bool failed = false;
    std::optional<DeviceAttr> device = import.deviceOf(index, failed);
    if (failed)
      return failure();
    if (device) {
      int &count = tasks[device->getJob() == "ps" ? 0 : 1];
      count = std::max(count, int(device->getTask()) + 1);
    }
  }
  SmallVector<Attribute> ps, workers;
  for (int task = 0; task < tasks[0]; ++task)
    ps.push_back(
        builder.getStringAttr("localhost:" + std::to_string(2222 + task)));
  for (int task = 0; task < tasks[1]; ++task)
    workers.push_back(builder.getStringAttr(
        "localhost:" + std::to_string(2222 + tasks[0] + task)));
  module->setAttr(DTFDialect::getClusterAttrName(),
                  ClusterAttr::get(import.getContext(),
                                   builder.getArrayAttr(ps),
                                   builder.getArrayAttr(workers)));
  return success();
}

/// The module of the graph `import` holds: one function, @main, that
/// returns the loss (minimized with the graph's optimizer) and `options`'
/// outputs.
OwningOpRef<ModuleOp> importGraph(ImportContext &import,
                                  const GraphDefImportOptions &options) {
  if (failed(import.indexNodeNames()))
    return nullptr;
  if (import.nodeCount() == 0) {
    import.failAtFile() << "the GraphDef has no nodes";
    return nullptr;
  }
  FailureOr<TrainingGraph> training = recognizeTraining(import);
  if (failed(training))
    return nullptr;

  // The function's results: the loss, then the requested outputs.
  SmallVector<std::pair<int, int>> roots;
  if (training->lossNode)
    roots.push_back({*training->lossNode, training->lossOutput});
  // The AUC's predictions and labels come last.
  size_t aucFirst = roots.size() + options.outputs.size();
  SmallVector<std::string> outputs(options.outputs.begin(),
                                   options.outputs.end());
  outputs.append(options.auc.begin(), options.auc.end());
  for (const std::string &output : outputs) {
    InputRef ref = parseInput(output);
    std::optional<int> node = import.findNode(ref.node);
    if (!node) {
      import.failAtFile() << "--outputs: no node '" << ref.node
                          << "' in the graph";
      return nullptr;
    }
    roots.push_back({*node, ref.output});
  }
  if (roots.empty()) {
    import.failAtFile() << "the graph has no optimizer update to take a loss "
                           "from; name the values to import with --outputs";
    return nullptr;
  }
  std::set<int> needed;
  for (auto [root, output] : roots)
    if (failed(collectNeeded(import, root, needed)))
      return nullptr;
  if (training->globalStep)
    needed.insert(*training->globalStep);
  for (const MovingAverageUpdate &update : training->movingAverages) {
    if (failed(collectNeeded(import, update.value, needed)))
      return nullptr;
    needed.insert(update.variable);
  }

  Location fileLoc = import.fileLocation();
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  if (failed(declareCluster(import, *module, needed)))
    return nullptr;
  OpBuilder &builder = import.getBuilder();
  builder.setInsertionPointToEnd(module->getBody());
  auto function = builder.create<func::FuncOp>(fileLoc, "main",
                                               builder.getFunctionType({}, {}));
  builder.setInsertionPointToEnd(function.addEntryBlock());
  // Variables first, in the graph's order: the order in which the script
  // created them, which round-robin placement follows.
  for (int index : needed)
    if (isVariableOp(import.node(index).op()) &&
        failed(declareVariable(import, *training, index)))
      return nullptr;
  // Every root is translated, though one fails: the ops DTF does not import
  // are all listed in one error, wherever the roots reach them.
  SmallVector<Value> returned;
  bool translated = true;
  for (auto [root, output] : roots) {
    FailureOr<Value> result = import.resolve(root, output);
    if (succeeded(result))
      returned.push_back(*result);
    translated &= succeeded(result);
  }
  if (!translated)
    return nullptr;
  if (training->lossNode) {
    Value step;
    if (training->globalStep)
      step = import.variable(*training->globalStep).getHandle();
    FloatAttr clipNorm;
    if (training->clipByGlobalNorm)
      clipNorm = builder.getF64FloatAttr(*training->clipByGlobalNorm);
    builder.create<MinimizeOp>(import.locationOf(*training->lossNode),
                               returned.front(), training->optimizer, step,
                               clipNorm);
  }
  // The train op's moving averages, after the update it depends on them
  // for: each is a separate update of its own variable.
  for (const MovingAverageUpdate &update : training->movingAverages) {
    VariableOp variable = import.variable(update.variable);
    if (!variable) {
      import.fail(update.assign)
          << "updates a shard of a partitioned variable; DTF imports the "
             "moving average of a whole variable";
      return nullptr;
    }
    FailureOr<Value> value = import.resolve(update.value, update.valueOutput);
    if (failed(value))
      return nullptr;
    auto average = builder.create<AssignMovingAverageOp>(
        import.locationOf(update.assign), variable.getHandle(), *value,
        builder.getF64FloatAttr(update.decay));
    if (failed(verify(average)) || failed(import.pin(average, update.assign)))
      return nullptr;
  }
  builder.create<func::ReturnOp>(fileLoc, returned);
  // The results' names, as validation reports them: "loss", then each
  // output's node ("node:K" as "node_K"), a name taken twice suffixed.
  SmallVector<Attribute> names;
  std::set<std::string> taken;
  auto name = [&](const std::string &wanted) {
    std::string unique = wanted;
    for (int k = 1; !taken.insert(unique).second; ++k)
      unique = wanted + "_" + std::to_string(k);
    names.push_back(builder.getStringAttr(unique));
  };
  if (training->lossNode)
    name("loss");
  for (const std::string &output : outputs) {
    InputRef ref = parseInput(output);
    name(ref.output == 0 ? ref.node
                         : ref.node + "_" + std::to_string(ref.output));
  }
  function->setAttr(DTFDialect::getResultNamesAttrName(),
                    builder.getArrayAttr(names));
  if (!options.auc.empty())
    function->setAttr(DTFDialect::getAucAttrName(),
                      builder.getDenseI64ArrayAttr(
                          {int64_t(aucFirst), int64_t(aucFirst + 1)}));
  function.setFunctionType(
      builder.getFunctionType({}, ValueRange(returned).getTypes()));
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

} // namespace

OwningOpRef<ModuleOp> importGraphDef(StringRef bytes, StringRef filename,
                                     MLIRContext *context,
                                     const GraphDefImportOptions &options) {
  context->loadDialect<DTFDialect, func::FuncDialect>();
  tensorflow::GraphDef graph;
  std::vector<Location> locations;
  Location fileLoc = FileLineColLoc::get(context, filename, 0, 0);
  if (filename.ends_with(".pbtxt")) {
    google::protobuf::TextFormat::Parser parser;
    FirstError errors;
    google::protobuf::TextFormat::ParseInfoTree tree;
    parser.RecordErrorsTo(&errors);
    parser.WriteLocationsTo(&tree);
    // Fields of newer TensorFlow versions (debug info, a function library)
    // are not DTF's business.
    parser.AllowUnknownField(true);
    if (!parser.ParseFromString(std::string(bytes), &graph)) {
      int line = errors.error ? errors.error->line + 1 : 0;
      int column = errors.error ? errors.error->column + 1 : 0;
      emitError(FileLineColLoc::get(context, filename, line, column))
          << "malformed text GraphDef: "
          << (errors.error ? errors.error->message : "cannot parse");
      return nullptr;
    }
    const auto *nodeField =
        tensorflow::GraphDef::descriptor()->FindFieldByName("node");
    for (int index = 0; index < graph.node_size(); ++index) {
      auto at = tree.GetLocation(nodeField, index);
      locations.push_back(NameLoc::get(
          StringAttr::get(context, graph.node(index).name()),
          FileLineColLoc::get(context, filename, at.line + 1, at.column + 1)));
    }
  } else {
    if (!graph.ParseFromArray(bytes.data(), int(bytes.size()))) {
      emitError(fileLoc) << "not a binary GraphDef (truncated or malformed "
                            "protobuf; a text GraphDef must be named "
                            "*.pbtxt)";
      return nullptr;
    }
    for (int index = 0; index < graph.node_size(); ++index)
      locations.push_back(NameLoc::get(
          StringAttr::get(context, graph.node(index).name()), fileLoc));
  }
  ImportContext import(graph, filename, std::move(locations), context);
  import.setMaxIds(options.maxIdsPerExample, options.maxIdsPerInput);
  OwningOpRef<ModuleOp> module;
  // One error: the first one names the node at fault, and what follows
  // from it would only repeat it. It is held until the import ends: where
  // the graph uses ops DTF does not import, the list of them all is the
  // error instead.
  std::optional<Diagnostic> firstError;
  {
    ScopedDiagnosticHandler holdFirstError(context, [&](Diagnostic &error) {
      if (error.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      if (!firstError)
        firstError.emplace(std::move(error));
      return success();
    });
    module = importGraph(import, options);
    // An L given for an input the graph does not have is a typo, which
    // would otherwise leave that input at the default.
    if (module)
      for (const auto &[input, ids] : options.maxIdsPerInput)
        if (!import.isSparseInput(input)) {
          import.failAtFile() << "--max-ids-per-example names '" << input
                              << "', which is no SparseTensor input of the "
                                 "graph";
          module = nullptr;
          break;
        }
  }
  // Ahead of the module and of the first error: the update of an optimizer
  // DTF does not recognize is recorded without an error, and the rest of
  // the graph may import.
  if (!import.getUnsupportedOpNodes().empty()) {
    reportUnsupportedOps(import);
    return nullptr;
  }
  if (firstError)
    context->getDiagEngine().emit(std::move(*firstError));
  return module;
}

void printImportedOps(llvm::raw_ostream &os) {
  os << "# The TensorFlow ops dtf-translate imports\n\n"
        "_Generated by `dtf-translate --list-graphdef-ops > docs/tf-ops.md` "
        "from the\n"
        "importer's tables (translate/graphdef/OpTranslators.cpp, "
        "TrainingGraph.cpp);\n"
        "test/Translate/supported-ops-doc.mlir checks that it is current._\n\n"
        "`dtf-translate --import-graphdef` translates the forward graph, "
        "from the loss\n"
        "and the requested outputs back to the placeholders and variables; "
        "each node it\n"
        "translates is of one of the ops below. What else a TF1 graph holds "
        "is read,\n"
        "not translated: the inside of "
        "tf.nn.sigmoid_cross_entropy_with_logits, of the\n"
        "embedding lookups and of the shapes a Reshape folds, the "
        "initializers, the\n"
        "gradients and the optimizer's slots. A graph whose forward graph "
        "uses another\n"
        "op fails to import with one error that names each such op, how "
        "many nodes use\n"
        "it and which.\n";
  graphdef::printOpTranslatorTable(os);
  os << "\n## Optimizer updates\n\n"
        "Recognized, not translated: they name the trainable variables and "
        "the\n"
        "optimizer of `dtf.minimize`, with its hyper-parameters. A graph "
        "with the\n"
        "update of another optimizer fails to import.\n\n"
        "| TensorFlow op |\n| --- |\n";
  for (StringRef op : graphdef::recognizedApplyOps())
    os << "| `" << op << "` |\n";
  os << "\n## Update ops\n\n"
        "The updates a train op runs through control dependencies, as\n"
        "`tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS))`"
        "\nmakes them: an `AssignSub` (or `AssignSubVariableOp`) of\n"
        "`assign_moving_average`'s form, `v -= (v - value) * (1 - decay)` "
        "with a\nconstant decay (batch normalization's moving mean and "
        "variance, whose\n`1 - momentum` is a `tf.cond` on the training "
        "flag), becomes a\n`dtf.assign_moving_average` after the "
        "`dtf.minimize`; the worker pushes the\nvalue, and the variable's "
        "PS task updates it. Another assignment among them\nfails the "
        "import, naming it.\n";
}

} // namespace dtf::translate
