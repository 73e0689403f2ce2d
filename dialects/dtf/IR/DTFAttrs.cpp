//===- DTFAttrs.cpp - dtf dialect attributes -------------------------------===//

#include "dialects/dtf/IR/DTFDialect.h"

#include "runtime/core/DeviceName.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace dtf::ir;

#include "dialects/dtf/IR/DTFEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/dtf/IR/DTFAttrs.cpp.inc"

void DTFDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/dtf/IR/DTFAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Parameter parsers and printers
//===----------------------------------------------------------------------===//

FailureOr<APFloat> dtf::ir::parseF64Parameter(AsmParser &parser) {
  double value;
  if (parser.parseFloat(value))
    return failure();
  return APFloat(value);
}

void dtf::ir::printF64Parameter(AsmPrinter &printer,
                                  const APFloat &parameter) {
  double value = parameter.convertToDouble();
  // Infinities and NaNs have no decimal literal; print their bits in hex, as
  // the builtin float attribute does, so that they parse back.
  if (!std::isfinite(value)) {
    printer << "0x"
            << llvm::format_hex_no_prefix(
                   parameter.bitcastToAPInt().getZExtValue(), 16,
                   /*Upper=*/true);
    return;
  }
  // The fewest significant digits that read back as the same double, so
  // that hyper-parameters written as 0.01 print as 0.01...
  char buffer[32];
  int precision = 1;
  for (;; ++precision) {
    std::snprintf(buffer, sizeof(buffer), "%.*e", precision - 1, value);
    // 17 significant digits always suffice for a double.
    if (precision == 17 || std::strtod(buffer, nullptr) == value)
      break;
  }
  // ...written without an exponent when it is small, as Python's repr does,
  // so that 100.0 prints as 100.0 rather than 1.0e+02.
  int exponent = std::atoi(std::strchr(buffer, 'e') + 1);
  if (exponent >= -4 && exponent < 16)
    std::snprintf(buffer, sizeof(buffer), "%.*f",
                  std::max(precision - 1 - exponent, 0), value);
  std::string text(buffer);
  // MLIR float literals need a '.' before any exponent.
  if (std::isfinite(value) && text.find('.') == std::string::npos) {
    size_t exponent = text.find_first_of("eE");
    text.insert(exponent == std::string::npos ? text.size() : exponent, ".0");
  }
  printer << text;
}

FailureOr<bool> dtf::ir::parseBoolParameter(AsmParser &parser) {
  if (succeeded(parser.parseOptionalKeyword("true")))
    return true;
  if (succeeded(parser.parseOptionalKeyword("false")))
    return false;
  return parser.emitError(parser.getCurrentLocation(),
                          "expected 'true' or 'false'");
}

//===----------------------------------------------------------------------===//
// DeviceAttr
//===----------------------------------------------------------------------===//

static bool isKnownJob(StringRef job) { return job == "ps" || job == "worker"; }

static bool isKnownDeviceType(StringRef type) {
  return type == "CPU" || type == "GPU";
}

FailureOr<DeviceAttr> DeviceAttr::parseDeviceName(MLIRContext *context,
                                                  StringRef name,
                                                  std::string &error) {
  // One grammar for device names in DTF (runtime/core/DeviceName.h).
  std::optional<::dtf::DeviceName> device =
      ::dtf::DeviceName::parseFull(name, error);
  if (!device)
    return failure();
  return DeviceAttr::get(context, device->job, device->task, device->type,
                         device->index);
}

std::string DeviceAttr::getName() const {
  std::string name =
      ("/job:" + getJob() + "/task:" + Twine(getTask())).str();
  if (hasDevicePart())
    name += ("/device:" + getDeviceType() + ":" + Twine(getDeviceIndex())).str();
  return name;
}

DeviceAttr DeviceAttr::getTaskDevice() const {
  return DeviceAttr::get(getContext(), getJob(), getTask(), "", -1);
}

Attribute DeviceAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  std::string name;
  if (parser.parseLess() || parser.parseString(&name) || parser.parseGreater())
    return {};
  std::string error;
  FailureOr<DeviceAttr> device =
      parseDeviceName(parser.getContext(), name, error);
  if (failed(device)) {
    parser.emitError(loc, "invalid device '") << name << "': " << error;
    return {};
  }
  return *device;
}

void DeviceAttr::print(AsmPrinter &printer) const {
  printer << "<\"" << getName() << "\">";
}

