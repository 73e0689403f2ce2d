//===- WarmStart.cpp - A PS task's variables from another job's checkpoint ===//

#include "runtime/train/WarmStart.h"

#include "runtime/train/Tasks.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "runtime/exec/OpKernels.h"
#include "runtime/exec/PsProgram.h"

#include <iostream>

namespace dtf::train {

namespace {

/// "name" and K of a shard's name "name/part_K".
std::optional<std::pair<std::string, int64_t>> shardOf(llvm::StringRef name) {
  size_t slash = name.rfind("/part_");
  int64_t shard = 0;
  if (slash == llvm::StringRef::npos ||
      name.substr(slash + 6).getAsInteger(10, shard))
    return std::nullopt;
  return std::make_pair(name.substr(0, slash).str(), shard);
}

bool isPsFunction(mlir::func::FuncOp function) {
  return function.getName().starts_with("ps_");
}

checkpoint::TensorType typeOf(mlir::RankedTensorType type) {
  Shape shape;
  for (int64_t dim : type.getShape())
    shape.push_back(mlir::ShapedType::isDynamic(dim) ? -1 : dim);
  return {exec::toDType(type.getElementType(), {}), shape};
}

} // namespace

std::set<std::string> interleavedVariablesOf(mlir::ModuleOp program) {
  std::set<std::string> interleaved;
  auto add = [&](llvm::StringRef name) {
    if (auto shard = shardOf(name))
      interleaved.insert(shard->first);
  };
  // A mod shard's lookups, row pulls and sparse updates say so: the shard
  // by name (a row pull), or its variables as operands (an update of the
  // table and its slots).
  program.walk([&](mlir::Operation *op) {
    bool modulo = false;
    for (mlir::NamedAttribute attribute : op->getAttrs())
      if (auto shard = llvm::dyn_cast<ir::RowShardAttr>(attribute.getValue()))
        modulo |= shard.getStrategy() == ir::PartitionStrategy::Mod;
    if (!modulo)
      return;
    if (auto pull = llvm::dyn_cast<ir::PullRowsOp>(op))
      add(pull.getName());
    for (mlir::Value operand : op->getOperands())
      if (auto variable = operand.getDefiningOp<ir::VariableOp>())
        add(variable.getName());
  });
  // A slot of such a table (`table/Adagrad/part_K`) is sharded as the
  // table is, also where its update does not say so.
  std::set<std::string> slots;
  program.walk([&](ir::VariableOp variable) {
    auto shard = shardOf(variable.getName());
    if (!shard)
      return;
    for (const std::string &table : interleaved)
      if (llvm::StringRef(shard->first).starts_with(table + "/"))
        slots.insert(shard->first);
  });
  interleaved.insert(slots.begin(), slots.end());
  return interleaved;
}

std::vector<checkpoint::VariablePart> variablePartsOf(mlir::ModuleOp program) {
  // Every variable of every PS task once, by name.
  std::map<std::string, checkpoint::TensorType> declared;
  for (auto function : program.getOps<mlir::func::FuncOp>())
    if (isPsFunction(function))
      function.walk([&](ir::VariableOp variable) {
        declared.emplace(variable.getName().str(),
                         typeOf(variable.getValueType()));
      });
  // Shards part_0 .. part_{N-1} of one variable, as --dtf-place-variables
  // names them.
  std::map<std::string, std::map<int64_t, std::string>> shards;
  for (const auto &[name, type] : declared)
    if (auto shard = shardOf(name))
      shards[shard->first][shard->second] = name;
  std::set<std::string> interleaved = interleavedVariablesOf(program);
  std::vector<checkpoint::VariablePart> parts;
  std::set<std::string> sharded;
  for (const auto &[variable, members] : shards) {
    auto count = static_cast<int64_t>(members.size());
    if (count < 2 || declared.count(variable) ||
        members.rbegin()->first != count - 1)
      continue;
    checkpoint::TensorType whole = declared.at(members.at(0));
    whole.shape.at(0) = 0;
    for (const auto &[index, name] : members)
      whole.shape[0] += declared.at(name).shape.at(0);
    bool modulo = interleaved.count(variable) > 0;
    int64_t first = 0;
    for (const auto &[index, name] : members) {
      int64_t rows = declared.at(name).shape[0];
      checkpoint::RowSelection selection =
          modulo ? checkpoint::RowSelection{index, rows, count}
                 : checkpoint::RowSelection{first, rows, 1};
      parts.push_back({name, variable, whole, selection, count});
      first += rows;
      sharded.insert(name);
    }
  }
  for (const auto &[name, type] : declared)
    if (!sharded.count(name))
      parts.push_back({name, name, type, {}});
  return parts;
}

std::vector<checkpoint::VariablePart>
variablePartsHeldBy(mlir::ModuleOp program, mlir::func::FuncOp function) {
  std::set<std::string> own;
  function.walk(
      [&](ir::VariableOp variable) { own.insert(variable.getName().str()); });
  std::vector<checkpoint::VariablePart> held;
  for (checkpoint::VariablePart &part : variablePartsOf(program))
    if (own.count(part.name))
      held.push_back(std::move(part));
  return held;
}

std::set<std::string> variablesHeldBefore(mlir::ModuleOp program,
                                          mlir::func::FuncOp function) {
  std::set<std::string> held;
  for (int index = 0;; ++index) {
    auto earlier =
        program.lookupSymbol<mlir::func::FuncOp>("ps_" + std::to_string(index));
    if (!earlier || earlier == function)
      return held;
    earlier.walk([&](ir::VariableOp variable) {
      held.insert(variable.getName().str());
    });
  }
}

bool warmStartApplies(const ReliabilityOptions &options) {
  return !options.initFromCheckpoint.empty() &&
         (options.logdir.empty() ||
          !checkpoint::holdsCheckpoint(options.logdir));
}

WarmStartPlan
planWarmStart(mlir::ModuleOp program, const ReliabilityOptions &options,
              const std::function<void(const std::string &)> &warn) {
  std::vector<checkpoint::Assignment> map =
      checkpoint::parseAssignmentMap(options.initAssignmentMap);
  std::vector<checkpoint::VariablePart> parts = variablePartsOf(program);
  std::map<std::string, checkpoint::TensorType> graph;
  for (const checkpoint::VariablePart &part : parts)
    graph.emplace(part.variable, part.variableType);
  checkpoint::WarmStartCheckpoint source =
      checkpoint::WarmStartCheckpoint::open(
          options.initFromCheckpoint, interleavedVariablesOf(program), warn);
  std::map<std::string, std::string> assignments =
      checkpoint::matchAssignmentMap(map, graph, source.tensors(),
                                     options.initFromCheckpoint,
                                     ps::Options().globalStepName);
  for (const auto &[variable, tensor] : assignments)
    if (!graph.at(variable).shape.empty() && graph.at(variable).shape[0] < 0)
      throw std::invalid_argument(
          "--init_assignment_map: variable '" + variable +
          "' is a dynamic table, whose rows no other job's checkpoint "
          "holds by the same ids: leave it out of the map (its rows start "
          "from its initializer)");
  return {std::move(source), std::move(assignments), std::move(parts)};
}

ps::ModelState warmStartState(const WarmStartPlan &plan,
                              mlir::func::FuncOp function,
                              const std::string &globalStepName,
                              std::string &described) {
  std::set<std::string> own;
  function.walk(
      [&](ir::VariableOp variable) { own.insert(variable.getName().str()); });
  std::vector<checkpoint::VariablePart> parts;
  for (const checkpoint::VariablePart &part : plan.parts)
    if (own.count(part.name))
      parts.push_back(part);
  ps::ModelState state;
  state.values =
      checkpoint::readAssigned(plan.checkpoint, plan.assignments, parts);
  size_t fromCheckpoint = state.values.size();
  exec::PsProgram initializers(function, executorOptionsFor(-1));
  initializers.initialize(state.values);
  // A dynamic table the map leaves out starts without rows.
  for (const ps::DynamicTableSignature &table :
       initializers.signature().dynamicTables)
    state.values.try_emplace(table.name + "/ids", DType::I64, Shape{0});
  // Every task starts at the global step, also those that do not hold it.
  auto step = plan.assignments.find(globalStepName);
  if (step != plan.assignments.end())
    state.step = static_cast<int64_t>(
        plan.checkpoint.read(step->second, {}).scalarAsDouble());
  described = std::to_string(fromCheckpoint) + " of its " +
              std::to_string(own.size()) + " variables from " +
              plan.checkpoint.format() + " " + plan.checkpoint.path() +
              ", the others from their initializers (global step " +
              std::to_string(state.step) + ")";
  return state;
}

WarmStartLoader warmStartLoaderFor(mlir::ModuleOp program,
                                   mlir::func::FuncOp function,
                                   const ReliabilityOptions &options,
                                   const std::string &globalStepName,
                                   const std::string &taskLabel,
                                   std::ostream &log) {
  if (options.initFromCheckpoint.empty())
    return nullptr;
  return [program, function, &options, globalStepName, taskLabel, &log] {
    WarmStartPlan plan =
        planWarmStart(program, options, [&](const std::string &warning) {
          log << taskLabel << ": warning: " << warning << std::endl;
        });
    std::string described;
    ps::ModelState state =
        warmStartState(plan, function, globalStepName, described);
    log << taskLabel << ": warm start: " << described << std::endl;
    return state;
  };
}

} // namespace dtf::train
