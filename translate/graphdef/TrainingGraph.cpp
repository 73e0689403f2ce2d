//===- TrainingGraph.cpp - The training machinery of a TF1 graph ----------===//

#include "translate/graphdef/TrainingGraph.h"

#include "translate/graphdef/ImportContext.h"

#include "dialects/dtf/IR/DTFDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <vector>

using namespace mlir;
using namespace dtf::ir;

namespace dtf::translate::graphdef {
namespace {

/// The optimizer apply ops DTF recognizes, by the input index of their
/// gradient.
const std::map<std::string, int> &gradientInputs() {
  static const std::map<std::string, int> applies = {
      {"ApplyGradientDescent", 2},
      {"ResourceApplyGradientDescent", 2},
      {"ApplyMomentum", 3},
      {"ResourceApplyMomentum", 3},
      {"ApplyAdam", 9},
      {"ResourceApplyAdam", 9},
      {"ApplyAdagrad", 3},
      {"ResourceApplyAdagrad", 3},
      {"SparseApplyAdagrad", 3},
      {"ResourceSparseApplyAdagrad", 3},
      {"ApplyRMSProp", 7},
      {"ResourceApplyRMSProp", 7},
      {"ApplyCenteredRMSProp", 8},
      {"ResourceApplyCenteredRMSProp", 8},
      {"ApplyAdadelta", 6},
      {"ResourceApplyAdadelta", 6},
      {"ApplyFtrl", 3},
      {"ResourceApplyFtrl", 3},
      {"ApplyFtrlV2", 3},
      {"ResourceApplyFtrlV2", 3},
      {"SparseApplyFtrl", 3},
      {"ResourceSparseApplyFtrl", 3},
      {"SparseApplyFtrlV2", 3},
      {"ResourceSparseApplyFtrlV2", 3}};
  return applies;
}

/// The input index of the gradient of optimizer apply op `op`; none where
/// DTF does not recognize it.
std::optional<int> gradientInputOf(const std::string &op) {
  auto it = gradientInputs().find(op);
  if (it == gradientInputs().end())
    return std::nullopt;
  return it->second;
}

/// Whether `op` is named as TensorFlow names the updates of its optimizers,
/// [Resource][Sparse]Apply<Optimizer>, whether DTF recognizes it or not.
bool isNamedAsApplyOp(StringRef op) {
  op.consume_front("Resource");
  op.consume_front("Sparse");
  return op.consume_front("Apply") && !op.empty() && llvm::isUpper(op.front());
}

/// The value of every element of a variable `initializer` initializes with
/// one value; none for random samples.
std::optional<double> uniformValue(Attribute initializer) {
  if (isa<ZerosInitAttr>(initializer))
    return 0.0;
  if (auto constant = dyn_cast<ConstantInitAttr>(initializer))
    return constant.getValue().convertToDouble();
  return std::nullopt;
}

/// Whether input `input` of `index` is, through Identity nodes, a node of
/// op `op`; sets `source` to it.
bool isInputOp(ImportContext &import, int index, int input, StringRef op,
               int &source) {
  if (import.node(index).input_size() <= input)
    return false;
  FailureOr<int> node = import.throughIdentities(index, input);
  if (failed(node) || import.node(*node).op() != op)
    return false;
  source = *node;
  return true;
}

/// The upper bound of tf.random_uniform's samples minval + u * range, u of
/// [0, 1), whose `range` is input `input` of Mul `product`: Sub(max, min)
/// of two scalar Consts (`min` being `minval`), or a Const where the graph
/// folded it.
FailureOr<double> uniformMaxval(ImportContext &import, int product, int input,
                                double minval) {
  int difference;
  if (isInputOp(import, product, input, "Sub", difference)) {
    FailureOr<double> maxval = import.scalar(difference, 0);
    FailureOr<double> subtrahend = import.scalar(difference, 1);
    if (failed(maxval) || failed(subtrahend))
      return failure();
    // max itself where the Sub subtracts minval, as TensorFlow's does:
    // minval + (max - minval) may round away from it.
    return *subtrahend == minval ? *maxval : minval + (*maxval - *subtrahend);
  }
  FailureOr<double> range = import.scalar(product, input);
  if (failed(range))
    return failure();
  return minval + *range;
}

/// The #dtf.random_uniform of the samples of [minval, maxval) that
/// RandomUniform node `sample` draws; an error naming it where the bounds
/// are no range.
FailureOr<Attribute> randomUniform(ImportContext &import, int sample,
                                   double minval, double maxval) {
  auto uniform = RandomUniformInitAttr::getChecked(
      [&] { return import.fail(sample); }, import.getContext(), APFloat(minval),
      APFloat(maxval), import.randomSeed(sample));
  if (!uniform)
    return failure();
  return Attribute(uniform);
}

/// tf.orthogonal_initializer's initial value at Mul node `index`: Mul(gain,
/// Reshape([Transpose](Mul(Qr, Sign(DiagPart(Qr:1)))))), the Qr of
/// tf.random_normal's standard normal samples; none for another Mul.
std::optional<Attribute> matchOrthogonal(ImportContext &import, int index) {
  int reshape, signed_, qr, sign, diagonal, samples, product, sample;
  if (!isInputOp(import, index, 1, "Reshape", reshape))
    return std::nullopt;
  int transpose;
  int source = isInputOp(import, reshape, 0, "Transpose", transpose) ? transpose
                                                                     : reshape;
  if (!isInputOp(import, source, 0, "Mul", signed_) ||
      !isInputOp(import, signed_, 0, "Qr", qr) ||
      !isInputOp(import, signed_, 1, "Sign", sign) ||
      !(isInputOp(import, sign, 0, "DiagPart", diagonal) ||
        isInputOp(import, sign, 0, "MatrixDiagPart", diagonal)) ||
      !isInputOp(import, diagonal, 0, "Qr", qr) ||
      !(isInputOp(import, qr, 0, "AddV2", samples) ||
        isInputOp(import, qr, 0, "Add", samples)) ||
      !isInputOp(import, samples, 0, "Mul", product) ||
      !isInputOp(import, product, 0, "RandomStandardNormal", sample))
    return std::nullopt;
  FailureOr<double> gain = import.scalar(index, 0),
                    stddev = import.scalar(product, 1),
                    mean = import.scalar(samples, 1);
  if (failed(gain) || failed(stddev) || failed(mean) || *stddev != 1.0 ||
      *mean != 0.0)
    return std::nullopt;
  return Attribute(OrthogonalInitAttr::get(import.getContext(), APFloat(*gain),
                                           import.randomSeed(sample)));
}

/// The initializer attribute of the initial value node `index` computes.
FailureOr<Attribute> initialValue(ImportContext &import, int index) {
  MLIRContext *context = import.getContext();
  const std::string &op = import.node(index).op();
  auto fromConstant = [&](DenseElementsAttr values) -> Attribute {
    // A numpy array, tf.constant_initializer of one.
    if (!values.isSplat())
      return DenseInitAttr::get(context, values);
    Attribute element = values.getSplatValue<Attribute>();
    double value = 0;
    if (auto f = dyn_cast<FloatAttr>(element))
      value = f.getType().isF32()
                  ? shortestDouble(f.getValue().convertToFloat())
                  : f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(element))
      value = double(i.getValue().getSExtValue());
    if (value == 0)
      return ZerosInitAttr::get(context);
    return ConstantInitAttr::get(context, APFloat(value));
  };
  if (op == "Identity") {
    FailureOr<int> source = import.throughIdentities(index, 0);
    if (failed(source))
      return failure();
    return initialValue(import, *source);
  }
  if (op == "Const") {
    FailureOr<DenseElementsAttr> values = import.constant(index);
    if (failed(values))
      return failure();
    return fromConstant(*values);
  }
  if (op == "Fill") {
    FailureOr<double> value = import.scalar(index, 1);
    if (failed(value))
      return failure();
    if (*value == 0)
      return Attribute(ZerosInitAttr::get(context));
    return Attribute(ConstantInitAttr::get(context, APFloat(*value)));
  }
  // tf.random_uniform of [0, 1), as tf.random_uniform_initializer(0, 1)
  // draws it.
  if (op == "RandomUniform")
    return randomUniform(import, index, 0.0, 1.0);
  // tf.truncated_normal / tf.random_normal, and so the normal variance
  // scaling initializers (glorot_normal, he_normal, lecun_normal with their
  // stddev computed into a Const): Add(Mul(sample, stddev), mean).
  // tf.random_uniform, and so random_uniform_initializer and the uniform
  // variance scaling ones (glorot_uniform, he_uniform, lecun_uniform):
  // Add(Mul(sample, Sub(max, min)), min).
  if (op == "Add" || op == "AddV2") {
    int product, sample;
    if (isInputOp(import, index, 0, "Mul", product)) {
      if (isInputOp(import, product, 0, "TruncatedNormal", sample) ||
          isInputOp(import, product, 0, "RandomStandardNormal", sample)) {
        FailureOr<double> stddev = import.scalar(product, 1);
        FailureOr<double> mean = import.scalar(index, 1);
        if (failed(stddev) || failed(mean))
          return failure();
        int64_t seed = import.randomSeed(sample);
        if (import.node(sample).op() == "TruncatedNormal")
          return Attribute(TruncatedNormalInitAttr::get(
              context, APFloat(*mean), APFloat(*stddev), seed));
        return Attribute(RandomNormalInitAttr::get(context, APFloat(*mean),
                                                   APFloat(*stddev), seed));
      }
      if (isInputOp(import, product, 0, "RandomUniform", sample)) {
        FailureOr<double> minval = import.scalar(index, 1);
        if (failed(minval))
          return failure();
        FailureOr<double> maxval = uniformMaxval(import, product, 1, *minval);
        if (failed(maxval))
          return failure();
        return randomUniform(import, sample, *minval, *maxval);
      }
    }
  }
  // One value times another: tf.random_uniform of [0, maxval) (a zero
  // minval, Mul(sample, max)) and the optimizer slots' ones * initial
  // value.
  if (op == "Mul") {
    if (std::optional<Attribute> orthogonal = matchOrthogonal(import, index))
      return *orthogonal;
    int sample;
    if (isInputOp(import, index, 0, "RandomUniform", sample)) {
      FailureOr<double> maxval = import.scalar(index, 1);
      if (failed(maxval))
        return failure();
      return randomUniform(import, sample, 0.0, *maxval);
    }
    FailureOr<int> lhs = import.throughIdentities(index, 0),
                   rhs = import.throughIdentities(index, 1);
    if (failed(lhs) || failed(rhs))
      return failure();
    FailureOr<Attribute> a = initialValue(import, *lhs),
                         b = initialValue(import, *rhs);
    if (failed(a) || failed(b))
      return failure();
    std::optional<double> x = uniformValue(*a), y = uniformValue(*b);
    if (x && y) {
      if (*x * *y == 0)
        return Attribute(ZerosInitAttr::get(context));
      return Attribute(ConstantInitAttr::get(context, APFloat(*x * *y)));
    }
  }
  import.fail(index)
      << "is not an initial value DTF recognizes (a Const, Fill, a product "
         "of those, tf.truncated_normal / tf.random_normal's Add(Mul(sample, "
         "stddev), mean), tf.random_uniform's Add(Mul(sample, Sub(max, "
         "min)), min), or tf.orthogonal_initializer's signed Q of a Qr)";
  return failure();
}

/// The initializer of `variable`: the value its first Assign outside the
/// gradients' scope assigns.
FailureOr<Attribute> initializerOf(ImportContext &import,
                                   const TrainingGraph &training,
                                   int variable) {
  for (int index = 0; index < import.nodeCount(); ++index) {
    const std::string &op = import.node(index).op();
    if (op != "Assign" && op != "AssignVariableOp")
      continue;
    const std::string &name = import.node(index).name();
    // Not the optimizer's or the gradients' assignments.
    if (llvm::any_of(training.gradientScopes, [&](const std::string &scope) {
          return name.rfind(scope + "/", 0) == 0;
        }))
      continue;
    if (import.node(index).input_size() < 2 ||
        parseInput(import.node(index).input(0)).node !=
            import.node(variable).name())
      continue;
    FailureOr<int> value = import.inputNode(index, 1);
    if (failed(value))
      return failure();
    return initialValue(import, *value);
  }
  import.fail(variable) << "has no initializer (an Assign of its initial "
                           "value)";
  return failure();
}

/// The value every element of the slot at input `input` of apply op `index`
/// starts at (Adagrad's and FTRL's initial_accumulator_value).
FailureOr<double> slotInitialValue(ImportContext &import,
                                   const TrainingGraph &training, int index,
                                   int input) {
  FailureOr<int> slot = import.throughIdentities(index, input);
  if (failed(slot))
    return failure();
  FailureOr<Attribute> initializer = initializerOf(import, training, *slot);
  if (failed(initializer))
    return failure();
  if (std::optional<double> value = uniformValue(*initializer))
    return *value;
  import.fail(*slot) << "the optimizer's slot must start at one value for "
                        "all its elements";
  return failure();
}

/// FtrlOptimizer's L2 strength at input `input` of apply op `index`: the
/// optimizer passes l2 + beta / (2 * max(lr, 1e-36)), which is l2 where beta
/// is 0, the only beta of DTF's FTRL.
FailureOr<double> ftrlL2(ImportContext &import, int index, int input) {
  FailureOr<int> sum = import.throughIdentities(index, input);
  if (failed(sum))
    return failure();
  const std::string &op = import.node(*sum).op();
  if (op != "Add" && op != "AddV2")
    return import.scalar(index, input);
  FailureOr<int> quotient = import.throughIdentities(*sum, 1);
  if (failed(quotient))
    return failure();
  if (import.node(*quotient).op() != "RealDiv") {
    import.fail(*sum) << "FTRL's L2 strength must be a Const or "
                         "FtrlOptimizer's l2 + beta / (2 * lr)";
    return failure();
  }
  FailureOr<double> beta = import.scalar(*quotient, 0);
  if (failed(beta))
    return failure();
  if (*beta != 0) {
    import.fail(index) << "FtrlOptimizer's beta (" << *beta
                       << ") is not one of DTF's FTRL parameters";
    return failure();
  }
  return import.scalar(*sum, 0);
}

/// The variable node `index` reads: through Identity nodes (a reference
/// variable's read) and a ReadVariableOp.
static std::optional<int> variableRead(ImportContext &import, int index,
                                       int input) {
  FailureOr<int> source = import.throughIdentities(index, input);
  if (succeeded(source) && import.node(*source).op() == "ReadVariableOp")
    source = import.throughIdentities(*source, 0);
  if (failed(source) || !isVariableOp(import.node(*source).op()))
    return std::nullopt;
  return *source;
}

/// Matches, without errors, the float32 subgraph that one of
/// tf.compat.v1.train's decay functions builds from the global step
/// (learning_rate_schedule.py), node by node as TensorFlow 2's
/// ExponentialDecay, PolynomialDecay and CosineDecay build it: a schedule is
/// recognized by its whole form, never by its name scope, so that a
/// different computation is not mistaken for one.
class ScheduleMatcher {
public:
  explicit ScheduleMatcher(ImportContext &import) : import(import) {}

