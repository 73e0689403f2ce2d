//===- PsProgram.cpp - A PS function as a PS task's update program --------===//

#include "runtime/exec/PsProgram.h"

#include "dialects/dtf/IR/DTFOps.h"

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
    });
  } catch (const EvalError &error) {
    throw std::invalid_argument(prefix + error.what());
  }
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
  initializeVariables(function, values, EvalOptions());
}

PsProgram::~PsProgram() = default;

void PsProgram::apply(VariableStore &values, std::vector<Tensor> arguments) {
  if (executorStore != &values) {
    executor = std::make_unique<Executor>(function, values, executorOptions);
    executorStore = &values;
  }
  executor->run(/*feeds=*/{}, std::move(arguments));
}

} // namespace dtf::exec
