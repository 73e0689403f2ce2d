//===- PsProgram.cpp - A PS function as a PS task's update program --------===//

#include "runtime/exec/PsProgram.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "runtime/core/Initializers.h"

#include <stdexcept>

namespace dtf::exec {

PsProgram::PsProgram(mlir::func::FuncOp function,
                     ExecutorOptions executorOptions)
    : function(function), executorOptions(std::move(executorOptions)) {
  if (auto device = function->getAttrOfType<dtf::ir::DeviceAttr>(
          dtf::ir::DTFDialect::getDeviceAttrName()))
    signature_.taskName = device.getName();
  else
    signature_.taskName = "@" + function.getSymName().str();
  std::string prefix = "PS task " + signature_.taskName + ": ";

  const EvalOptions evalOptions;
  // A dynamic dimension (the number of ids of a sparse gradient) is -1.
  auto typeOf = [&](mlir::Type type) {
    auto ranked = mlir::cast<mlir::RankedTensorType>(type);
    Shape shape;
    for (int64_t dim : ranked.getShape())
      shape.push_back(mlir::ShapedType::isDynamic(dim) ? -1 : dim);
    return ps::TensorType{toDType(ranked.getElementType(), evalOptions), shape};
  };
  try {
    function.walk([&](dtf::ir::VariableOp variable) {
      signature_.variables[variable.getName().str()] =
          typeOf(variable.getValueType());
      if (dtf::ir::DynamicTableAttr table = variable.getDynamicTable())
        signature_.dynamicTables.push_back({variable.getName().str(),
                                            {},
                                            table.getMinCount(),
                                            typeOf(variable.getValueType())});
    });
  } catch (const EvalError &error) {
    throw std::invalid_argument(prefix + error.what());
  }
  // A dynamic table's slots: the variables colocated with it of its `?`
  // type, which follow its rows.
  function.walk([&](dtf::ir::VariableOp variable) {
    std::string name = variable.getName().str();
    std::optional<llvm::StringRef> target = variable.getColocateWith();
    for (ps::DynamicTableSignature &table : signature_.dynamicTables) {
      if (name == table.name) {
        dynamicVariables.emplace(name, variable);
        continue;
      }
      if (!target || *target != table.name)
        continue;
      if (signature_.variables.at(name) != table.type)
        throw std::invalid_argument(
            prefix + "'" + name + "' is colocated with dynamic table '" +
            table.name + "' but is " + signature_.variables.at(name).str() +
            ", not the table's " + table.type.str() +
            " (a dynamic table's slots follow its rows)");
      table.slots.push_back(name);
      dynamicVariables.emplace(name, variable);
    }
  });
  // dtf.gradients: absent when the task holds no trainable variable.
  if (auto names = function->getAttrOfType<mlir::ArrayAttr>("dtf.gradients")) {
    for (mlir::Attribute name : names) {
      auto string = mlir::dyn_cast<mlir::StringAttr>(name);
      if (!string)
        throw std::invalid_argument(prefix +
                                    "dtf.gradients must list variable names");
      signature_.gradientNames.push_back(string.str());
    }
  }
  if (auto names = function->getAttrOfType<mlir::ArrayAttr>(
          dtf::ir::DTFDialect::getSparseGradientsAttrName())) {
    for (mlir::Attribute name : names) {
      auto string = mlir::dyn_cast<mlir::StringAttr>(name);
      if (!string)
        throw std::invalid_argument(
            prefix + "dtf.sparse_gradients must list variable names");
      signature_.sparseGradientNames.push_back(string.str());
    }
  }
  mlir::FunctionType type = function.getFunctionType();
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    try {
      signature_.argumentTypes.push_back(typeOf(type.getInput(i)));
    } catch (const std::exception &error) {
      throw std::invalid_argument(prefix + "argument " + std::to_string(i) +
                                  ": " + error.what());
    }
  }
}

void PsProgram::initialize(VariableStore &values) {
  // A dynamic table and its slots start without rows; the task creates
  // them (initializeRows) as pushes bring their ids.
  for (const auto &[name, variable] : dynamicVariables) {
    const ps::TensorType &type = signature_.variables.at(name);
    Shape empty = type.shape;
    empty[0] = 0;
    values.try_emplace(name, Tensor(type.dtype, empty));
  }
  initializeVariables(function, values, EvalOptions());
}

Tensor PsProgram::initializeRows(const std::string &name,
                                 const Tensor &ids) const {
  auto found = dynamicVariables.find(name);
  if (found == dynamicVariables.end())
    throw std::invalid_argument("PS task " + signature_.taskName + ": '" +
                                name + "' is no dynamic table or slot of it");
  dtf::ir::VariableOp variable = found->second;
  const ps::TensorType &type = signature_.variables.at(name);
  Shape shape = type.shape;
  shape[0] = ids.numElements();
  Tensor rows(type.dtype, shape);
  mlir::Attribute init = variable.getInitializer();
  if (mlir::isa<dtf::ir::ZerosInitAttr>(init))
    initializers::zeros(rows);
  else if (auto constant = mlir::dyn_cast<dtf::ir::ConstantInitAttr>(init))
    initializers::constant(rows, constant.getValue().convertToDouble());
  else if (auto normal = mlir::dyn_cast<dtf::ir::TruncatedNormalInitAttr>(init))
    initializers::truncated_normal_rows(
        rows, ids, normal.getMean().convertToDouble(),
        normal.getStddev().convertToDouble(), normal.getSeed());
  else if (auto normal = mlir::dyn_cast<dtf::ir::RandomNormalInitAttr>(init))
    initializers::random_normal_rows(
        rows, ids, normal.getMean().convertToDouble(),
        normal.getStddev().convertToDouble(), normal.getSeed());
  else if (auto uniform = mlir::dyn_cast<dtf::ir::RandomUniformInitAttr>(init))
    initializers::random_uniform_rows(
        rows, ids, uniform.getMinval().convertToDouble(),
        uniform.getMaxval().convertToDouble(), uniform.getSeed());
  else
    throw std::invalid_argument("PS task " + signature_.taskName + ": '" +
                                name +
                                "' has an initializer without a row "
                                "form");
  return rows;
}

PsProgram::~PsProgram() = default;

void PsProgram::apply(VariableStore &values, std::vector<Tensor> arguments,
                      const ps::UpdateContext &context) {
  // Each step of the Executor looks its variables up in `values` when it
  // starts, so the rows of a dynamic table the task put there for this
  // update are the ones it runs on, whatever the table's size.
  if (executorStore != &values) {
    executor = std::make_unique<Executor>(function, values, executorOptions);
    executorStore = &values;
  }
  RunOptions options;
  options.globalStep = context.globalStep;
  options.stalenessLearningRateScale = context.stalenessLearningRateScale;
  executor->run(/*feeds=*/{}, std::move(arguments), options);
}

} // namespace dtf::exec