LogicalResult DeviceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef job, int64_t task,
                                 StringRef deviceType, int64_t deviceIndex) {
  if (!isKnownJob(job))
    return emitError() << "unknown job '" << job
                       << "'; expected 'ps' or 'worker'";
  if (task < 0)
    return emitError() << "task index " << task << " is negative";
  if (deviceType.empty() ? deviceIndex != -1
                         : !isKnownDeviceType(deviceType) || deviceIndex < 0)
    return emitError() << "invalid device part '" << deviceType << ":"
                       << deviceIndex << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// ClusterAttr
//===----------------------------------------------------------------------===//

LogicalResult ClusterAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayAttr ps, ArrayAttr worker) {
  for (auto [job, tasks] : {std::pair<StringRef, ArrayAttr>{"ps", ps},
                            std::pair<StringRef, ArrayAttr>{"worker", worker}}) {
    for (auto [index, task] : llvm::enumerate(tasks)) {
      auto address = llvm::dyn_cast<StringAttr>(task);
      if (!address)
        return emitError() << "job '" << job << "' task " << index
                           << ": expected a \"host:port\" string, got "
                           << task;
      auto [host, port] = address.getValue().rsplit(':');
      unsigned portNumber;
      if (host.empty() || port.size() == address.getValue().size() ||
          port.getAsInteger(10, portNumber) || portNumber == 0 ||
          portNumber > 65535)
        return emitError() << "job '" << job << "' task " << index << ": '"
                           << address.getValue()
                           << "' is not host:port with a port in 1..65535";
    }
  }
  if (worker.empty())
    return emitError() << "the cluster has no worker task";
  return success();
}

int64_t ClusterAttr::getNumTasks(StringRef job) const {
  if (job == "ps")
    return getPs().size();
  if (job == "worker")
    return getWorker().size();
  return 0;
}

//===----------------------------------------------------------------------===//
// ReplicationAttr
//===----------------------------------------------------------------------===//

LogicalResult
ReplicationAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        ReplicationMode, int64_t replicasToAggregate,
                        int64_t totalReplicas) {
  if (replicasToAggregate < 1)
    return emitError() << "replicas_to_aggregate must be at least 1, got "
                       << replicasToAggregate;
  if (replicasToAggregate > totalReplicas)
    return emitError() << "replicas_to_aggregate (" << replicasToAggregate
                       << ") exceeds total_replicas (" << totalReplicas
                       << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// Initializers and optimizers
//===----------------------------------------------------------------------===//

static LogicalResult
verifyNormalInit(function_ref<InFlightDiagnostic()> emitError,
                 const APFloat &meanValue, const APFloat &stddevValue) {
  double mean = meanValue.convertToDouble();
  double stddev = stddevValue.convertToDouble();
  if (!std::isfinite(mean))
    return emitError() << "mean must be finite";
  if (!(stddev > 0.0) || !std::isfinite(stddev))
    return emitError() << "stddev must be positive and finite, got " << stddev;
  return success();
}

LogicalResult TruncatedNormalInitAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, APFloat mean, APFloat stddev,
    int64_t) {
  return verifyNormalInit(emitError, mean, stddev);
}

LogicalResult
RandomNormalInitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             APFloat mean, APFloat stddev, int64_t) {
  return verifyNormalInit(emitError, mean, stddev);
}

LogicalResult
RandomUniformInitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              APFloat minvalValue, APFloat maxvalValue,
                              int64_t) {
  double minval = minvalValue.convertToDouble();
  double maxval = maxvalValue.convertToDouble();
  if (!std::isfinite(minval) || !std::isfinite(maxval))
    return emitError() << "minval and maxval must be finite, got [" << minval
                       << ", " << maxval << ")";
  if (!(minval < maxval))
    return emitError() << "minval must be less than maxval, got [" << minval
                       << ", " << maxval << ")";
  // The samples are minval + (maxval - minval) * u.
  if (!std::isfinite(maxval - minval))
    return emitError() << "maxval - minval must be finite, got [" << minval
                       << ", " << maxval << ")";
  return success();
}

LogicalResult
OrthogonalInitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           APFloat gainValue, int64_t) {
  double gain = gainValue.convertToDouble();
  if (!std::isfinite(gain))
    return emitError() << "gain must be finite, got " << gain;
  return success();
}

LogicalResult
DenseInitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      DenseElementsAttr value) {
  if (!value)
    return emitError() << "dense_init needs element values";
  if (!llvm::isa<RankedTensorType>(value.getType()))
    return emitError() << "dense_init values must be a tensor, got "
                       << value.getType();
  return success();
}

static LogicalResult
verifyPositiveFinite(function_ref<InFlightDiagnostic()> emitError,
                     StringRef name, const APFloat &value) {
  double number = value.convertToDouble();
  if (!(number > 0.0) || !std::isfinite(number))
    return emitError() << name << " must be positive and finite, got "
                       << number;
  return success();
}