  /// Input `input` of `index`, through Identity nodes, where it is a node of
  /// one of `ops`.
  std::optional<int> operand(int index, int input,
                             std::initializer_list<StringRef> ops) {
    if (import.node(index).input_size() <= input)
      return std::nullopt;
    FailureOr<int> node = import.throughIdentities(index, input);
    if (failed(node) || !llvm::is_contained(ops, import.node(*node).op()))
      return std::nullopt;
    return *node;
  }

  /// The scalar Const at input `input` of `index` (through a Cast), as
  /// TensorFlow's Python scalars and their casts to float32 come.
  std::optional<double> constant(int index, int input) {
    std::optional<int> node = operand(index, input, {"Const", "Cast"});
    if (node && import.node(*node).op() == "Cast")
      node = operand(*node, 0, {"Const"});
    if (!node)
      return std::nullopt;
    FailureOr<DenseElementsAttr> values = import.constant(*node);
    if (failed(values) || values->getNumElements() != 1)
      return std::nullopt;
    Type element = values->getElementType();
    if (element.isF32())
      return shortestDouble(
          (*values->getValues<APFloat>().begin()).convertToFloat());
    if (isa<FloatType>(element))
      return (*values->getValues<APFloat>().begin()).convertToDouble();
    if (isa<IntegerType>(element))
      return double((*values->getValues<APInt>().begin()).getSExtValue());
    return std::nullopt;
  }

  /// Whether input `input` of `index` is the constant `expected` (as a
  /// float32, as TensorFlow converts it).
  bool isConstant(int index, int input, double expected) {
    std::optional<double> value = constant(index, input);
    return value && float(*value) == float(expected);
  }

