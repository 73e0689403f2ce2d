//===- Interpreter.cpp - Reference evaluation of dtf functions ------------===//

#include "runtime/exec/Interpreter.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "dtf/runtime/Initializers.h"
#include "dtf/runtime/Kernels.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
// The dialect lives in mlir::dtf, the runtime in ::dtf.
namespace ir = mlir::dtf;
using ::dtf::DType;
using ::dtf::Shape;
using ::dtf::Tensor;
namespace kernels = ::dtf::kernels;
namespace initializers = ::dtf::initializers;

namespace dtf::exec {

/// "loc: 'dtf.op' ..." prefix for errors about `op`.
static std::string describe(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getLoc() << ": '" << op->getName() << "'";
  return os.str();
}

[[noreturn]] static void fail(Operation *op, const std::string &message) {
  throw EvalError(describe(op) + " " + message);
}

DType toDType(Type elementType, const EvalOptions &options) {
  if (elementType.isF32())
    return options.promoteToF64 ? DType::F64 : DType::F32;
  if (elementType.isF64())
    return DType::F64;
  if (elementType.isInteger(1))
    return DType::Bool;
  if (elementType.isInteger(32))
    return DType::I32;
  if (elementType.isInteger(64))
    return DType::I64;
  std::string text;
  llvm::raw_string_ostream(text) << elementType;
  throw EvalError("unsupported element type " + text +
                  " (the CPU kernels take f32, f64, i1, i32, i64)");
}

Shape toShape(Type tensorType) {
  auto ranked = cast<RankedTensorType>(tensorType);
  if (!ranked.hasStaticShape()) {
    std::string text;
    llvm::raw_string_ostream(text) << ranked;
    throw EvalError("cannot evaluate the dynamically shaped " + text);
  }
  return Shape(ranked.getShape().begin(), ranked.getShape().end());
}

Tensor fromElementsAttr(ElementsAttr attr, const EvalOptions &options) {
  auto type = cast<RankedTensorType>(attr.getType());
  Tensor tensor(toDType(type.getElementType(), options), toShape(type));
  int64_t index = 0;
  switch (tensor.dtype()) {
  case DType::F32:
    for (APFloat value : attr.getValues<APFloat>())
      tensor.data<float>()[index++] = value.convertToFloat();
    break;
  case DType::F64:
    for (APFloat value : attr.getValues<APFloat>()) {
      bool losesInfo;
      value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
      tensor.data<double>()[index++] = value.convertToDouble();
    }
    break;
  case DType::I32:
    for (APInt value : attr.getValues<APInt>())
      tensor.data<int32_t>()[index++] = value.getSExtValue();
    break;
  case DType::I64:
    for (APInt value : attr.getValues<APInt>())
      tensor.data<int64_t>()[index++] = value.getSExtValue();
    break;
  case DType::Bool:
    for (APInt value : attr.getValues<APInt>())
      tensor.data<bool>()[index++] = !value.isZero();
    break;
  }
  return tensor;
}

Tensor initialValue(ir::VariableOp variable, const EvalOptions &options) {
  RankedTensorType type = variable.getValueType();
  Tensor tensor(toDType(type.getElementType(), options), toShape(type));
  Attribute init = variable.getInitializer();
  if (isa<ir::ZerosInitAttr>(init))
    initializers::zeros(tensor);
  else if (auto constant = dyn_cast<ir::ConstantInitAttr>(init))
    initializers::constant(tensor, constant.getValue().convertToDouble());
  else if (auto normal = dyn_cast<ir::TruncatedNormalInitAttr>(init))
    initializers::truncated_normal(tensor, normal.getMean().convertToDouble(),
                                   normal.getStddev().convertToDouble(),
                                   normal.getSeed());
  else if (auto normal = dyn_cast<ir::RandomNormalInitAttr>(init))
    initializers::random_normal(tensor, normal.getMean().convertToDouble(),
                                normal.getStddev().convertToDouble(),
                                normal.getSeed());
  else
    fail(variable, "has an unknown initializer");
  return tensor;
}

void initializeVariables(func::FuncOp function, VariableStore &store,
                         const EvalOptions &options) {
  function.walk([&](ir::VariableOp variable) {
    std::string name = variable.getName().str();
    if (!store.count(name))
      store.emplace(name, initialValue(variable, options));
  });
}

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
  values.clear();
  results.clear();
  if (!function.getBody().hasOneBlock())
    throw EvalError(describe(function) + " must have a single block");
  Block &body = function.getBody().front();
  if (!needed && arguments.size() != body.getNumArguments())
    throw EvalError(describe(function) + " takes " +
                    std::to_string(body.getNumArguments()) +
                    " arguments, got " + std::to_string(arguments.size()));
  for (auto [argument, tensor] : llvm::zip(body.getArguments(), arguments)) {
    DType expected = toDType(
        cast<RankedTensorType>(argument.getType()).getElementType(), options);
    if (tensor.shape() != toShape(argument.getType()) ||
        tensor.dtype() != expected)
      throw EvalError(describe(function) + " argument #" +
                      std::to_string(argument.getArgNumber()) + " is " +
                      tensor.typeString() + " but must be " +
                      dtypeName(expected) +
                      shapeToString(toShape(argument.getType())));
    values[argument] = std::move(tensor);
  }
  for (Operation &op : body) {
    if (needed && !needed->contains(&op))
      continue;
    if (!opObserver) {
      evaluateOp(&op, feeds);
      continue;
    }
    auto begin = std::chrono::steady_clock::now();
    evaluateOp(&op, feeds);
    opObserver(&op, begin, std::chrono::steady_clock::now());
  }
}

