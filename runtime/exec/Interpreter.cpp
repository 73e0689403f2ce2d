//===- Interpreter.cpp - Reference evaluation of dtf functions ------------===//

#include "runtime/exec/Interpreter.h"

#include "runtime/core/Denormals.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;

namespace dtf::exec {

std::vector<Tensor> Interpreter::run(func::FuncOp function,
                                     const FeedMap &feeds,
                                     std::vector<Tensor> arguments) {
  evaluate(function, feeds, std::move(arguments), /*needed=*/nullptr);
  values.clear();
  return std::move(results);
}

std::vector<Tensor> Interpreter::runAndFetch(func::FuncOp function,
                                             const FeedMap &feeds,
                                             ArrayRef<Value> fetches) {
  // As Session.run does, evaluate only the ops the fetches depend on.
  llvm::DenseSet<Operation *> needed;
  SmallVector<Value> worklist(fetches);
  while (!worklist.empty()) {
    Operation *producer = worklist.pop_back_val().getDefiningOp();
    if (producer && needed.insert(producer).second)
      llvm::append_range(worklist, producer->getOperands());
  }
  evaluate(function, feeds, /*arguments=*/{}, &needed);
  std::vector<Tensor> fetched;
  for (Value fetch : fetches)
    fetched.push_back(lookup(fetch).clone());
  values.clear();
  results.clear();
  return fetched;
}

void Interpreter::evaluate(func::FuncOp function, const FeedMap &feeds,
                           std::vector<Tensor> arguments,
                           const llvm::DenseSet<Operation *> *needed) {
  // As the Executor computes, so that the two agree bit for bit.
  ScopedFlushDenormals flushDenormals;
  values.clear();
  results.clear();
  if (!function.getBody().hasOneBlock())
    throw EvalError(describeOp(function) + " must have a single block");
  Block &body = function.getBody().front();
  if (!needed && arguments.size() != body.getNumArguments())
    throw EvalError(describeOp(function) + " takes " +
                    std::to_string(body.getNumArguments()) +
                    " arguments, got " + std::to_string(arguments.size()));
  for (auto [argument, tensor] : llvm::zip(body.getArguments(), arguments)) {
    checkTensorType(function,
                    "argument #" + std::to_string(argument.getArgNumber()),
                    argument.getType(), tensor, options);
    values[argument] = std::move(tensor);
  }
  for (Operation &op : body) {
    if (needed && !needed->contains(&op))
      continue;
    evaluateOp(&op, feeds);
  }
}

const Tensor &Interpreter::lookup(Value value) const {
  auto it = values.find(value);
  if (it == values.end()) {
    Operation *owner = value.getDefiningOp();
    throw EvalError(owner ? describeOp(owner) + " result was not computed"
                          : "function arguments cannot be evaluated");
  }
  return it->second;
}

void Interpreter::evaluateOp(Operation *op, const FeedMap &feeds) {
  SmallVector<const Tensor *> operands;
  for (Value operand : op->getOperands())
    operands.push_back(isResource(operand) ? nullptr : &lookup(operand));

  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    for (const Tensor *operand : operands)
      results.push_back(operand->clone());
    return;
  }

  KernelContext context{options, feeds,
                        [&](Value handle) -> Tensor & {
                          return lookupVariable(variables, handle);
                        },
                        training, globalStep};
  std::vector<Tensor> produced =
      ::dtf::exec::evaluateOp(op, operands, context);
  for (auto [result, tensor] : llvm::zip(op->getResults(), produced))
    values[result] = std::move(tensor);
}

} // namespace dtf::exec