  /// Whether input `input` of `index` is the cast of a variable to float:
  /// the step the schedule is of, which must be the same variable
  /// throughout.
  bool isStep(int index, int input) {
    std::optional<int> cast = operand(index, input, {"Cast"});
    if (!cast)
      return false;
    std::optional<int> variable = variableRead(import, *cast, 0);
    if (!variable || (stepVariable && *stepVariable != *variable))
      return false;
    stepVariable = *variable;
    return true;
  }

  /// The variable isStep found.
  std::optional<int> stepVariable;

private:
  ImportContext &import;
};

/// An optimizer's learning rate: a constant, or a schedule starting at it.
struct LearningRate {
  double initial = 0;
  Attribute schedule;
  /// The variable a schedule is of (the global step, checked once known).
  std::optional<int> stepVariable;
};

/// exponential_decay: Mul(lr, Pow(rate, [Floor](RealDiv(Cast(step),
/// decay_steps)))).
std::optional<LearningRate> matchExponentialDecay(ImportContext &import,
                                                  int root) {
  ScheduleMatcher m(import);
  std::optional<double> initial = m.constant(root, 0);
  std::optional<int> power = m.operand(root, 1, {"Pow"});
  if (import.node(root).op() != "Mul" || !initial || !power)
    return std::nullopt;
  std::optional<double> rate = m.constant(*power, 0);
  std::optional<int> floor = m.operand(*power, 1, {"Floor"});
  std::optional<int> quotient =
      m.operand(floor ? *floor : *power, floor ? 0 : 1, {"RealDiv", "Div"});
  if (!rate || !quotient || !m.isStep(*quotient, 0))
    return std::nullopt;
  std::optional<double> steps = m.constant(*quotient, 1);
  if (!steps)
    return std::nullopt;
  MLIRContext *context = import.getContext();
  auto schedule = ExponentialDecayAttr::getChecked(
      [&] { return import.fail(root); }, context, APFloat(*steps),
      APFloat(*rate), floor.has_value());
  // A null schedule: the form matched, its parameters did not (said).
  return LearningRate{*initial, schedule, m.stepVariable};
}

/// The fraction of decay_steps done that polynomial and cosine decay hold at
/// 1 after it: RealDiv(Minimum(Cast(step), decay_steps), decay_steps).
std::optional<double> matchClampedFraction(ScheduleMatcher &m, int quotient) {
  std::optional<int> minimum = m.operand(quotient, 0, {"Minimum"});
  if (!minimum || !m.isStep(*minimum, 0))
    return std::nullopt;
  std::optional<double> steps = m.constant(*minimum, 1);
  if (!steps || !m.isConstant(quotient, 1, *steps))
    return std::nullopt;
  return steps;
}

/// polynomial_decay: AddV2(Mul(Sub(lr, end), Pow(Sub(1, fraction), power)),
/// end), the fraction clamped (matchClampedFraction) or, with cycle,
/// RealDiv(Cast(step), Mul(decay_steps, SelectV2(Equal(Cast(step), 0), 1,
/// Ceil(RealDiv(Cast(step), decay_steps))))).
std::optional<LearningRate> matchPolynomialDecay(ImportContext &import,
                                                 int root) {
  ScheduleMatcher m(import);
  if (!llvm::is_contained({StringRef("AddV2"), StringRef("Add")},
                          import.node(root).op()))
    return std::nullopt;
  std::optional<int> product = m.operand(root, 0, {"Mul"});
  std::optional<double> end = m.constant(root, 1);
  if (!product || !end)
    return std::nullopt;
  std::optional<int> range = m.operand(*product, 0, {"Sub"});
  std::optional<int> power = m.operand(*product, 1, {"Pow"});
  if (!range || !power || !m.isConstant(*range, 1, *end))
    return std::nullopt;
  std::optional<double> initial = m.constant(*range, 0);
  std::optional<double> exponent = m.constant(*power, 1);
  std::optional<int> remaining = m.operand(*power, 0, {"Sub"});
  if (!initial || !exponent || !remaining || !m.isConstant(*remaining, 0, 1))
    return std::nullopt;
  std::optional<int> quotient = m.operand(*remaining, 1, {"RealDiv", "Div"});
  if (!quotient)
    return std::nullopt;
  std::optional<double> steps = matchClampedFraction(m, *quotient);
  bool cycle = !steps;
  if (cycle) {
    std::optional<int> stretched = m.operand(*quotient, 1, {"Mul"});
    if (!m.isStep(*quotient, 0) || !stretched)
      return std::nullopt;
    steps = m.constant(*stretched, 0);
    std::optional<int> select =
        m.operand(*stretched, 1, {"SelectV2", "Select"});
    if (!steps || !select || !m.isConstant(*select, 1, 1))
      return std::nullopt;
    std::optional<int> atZero = m.operand(*select, 0, {"Equal"});
    std::optional<int> ceil = m.operand(*select, 2, {"Ceil"});
    if (!atZero || !ceil || !m.isStep(*atZero, 0) ||
        !m.isConstant(*atZero, 1, 0))
      return std::nullopt;
    std::optional<int> cycles = m.operand(*ceil, 0, {"RealDiv", "Div"});
    if (!cycles || !m.isStep(*cycles, 0) || !m.isConstant(*cycles, 1, *steps))
      return std::nullopt;
  }
  auto schedule = PolynomialDecayAttr::getChecked(
      [&] { return import.fail(root); }, import.getContext(), APFloat(*steps),
      APFloat(*end), APFloat(*exponent), cycle);
  // A null schedule: the form matched, its parameters did not (said).
  return LearningRate{*initial, schedule, m.stepVariable};
}

/// cosine_decay: Mul(lr, AddV2(Mul(1 - alpha, Mul(0.5, AddV2(1, Cos(Mul(pi,
/// fraction))))), alpha)), the fraction clamped (matchClampedFraction).
std::optional<LearningRate> matchCosineDecay(ImportContext &import, int root) {
  ScheduleMatcher m(import);
  std::optional<double> initial = m.constant(root, 0);
  std::optional<int> decayed = m.operand(root, 1, {"AddV2", "Add"});
  if (import.node(root).op() != "Mul" || !initial || !decayed)
    return std::nullopt;
  std::optional<double> alpha = m.constant(*decayed, 1);
  std::optional<int> scaled = m.operand(*decayed, 0, {"Mul"});
  if (!alpha || !scaled || !m.isConstant(*scaled, 0, 1.0 - *alpha))
    return std::nullopt;
  std::optional<int> half = m.operand(*scaled, 1, {"Mul"});
  if (!half || !m.isConstant(*half, 0, 0.5))
    return std::nullopt;
  std::optional<int> shifted = m.operand(*half, 1, {"AddV2", "Add"});
  if (!shifted || !m.isConstant(*shifted, 0, 1))
    return std::nullopt;
  std::optional<int> cosine = m.operand(*shifted, 1, {"Cos"});
  std::optional<int> angle =
      cosine ? m.operand(*cosine, 0, {"Mul"}) : std::nullopt;
  if (!angle || !m.isConstant(*angle, 0, llvm::numbers::pi))
    return std::nullopt;
  std::optional<int> quotient = m.operand(*angle, 1, {"RealDiv", "Div"});
  std::optional<double> steps =
      quotient ? matchClampedFraction(m, *quotient) : std::nullopt;
  if (!steps)
    return std::nullopt;
  auto schedule = CosineDecayAttr::getChecked([&] { return import.fail(root); },
                                              import.getContext(),
                                              APFloat(*steps), APFloat(*alpha));
  // A null schedule: the form matched, its parameters did not (said).
  return LearningRate{*initial, schedule, m.stepVariable};
}

/// The node that input `input` of `index` passes through tf.cond's plumbing
/// from: Identity nodes and the data input of Switch nodes.
static std::optional<int> throughSwitches(ImportContext &import, int index,
                                          int input) {
  for (int steps = 0; steps < import.nodeCount(); ++steps) {
    FailureOr<int> source = import.throughIdentities(index, input);
    if (failed(source))
      return std::nullopt;
    if (import.node(*source).op() != "Switch")
      return *source;
    index = *source;
    input = 0;
  }
  return std::nullopt;
}

/// piecewise_constant (PiecewiseConstantDecay): tf.case of one tf.cond per
/// value (control flow v1), nested: each a Merge of Switch(value):1, taken
/// where its predicate holds, and of the next cond or, last, the default
/// values[0]. The predicates compare the global step itself with the
/// boundaries: LessEqual(step, b_0) for values[0], Greater(step, b_n-1) for
/// values[n], and LogicalAnd(Greater(step, b_i-1), LessEqual(step, b_i)) for
/// values[i].
std::optional<LearningRate> matchPiecewiseConstant(ImportContext &import,
                                                   int root) {
  ScheduleMatcher m(import);
  std::optional<int> stepVariable;
  // The variable `node` compares with a boundary, which is its input 1.
  auto comparison = [&](int node, StringRef op) -> std::optional<double> {
    if (import.node(node).op() != op)
      return std::nullopt;
    std::optional<int> step = variableRead(import, node, 0);
    if (!step || (stepVariable && *stepVariable != *step))
      return std::nullopt;
    stepVariable = *step;
    return m.constant(node, 1);
  };
  auto floatConstant = [&](int node) -> std::optional<double> {
    FailureOr<DenseElementsAttr> value = import.constant(node);
    if (import.node(node).op() != "Const" || failed(value) ||
        value->getNumElements() != 1 || !value->getElementType().isF32())
      return std::nullopt;
    return shortestDouble(
        (*value->getValues<APFloat>().begin()).convertToFloat());
  };
  // The value of each case by its bounds: (lower, upper], either open.
  std::map<std::pair<std::optional<double>, std::optional<double>>, double>
      cases;
  std::optional<double> byDefault;
  int merge = root;
  for (int level = 0; level < import.nodeCount(); ++level) {
    const tensorflow::NodeDef &node = import.node(merge);
    if (node.op() != "Merge" || node.input_size() != 2)
      return std::nullopt;
    int taken = parseInput(node.input(0)).output == 1 ? 0 : 1;
    FailureOr<int> branch = import.inputNode(merge, taken);
    if (failed(branch) || import.node(*branch).op() != "Switch" ||
        parseInput(node.input(taken)).output != 1)
      return std::nullopt;
    std::optional<int> value = throughSwitches(import, *branch, 0);
    std::optional<int> predicate = throughSwitches(import, *branch, 1);
    std::optional<double> rate = value ? floatConstant(*value) : std::nullopt;
    if (!predicate || !rate)
      return std::nullopt;
    std::optional<double> lower, upper;
    if (import.node(*predicate).op() == "LogicalAnd") {
      FailureOr<int> greater = import.throughIdentities(*predicate, 0),
                     lessEqual = import.throughIdentities(*predicate, 1);
      if (failed(greater) || failed(lessEqual))
        return std::nullopt;
      lower = comparison(*greater, "Greater");
      upper = comparison(*lessEqual, "LessEqual");
      if (!lower || !upper)
        return std::nullopt;
    } else if (!(upper = comparison(*predicate, "LessEqual")) &&
               !(lower = comparison(*predicate, "Greater"))) {
      return std::nullopt;
    }
    if (!cases.insert({{lower, upper}, *rate}).second)
      return std::nullopt;
    std::optional<int> next = throughSwitches(import, merge, 1 - taken);
    if (!next)
      return std::nullopt;
    if (import.node(*next).op() != "Merge") {
      byDefault = floatConstant(*next);
      break;
    }
    merge = *next;
  }
  // The cases tile the steps: (-inf, b_0], (b_0, b_1], ..., (b_n-1, inf).
  SmallVector<int64_t> boundaries;
  for (const auto &[bounds, rate] : cases)
    if (bounds.second)
      boundaries.push_back(int64_t(*bounds.second));
  llvm::sort(boundaries);
  SmallVector<double> values;
  for (size_t i = 0; i <= boundaries.size(); ++i) {
    std::optional<double> lower, upper;
    if (i > 0)
      lower = double(boundaries[i - 1]);
    if (i < boundaries.size())
      upper = double(boundaries[i]);
    auto found = cases.find({lower, upper});
    if (found == cases.end())
      return std::nullopt;
    values.push_back(found->second);
  }
  if (cases.size() != values.size() || !byDefault || *byDefault != values[0])
    return std::nullopt;
  MLIRContext *context = import.getContext();
  auto schedule = PiecewiseConstantAttr::getChecked(
      [&] { return import.fail(root); }, context,
      DenseI64ArrayAttr::get(context, boundaries),
      DenseF64ArrayAttr::get(context, values));
  // A null schedule: the form matched, its parameters did not (said).
  return LearningRate{values[0], schedule, stepVariable};
}

/// The learning rate at input `input` of apply op `index`: a scalar Const,
/// or one of the decay schedules of a variable (the global step) that
/// TensorFlow's decay functions build, through a Cast to the variable's
/// type as the optimizer adds.
FailureOr<LearningRate> learningRateOf(ImportContext &import, int index,
                                       int input) {
  FailureOr<int> root = import.throughIdentities(index, input);
  if (failed(root))
    return failure();
  if (import.node(*root).op() == "Cast") {
    root = import.throughIdentities(*root, 0);
    if (failed(root))
      return failure();
  }
  if (import.node(*root).op() == "Const") {
    FailureOr<double> constant = import.scalar(index, input);
    if (failed(constant))
      return failure();
    return LearningRate{*constant, Attribute(), std::nullopt};
  }
  for (auto match : {matchExponentialDecay, matchPolynomialDecay,
                     matchCosineDecay, matchPiecewiseConstant})
    if (std::optional<LearningRate> rate = match(import, *root)) {
      if (!rate->schedule)
        return failure();
      return *rate;
    }
  import.fail(index) << "input " << input
                     << " (the learning rate) must be a scalar Const or one "
                        "of TensorFlow's exponential_decay, polynomial_decay, "
                        "cosine_decay and piecewise_constant of the global "
                        "step, got '"
                     << import.node(*root).name() << "' ("
                     << import.node(*root).op() << ")";
  return failure();
}

/// A gradient that tf.clip_by_global_norm scaled: the gradient, the norm
/// node of all the gradients it clips together, and clip_norm.
struct ClippedGradient {
  int gradient = 0;
  int norm = 0;
  double clipNorm = 0;
};

/// Matches the clipped gradient `node` (through Identity nodes), as
/// tf.clip_by_global_norm builds it: Mul(g, scale) with scale =
/// AddV2(Mul(clip_norm, Minimum(RealDiv(1, norm), RealDiv(1, clip_norm))),
/// Sub(norm, norm)) and norm = Sqrt(Mul(Sum(Pack(L2Loss(g_i)...)), 2)).
std::optional<ClippedGradient> matchClippedGradient(ImportContext &import,
                                                    int node) {
  ScheduleMatcher m(import);
  if (import.node(node).op() != "Mul")
    return std::nullopt;
  FailureOr<int> gradientNode = import.throughIdentities(node, 0);
  std::optional<int> scale = m.operand(node, 1, {"AddV2", "Add"});
  if (failed(gradientNode) || !scale)
    return std::nullopt;
  std::optional<int> scaled = m.operand(*scale, 0, {"Mul"});
  std::optional<int> nanGuard = m.operand(*scale, 1, {"Sub"});
  if (!scaled || !nanGuard)
    return std::nullopt;
  std::optional<double> clipNorm = m.constant(*scaled, 0);
  std::optional<int> minimum = m.operand(*scaled, 1, {"Minimum"});
  if (!clipNorm || !minimum)
    return std::nullopt;
  std::optional<int> inverseNorm = m.operand(*minimum, 0, {"RealDiv", "Div"});
  std::optional<int> inverseClip = m.operand(*minimum, 1, {"RealDiv", "Div"});
  if (!inverseNorm || !inverseClip || !m.isConstant(*inverseNorm, 0, 1) ||
      !m.isConstant(*inverseClip, 0, 1) ||
      !m.isConstant(*inverseClip, 1, *clipNorm))
    return std::nullopt;
  std::optional<int> norm = m.operand(*inverseNorm, 1, {"Sqrt"});
  if (!norm || m.operand(*nanGuard, 0, {"Sqrt"}) != norm ||
      m.operand(*nanGuard, 1, {"Sqrt"}) != norm)
    return std::nullopt;
  return ClippedGradient{*gradientNode, *norm, *clipNorm};
}

/// The gradients whose L2 norm `norm` (tf.global_norm's Sqrt) is, through
/// Identity nodes: Sqrt(Mul(Sum(Pack(L2Loss(g)...), axis), 2)).
std::optional<std::set<int>> normedGradients(ImportContext &import, int norm) {
  ScheduleMatcher m(import);
  std::optional<int> doubled = m.operand(norm, 0, {"Mul"});
  std::optional<int> sum =
      doubled ? m.operand(*doubled, 0, {"Sum"}) : std::nullopt;
  if (!sum || !m.isConstant(*doubled, 1, 2))
    return std::nullopt;
  std::optional<int> stack = m.operand(*sum, 0, {"Pack"});
  if (!stack)
    return std::nullopt;
  std::set<int> gradients;
  for (int input = 0; input < import.node(*stack).input_size(); ++input) {
    std::optional<int> loss = m.operand(*stack, input, {"L2Loss"});
    FailureOr<int> gradient =
        loss ? import.throughIdentities(*loss, 0) : FailureOr<int>(failure());
    if (failed(gradient))
      return std::nullopt;
    gradients.insert(*gradient);
  }
  return gradients;
}

/// The optimizer an apply op updates with, with its hyper-parameters; sets
/// `scheduleStep` to the variable its learning-rate schedule is of, if it
/// has one.
FailureOr<Attribute> optimizerOf(ImportContext &import,
                                 const TrainingGraph &training, int index,
                                 std::optional<int> &scheduleStep) {
  MLIRContext *context = import.getContext();
  const std::string &op = import.node(index).op();
  // The sparse updates take the indices after the gradient.
  bool sparse = op.find("SparseApply") != std::string::npos;
  auto learningRate = [&](int input) {
    FailureOr<LearningRate> rate = learningRateOf(import, index, input);
    if (succeeded(rate))
      scheduleStep = rate->stepVariable;
    return rate;
  };
  if (op.find("Adagrad") != std::string::npos) {
    FailureOr<LearningRate> lr = learningRate(2);
    FailureOr<double> accumulator =
        slotInitialValue(import, training, index, 1);
    if (failed(lr) || failed(accumulator))
      return failure();
    return Attribute(AdagradAttr::get(context, APFloat(lr->initial),
                                      APFloat(*accumulator), lr->schedule));
  }
  if (op.find("Ftrl") != std::string::npos) {
    const tensorflow::AttrValue *byLr =
        import.attr(index, "multiply_linear_by_lr");
    if (byLr && byLr->b()) {
      import.fail(index) << "FTRL with multiply_linear_by_lr is not DTF's "
                            "FTRL-Proximal";
      return failure();
    }
    // var, accum, linear, grad, [indices,] lr, l1, l2, [l2_shrinkage,]
    // lr_power.
    int first = sparse ? 5 : 4;
    bool v2 = StringRef(op).ends_with("V2");
    FailureOr<LearningRate> lr = learningRate(first);
    FailureOr<double> l1 = import.scalar(index, first + 1),
                      l2 = ftrlL2(import, index, first + 2),
                      shrinkage = v2 ? import.scalar(index, first + 3)
                                     : FailureOr<double>(0.0),
                      power = import.scalar(index, first + (v2 ? 4 : 3)),
                      accumulator =
                          slotInitialValue(import, training, index, 1);
    if (failed(lr) || failed(l1) || failed(l2) || failed(shrinkage) ||
        failed(power) || failed(accumulator))
      return failure();
    return Attribute(FtrlAttr::get(
        context, APFloat(lr->initial), APFloat(*power), APFloat(*accumulator),
        APFloat(*l1), APFloat(*l2), APFloat(*shrinkage), lr->schedule));
  }
  if (op.find("Adadelta") != std::string::npos) {
    // var, accum, accum_update, lr, rho, epsilon, grad.
    FailureOr<LearningRate> lr = learningRate(3);
    FailureOr<double> rho = import.scalar(index, 4),
                      epsilon = import.scalar(index, 5);
    if (failed(lr) || failed(rho) || failed(epsilon))
      return failure();
    return Attribute(AdadeltaAttr::get(context, APFloat(lr->initial),
                                       APFloat(*rho), APFloat(*epsilon),
                                       lr->schedule));
  }
  if (op.find("RMSProp") != std::string::npos) {
    // var, [mg,] ms, mom, lr, rho, momentum, epsilon, grad.
    bool centered = op.find("Centered") != std::string::npos;
    int first = centered ? 4 : 3;
    FailureOr<LearningRate> lr = learningRate(first);
    FailureOr<double> decay = import.scalar(index, first + 1),
                      momentum = import.scalar(index, first + 2),
                      epsilon = import.scalar(index, first + 3);
    if (failed(lr) || failed(decay) || failed(momentum) || failed(epsilon))
      return failure();
    return Attribute(RMSPropAttr::get(
        context, APFloat(lr->initial), APFloat(*decay), APFloat(*momentum),
        APFloat(*epsilon), centered, lr->schedule));
  }
  if (op.find("Adam") != std::string::npos) {
    FailureOr<LearningRate> lr = learningRate(5);
    FailureOr<double> beta1 = import.scalar(index, 6),
                      beta2 = import.scalar(index, 7),
                      epsilon = import.scalar(index, 8);
    if (failed(lr) || failed(beta1) || failed(beta2) || failed(epsilon))
      return failure();
    const tensorflow::AttrValue *nesterov = import.attr(index, "use_nesterov");
    if (nesterov && nesterov->b()) {
      import.fail(index) << "Adam with use_nesterov (NAdam) is not one of "
                            "DTF's optimizers";
      return failure();
    }
    return Attribute(AdamAttr::get(context, APFloat(lr->initial),
                                   APFloat(*beta1), APFloat(*beta2),
                                   APFloat(*epsilon), lr->schedule));
  }
  if (op.find("Momentum") != std::string::npos) {
    FailureOr<LearningRate> lr = learningRate(2);
    FailureOr<double> momentum = import.scalar(index, 4);
    if (failed(lr) || failed(momentum))
      return failure();
    const tensorflow::AttrValue *nesterov = import.attr(index, "use_nesterov");
    return Attribute(
        MomentumAttr::get(context, APFloat(lr->initial), APFloat(*momentum),
                          nesterov && nesterov->b(), lr->schedule));
  }
  FailureOr<LearningRate> lr = learningRate(1);
  if (failed(lr))
    return failure();
  return Attribute(SGDAttr::get(context, APFloat(lr->initial), lr->schedule));
}

} // namespace

