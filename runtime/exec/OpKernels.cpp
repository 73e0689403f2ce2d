//===- OpKernels.cpp - The CPU kernel of each dtf op ----------------------===//

#include "runtime/exec/OpKernels.h"

#include "dialects/dtf/IR/DTFOps.h"
#include "runtime/core/Initializers.h"
#include "runtime/core/Kernels.h"
#include "runtime/core/LearningRateSchedule.h"
#include "runtime/core/Sparse.h"
#include "runtime/ps/DynamicTable.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
// The dialect lives in dtf::ir, the runtime in ::dtf.
using ::dtf::DType;
using ::dtf::ErrorCode;
using ::dtf::Shape;
using ::dtf::Tensor;
namespace kernels = ::dtf::kernels;
namespace initializers = ::dtf::initializers;

namespace dtf::exec {

//===----------------------------------------------------------------------===//
// Types, constants and variables
//===----------------------------------------------------------------------===//

std::string describeOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getLoc() << ": '" << op->getName() << "'";
  return os.str();
}

[[noreturn]] static void fail(Operation *op, const std::string &message,
                              ErrorCode code = ErrorCode::InvalidArgument) {
  throw EvalError(code, describeOp(op) + " " + message);
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
  auto ranked = dyn_cast<RankedTensorType>(tensorType);
  if (!ranked || !ranked.hasStaticShape()) {
    std::string text;
    llvm::raw_string_ostream(text) << tensorType;
    throw EvalError("cannot evaluate a value of type " + text +
                    " (not a statically shaped tensor)");
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

kernels::RowPartition toRowPartition(Attribute rowShard) {
  auto shard = cast<ir::RowShardAttr>(rowShard);
  return {shard.getRows(), shard.getNumShards(),
          shard.getStrategy() == ir::PartitionStrategy::Mod
              ? kernels::PartitionStrategy::Mod
              : kernels::PartitionStrategy::Div};
}

Tensor shardLocalIds(Attribute rowShard, const Tensor &ids) {
  return kernels::shard_local_ids(ids, toRowPartition(rowShard),
                                  cast<ir::RowShardAttr>(rowShard).getShard());
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
  else if (auto uniform = dyn_cast<ir::RandomUniformInitAttr>(init))
    initializers::random_uniform(tensor, uniform.getMinval().convertToDouble(),
                                 uniform.getMaxval().convertToDouble(),
                                 uniform.getSeed());
  else if (auto orthogonal = dyn_cast<ir::OrthogonalInitAttr>(init))
    initializers::orthogonal(tensor, orthogonal.getGain().convertToDouble(),
                             orthogonal.getSeed());
  else if (auto dense = dyn_cast<ir::DenseInitAttr>(init))
    // The verifier matched the values' type to the variable's.
    tensor = fromElementsAttr(dense.getValue(), options);
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

void checkTensorType(Operation *op, const std::string &what, Type type,
                     const Tensor &tensor, const EvalOptions &options) {
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    toShape(type); // Throws, naming the type.
  DType expected = toDType(ranked.getElementType(), options);
  // A dynamic dimension (the ids of a sparse gradient a PS function takes)
  // fits any size.
  bool fits = tensor.dtype() == expected && tensor.rank() == ranked.getRank();
  std::string shape = "[";
  for (int64_t i = 0; i < ranked.getRank(); ++i) {
    int64_t dim = ranked.getDimSize(i);
    shape +=
        (i ? "," : "") +
        (ShapedType::isDynamic(dim) ? std::string("?") : std::to_string(dim));
    if (fits && !ShapedType::isDynamic(dim) && tensor.dim(i) != dim)
      fits = false;
  }
  if (!fits)
    fail(op, what + " is " + tensor.typeString() + " but must be " +
                 dtypeName(expected) + shape + "]");
}

bool isResource(Value value) { return isa<ir::ResourceType>(value.getType()); }

ir::VariableOp variableOf(Value handle) {
  auto definition = handle.getDefiningOp<ir::VariableOp>();
  if (definition)
    return definition;
  Operation *owner = handle.getParentBlock()->getParentOp();
  throw EvalError(describeOp(owner) +
                  " uses a resource that is not a dtf.variable result");
}

Tensor &lookupVariable(VariableStore &store, Value handle) {
  ir::VariableOp definition = variableOf(handle);
  auto it = store.find(definition.getName().str());
  if (it == store.end())
    fail(definition, "'" + definition.getName().str() + "' is not initialized",
         ErrorCode::FailedPrecondition);
  return it->second;
}

//===----------------------------------------------------------------------===//
// KernelCall
//===----------------------------------------------------------------------===//

const Tensor &KernelCall::in(unsigned index) const {
  if (index >= operands_.size() || !operands_[index])
    fail(op_, "operand #" + std::to_string(index) + " has no tensor",
         ErrorCode::Internal);
  return *operands_[index];
}

Tensor &KernelCall::variable(unsigned index) const {
  return context_.variable(op_->getOperand(index));
}

void KernelCall::set(Tensor tensor, unsigned index) const {
  results_[index] = std::move(tensor);
}

//===----------------------------------------------------------------------===//
// The kernel table
//===----------------------------------------------------------------------===//

namespace {

using KernelTable = llvm::DenseMap<TypeID, OpKernel>;

/// Registers `kernel`, a callable taking (OpT, const KernelCall &), as the
/// kernel of OpT.
template <typename OpT, typename Kernel>
void add(KernelTable &table, Kernel kernel) {
  bool inserted =
      table
          .try_emplace(TypeID::get<OpT>(),
                       [kernel](const KernelCall &call) {
                         kernel(cast<OpT>(call.op()), call);
                       })
          .second;
  assert(inserted && "two kernels for one op");
  (void)inserted;
}

std::vector<int64_t> toVector(ArrayRef<int64_t> values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

/// A convolution's dilations; absent, they are all 1.
std::vector<int64_t> toDilations(std::optional<ArrayRef<int64_t>> dilations) {
  if (!dilations)
    return {1, 1, 1, 1};
  return toVector(*dilations);
}

kernels::Padding toPadding(ir::Padding padding) {
  return padding == ir::Padding::SAME ? kernels::Padding::Same
                                       : kernels::Padding::Valid;
}

double toDouble(FloatAttr attr) { return attr.getValue().convertToDouble(); }

double toDouble(const APFloat &value) { return value.convertToDouble(); }

/// The runtime form of a verified #dtf.*_decay attribute.
kernels::LearningRateSchedule toSchedule(Attribute schedule) {
  if (auto decay = dyn_cast<ir::ExponentialDecayAttr>(schedule))
    return kernels::ExponentialDecay{toDouble(decay.getDecaySteps()),
                                     toDouble(decay.getDecayRate()),
                                     decay.getStaircase()};
  if (auto decay = dyn_cast<ir::PolynomialDecayAttr>(schedule))
    return kernels::PolynomialDecay{
        toDouble(decay.getDecaySteps()), toDouble(decay.getEndLearningRate()),
        toDouble(decay.getPower()), decay.getCycle()};
  if (auto decay = dyn_cast<ir::CosineDecayAttr>(schedule))
    return kernels::CosineDecay{toDouble(decay.getDecaySteps()),
                                toDouble(decay.getAlpha())};
  auto piecewise = cast<ir::PiecewiseConstantAttr>(schedule);
  return kernels::PiecewiseConstant{
      std::vector<int64_t>(piecewise.getBoundaries().asArrayRef()),
      std::vector<double>(piecewise.getValues().asArrayRef())};
}

/// The learning rate of optimizer update `apply`: its learning_rate, or
/// where it has a schedule, the schedule's rate at the run's global step.
template <typename ApplyOp>
double learningRateOf(ApplyOp apply, const KernelCall &c) {
  double rate = toDouble(apply.getLearningRateAttr());
  Attribute schedule = apply.getScheduleAttr();
  if (!schedule)
    return rate;
  if (!c.context().globalStep)
    fail(apply,
         "has a learning-rate schedule, but the run has no global step to "
         "evaluate it at",
         ErrorCode::FailedPrecondition);
  return kernels::scheduledLearningRate(rate, toSchedule(schedule),
                                        *c.context().globalStep);
}

/// The learning rate of dense update `apply` of an optimizer with
/// momentum `momentum` (Adam's beta1): learningRateOf, times the run's
/// KernelContext::stalenessLearningRateScale where `momentum` > 0. A stale
/// gradient acts as momentum of its own (Mitliagkas et al., "Asynchrony
/// begets momentum", 2016), which on top of the optimizer's overshoots; an
/// optimizer without momentum (SGD, Adagrad, Adadelta, FTRL) keeps its
/// rate, which bench/findings.md found the better choice for Adagrad.
template <typename ApplyOp>
double momentumLearningRateOf(ApplyOp apply, const KernelCall &c,
                              double momentum) {
  double rate = learningRateOf(apply, c);
  return momentum > 0 ? rate * c.context().stalenessLearningRateScale : rate;
}

/// The gradient rows of a sparse update `op` summed per distinct id, the
/// ids as rows of the shard the op addresses when it has one.
template <typename SparseApplyOp>
kernels::SparseRows distinctRowsOf(SparseApplyOp op, const Tensor &ids,
                                   const Tensor &rows) {
  if (ir::RowShardAttr shard = op.getShardAttr())
    return kernels::sum_duplicate_rows(shardLocalIds(shard, ids), rows);
  return kernels::sum_duplicate_rows(ids, rows);
}

kernels::Combiner toCombiner(ir::Combiner combiner) {
  switch (combiner) {
  case ir::Combiner::sum:
    return kernels::Combiner::Sum;
  case ir::Combiner::mean:
    return kernels::Combiner::Mean;
  case ir::Combiner::sqrtn:
    return kernels::Combiner::SqrtN;
  }
  llvm_unreachable("a combiner the dialect does not define");
}

/// dtf.rows_of_ids: the position of each of `ids` in the sorted, distinct
/// `keys`, their count for an id they lack (the default row of a served
/// dynamic table), kPaddingId for padding. Another negative id is refused
/// as a dynamic table's PS task refuses it.
Tensor rowsOfIds(const Tensor &ids, const Tensor &keys) {
  Tensor rows(DType::I64, ids.shape());
  const int64_t *first = keys.data<int64_t>();
  const int64_t *last = first + keys.numElements();
  const int64_t *id = ids.data<int64_t>();
  int64_t *row = rows.data<int64_t>();
  for (int64_t i = 0; i < ids.numElements(); ++i) {
    if (id[i] == kernels::kPaddingId) {
      row[i] = kernels::kPaddingId;
      continue;
    }
    if (id[i] < 0)
      ps::refuseNegativeId(id[i], i);
    const int64_t *found = std::lower_bound(first, last, id[i]);
    row[i] = (found != last && *found == id[i]) ? found - first : last - first;
  }
  return rows;
}

/// A kernel of one tensor operand and one result.
template <typename OpT> void addUnary(KernelTable &table, Tensor (*fn)(const Tensor &)) {
  add<OpT>(table, [fn](OpT, const KernelCall &c) { c.set(fn(c.in(0))); });
}

/// A kernel of two tensor operands and one result.
template <typename OpT>
void addBinary(KernelTable &table,
               Tensor (*fn)(const Tensor &, const Tensor &)) {
  add<OpT>(table,
           [fn](OpT, const KernelCall &c) { c.set(fn(c.in(0), c.in(1))); });
}

KernelTable buildKernelTable() {
  KernelTable t;

  // Graph inputs and state.
  add<ir::PlaceholderOp>(t, [](ir::PlaceholderOp placeholder,
                               const KernelCall &c) {
    std::string name = placeholder.getName().str();
    auto it = c.context().feeds.find(name);
    if (it == c.context().feeds.end())
      fail(placeholder, "'" + name + "' is not fed");
    const Tensor &feed = it->second;
    Shape expected = toShape(placeholder.getType());
    if (feed.shape() != expected)
      fail(placeholder, "'" + name + "' is fed " + feed.typeString() +
                            " but expects shape " + shapeToString(expected));
    c.set(kernels::cast(
        feed, toDType(placeholder.getType().getElementType(), c.options())));
  });
  add<ir::LearningPhaseOp>(t, [](ir::LearningPhaseOp, const KernelCall &c) {
    Tensor phase(DType::Bool, {});
    phase.data<bool>()[0] = c.context().training;
    c.set(std::move(phase));
  });
  add<ir::RandomUniformOp>(t, [](ir::RandomUniformOp random,
                                 const KernelCall &c) {
    auto type = random.getType();
    if (!type.hasStaticShape()) {
      std::string text;
      llvm::raw_string_ostream(text) << type;
      fail(random, "has the dynamic type " + text +
                       "; --dtf-specialize-batch gives the batch its size");
    }
    Tensor samples(toDType(type.getElementType(), c.options()), toShape(type));
    initializers::random_uniform_of_run(samples, 0.0, 1.0,
                                        static_cast<uint64_t>(random.getSeed()),
                                        c.context().randomStream);
    c.set(std::move(samples));
  });
  add<ir::ConstantOp>(t, [](ir::ConstantOp constant, const KernelCall &c) {
    c.set(fromElementsAttr(constant.getValue(), c.options()));
  });
  // Handles resolve to a variable by name when used; nothing to compute.
  add<ir::VariableOp>(t, [](ir::VariableOp, const KernelCall &) {});
  add<ir::ReadOp>(t, [](ir::ReadOp, const KernelCall &c) {
    c.set(c.variable(0).clone());
  });
  add<ir::AssignOp>(t, [](ir::AssignOp, const KernelCall &c) {
    c.variable(0) = c.in(1).clone();
  });
  add<ir::AssignAddOp>(t, [](ir::AssignAddOp, const KernelCall &c) {
    kernels::assign_add(c.variable(0), c.in(1));
  });

  // Math.
  add<ir::MatMulOp>(t, [](ir::MatMulOp matmul, const KernelCall &c) {
    c.set(kernels::matmul(c.in(0), c.in(1), matmul.getTransposeA(),
                          matmul.getTransposeB()));
  });
  addBinary<ir::AddOp>(t, kernels::add);
  addBinary<ir::SubOp>(t, kernels::sub);
  addBinary<ir::MulOp>(t, kernels::mul);
  addBinary<ir::DivOp>(t, kernels::div);
  addBinary<ir::DivNoNanOp>(t, kernels::div_no_nan);
  addBinary<ir::MinimumOp>(t, kernels::minimum);
  addBinary<ir::MaximumOp>(t, kernels::maximum);
  addBinary<ir::PowOp>(t, kernels::pow);
  addBinary<ir::EqualOp>(t, kernels::equal);
  addBinary<ir::NotEqualOp>(t, kernels::not_equal);
  addBinary<ir::GreaterOp>(t, kernels::greater);
  addBinary<ir::GreaterEqualOp>(t, kernels::greater_equal);
  addBinary<ir::LessOp>(t, kernels::less);
  addBinary<ir::LessEqualOp>(t, kernels::less_equal);
  addBinary<ir::LogicalAndOp>(t, kernels::logical_and);
  addBinary<ir::LogicalOrOp>(t, kernels::logical_or);
  addUnary<ir::LogicalNotOp>(t, kernels::logical_not);
  add<ir::SelectOp>(t, [](ir::SelectOp, const KernelCall &c) {
    c.set(kernels::select(c.in(0), c.in(1), c.in(2)));
  });
  addBinary<ir::BiasAddOp>(t, kernels::bias_add);
  addUnary<ir::NegOp>(t, kernels::neg);
  addUnary<ir::AbsOp>(t, kernels::abs);
  addUnary<ir::SignOp>(t, kernels::sign);
  addUnary<ir::ReluOp>(t, kernels::relu);
  addUnary<ir::LogOp>(t, kernels::log);
  addUnary<ir::ExpOp>(t, kernels::exp);
  addUnary<ir::TanhOp>(t, kernels::tanh);
  addUnary<ir::SqrtOp>(t, kernels::sqrt);
  addUnary<ir::RsqrtOp>(t, kernels::rsqrt);
  addUnary<ir::FloorOp>(t, kernels::floor);
  add<ir::StopGradientOp>(t, [](ir::StopGradientOp, const KernelCall &c) {
    c.set(c.in(0).clone());
  });
  addUnary<ir::SoftmaxOp>(t, kernels::softmax);
  add<ir::ClipByValueOp>(t, [](ir::ClipByValueOp clip, const KernelCall &c) {
    c.set(kernels::clip_by_value(c.in(0), toDouble(clip.getMinAttr()),
                                 toDouble(clip.getMaxAttr())));
  });
  addBinary<ir::SoftmaxCrossEntropyWithLogitsOp>(
      t, kernels::softmax_cross_entropy_with_logits);
  addBinary<ir::SparseSoftmaxCrossEntropyWithLogitsOp>(
      t, kernels::sparse_softmax_cross_entropy_with_logits);
  addUnary<ir::SigmoidOp>(t, kernels::sigmoid);
  addBinary<ir::SigmoidCrossEntropyWithLogitsOp>(
      t, kernels::sigmoid_cross_entropy_with_logits);

  // Embeddings.
  add<ir::EmbeddingLookupOp>(
      t, [](ir::EmbeddingLookupOp lookup, const KernelCall &c) {
        if (ir::RowShardAttr shard = lookup.getShardAttr())
          c.set(kernels::gather(c.variable(0), shardLocalIds(shard, c.in(1))));
        else
          c.set(kernels::gather(c.variable(0), c.in(1)));
      });
  addBinary<ir::GatherOp>(t, kernels::gather);
  add<ir::EmbeddingCombineOp>(
      t, [](ir::EmbeddingCombineOp combine, const KernelCall &c) {
        const Tensor *weights = combine.getWeights() ? &c.in(2) : nullptr;
        c.set(kernels::embedding_combine(c.in(0), c.in(1), weights,
                                         toCombiner(combine.getCombiner())));
      });
  add<ir::RowsOfIdsOp>(t, [](ir::RowsOfIdsOp, const KernelCall &c) {
    c.set(rowsOfIds(c.in(0), c.in(1)));
  });
  add<ir::DivideByIdCountOp>(t, [](ir::DivideByIdCountOp, const KernelCall &c) {
    c.set(kernels::divide_by_id_count(c.in(0), c.in(1)));
  });
  add<ir::UnsortedSegmentSumOp>(
      t, [](ir::UnsortedSegmentSumOp sum, const KernelCall &c) {
        c.set(kernels::unsorted_segment_sum(c.in(0), c.in(1),
                                            sum.getNumSegments()));
      });

  // Reductions and shapes.
  add<ir::ReduceSumOp>(t, [](ir::ReduceSumOp reduce, const KernelCall &c) {
    c.set(kernels::reduce_sum(c.in(0), toVector(reduce.getAxes()),
                              reduce.getKeepDims()));
  });
  add<ir::ReduceMeanOp>(t, [](ir::ReduceMeanOp reduce, const KernelCall &c) {
    c.set(kernels::reduce_mean(c.in(0), toVector(reduce.getAxes()),
                               reduce.getKeepDims()));
  });
  add<ir::ReduceMaxOp>(t, [](ir::ReduceMaxOp reduce, const KernelCall &c) {
    c.set(kernels::reduce_max(c.in(0), toVector(reduce.getAxes()),
                              reduce.getKeepDims()));
  });
  add<ir::ReduceMinOp>(t, [](ir::ReduceMinOp reduce, const KernelCall &c) {
    c.set(kernels::reduce_min(c.in(0), toVector(reduce.getAxes()),
                              reduce.getKeepDims()));
  });
  add<ir::ReshapeOp>(t, [](ir::ReshapeOp reshape, const KernelCall &c) {
    c.set(kernels::reshape(c.in(0).clone(), toShape(reshape.getType())));
  });
  add<ir::ConcatOp>(t, [](ir::ConcatOp concat, const KernelCall &c) {
    std::vector<const Tensor *> inputs;
    for (unsigned i = 0; i < concat.getInputs().size(); ++i)
      inputs.push_back(&c.in(i));
    c.set(kernels::concat(inputs, concat.getAxis()));
  });
  add<ir::SliceOp>(t, [](ir::SliceOp slice, const KernelCall &c) {
    c.set(kernels::slice(c.in(0), toVector(slice.getOffsets()),
                         toVector(slice.getSizes())));
  });
  add<ir::ArgMaxOp>(t, [](ir::ArgMaxOp argmax, const KernelCall &c) {
    c.set(kernels::argmax(c.in(0), argmax.getAxis()));
  });
  add<ir::CastOp>(t, [](ir::CastOp cast, const KernelCall &c) {
    c.set(kernels::cast(
        c.in(0), toDType(cast.getType().getElementType(), c.options())));
  });
  add<ir::BroadcastToOp>(t, [](ir::BroadcastToOp broadcast,
                               const KernelCall &c) {
    c.set(kernels::broadcast_to(c.in(0), toShape(broadcast.getType())));
  });

  // Convolution and pooling.
  add<ir::Conv2DOp>(t, [](ir::Conv2DOp conv, const KernelCall &c) {
    c.set(kernels::conv2d(c.in(0), c.in(1), toVector(conv.getStrides()),
                          toPadding(conv.getPadding()),
                          toDilations(conv.getDilations())));
  });
  add<ir::AvgPoolOp>(t, [](ir::AvgPoolOp pool, const KernelCall &c) {
    c.set(kernels::avg_pool(c.in(0), toVector(pool.getKsize()),
                            toVector(pool.getStrides()),
                            toPadding(pool.getPadding())));
  });
  add<ir::MaxPoolOp>(t, [](ir::MaxPoolOp pool, const KernelCall &c) {
    c.set(kernels::max_pool(c.in(0), toVector(pool.getKsize()),
                            toVector(pool.getStrides()),
                            toPadding(pool.getPadding())));
  });

  // Layer math of TF1 models.
  add<ir::TransposeOp>(t, [](ir::TransposeOp transpose, const KernelCall &c) {
    c.set(kernels::transpose(c.in(0), toVector(transpose.getPermutation())));
  });
  addUnary<ir::LogSoftmaxOp>(t, kernels::log_softmax);
  add<ir::OneHotOp>(t, [](ir::OneHotOp oneHot, const KernelCall &c) {
    c.set(kernels::one_hot(c.in(0), oneHot.getDepth(),
                           toDouble(oneHot.getOnValueAttr()),
                           toDouble(oneHot.getOffValueAttr()),
                           toDType(oneHot.getElementType(), c.options())));
  });
  add<ir::TileOp>(t, [](ir::TileOp tile, const KernelCall &c) {
    c.set(kernels::tile(c.in(0), toVector(tile.getMultiples())));
  });
  add<ir::BatchMatMulOp>(t, [](ir::BatchMatMulOp matmul, const KernelCall &c) {
    c.set(kernels::batch_matmul(c.in(0), c.in(1), matmul.getAdjX(),
                                matmul.getAdjY()));
  });
  add<ir::ReduceProdOp>(t, [](ir::ReduceProdOp reduce, const KernelCall &c) {
    c.set(kernels::reduce_prod(c.in(0), toVector(reduce.getAxes()),
                               reduce.getKeepDims()));
  });
  add<ir::ReduceProdGradOp>(t, [](ir::ReduceProdGradOp grad,
                                  const KernelCall &c) {
    c.set(kernels::reduce_prod_grad(c.in(0), c.in(1), toVector(grad.getAxes()),
                                    grad.getKeepDims()));
  });

  // Gradients.
  addBinary<ir::ReluGradOp>(t, kernels::relu_grad);
  addBinary<ir::SoftmaxGradOp>(t, kernels::softmax_grad);
  add<ir::ClipByValueGradOp>(t, [](ir::ClipByValueGradOp clip,
                                   const KernelCall &c) {
    c.set(kernels::clip_by_value_grad(c.in(0), c.in(1),
                                      toDouble(clip.getMinAttr()),
                                      toDouble(clip.getMaxAttr())));
  });
  add<ir::SoftmaxCrossEntropyWithLogitsGradOp>(
      t, [](ir::SoftmaxCrossEntropyWithLogitsGradOp, const KernelCall &c) {
        c.set(kernels::softmax_cross_entropy_with_logits_grad(
            c.in(0), c.in(1), c.in(2)));
      });
  add<ir::SparseSoftmaxCrossEntropyWithLogitsGradOp>(
      t, [](ir::SparseSoftmaxCrossEntropyWithLogitsGradOp,
            const KernelCall &c) {
        c.set(kernels::sparse_softmax_cross_entropy_with_logits_grad(
            c.in(0), c.in(1), c.in(2)));
      });
  addUnary<ir::BiasAddGradOp>(t, kernels::bias_add_grad);
  add<ir::SigmoidGradOp>(t, [](ir::SigmoidGradOp, const KernelCall &c) {
    c.set(kernels::sigmoid_grad(c.in(0), c.in(1)));
  });
  add<ir::SigmoidCrossEntropyWithLogitsGradOp>(
      t, [](ir::SigmoidCrossEntropyWithLogitsGradOp, const KernelCall &c) {
        c.set(kernels::sigmoid_cross_entropy_with_logits_grad(c.in(0), c.in(1),
                                                              c.in(2)));
      });
  add<ir::EmbeddingCombineGradOp>(
      t, [](ir::EmbeddingCombineGradOp combine, const KernelCall &c) {
        const Tensor *weights = combine.getWeights() ? &c.in(2) : nullptr;
        c.set(kernels::embedding_lookup_sparse_grad(
            c.in(0), c.in(1), weights, toCombiner(combine.getCombiner())));
      });
  add<ir::Conv2DBackpropInputOp>(t, [](ir::Conv2DBackpropInputOp conv,
                                       const KernelCall &c) {
    c.set(kernels::conv2d_backprop_input(
        toShape(conv.getType()), c.in(0), c.in(1), toVector(conv.getStrides()),
        toPadding(conv.getPadding()), toDilations(conv.getDilations())));
  });
  add<ir::Conv2DBackpropFilterOp>(t, [](ir::Conv2DBackpropFilterOp conv,
                                        const KernelCall &c) {
    c.set(kernels::conv2d_backprop_filter(
        c.in(0), toShape(conv.getType()), c.in(1), toVector(conv.getStrides()),
        toPadding(conv.getPadding()), toDilations(conv.getDilations())));
  });
  add<ir::AvgPoolGradOp>(t, [](ir::AvgPoolGradOp pool, const KernelCall &c) {
    c.set(kernels::avg_pool_grad(
        toShape(pool.getType()), c.in(0), toVector(pool.getKsize()),
        toVector(pool.getStrides()), toPadding(pool.getPadding())));
  });
  add<ir::MaxPoolGradOp>(t, [](ir::MaxPoolGradOp pool, const KernelCall &c) {
    c.set(kernels::max_pool_grad(c.in(0), c.in(1), c.in(2),
                                 toVector(pool.getKsize()),
                                 toVector(pool.getStrides()),
                                 toPadding(pool.getPadding())));
  });

  // Optimizer updates. Operand order: the resources, then the tensors, as
  // declared in DTFOps.td.
  add<ir::ApplyGradientDescentOp>(
      t, [](ir::ApplyGradientDescentOp apply, const KernelCall &c) {
        kernels::apply_gradient_descent(c.variable(0), learningRateOf(apply, c),
                                        c.in(1));
      });
  add<ir::ApplyMomentumOp>(
      t, [](ir::ApplyMomentumOp apply, const KernelCall &c) {
        kernels::apply_momentum(
            c.variable(0), c.variable(1),
            momentumLearningRateOf(apply, c, toDouble(apply.getMomentumAttr())),
            c.in(2), toDouble(apply.getMomentumAttr()), apply.getUseNesterov());
      });
  add<ir::ApplyAdamOp>(t, [](ir::ApplyAdamOp apply, const KernelCall &c) {
    kernels::apply_adam(
        c.variable(0), c.variable(1), c.variable(2), c.in(3).scalarAsDouble(),
        c.in(4).scalarAsDouble(),
        momentumLearningRateOf(apply, c, toDouble(apply.getBeta1Attr())),
        toDouble(apply.getBeta1Attr()), toDouble(apply.getBeta2Attr()),
        toDouble(apply.getEpsilonAttr()), c.in(5));
  });
  add<ir::AssignMovingAverageOp>(
      t, [](ir::AssignMovingAverageOp average, const KernelCall &c) {
        kernels::assign_moving_average(c.variable(0), c.in(1),
                                       toDouble(average.getDecayAttr()));
      });
  add<ir::ApplyAdagradOp>(t, [](ir::ApplyAdagradOp apply, const KernelCall &c) {
    kernels::apply_adagrad(c.variable(0), c.variable(1),
                           learningRateOf(apply, c), c.in(2));
  });
  // Sparse updates sum the rows of equal ids and drop padding first, as
  // TensorFlow's Optimizer._apply_sparse_duplicate_indices does; a worker's
  // push already comes so, and then this pass only checks it.
  add<ir::SparseApplyGradientDescentOp>(
      t, [](ir::SparseApplyGradientDescentOp apply, const KernelCall &c) {
        kernels::SparseRows g = distinctRowsOf(apply, c.in(1), c.in(2));
        kernels::sparse_apply_gradient_descent(
            c.variable(0), learningRateOf(apply, c), g.ids, g.rows);
      });
  add<ir::SparseApplyAdagradOp>(
      t, [](ir::SparseApplyAdagradOp apply, const KernelCall &c) {
        kernels::SparseRows g = distinctRowsOf(apply, c.in(2), c.in(3));
        kernels::sparse_apply_adagrad(c.variable(0), c.variable(1),
                                      learningRateOf(apply, c), g.ids, g.rows);
      });
  add<ir::SparseApplyAdamOp>(t, [](ir::SparseApplyAdamOp apply,
                                   const KernelCall &c) {
    kernels::SparseRows g = distinctRowsOf(apply, c.in(5), c.in(6));
    kernels::sparse_apply_adam(
        c.variable(0), c.variable(1), c.variable(2), c.in(3).scalarAsDouble(),
        c.in(4).scalarAsDouble(), learningRateOf(apply, c),
        toDouble(apply.getBeta1Attr()), toDouble(apply.getBeta2Attr()),
        toDouble(apply.getEpsilonAttr()), g.ids, g.rows);
  });
  add<ir::ApplyRMSPropOp>(t, [](ir::ApplyRMSPropOp apply, const KernelCall &c) {
    kernels::apply_rmsprop(
        c.variable(0), c.variable(1), c.variable(2),
        /*mg=*/nullptr,
        momentumLearningRateOf(apply, c, toDouble(apply.getMomentumAttr())),
        toDouble(apply.getDecayAttr()), toDouble(apply.getMomentumAttr()),
        toDouble(apply.getEpsilonAttr()), c.in(3));
  });
  add<ir::ApplyCenteredRMSPropOp>(
      t, [](ir::ApplyCenteredRMSPropOp apply, const KernelCall &c) {
        kernels::apply_rmsprop(
            c.variable(0), c.variable(2), c.variable(3), &c.variable(1),
            momentumLearningRateOf(apply, c, toDouble(apply.getMomentumAttr())),
            toDouble(apply.getDecayAttr()), toDouble(apply.getMomentumAttr()),
            toDouble(apply.getEpsilonAttr()), c.in(4));
      });
  add<ir::ApplyAdadeltaOp>(
      t, [](ir::ApplyAdadeltaOp apply, const KernelCall &c) {
        kernels::apply_adadelta(c.variable(0), c.variable(1), c.variable(2),
                                learningRateOf(apply, c),
                                toDouble(apply.getRhoAttr()),
                                toDouble(apply.getEpsilonAttr()), c.in(3));
      });
  add<ir::ApplyFtrlOp>(t, [](ir::ApplyFtrlOp apply, const KernelCall &c) {
    kernels::apply_ftrl(c.variable(0), c.variable(1), c.variable(2), c.in(3),
                        learningRateOf(apply, c), toDouble(apply.getL1Attr()),
                        toDouble(apply.getL2Attr()),
                        toDouble(apply.getL2ShrinkageAttr()),
                        toDouble(apply.getLearningRatePowerAttr()));
  });
  add<ir::SparseApplyFtrlOp>(
      t, [](ir::SparseApplyFtrlOp apply, const KernelCall &c) {
        kernels::SparseRows g = distinctRowsOf(apply, c.in(3), c.in(4));
        kernels::sparse_apply_ftrl(
            c.variable(0), c.variable(1), c.variable(2), g.ids, g.rows,
            learningRateOf(apply, c), toDouble(apply.getL1Attr()),
            toDouble(apply.getL2Attr()), toDouble(apply.getL2ShrinkageAttr()),
            toDouble(apply.getLearningRatePowerAttr()));
      });
  return t;
}

} // namespace

const OpKernel *findKernel(Operation *op) {
  // Built once, then only read: safe to share between threads.
  static const KernelTable table = buildKernelTable();
  auto it = table.find(op->getName().getTypeID());
  return it == table.end() ? nullptr : &it->second;
}

EvalError noKernelError(Operation *op) {
  if (isa<ir::MinimizeOp, ir::ApplyGradientsOp>(op))
    return EvalError(ErrorCode::FailedPrecondition,
                     describeOp(op) +
                         " is a request for a pass; run --dtf-autodiff and "
                         "--dtf-expand-optimizer first");
  return EvalError(ErrorCode::InvalidArgument,
                   describeOp(op) + " has no CPU kernel");
}

void evaluateOp(const OpKernel &kernel, const KernelCall &call) {
  try {
    kernel(call);
  } catch (const EvalError &) {
    throw;
  } catch (const std::exception &error) {
    fail(call.op(), error.what(), errorCodeOf(error));
  } catch (...) {
    fail(call.op(), "failed with an unknown exception", ErrorCode::Unknown);
  }
}

std::vector<Tensor> evaluateOp(Operation *op, ArrayRef<const Tensor *> operands,
                               const KernelContext &context) {
  const OpKernel *kernel = findKernel(op);
  if (!kernel)
    throw noKernelError(op);
  std::vector<Tensor> results(op->getNumResults());
  evaluateOp(*kernel, KernelCall(op, operands, results, context));
  return results;
}

} // namespace dtf::exec
