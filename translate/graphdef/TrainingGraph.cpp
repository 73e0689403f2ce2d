//===- TrainingGraph.cpp - The training machinery of a TF1 graph ----------===//

#include "translate/graphdef/TrainingGraph.h"

#include "translate/graphdef/ImportContext.h"

#include <map>

using namespace mlir;
using namespace dtf::ir;

namespace dtf::translate::graphdef {
namespace {

/// The optimizer apply ops DTF recognizes, by the input index of their
/// gradient.
std::optional<int> gradientInputOf(const std::string &op) {
  static const std::map<std::string, int> applies = {
      {"ApplyGradientDescent", 2},
      {"ResourceApplyGradientDescent", 2},
      {"ApplyMomentum", 3},
      {"ResourceApplyMomentum", 3},
      {"ApplyAdam", 9},
      {"ResourceApplyAdam", 9}};
  auto it = applies.find(op);
  if (it == applies.end())
    return std::nullopt;
  return it->second;
}

/// The optimizer an apply op updates with, with its hyper-parameters.
FailureOr<Attribute> optimizerOf(ImportContext &import, int index) {
  MLIRContext *context = import.getContext();
  const std::string &op = import.node(index).op();
  if (op.find("Adam") != std::string::npos) {
    FailureOr<double> lr = import.scalar(index, 5),
                      beta1 = import.scalar(index, 6),
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
    return Attribute(AdamAttr::get(context, APFloat(*lr), APFloat(*beta1),
                                   APFloat(*beta2), APFloat(*epsilon)));
  }
  if (op.find("Momentum") != std::string::npos) {
    FailureOr<double> lr = import.scalar(index, 2),
                      momentum = import.scalar(index, 4);
    if (failed(lr) || failed(momentum))
      return failure();
    const tensorflow::AttrValue *nesterov = import.attr(index, "use_nesterov");
    return Attribute(MomentumAttr::get(
        context, APFloat(*lr), APFloat(*momentum), nesterov && nesterov->b()));
  }
  FailureOr<double> lr = import.scalar(index, 1);
  if (failed(lr))
    return failure();
  return Attribute(SGDAttr::get(context, APFloat(*lr)));
}

/// The initializer attribute of the initial value node `index` computes.
FailureOr<Attribute> initialValue(ImportContext &import, int index) {
  MLIRContext *context = import.getContext();
  const std::string &op = import.node(index).op();
  auto uniform = [&](DenseElementsAttr values) -> FailureOr<Attribute> {
    if (!values.isSplat()) {
      import.fail(index)
          << "an initial value whose elements differ is not one of "
             "DTF's initializers (zeros, a constant, normal samples)";
      return failure();
    }
    Attribute element = values.getSplatValue<Attribute>();
    double value = 0;
    if (auto f = dyn_cast<FloatAttr>(element))
      value = f.getType().isF32()
                  ? shortestDouble(f.getValue().convertToFloat())
                  : f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(element))
      value = double(i.getValue().getSExtValue());
    if (value == 0)
      return Attribute(ZerosInitAttr::get(context));
    return Attribute(ConstantInitAttr::get(context, APFloat(value)));
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
    return uniform(*values);
  }
  if (op == "Fill") {
    FailureOr<double> value = import.scalar(index, 1);
    if (failed(value))
      return failure();
    if (*value == 0)
      return Attribute(ZerosInitAttr::get(context));
    return Attribute(ConstantInitAttr::get(context, APFloat(*value)));
  }
  // tf.truncated_normal / tf.random_normal: Add(Mul(sample, stddev), mean).
  if (op == "Add" || op == "AddV2") {
    FailureOr<int> product = import.throughIdentities(index, 0);
    if (failed(product))
      return failure();
    if (import.node(*product).op() == "Mul") {
      FailureOr<int> sample = import.throughIdentities(*product, 0);
      if (failed(sample))
        return failure();
      const std::string &kind = import.node(*sample).op();
      if (kind == "TruncatedNormal" || kind == "RandomStandardNormal") {
        FailureOr<double> stddev = import.scalar(*product, 1);
        FailureOr<double> mean = import.scalar(index, 1);
        if (failed(stddev) || failed(mean))
          return failure();
        // The op's own seed (seed2) is the one a script sets with seed=;
        // seed is the graph's.
        const tensorflow::AttrValue *seed2 = import.attr(*sample, "seed2");
        const tensorflow::AttrValue *seed = import.attr(*sample, "seed");
        int64_t value = seed2 && seed2->i() ? seed2->i() : seed ? seed->i() : 0;
        if (kind == "TruncatedNormal")
          return Attribute(TruncatedNormalInitAttr::get(
              context, APFloat(*mean), APFloat(*stddev), value));
        return Attribute(RandomNormalInitAttr::get(context, APFloat(*mean),
                                                   APFloat(*stddev), value));
      }
    }
  }
  import.fail(index) << "is not an initial value DTF recognizes (a Const, "
                        "Fill, or tf.truncated_normal / tf.random_normal's "
                        "Add(Mul(sample, stddev), mean))";
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
    if (!training.gradientScope.empty() &&
        name.rfind(training.gradientScope + "/", 0) == 0)
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

} // namespace

bool isVariableOp(const std::string &op) {
  return op == "VariableV2" || op == "Variable" || op == "VarHandleOp";
}

FailureOr<TrainingGraph> recognizeTraining(ImportContext &import) {
  TrainingGraph training;
  std::optional<int> first;
  for (int index = 0; index < import.nodeCount(); ++index) {
    std::optional<int> gradient = gradientInputOf(import.node(index).op());
    if (!gradient)
      continue;
    // The optimizer's hyper-parameters, the same for every update.
    FailureOr<Attribute> found = optimizerOf(import, index);
    if (failed(found))
      return failure();
    if (training.optimizer && *found != training.optimizer) {
      import.fail(index) << "updates with " << *found << " where '"
                         << import.node(*first).name() << "' updates with "
                         << training.optimizer
                         << "; DTF minimizes one loss with one optimizer";
      return failure();
    }
    training.optimizer = *found;
    first = first.value_or(index);

    FailureOr<int> variable = import.throughIdentities(index, 0);
    if (failed(variable))
      return failure();
    training.trainable.insert(*variable);
    FailureOr<InputRef> gradientRef = import.dataInput(index, *gradient);
    if (failed(gradientRef))
      return failure();
    std::string scope =
        gradientRef->node.substr(0, gradientRef->node.find('/'));
    if (!training.gradientScope.empty() && scope != training.gradientScope) {
      import.fail(index) << "reads its gradient from '" << gradientRef->node
                         << "', outside '" << training.gradientScope
                         << "/': DTF minimizes one loss";
      return failure();
    }
    training.gradientScope = scope;
  }
  if (!first)
    return training;

  // tf.gradients(loss) starts from Fill(shape of the loss, 1), and the
  // first gradient op that reads that seed is named after the loss's op:
  // "gradients/<loss>_grad/...". (Older TensorFlow also took the shape with
  // a Shape op of the loss.)
  std::string prefix = training.gradientScope + "/";
  std::set<std::string> seeds = {prefix + "grad_ys_0", prefix + "Fill"};
  for (int index = 0; index < import.nodeCount() && !training.lossNode;
       ++index) {
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
      training.lossNode = *lossIndex;
      training.lossOutput = loss->output;
      break;
    }
    bool readsSeed = llvm::any_of(def.input(), [&](const std::string &input) {
      return seeds.count(parseInput(input).node) > 0;
    });
    std::string rest = def.name().substr(prefix.size());
    size_t grad = rest.rfind("_grad/");
    if (!readsSeed || grad == std::string::npos)
      continue;
    FailureOr<int> lossIndex = import.lookup(index, rest.substr(0, grad));
    if (failed(lossIndex))
      return failure();
    training.lossNode = *lossIndex;
  }
  if (!training.lossNode) {
    import.failAtFile() << "the optimizer's updates read gradients from '"
                        << prefix << "', where no op reads the seed of the "
                        << "backward pass (" << prefix << "grad_ys_0) under "
                        << "the loss's name, as tf.gradients builds it";
    return failure();
  }
  // minimize(global_step=...) increments it with the optimizer's name, after
  // the updates: AssignAdd(global_step, 1) named like the update scope.
  const std::string &firstName = import.node(*first).name();
  std::optional<int> increment =
      import.findNode(firstName.substr(0, firstName.find('/')));
  if (increment && (import.node(*increment).op() == "AssignAdd" ||
                    import.node(*increment).op() == "AssignAddVariableOp")) {
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
  return training;
}

LogicalResult declareVariable(ImportContext &import,
                              const TrainingGraph &training, int index) {
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
  bool isTrainable = training.trainable.count(index) > 0;
  auto variable = builder.create<VariableOp>(
      import.locationOf(index), ResourceType::get(import.getContext(), *type),
      builder.getStringAttr(import.node(index).name()), *initializer,
      isTrainable, StringAttr());
  import.recordVariable(index, variable);
  return import.pin(variable, index);
}

} // namespace dtf::translate::graphdef