bool isVariableOp(const std::string &op) {
  return op == "VariableV2" || op == "Variable" || op == "VarHandleOp";
}

SmallVector<StringRef> recognizedApplyOps() {
  SmallVector<StringRef> ops;
  for (const auto &entry : gradientInputs())
    ops.push_back(entry.first);
  return ops;
}

/// The nodes that paths of data edges from node `from` lead to, `from`
/// included; `users` holds each node's users.
static std::set<int> forwardReach(const std::vector<std::vector<int>> &users,
                                  int from) {
  std::set<int> reached = {from};
  std::vector<int> stack = {from};
  while (!stack.empty()) {
    int at = stack.back();
    stack.pop_back();
    for (int user : users[at])
      if (reached.insert(user).second)
        stack.push_back(user);
  }
  return reached;
}

/// Whether a path of data edges into node `index` starts at a variable.
static bool readsVariable(ImportContext &import, int index) {
  std::set<int> seen = {index};
  std::vector<int> stack = {index};
  while (!stack.empty()) {
    const tensorflow::NodeDef &def = import.node(stack.back());
    stack.pop_back();
    if (def.op() == "VariableV2" || def.op() == "Variable" ||
        def.op() == "VarHandleOp")
      return true;
    for (const std::string &input : def.input()) {
      InputRef ref = parseInput(input);
      std::optional<int> producer = import.findNode(ref.node);
      if (!ref.control && producer && seen.insert(*producer).second)
        stack.push_back(*producer);
    }
  }
  return false;
}