LogicalResult
ExponentialDecayAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             APFloat decaySteps, APFloat decayRate, bool) {
  return failure(
      failed(verifyPositiveFinite(emitError, "decay_steps", decaySteps)) ||
      failed(verifyPositiveFinite(emitError, "decay_rate", decayRate)));
}

LogicalResult
PolynomialDecayAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            APFloat decaySteps, APFloat endLearningRate,
                            APFloat power, bool) {
  if (failed(verifyPositiveFinite(emitError, "decay_steps", decaySteps)) ||
      failed(verifyPositiveFinite(emitError, "power", power)))
    return failure();
  double end = endLearningRate.convertToDouble();
  if (!(end >= 0.0) || !std::isfinite(end))
    return emitError() << "end_learning_rate must be non-negative and "
                          "finite, got "
                       << end;
  return success();
}

LogicalResult
CosineDecayAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        APFloat decaySteps, APFloat alphaValue) {
  if (failed(verifyPositiveFinite(emitError, "decay_steps", decaySteps)))
    return failure();
  double alpha = alphaValue.convertToDouble();
  if (!(alpha >= 0.0 && alpha <= 1.0))
    return emitError() << "alpha must be in [0, 1], got " << alpha;
  return success();
}

LogicalResult
PiecewiseConstantAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              DenseI64ArrayAttr boundaries,
                              DenseF64ArrayAttr values) {
  if (!boundaries || !values)
    return emitError() << "piecewise_constant needs boundaries and values";
  if (values.size() != boundaries.size() + 1)
    return emitError() << "piecewise_constant needs one value more than "
                          "boundaries, got "
                       << values.size() << " values for " << boundaries.size()
                       << " boundaries";
  for (int64_t i = 1; i < boundaries.size(); ++i)
    if (boundaries[i] <= boundaries[i - 1])
      return emitError() << "piecewise_constant boundaries must increase, "
                            "got "
                         << boundaries[i - 1] << " before " << boundaries[i];
  for (double value : values.asArrayRef())
    if (!(value > 0.0) || !std::isfinite(value))
      return emitError() << "piecewise_constant values must be positive and "
                            "finite, got "
                         << value;
  return success();
}

/// Checks an optimizer's learning rate and its schedule, if any: one of
/// DTF_LearningRateScheduleAttr, and for piecewise_constant, starting at
/// the learning rate itself.
static LogicalResult
verifyLearningRate(function_ref<InFlightDiagnostic()> emitError,
                   const APFloat &rateValue, Attribute schedule) {
  if (failed(verifyPositiveFinite(emitError, "learning_rate", rateValue)))
    return failure();
  if (!schedule)
    return success();
  if (!isa<ExponentialDecayAttr, PolynomialDecayAttr, CosineDecayAttr,
           PiecewiseConstantAttr>(schedule))
    return emitError() << "schedule must be a learning-rate schedule "
                          "(exponential_decay, polynomial_decay, "
                          "cosine_decay, piecewise_constant), got "
                       << schedule;
  if (auto piecewise = dyn_cast<PiecewiseConstantAttr>(schedule))
    if (piecewise.getValues()[0] != rateValue.convertToDouble())
      return emitError() << "learning_rate " << rateValue.convertToDouble()
                         << " must be the first value of its "
                            "piecewise_constant schedule, "
                         << piecewise.getValues()[0];
  return success();
}

LogicalResult SGDAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              APFloat learningRate, Attribute schedule) {
  return verifyLearningRate(emitError, learningRate, schedule);
}

LogicalResult MomentumAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   APFloat learningRate, APFloat momentumValue,
                                   bool, Attribute schedule) {
  double momentum = momentumValue.convertToDouble();
  if (failed(verifyLearningRate(emitError, learningRate, schedule)))
    return failure();
  if (!(momentum >= 0.0) || !std::isfinite(momentum))
    return emitError() << "momentum must be non-negative and finite, got "
                       << momentum;
  return success();
}

LogicalResult AdamAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               APFloat learningRate, APFloat beta1Value,
                               APFloat beta2Value, APFloat epsilonValue,
                               Attribute schedule) {
  double beta1 = beta1Value.convertToDouble();
  double beta2 = beta2Value.convertToDouble();
  double epsilon = epsilonValue.convertToDouble();
  if (failed(verifyLearningRate(emitError, learningRate, schedule)))
    return failure();
  if (!(beta1 >= 0.0 && beta1 < 1.0))
    return emitError() << "beta1 must be in [0, 1), got " << beta1;
  if (!(beta2 >= 0.0 && beta2 < 1.0))
    return emitError() << "beta2 must be in [0, 1), got " << beta2;
  if (!(epsilon > 0.0) || !std::isfinite(epsilon))
    return emitError() << "epsilon must be positive and finite, got "
                       << epsilon;
  return success();
}