const Tensor &Interpreter::lookup(Value value) const {
  auto it = values.find(value);
  if (it == values.end()) {
    Operation *owner = value.getDefiningOp();
    throw EvalError(owner ? describe(owner) + " result was not computed"
                          : "function arguments cannot be evaluated");
  }
  return it->second;
}

Tensor &Interpreter::variable(Value handle) {
  auto definition = handle.getDefiningOp<ir::VariableOp>();
  if (!definition)
    throw EvalError("a resource that is not a dtf.variable result");
  auto it = variables.find(definition.getName().str());
  if (it == variables.end())
    fail(definition, "'" + definition.getName().str() +
                         "' is not initialized");
  return it->second;
}

static std::vector<int64_t> toVector(ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

static kernels::Padding toPadding(ir::Padding padding) {
  return padding == ir::Padding::SAME ? kernels::Padding::Same
                                       : kernels::Padding::Valid;
}

static double toDouble(FloatAttr attr) {
  return attr.getValue().convertToDouble();
}

void Interpreter::evaluateOp(Operation *op, const FeedMap &feeds) {
  auto in = [&](unsigned index) -> const Tensor & {
    return lookup(op->getOperand(index));
  };
  auto set = [&](Tensor tensor) {
    values[op->getResult(0)] = std::move(tensor);
  };

  try {
    llvm::TypeSwitch<Operation *>(op)
        // Graph inputs and state.
        .Case([&](ir::PlaceholderOp placeholder) {
          auto it = feeds.find(placeholder.getName().str());
          if (it == feeds.end())
            fail(op, "'" + placeholder.getName().str() + "' is not fed");
          const Tensor &feed = it->second;
          Shape expected = toShape(placeholder.getType());
          DType dtype = toDType(placeholder.getType().getElementType(),
                                options);
          if (feed.shape() != expected)
            fail(op, "'" + placeholder.getName().str() + "' is fed " +
                         feed.typeString() + " but expects shape " +
                         shapeToString(expected));
          set(kernels::cast(feed, dtype));
        })
        .Case([&](ir::ConstantOp constant) {
          set(fromElementsAttr(constant.getValue(), options));
        })
        .Case([&](ir::VariableOp) {
          // Handles resolve to the store by name; nothing to compute.
        })
        .Case([&](ir::ReadOp read) {
          set(variable(read.getResource()).clone());
        })
        .Case([&](ir::AssignOp assign) {
          variable(assign.getResource()) = in(1).clone();
        })
        .Case([&](ir::AssignAddOp assign) {
          kernels::assign_add(variable(assign.getResource()), in(1));
        })
        // Math.
        .Case([&](ir::MatMulOp matmul) {
          set(kernels::matmul(in(0), in(1), matmul.getTransposeA(),
                              matmul.getTransposeB()));
        })
        .Case([&](ir::AddOp) { set(kernels::add(in(0), in(1))); })
        .Case([&](ir::SubOp) { set(kernels::sub(in(0), in(1))); })
        .Case([&](ir::MulOp) { set(kernels::mul(in(0), in(1))); })
        .Case([&](ir::DivOp) { set(kernels::div(in(0), in(1))); })
        .Case([&](ir::EqualOp) { set(kernels::equal(in(0), in(1))); })
        .Case([&](ir::BiasAddOp) { set(kernels::bias_add(in(0), in(1))); })
        .Case([&](ir::NegOp) { set(kernels::neg(in(0))); })
        .Case([&](ir::ReluOp) { set(kernels::relu(in(0))); })
        .Case([&](ir::LogOp) { set(kernels::log(in(0))); })
        .Case([&](ir::SoftmaxOp) { set(kernels::softmax(in(0))); })
        .Case([&](ir::ClipByValueOp clip) {
          set(kernels::clip_by_value(in(0), toDouble(clip.getMinAttr()),
                                     toDouble(clip.getMaxAttr())));
        })
        .Case([&](ir::SoftmaxCrossEntropyWithLogitsOp) {
          set(kernels::softmax_cross_entropy_with_logits(in(0), in(1)));
        })
        // Reductions and shapes.
        .Case([&](ir::ReduceSumOp reduce) {
          set(kernels::reduce_sum(in(0), toVector(reduce.getAxes()),
                                  reduce.getKeepDims()));
        })
        .Case([&](ir::ReduceMeanOp reduce) {
          set(kernels::reduce_mean(in(0), toVector(reduce.getAxes()),
                                   reduce.getKeepDims()));
        })
        .Case([&](ir::ReshapeOp reshape) {
          set(kernels::reshape(in(0).clone(), toShape(reshape.getType())));
        })
        .Case([&](ir::ArgMaxOp argmax) {
          set(kernels::argmax(in(0), argmax.getAxis()));
        })
        .Case([&](ir::CastOp cast) {
          set(kernels::cast(in(0), toDType(cast.getType().getElementType(),
                                           options)));
        })
        .Case([&](ir::BroadcastToOp broadcast) {
          set(kernels::broadcast_to(in(0), toShape(broadcast.getType())));
        })
        // Convolution and pooling.
        .Case([&](ir::Conv2DOp conv) {
          set(kernels::conv2d(in(0), in(1), toVector(conv.getStrides()),
                              toPadding(conv.getPadding())));
        })
        .Case([&](ir::MaxPoolOp pool) {
          set(kernels::max_pool(in(0), toVector(pool.getKsize()),
                                toVector(pool.getStrides()),
                                toPadding(pool.getPadding())));
        })
        // Gradients.
        .Case([&](ir::ReluGradOp) { set(kernels::relu_grad(in(0), in(1))); })
        .Case([&](ir::SoftmaxGradOp) {
          set(kernels::softmax_grad(in(0), in(1)));
        })
        .Case([&](ir::ClipByValueGradOp clip) {
          set(kernels::clip_by_value_grad(in(0), in(1),
                                          toDouble(clip.getMinAttr()),
                                          toDouble(clip.getMaxAttr())));
        })
        .Case([&](ir::SoftmaxCrossEntropyWithLogitsGradOp) {
          set(kernels::softmax_cross_entropy_with_logits_grad(in(0), in(1),
                                                              in(2)));
        })
        .Case([&](ir::BiasAddGradOp) { set(kernels::bias_add_grad(in(0))); })
        .Case([&](ir::Conv2DBackpropInputOp conv) {
          set(kernels::conv2d_backprop_input(
              toShape(conv.getType()), in(0), in(1),
              toVector(conv.getStrides()), toPadding(conv.getPadding())));
        })
        .Case([&](ir::Conv2DBackpropFilterOp conv) {
          set(kernels::conv2d_backprop_filter(
              in(0), toShape(conv.getType()), in(1),
              toVector(conv.getStrides()), toPadding(conv.getPadding())));
        })
        .Case([&](ir::MaxPoolGradOp pool) {
          set(kernels::max_pool_grad(in(0), in(1), in(2),
                                     toVector(pool.getKsize()),
                                     toVector(pool.getStrides()),
                                     toPadding(pool.getPadding())));
        })
        // Optimizer updates.
        .Case([&](ir::ApplyGradientDescentOp apply) {
          kernels::apply_gradient_descent(variable(apply.getVar()),
                                          toDouble(apply.getLearningRateAttr()),
                                          lookup(apply.getGrad()));
        })
        .Case([&](ir::ApplyMomentumOp apply) {
          kernels::apply_momentum(
              variable(apply.getVar()), variable(apply.getAccum()),
              toDouble(apply.getLearningRateAttr()), lookup(apply.getGrad()),
              toDouble(apply.getMomentumAttr()), apply.getUseNesterov());
        })
        .Case([&](ir::ApplyAdamOp apply) {
          kernels::apply_adam(
              variable(apply.getVar()), variable(apply.getM()),
              variable(apply.getV()),
              lookup(apply.getBeta1Power()).scalarAsDouble(),
              lookup(apply.getBeta2Power()).scalarAsDouble(),
              toDouble(apply.getLearningRateAttr()),
              toDouble(apply.getBeta1Attr()), toDouble(apply.getBeta2Attr()),
              toDouble(apply.getEpsilonAttr()), lookup(apply.getGrad()));
        })
        .Case([&](func::ReturnOp ret) {
          for (Value operand : ret.getOperands())
            results.push_back(lookup(operand).clone());
        })
        .Case<ir::MinimizeOp, ir::ApplyGradientsOp>([&](Operation *) {
          fail(op, "is a request for a pass; run --dtf-autodiff and "
                   "--dtf-expand-optimizer first");
        })
        .Default([&](Operation *) { fail(op, "has no CPU kernel"); });
  } catch (const EvalError &) {
    throw;
  } catch (const std::exception &error) {
    fail(op, error.what());
  }
}

} // namespace ir::exec