/// An error where `loss`, read through Identity nodes, is a term of a sum
/// whose other terms no variable computes (tf.add_n(losses) + 1): its
/// gradients are the loss's, so the seed names the loss whichever of the two
/// the optimizer minimizes.
static LogicalResult
checkNothingAddedAfter(ImportContext &import,
                       const std::vector<std::vector<int>> &users, int loss) {
  std::set<int> values = {loss};
  std::vector<int> stack = {loss};
  while (!stack.empty()) {
    int at = stack.back();
    stack.pop_back();
    for (int user : users[at]) {
      const tensorflow::NodeDef &def = import.node(user);
      if (def.op() == "Identity" || def.op() == "Snapshot") {
        if (values.insert(user).second)
          stack.push_back(user);
        continue;
      }
      // Sub passes on the gradient of its first input only.
      bool sum = def.op() == "Add" || def.op() == "AddV2" ||
                 def.op() == "AddN" ||
                 (def.op() == "Sub" && def.input_size() > 0 &&
                  import.findNode(parseInput(def.input(0)).node) == at);
      if (!sum)
        continue;
      bool variableTerm =
          llvm::any_of(def.input(), [&](const std::string &input) {
            InputRef ref = parseInput(input);
            std::optional<int> term = import.findNode(ref.node);
            return !ref.control && term && !values.count(*term) &&
                   readsVariable(import, *term);
          });
      if (!variableTerm) {
        import.fail(user) << "adds to '" << import.node(loss).name()
                          << "', whose gradients the optimizer applies, "
                             "terms that no variable computes: its gradients "
                             "are the same, and DTF cannot tell which of the "
                             "two is the loss";
        return failure();
      }
    }
  }
  return success();
}