LogicalResult RMSPropAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  APFloat learningRate, APFloat decayValue,
                                  APFloat momentumValue, APFloat epsilonValue,
                                  bool, Attribute schedule) {
  if (failed(verifyLearningRate(emitError, learningRate, schedule)))
    return failure();
  double decay = decayValue.convertToDouble();
  double momentum = momentumValue.convertToDouble();
  double epsilon = epsilonValue.convertToDouble();
  if (!(decay >= 0.0 && decay <= 1.0))
    return emitError() << "decay must be in [0, 1], got " << decay;
  if (!(momentum >= 0.0) || !std::isfinite(momentum))
    return emitError() << "momentum must be non-negative and finite, got "
                       << momentum;
  // The update divides by sqrt(ms + epsilon), with ms >= 0 (centered:
  // ms - mg^2 >= 0 up to rounding): epsilon keeps it away from 0.
  if (!(epsilon > 0.0) || !std::isfinite(epsilon))
    return emitError() << "epsilon must be positive and finite, got "
                       << epsilon;
  return success();
}

LogicalResult AdadeltaAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   APFloat learningRate, APFloat rhoValue,
                                   APFloat epsilonValue, Attribute schedule) {
  if (failed(verifyLearningRate(emitError, learningRate, schedule)))
    return failure();
  double rho = rhoValue.convertToDouble();
  double epsilon = epsilonValue.convertToDouble();
  if (!(rho >= 0.0 && rho <= 1.0))
    return emitError() << "rho must be in [0, 1], got " << rho;
  // The first update is sqrt(epsilon) / sqrt(accum + epsilon) * grad: a
  // zero epsilon would never move the variable.
  if (!(epsilon > 0.0) || !std::isfinite(epsilon))
    return emitError() << "epsilon must be positive and finite, got "
                       << epsilon;
  return success();
}

LogicalResult FtrlAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               APFloat learningRate, APFloat powerValue,
                               APFloat initialValue, APFloat l1Value,
                               APFloat l2Value, APFloat shrinkageValue,
                               Attribute schedule) {
  if (failed(verifyLearningRate(emitError, learningRate, schedule)))
    return failure();
  // FtrlOptimizer's own checks.
  if (!(powerValue.convertToDouble() <= 0.0))
    return emitError() << "learning_rate_power must be at most 0, got "
                       << powerValue.convertToDouble();
  if (!(initialValue.convertToDouble() >= 0.0))
    return emitError() << "initial_accumulator_value must be at least 0, got "
                       << initialValue.convertToDouble();
  for (auto [name, value] : {std::pair<const char *, APFloat>{"l1", l1Value},
                             {"l2", l2Value},
                             {"l2_shrinkage", shrinkageValue}})
    if (!(value.convertToDouble() >= 0.0) ||
        !std::isfinite(value.convertToDouble()))
      return emitError() << name << " must be non-negative and finite, got "
                         << value.convertToDouble();
  return success();
}

LogicalResult
PartitionerAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        int64_t shards, PartitionStrategy) {
  if (shards < 1)
    return emitError() << "shards must be at least 1, got " << shards;
  return success();
}

LogicalResult
DynamicTableAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t minCount) {
  if (minCount < 1)
    return emitError() << "min_count must be at least 1, got " << minCount;
  return success();
}

LogicalResult RowShardAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   PartitionStrategy, int64_t shard,
                                   int64_t numShards, int64_t rows) {
  if (numShards < 1 || shard < 0 || shard >= numShards)
    return emitError() << "shard " << shard << " of " << numShards
                       << " shards is not a shard";
  if (rows < numShards)
    return emitError() << rows << " rows cannot fill " << numShards
                       << " shards";
  return success();
}

int64_t RowShardAttr::getShardRows() const {
  // Both strategies give the first `rows % num_shards` shards one row more.
  return getRows() / getNumShards() +
         (getShard() < getRows() % getNumShards() ? 1 : 0);
}

LogicalResult AdagradAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  APFloat learningRate,
                                  APFloat initialAccumulatorValue,
                                  Attribute schedule) {
  if (failed(verifyLearningRate(emitError, learningRate, schedule)))
    return failure();
  // The first update divides by sqrt(accum): a zero accumulator would
  // divide by zero where a row's first gradient is zero.
  double initial = initialAccumulatorValue.convertToDouble();
  if (!(initial > 0.0) || !std::isfinite(initial))
    return emitError()
           << "initial_accumulator_value must be positive and finite, got "
           << initial;
  return success();
}