/// The output of the node whose gradients the ops under `scope/` compute:
/// tf.gradients(loss) starts from Fill(shape of the loss, 1), and the
/// gradient ops that read that seed are named after the op whose output's
/// gradient it is: "gradients/<op>_grad/...". (Older TensorFlow also took
/// the shape with a Shape op of the loss.) An op that passes its output's
/// gradient on unchanged (AddN, as tf.losses.get_total_loss sums the
/// losses; an Add of equal static shapes) has no gradient op unless
/// gate_gradients tuples them: the seed goes to the ops of its inputs'
/// gradients, and the loss is then the nearest node that all those inputs
/// feed.
static FailureOr<std::pair<int, int>> findLoss(ImportContext &import,
                                               const std::string &scope) {
  std::string prefix = scope + "/";
  std::set<std::string> seeds = {prefix + "grad_ys_0", prefix + "Fill"};
  std::set<int> seeded;
  for (int index = 0; index < import.nodeCount(); ++index) {
    const tensorflow::NodeDef &def = import.node(index);
    if (def.name().rfind(prefix, 0) != 0)
      continue;
    if (def.name() == prefix + "Shape" && def.op() == "Shape") {
      FailureOr<InputRef> loss = import.dataInput(index, 0);
      if (failed(loss))
        return failure();
      FailureOr<int> lossIndex = import.lookup(index, loss->node);
      if (failed(lossIndex))
        return failure();
      return std::make_pair(*lossIndex, loss->output);
    }
    bool readsSeed = llvm::any_of(def.input(), [&](const std::string &input) {
      return seeds.count(parseInput(input).node) > 0;
    });
    if (!readsSeed)
      continue;
    std::string rest = def.name().substr(prefix.size());
    size_t grad = rest.rfind("_grad/");
    if (grad == std::string::npos) {
      // The sum of gradients that reach one node by several paths: which
      // ones DTF cannot tell from the names.
      import.fail(index) << "reads the seed of the backward pass (" << prefix
                         << "grad_ys_0) but is no op's gradient "
                         << "(<op>_grad/); DTF cannot tell which node is the "
                         << "loss";
      return failure();
    }
    FailureOr<int> seededIndex = import.lookup(index, rest.substr(0, grad));
    if (failed(seededIndex))
      return failure();
    seeded.insert(*seededIndex);
  }
  if (seeded.empty()) {
    import.failAtFile() << "the optimizer's updates read gradients from '"
                        << prefix << "', where no op reads the seed of the "
                        << "backward pass (" << prefix << "grad_ys_0) under "
                        << "the loss's name, as tf.gradients builds it";
    return failure();
  }
  // Each node's users outside the backward pass.
  std::vector<std::vector<int>> users(import.nodeCount());
  for (int index = 0; index < import.nodeCount(); ++index) {
    const tensorflow::NodeDef &def = import.node(index);
    if (def.name().rfind(prefix, 0) == 0)
      continue;
    for (const std::string &input : def.input()) {
      InputRef ref = parseInput(input);
      std::optional<int> producer = import.findNode(ref.node);
      if (!ref.control && producer)
        users[*producer].push_back(index);
    }
  }
  int loss = *seeded.begin();
  if (seeded.size() > 1) {
    // Several: of the nodes they all feed, the one that no other of them
    // feeds.
    std::optional<std::set<int>> common;
    for (int node : seeded) {
      std::set<int> reached = forwardReach(users, node);
      if (!common) {
        common = std::move(reached);
        continue;
      }
      std::set<int> both;
      std::set_intersection(common->begin(), common->end(), reached.begin(),
                            reached.end(), std::inserter(both, both.end()));
      common = std::move(both);
    }
    std::vector<int> nearest;
    for (int candidate : *common)
      if (llvm::none_of(*common, [&](int other) {
            return other != candidate &&
                   forwardReach(users, other).count(candidate);
          }))
        nearest.push_back(candidate);
    if (nearest.size() != 1) {
      std::string names;
      for (int node : seeded)
        names += (names.empty() ? "'" : ", '") + import.node(node).name() + "'";
      import.failAtFile() << "the seed of the backward pass under '" << prefix
                          << "' goes to the gradients of " << names
                          << ", which feed "
                          << (nearest.empty() ? "no" : "more than one")
                          << " nearest node together; DTF cannot tell which "
                             "node is the loss";
      return failure();
    }
    loss = nearest.front();
  }
  if (failed(checkNothingAddedAfter(import, users, loss)))
    return failure();
  return std::make_pair(loss, 0);
}

/// The value scalar node `index` has while the graph trains: a Const
/// (through Identity and Cast nodes), 1 - another, or the Merge of a
/// tf.cond on the learning phase (batch normalization's
/// smart_cond(training, momentum, 1.0)) that joins Consts, of which the
/// true branch's.
static std::optional<double> trainingScalar(ImportContext &import, int index) {
  for (int steps = 0; steps < import.nodeCount(); ++steps) {
    const tensorflow::NodeDef &node = import.node(index);
    if (node.op() != "Identity" && node.op() != "Cast")
      break;
    FailureOr<int> input = import.inputNode(index, 0);
    if (failed(input))
      return std::nullopt;
    index = *input;
  }
  const tensorflow::NodeDef &node = import.node(index);
  if (node.op() == "Const") {
    FailureOr<DenseElementsAttr> value = import.constant(index);
    if (failed(value) || value->getNumElements() != 1 ||
        !value->getElementType().isF32())
      return std::nullopt;
    return shortestDouble(
        (*value->getValues<APFloat>().begin()).convertToFloat());
  }
  if (node.op() == "Sub") {
    FailureOr<int> a = import.inputNode(index, 0),
                   b = import.inputNode(index, 1);
    if (failed(a) || failed(b))
      return std::nullopt;
    std::optional<double> x = trainingScalar(import, *a),
                          y = trainingScalar(import, *b);
    if (!x || !y)
      return std::nullopt;
    return *x - *y;
  }
  if (node.op() != "Merge" || node.input_size() != 2)
    return std::nullopt;
  // Each branch's Const runs under a control input on its branch's pivot,
  // an Identity of the cond's Switch: output 1 for the true branch.
  for (int input = 0; input < 2; ++input) {
    FailureOr<int> branchValue = import.inputNode(index, input);
    if (failed(branchValue))
      return std::nullopt;
    for (const std::string &entry : import.node(*branchValue).input()) {
      InputRef ref = parseInput(entry);
      std::optional<int> pivot = import.findNode(ref.node);
      if (!ref.control || !pivot || import.node(*pivot).op() != "Identity" ||
          import.node(*pivot).input_size() < 1)
        continue;
      InputRef switchRef = parseInput(import.node(*pivot).input(0));
      std::optional<int> condSwitch = import.findNode(switchRef.node);
      if (!condSwitch || import.node(*condSwitch).op() != "Switch" ||
          switchRef.output != 1)
        continue;
      FailureOr<int> predicate = import.throughIdentities(*condSwitch, 1);
      if (failed(predicate) ||
          import.node(*predicate).op() != "PlaceholderWithDefault")
        return std::nullopt;
      return trainingScalar(import, *branchValue);
    }
  }
  return std::nullopt;
}

/// Matches AssignSub node `assign` as assign_moving_average builds it:
/// AssignSub(v, Mul(Sub(read(v), value), 1 - decay)), 1 - decay being
/// constant while the graph trains.
static FailureOr<MovingAverageUpdate>
matchMovingAverage(ImportContext &import, const TrainingGraph &training,
                   int assign) {
  auto notRecognized =
      [&] {
        import.fail(assign)
            << "is an update the train op runs (a control dependency, as "
               "tf.GraphKeys.UPDATE_OPS makes them) that is not "
               "assign_moving_average's variable -= (variable - value) * (1 - "
               "decay) of a constant decay, the only one DTF imports";
        return failure();
      };
  std::optional<int> variable = variableRead(import, assign, 0);
  FailureOr<int> delta = import.throughIdentities(assign, 1);
  if (!variable || failed(delta) || import.node(*delta).op() != "Mul")
    return notRecognized();
  for (int differenceInput = 0; differenceInput < 2; ++differenceInput) {
    FailureOr<int> difference =
        import.throughIdentities(*delta, differenceInput);
    FailureOr<int> weight = import.inputNode(*delta, 1 - differenceInput);
    if (failed(difference) || failed(weight) ||
        import.node(*difference).op() != "Sub" ||
        variableRead(import, *difference, 0) != variable)
      continue;
    std::optional<double> valueWeight = trainingScalar(import, *weight);
    FailureOr<InputRef> value = import.dataInput(*difference, 1);
    if (!valueWeight || failed(value))
      continue;
    FailureOr<int> valueNode = import.lookup(*difference, value->node);
    if (failed(valueNode))
      return failure();
    if (training.trainable.count(*variable)) {
      import.fail(assign) << "updates '" << import.node(*variable).name()
                          << "', which the optimizer trains; a moving "
                             "average is of a variable no optimizer trains";
      return failure();
    }
    // The decay as the float32 the script gave (0.99, not 1 - 0.01).
    return MovingAverageUpdate{
        assign, *variable, *valueNode, value->output,
        shortestDouble(static_cast<float>(1.0 - *valueWeight))};
  }
  return notRecognized();
}

/// The moving averages the train op updates: the AssignSub nodes that the
/// gradients or the optimizer's updates depend on through control inputs
/// (directly or through tf.group's NoOp), as
/// tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS))
/// makes them. Another assignment there is an error: DTF would not run it.
static FailureOr<std::vector<MovingAverageUpdate>>
recognizeMovingAverages(ImportContext &import, const TrainingGraph &training,
                        const std::vector<int> &applies) {
  std::vector<int> stack;
  for (int index = 0; index < import.nodeCount(); ++index) {
    const std::string &name = import.node(index).name();
    if (!training.gradientScopes.count(name.substr(0, name.find('/'))) &&
        !llvm::is_contained(applies, index))
      continue;
    for (const std::string &entry : import.node(index).input()) {
      InputRef ref = parseInput(entry);
      if (!ref.control)
        continue;
      FailureOr<int> source = import.lookup(index, ref.node);
      if (failed(source))
        return failure();
      stack.push_back(*source);
    }
  }
  std::set<int> seen;
  std::vector<MovingAverageUpdate> updates;
  while (!stack.empty()) {
    int index = stack.back();
    stack.pop_back();
    if (!seen.insert(index).second)
      continue;
    const std::string &op = import.node(index).op();
    if (op == "NoOp") {
      for (const std::string &entry : import.node(index).input()) {
        FailureOr<int> source = import.lookup(index, parseInput(entry).node);
        if (failed(source))
          return failure();
        stack.push_back(*source);
      }
    } else if (op == "AssignSub" || op == "AssignSubVariableOp") {
      FailureOr<MovingAverageUpdate> update =
          matchMovingAverage(import, training, index);
      if (failed(update))
        return failure();
      updates.push_back(*update);
    } else if (StringRef(op).starts_with("Assign") ||
               StringRef(op).starts_with("Scatter")) {
      import.fail(index)
          << "is an update the train op runs (a control dependency, as "
             "tf.GraphKeys.UPDATE_OPS makes them); DTF imports only "
             "assign_moving_average's AssignSub there";
      return failure();
    }
  }
  llvm::sort(updates,
             [](const MovingAverageUpdate &a, const MovingAverageUpdate &b) {
               return a.assign < b.assign;
             });
  return updates;
}

FailureOr<TrainingGraph> recognizeTraining(ImportContext &import) {
  TrainingGraph training;
  // The apply ops, in the graph's order.
  std::vector<int> applies;
  // The gradients the apply ops take, after clipping where they are
  // clipped, and tf.clip_by_global_norm's norm and clip_norm.
  std::set<int> appliedGradients;
  std::optional<ClippedGradient> clip;
  bool unclipped = false;
  for (int index = 0; index < import.nodeCount(); ++index) {
    const std::string &op = import.node(index).op();
    std::optional<int> gradient = gradientInputOf(op);
    // Another optimizer's update would leave the variables it trains
    // untrained in the import.
    if (!gradient && isNamedAsApplyOp(op))
      import.recordUnsupportedOp(index);
    if (!gradient)
      continue;
    applies.push_back(index);
    FailureOr<int> gradientNode = import.throughIdentities(index, *gradient);
    if (failed(gradientNode))
      return failure();
    // tf.clip_by_global_norm between tf.gradients and the optimizer: the
    // gradient is the one it scales, and dtf.minimize clips as it does.
    if (std::optional<ClippedGradient> clipped =
            matchClippedGradient(import, *gradientNode)) {
      if (clip && (clip->norm != clipped->norm ||
                   clip->clipNorm != clipped->clipNorm)) {
        import.fail(index) << "clips its gradient by another global norm "
                              "than the other updates; DTF clips all "
                              "gradients by one";
        return failure();
      }
      clip = clipped;
      gradientNode = clipped->gradient;
    } else {
      unclipped = true;
    }
    appliedGradients.insert(*gradientNode);
    // A sparse update reads the gradient's rows through the optimizer's
    // deduplication of its indices (Unique, then UnsortedSegmentSum of the
    // IndexedSlices' values), named after the update.
    if (import.node(index).op().find("SparseApply") != std::string::npos &&
        import.node(*gradientNode).op() == "UnsortedSegmentSum") {
      gradientNode = import.inputNode(*gradientNode, 0);
      if (failed(gradientNode))
        return failure();
    }
    const std::string &gradientName = import.node(*gradientNode).name();
    training.gradientScopes.insert(
        gradientName.substr(0, gradientName.find('/')));
  }
  if (applies.empty())
    return training;
  if (clip) {
    // dtf.minimize clips every gradient by the norm of them all: a script
    // that clips some, or by the norm of others, computes something else.
    std::optional<std::set<int>> normed = normedGradients(import, clip->norm);
    if (unclipped || !normed || *normed != appliedGradients) {
      import.fail(clip->norm)
          << "is a global norm of other gradients than those the optimizer "
             "applies, or not all of them are clipped by it; DTF clips "
             "every gradient by the global norm of them all";
      return failure();
    }
    training.clipByGlobalNorm = clip->clipNorm;
  }

  // Every optimizer minimizes the same loss.
  std::optional<std::pair<int, int>> loss;
  for (const std::string &scope : training.gradientScopes) {
    FailureOr<std::pair<int, int>> found = findLoss(import, scope);
    if (failed(found))
      return failure();
    if (loss && *found != *loss) {
      import.failAtFile() << "the gradients under '" << scope << "/' are of '"
                          << import.node(found->first).name()
                          << "', those of another optimizer of '"
                          << import.node(loss->first).name()
                          << "': DTF minimizes one loss";
      return failure();
    }
    loss = *found;
  }
  training.lossNode = loss->first;
  training.lossOutput = loss->second;

  // Each variable's optimizer, with its hyper-parameters, and how many of
  // the graph's variables each optimizer updates.
  llvm::DenseMap<Attribute, int> uses;
  // The first update of each variable.
  std::map<int, int> updatedBy;
  std::vector<Attribute> order;
  // The apply ops whose learning rate is a schedule, with its variable.
  std::vector<std::pair<int, int>> scheduled;
  for (int index : applies) {
    std::optional<int> scheduleStep;
    FailureOr<Attribute> optimizer =
        optimizerOf(import, training, index, scheduleStep);
    if (scheduleStep)
      scheduled.push_back({index, *scheduleStep});
    FailureOr<int> variable = import.throughIdentities(index, 0);
    if (failed(optimizer) || failed(variable))
      return failure();
    auto [previous, inserted] = updatedBy.insert({*variable, index});
    if (!inserted && training.optimizers[*variable] != *optimizer) {
      import.fail(index) << "updates '" << import.node(*variable).name()
                         << "' with " << *optimizer << " where '"
                         << import.node(previous->second).name()
                         << "' updates it with "
                         << training.optimizers[*variable]
                         << "; DTF updates a variable with one optimizer";
      return failure();
    }
    training.optimizers[*variable] = *optimizer;
    training.trainable.insert(*variable);
    if (inserted && uses[*optimizer]++ == 0)
      order.push_back(*optimizer);
  }
  for (Attribute optimizer : order)
    if (!training.optimizer || uses[optimizer] > uses[training.optimizer])
      training.optimizer = optimizer;

  // minimize(global_step=...) increments it with the optimizer's name, after
  // the updates: AssignAdd(global_step, 1) named like the update scope. A
  // script that groups several optimizers' updates increments the variable
  // tf.train.get_or_create_global_step names "global_step" itself.
  std::optional<int> increment;
  auto isIncrement = [&](int index) {
    const std::string &op = import.node(index).op();
    return op == "AssignAdd" || op == "AssignAddVariableOp";
  };
  for (int index : applies) {
    const std::string &name = import.node(index).name();
    std::optional<int> found = import.findNode(name.substr(0, name.find('/')));
    if (found && isIncrement(*found)) {
      increment = found;
      break;
    }
  }
  for (int index = 0; index < import.nodeCount() && !increment; ++index) {
    if (!isIncrement(index) || import.node(index).input_size() < 1)
      continue;
    std::optional<int> variable =
        import.findNode(parseInput(import.node(index).input(0)).node);
    if (variable && import.node(*variable).name() == "global_step" &&
        isVariableOp(import.node(*variable).op()))
      increment = index;
  }
  if (increment) {
    FailureOr<int> step = import.throughIdentities(*increment, 0);
    if (failed(step))
      return failure();
    // dtf.minimize takes the global step as a variable's handle.
    if (!isVariableOp(import.node(*step).op())) {
      import.fail(*increment)
          << "increments '" << import.node(*step).name() << "' ("
          << import.node(*step).op()
          << "), which is not a variable: the global step must be one";
      return failure();
    }
    training.globalStep = *step;
  }
  // DTF evaluates a schedule at the step of each update, the global step's:
  // a schedule of another variable would not decay as the graph says.
  for (auto [index, variable] : scheduled)
    if (variable != training.globalStep) {
      import.fail(index) << "decays its learning rate with '"
                         << import.node(variable).name()
                         << "', which is not the global step that minimize "
                            "increments; DTF evaluates learning-rate "
                            "schedules at the global step";
      return failure();
    }
  FailureOr<std::vector<MovingAverageUpdate>> movingAverages =
      recognizeMovingAverages(import, training, applies);
  if (failed(movingAverages))
    return failure();
  training.movingAverages = std::move(*movingAverages);
  return training;
}

/// "name" and K where `name` is "name/part_K", a shard's name.
static std::optional<std::pair<std::string, int>>
shardName(const std::string &name) {
  size_t slash = name.rfind("/part_");
  unsigned shard = 0;
  if (slash == std::string::npos ||
      StringRef(name).substr(slash + 6).getAsInteger(10, shard))
    return std::nullopt;
  return std::make_pair(name.substr(0, slash), int(shard));
}

/// Gives `variable`, the declaration of variable node `index`, the optimizer
/// that updates it where it is not dtf.minimize's.
static void setOptimizer(const TrainingGraph &training, int index,
                         VariableOp variable) {
  auto own = training.optimizers.find(index);
  if (own != training.optimizers.end() && own->second != training.optimizer)
    variable->setAttr(DTFDialect::getOptimizerAttrName(), own->second);
}

/// Declares the table whose shard `index` is: every "name/part_K" of the
/// graph, whose rows are fixed_size_partitioner's split of the table's.
static LogicalResult declareTable(ImportContext &import,
                                  const TrainingGraph &training, int index,
                                  const std::string &table) {
  SmallVector<int> shards;
  while (std::optional<int> shard =
             import.findNode(table + "/part_" + std::to_string(shards.size())))
    shards.push_back(*shard);
  if (!llvm::is_contained(shards, index)) {
    import.fail(index) << "is named as a shard of the partitioned table '"
                       << table << "', whose shards part_0 to part_"
                       << shards.size() << " are not all in the graph";
    return failure();
  }
  // The table's rows, and the rest of its shape from its first shard.
  SmallVector<RankedTensorType> types;
  int64_t rows = 0;
  for (int shard : shards) {
    FailureOr<RankedTensorType> type =
        import.tensorType(shard, "dtype", "shape");
    if (failed(type))
      return failure();
    RankedTensorType first = types.empty() ? *type : types.front();
    if (!type->hasStaticShape() || type->getRank() == 0 ||
        type->getElementType() != first.getElementType() ||
        type->getShape().drop_front() != first.getShape().drop_front()) {
      import.fail(shard) << "has the shape " << *type
                         << ", not one of a shard of '" << table << "'";
      return failure();
    }
    types.push_back(*type);
    rows += type->getDimSize(0);
  }
  int64_t count = int64_t(shards.size());
  for (auto [k, shard] : llvm::enumerate(shards)) {
    int64_t expected = rows / count + (int64_t(k) < rows % count ? 1 : 0);
    if (types[k].getDimSize(0) != expected) {
      import.fail(shard) << "holds " << types[k].getDimSize(0) << " of the "
                         << rows << " rows of '" << table << "', where "
                         << "fixed_size_partitioner(" << count
                         << ") gives shard " << k << " " << expected;
      return failure();
    }
  }
  FailureOr<Attribute> initializer =
      initializerOf(import, training, shards.front());
  if (failed(initializer))
    return failure();
  for (int shard : ArrayRef(shards).drop_front()) {
    FailureOr<Attribute> own = initializerOf(import, training, shard);
    if (failed(own))
      return failure();
    if (*own != *initializer) {
      import.fail(shard) << "is initialized with " << *own << " where '"
                         << import.node(shards.front()).name() << "' is with "
                         << *initializer << "; DTF initializes a table alike";
      return failure();
    }
  }
  SmallVector<int64_t> shape(types.front().getShape());
  shape.front() = rows;
  OpBuilder &builder = import.getBuilder();
  auto variable = builder.create<VariableOp>(
      import.locationOf(shards.front()),
      ResourceType::get(
          import.getContext(),
          RankedTensorType::get(shape, types.front().getElementType())),
      builder.getStringAttr(table), *initializer,
      training.trainable.count(shards.front()) > 0, StringAttr());
  setOptimizer(training, shards.front(), variable);
  // One shard is the table: its reads and lookups are the variable's.
  if (shards.size() == 1) {
    import.recordVariable(shards.front(), variable);
    return import.pin(variable, shards.front());
  }
  // The shards' devices are placement's choice (--dtf-place-variables
  // spreads them over the PS tasks), not the graph's.
  for (auto [k, shard] : llvm::enumerate(shards))
    import.recordShard(shard, variable, int(k));
  return success();
}

LogicalResult declareVariable(ImportContext &import,
                              const TrainingGraph &training, int index) {
  if (import.shardOf(index))
    return success();
  if (std::optional<std::pair<std::string, int>> shard =
          shardName(import.node(index).name()))
    return declareTable(import, training, index, shard->first);
  OpBuilder &builder = import.getBuilder();
  FailureOr<RankedTensorType> type = import.tensorType(index, "dtype", "shape");
  if (failed(type))
    return failure();
  if (!type->hasStaticShape()) {
    import.fail(index) << "has a dynamic shape " << *type;
    return failure();
  }
  // DTF counts global steps in int64, as tf.train.get_or_create_global_step.
  if (training.globalStep == index && type->getElementType().isInteger(32))
    type = RankedTensorType::get(type->getShape(), builder.getI64Type());
  FailureOr<Attribute> initializer = initializerOf(import, training, index);
  if (failed(initializer))
    return failure();
  if (auto dense = dyn_cast<DenseInitAttr>(*initializer);
      dense && dense.getValue().getType() != *type) {
    import.fail(index) << "of type " << *type
                       << " is initialized with a constant of type "
                       << dense.getValue().getType();
    return failure();
  }
  bool isTrainable = training.trainable.count(index) > 0;
  auto variable = builder.create<VariableOp>(
      import.locationOf(index), ResourceType::get(import.getContext(), *type),
      builder.getStringAttr(import.node(index).name()), *initializer,
      isTrainable, StringAttr());
  setOptimizer(training, index, variable);
  import.recordVariable(index, variable);
  return import.pin(variable, index);
}

} // namespace dtf::translate::graphdef
