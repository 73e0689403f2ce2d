//===- GpuFunction.cpp - Runs functions lowered for a GPU -----------------===//
//
// Preparing a function (checking its host code, loading its kernels and
// constants, planning when its buffers are freed) and running it op by op.
// What host code may contain is HostCodeVerifier.h's; the scalar arithmetic
// in it is HostScalarInterpreter.h's.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/exec/GpuFunction.h"

#include "runtime/cuda/Library.h"
#include "runtime/cuda/exec/HostCodeVerifier.h"
#include "runtime/cuda/exec/HostScalarInterpreter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <cassert>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>

using namespace mlir;

namespace dtf::cuda {

namespace {

//===----------------------------------------------------------------------===//
// Values of a run
//===----------------------------------------------------------------------===//

/// Bytes per element as lowered code stores them (i1 takes a byte).
size_t elementBytes(Type type) {
  return std::max<size_t>(1, (type.getIntOrFloatBitWidth() + 7) / 8);
}

/// A memref: a buffer and MLIR's strided descriptor fields.
struct MemRef {
  /// The start of the underlying buffer (MLIR's aligned pointer), in device
  /// memory, or in host memory for a constant global.
  char *base = nullptr;
  bool onHost = false;
  int64_t offset = 0;
  SmallVector<int64_t, 4> sizes, strides;
  size_t elementSize = 0;

  int64_t numElements() const {
    int64_t count = 1;
    for (int64_t size : sizes)
      count *= size;
    return count;
  }
  bool isContiguous() const {
    int64_t expected = 1;
    for (int i = static_cast<int>(sizes.size()) - 1; i >= 0; --i) {
      if (sizes[i] != 1 && strides[i] != expected)
        return false;
      expected *= sizes[i];
    }
    return true;
  }
  char *begin() const { return base + offset * elementSize; }
};

/// The value of an SSA value during a run: an integer (index, iN), a
/// float, or a memref.
struct RuntimeValue {
  int64_t integer = 0;
  double real = 0;
  MemRef memref;
};

/// A memref of `type` on `base`; strides and offset that the type leaves
/// dynamic are `like`'s (a memref.cast to a dynamic type keeps the layout).
MemRef memrefOfType(MemRefType type, char *base, const MemRef *like) {
  MemRef result;
  result.base = base;
  result.elementSize = elementBytes(type.getElementType());
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  if (failed(getStridesAndOffset(type, strides, offset))) {
    strides.assign(type.getRank(), ShapedType::kDynamic);
    offset = ShapedType::kDynamic;
  }
  for (int64_t i = 0; i < type.getRank(); ++i) {
    int64_t size = type.getDimSize(i);
    result.sizes.push_back(ShapedType::isDynamic(size) && like
                               ? like->sizes[i]
                               : size);
    result.strides.push_back(ShapedType::isDynamic(strides[i]) && like
                                 ? like->strides[i]
                                 : strides[i]);
  }
  result.offset = ShapedType::isDynamic(offset) && like ? like->offset : offset;
  if (like)
    result.onHost = like->onHost;
  return result;
}

template <int N> MemRefDescriptor<float, N> descriptor(const MemRef &memref) {
  MemRefDescriptor<float, N> result;
  result.allocated = result.aligned = reinterpret_cast<float *>(memref.base);
  result.offset = memref.offset;
  for (int i = 0; i < N; ++i) {
    result.sizes[i] = memref.sizes[i];
    result.strides[i] = memref.strides[i];
  }
  return result;
}

/// A dtf_cuda_* function of the C ABI, called with the run values of the
/// call's operands.
using LibraryFunction = std::function<void(ArrayRef<const RuntimeValue *>)>;

const llvm::StringMap<std::pair<unsigned, LibraryFunction>> &libraryFunctions() {
  // name -> (number of operands, adapter)
  static const auto *functions = [] {
    auto *table = new llvm::StringMap<std::pair<unsigned, LibraryFunction>>();
    (*table)["dtf_cuda_gemm_f32"] = {5, [](ArrayRef<const RuntimeValue *> v) {
      auto a = descriptor<2>(v[0]->memref), b = descriptor<2>(v[1]->memref),
           c = descriptor<2>(v[2]->memref);
      _mlir_ciface_dtf_cuda_gemm_f32(&a, &b, &c, v[3]->integer, v[4]->integer);
    }};
    (*table)["dtf_cuda_conv2d_f32"] = {
        9, [](ArrayRef<const RuntimeValue *> v) {
          auto x = descriptor<4>(v[0]->memref), w = descriptor<4>(v[1]->memref),
               y = descriptor<4>(v[2]->memref);
          _mlir_ciface_dtf_cuda_conv2d_f32(
              &x, &w, &y, v[3]->integer, v[4]->integer, v[5]->integer,
              v[6]->integer, v[7]->integer, v[8]->integer);
        }};
    (*table)["dtf_cuda_conv2d_backprop_input_f32"] = {
        9, [](ArrayRef<const RuntimeValue *> v) {
          auto w = descriptor<4>(v[0]->memref),
               dy = descriptor<4>(v[1]->memref),
               dx = descriptor<4>(v[2]->memref);
          _mlir_ciface_dtf_cuda_conv2d_backprop_input_f32(
              &w, &dy, &dx, v[3]->integer, v[4]->integer, v[5]->integer,
              v[6]->integer, v[7]->integer, v[8]->integer);
        }};
    (*table)["dtf_cuda_conv2d_backprop_filter_f32"] = {
        9, [](ArrayRef<const RuntimeValue *> v) {
          auto x = descriptor<4>(v[0]->memref),
               dy = descriptor<4>(v[1]->memref),
               dw = descriptor<4>(v[2]->memref);
          _mlir_ciface_dtf_cuda_conv2d_backprop_filter_f32(
              &x, &dy, &dw, v[3]->integer, v[4]->integer, v[5]->integer,
              v[6]->integer, v[7]->integer, v[8]->integer);
        }};
    (*table)["dtf_cuda_max_pool_f32"] = {8, [](ArrayRef<const RuntimeValue *> v) {
      auto x = descriptor<4>(v[0]->memref), y = descriptor<4>(v[1]->memref);
      _mlir_ciface_dtf_cuda_max_pool_f32(&x, &y, v[2]->integer, v[3]->integer,
                                         v[4]->integer, v[5]->integer,
                                         v[6]->integer, v[7]->integer);
    }};
    (*table)["dtf_cuda_max_pool_grad_f32"] = {
        10, [](ArrayRef<const RuntimeValue *> v) {
          auto x = descriptor<4>(v[0]->memref), y = descriptor<4>(v[1]->memref),
               dy = descriptor<4>(v[2]->memref),
               dx = descriptor<4>(v[3]->memref);
          _mlir_ciface_dtf_cuda_max_pool_grad_f32(
              &x, &y, &dy, &dx, v[4]->integer, v[5]->integer, v[6]->integer,
              v[7]->integer, v[8]->integer, v[9]->integer);
        }};
    return table;
  }();
  return *functions;
}

/// The number of operands of the library function `callee`, as the host
/// code verifier asks.
std::optional<unsigned> libraryArity(StringRef callee) {
  auto it = libraryFunctions().find(callee);
  if (it == libraryFunctions().end())
    return std::nullopt;
  return it->second.first;
}

/// The bytes of a dense constant as lowered code lays it out.
std::vector<char> constantBytes(DenseElementsAttr value) {
  Type element = value.getElementType();
  size_t width = elementBytes(element);
  std::vector<char> bytes;
  bytes.reserve(value.getNumElements() * width);
  auto append = [&](const APInt &bits) {
    for (size_t i = 0; i < width; ++i)
      bytes.push_back(static_cast<char>(
          bits.getBitWidth() > 8 * i ? bits.extractBitsAsZExtValue(
                                           std::min<unsigned>(
                                               8, bits.getBitWidth() - 8 * i),
                                           8 * i)
                                     : 0));
  };
  if (isa<FloatType>(element))
    for (const APFloat &x : value.getValues<APFloat>())
      append(x.bitcastToAPInt());
  else
    for (const APInt &x : value.getValues<APInt>())
      append(x);
  return bytes;
}

} // namespace

//===----------------------------------------------------------------------===//
// Preparation
//===----------------------------------------------------------------------===//

struct GpuFunction::Impl {
  Impl(func::FuncOp function, Device &device)
      : function(function), device(device) {}
  /// Kernels still queued must finish before their modules unload.
  ~Impl() {
    if (!modules.empty()) {
      try {
        device.synchronize();
      } catch (const CudaError &) {
        // The error was, or will be, reported by whoever queued the work.
      }
    }
  }

  void prepare();
  void prepareGlobal(memref::GetGlobalOp get);
  const KernelModule &loadBinary(Operation *user, StringAttr name);

  std::vector<DeviceTensor> run(const std::vector<const DeviceTensor *> &args);
  void execute(Operation *op, size_t index);
  /// The value of `value`, which an earlier op (or the signature) defined.
  const RuntimeValue &valueOf(Value value) const {
    auto it = values.find(value);
    assert(it != values.end() && "use before definition in host code");
    return it->second;
  }
  int64_t integer(Value value) const { return valueOf(value).integer; }
  const MemRef &memref(Value value) const { return valueOf(value).memref; }
  void launch(gpu::LaunchFuncOp op);
  void memcpy(gpu::MemcpyOp op);
  void call(func::CallOp op);
  void freeAllocation(size_t root);

  func::FuncOp function;
  Device &device;
  /// The body, in order.
  std::vector<Operation *> ops;
  /// Loaded kernel modules by gpu.binary name, and kernels by launch op.
  llvm::StringMap<std::unique_ptr<KernelModule>> modules;
  llvm::DenseMap<Operation *, CUfunc_st *> kernels;
  /// Host copies of constant globals, by name.
  llvm::StringMap<std::vector<char>> globals;
  /// For each op index, the allocations (by the index of their gpu.alloc)
  /// whose last use it is.
  std::vector<SmallVector<size_t>> freeAfter;

  // State of the current run.
  llvm::DenseMap<Value, RuntimeValue> values;
  /// The buffer of each gpu.alloc by op index, while alive.
  std::vector<void *> allocations;
  /// For each memref value, the gpu.alloc it is a view of.
  llvm::DenseMap<Value, size_t> rootOf;
  std::vector<DeviceTensor> results;
};

void GpuFunction::Impl::prepare() {
  verifyHostCode(function, libraryArity);
  for (Operation &op : function.getBody().front())
    ops.push_back(&op);

  // Last uses of allocations, through the views of them.
  std::vector<size_t> lastUse(ops.size(), SIZE_MAX);
  std::vector<bool> escapes(ops.size(), false);
  for (size_t i = 0; i < ops.size(); ++i) {
    Operation *op = ops[i];
    if (auto alloc = dyn_cast<gpu::AllocOp>(op))
      rootOf[alloc.getMemref()] = i;
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op))
      kernels[launch] = loadBinary(op, launch.getKernelModuleName())
                            .function(launch.getKernelName().str());
    if (auto get = dyn_cast<memref::GetGlobalOp>(op))
      prepareGlobal(get);
    if (isViewOp(op)) {
      auto it = rootOf.find(op->getOperand(0));
      if (it != rootOf.end())
        rootOf[op->getResult(0)] = it->second;
    }
    for (Value operand : op->getOperands()) {
      auto it = rootOf.find(operand);
      if (it == rootOf.end())
        continue;
      lastUse[it->second] = i;
      if (isa<func::ReturnOp>(op))
        escapes[it->second] = true;
    }
  }
  freeAfter.resize(ops.size());
  for (size_t root = 0; root < ops.size(); ++root)
    if (lastUse[root] != SIZE_MAX && !escapes[root])
      freeAfter[lastUse[root]].push_back(root);
}

const KernelModule &GpuFunction::Impl::loadBinary(Operation *user,
                                                  StringAttr name) {
  auto it = modules.find(name.getValue());
  if (it != modules.end())
    return *it->second;
  auto binary = SymbolTable::lookupNearestSymbolFrom<gpu::BinaryOp>(
      function, name);
  if (!binary)
    failAt(user, ErrorCode::InvalidArgument,
           "launches a kernel of @" + name.str() +
               ", which is not a gpu.binary (run gpu-module-to-binary)");
  // A cubin for this device's architecture, or else PTX for the driver to
  // compile.
  int capability = device.computeCapability();
  gpu::ObjectAttr chosen;
  std::string chips;
  for (Attribute attr : binary.getObjects()) {
    auto object = dyn_cast<gpu::ObjectAttr>(attr);
    if (!object)
      continue;
    auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
    if (!target)
      continue;
    StringRef chip = target.getChip();
    chips += (chips.empty() ? "" : ", ") + chip.str();
    int objectCapability = 0;
    chip.consume_front("sm_");
    chip.take_while(llvm::isDigit).getAsInteger(10, objectCapability);
    switch (object.getFormat()) {
    case gpu::CompilationTarget::Binary:
    case gpu::CompilationTarget::Fatbin:
      // A cubin runs on its major architecture, from its minor version on.
      if (objectCapability / 10 == capability / 10 &&
          objectCapability <= capability)
        chosen = object;
      break;
    case gpu::CompilationTarget::Assembly:
      if (!chosen && objectCapability <= capability)
        chosen = object;
      break;
    default:
      break;
    }
    if (chosen && chosen.getFormat() != gpu::CompilationTarget::Assembly)
      break;
  }
  if (!chosen)
    failAt(user, ErrorCode::FailedPrecondition,
           "launches kernels of @" + name.str() + ", compiled for " +
               (chips.empty() ? std::string("no NVVM target") : chips) +
               ", which " + device.name() + " (" + device.description() +
               ") cannot run; lower with --dtf-lower-to-gpu=\"chip=sm_" +
               std::to_string(capability) + "\"");
  std::string image = chosen.getObject().getValue().str();
  auto &module = modules[name.getValue()];
  module = device.loadModule(image.c_str(), image.size() + 1);
  return *module;
}

void GpuFunction::Impl::prepareGlobal(memref::GetGlobalOp get) {
  if (globals.count(get.getName()))
    return;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      function, get.getNameAttr());
  globals[get.getName()] =
      constantBytes(cast<DenseElementsAttr>(global.getInitialValueAttr()));
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

void GpuFunction::Impl::freeAllocation(size_t root) {
  device.deallocate(allocations[root]);
  allocations[root] = nullptr;
}

void GpuFunction::Impl::launch(gpu::LaunchFuncOp op) {
  auto dimension = [&](Value value) {
    int64_t size = integer(value);
    if (size < 1 || size > UINT32_MAX)
      failAt(op, ErrorCode::InvalidArgument,
             "has a grid or block dimension of " + std::to_string(size));
    return static_cast<unsigned>(size);
  };
  Dim3 grid{dimension(op.getGridSizeX()), dimension(op.getGridSizeY()),
            dimension(op.getGridSizeZ())};
  Dim3 block{dimension(op.getBlockSizeX()), dimension(op.getBlockSizeY()),
             dimension(op.getBlockSizeZ())};
  unsigned sharedMemory = 0;
  if (Value size = op.getDynamicSharedMemorySize())
    sharedMemory = static_cast<unsigned>(integer(size));

  // One 8-byte slot per kernel parameter; memrefs are bare pointers to the
  // start of their buffer (convert-gpu-to-nvvm's use-bare-ptr-memref-call-
  // conv: the kernel applies the static offset of the type itself).
  ValueRange operands = op.getKernelOperands();
  SmallVector<uint64_t> storage(operands.size());
  SmallVector<void *> parameters;
  for (auto [slot, operand] : llvm::zip(storage, operands)) {
    const RuntimeValue &value = valueOf(operand);
    Type type = operand.getType();
    if (isa<MemRefType>(type)) {
      if (value.memref.onHost)
        failAt(op, ErrorCode::InvalidArgument,
               "passes host memory to a kernel");
      void *pointer = value.memref.base;
      std::memcpy(&slot, &pointer, sizeof(pointer));
    } else if (type.isF32()) {
      float real = static_cast<float>(value.real);
      std::memcpy(&slot, &real, sizeof(real));
    } else if (type.isF64()) {
      std::memcpy(&slot, &value.real, sizeof(value.real));
    } else if (type.isInteger(32)) {
      int32_t narrow = static_cast<int32_t>(value.integer);
      std::memcpy(&slot, &narrow, sizeof(narrow));
    } else {
      std::memcpy(&slot, &value.integer, sizeof(value.integer));
    }
    parameters.push_back(&slot);
  }
  device.launch(kernels.lookup(op), grid, block, sharedMemory,
                parameters.data());
}

void GpuFunction::Impl::memcpy(gpu::MemcpyOp op) {
  const MemRef &to = memref(op.getDst());
  const MemRef &from = memref(op.getSrc());
  if (!to.isContiguous() || !from.isContiguous() ||
      to.numElements() != from.numElements() || to.onHost)
    failAt(op, ErrorCode::InvalidArgument,
           "must copy between contiguous memrefs of the same size, to the "
           "device");
  size_t bytes = to.numElements() * to.elementSize;
  if (from.onHost)
    device.copyToDevice(to.begin(), from.begin(), bytes);
  else
    device.copyOnDevice(to.begin(), from.begin(), bytes);
}

void GpuFunction::Impl::call(func::CallOp op) {
  SmallVector<const RuntimeValue *> arguments;
  for (Value operand : op.getOperands()) {
    const RuntimeValue &value = valueOf(operand);
    if (isa<MemRefType>(operand.getType()) && value.memref.onHost)
      failAt(op, ErrorCode::InvalidArgument,
             "passes host memory to a GPU library function");
    arguments.push_back(&value);
  }
  libraryFunctions().find(op.getCallee())->second.second(arguments);
  try {
    LibraryContext::throwIfFailed();
  } catch (const CudaError &error) {
    failAt(op, error.code(), error.what());
  }
}

void GpuFunction::Impl::execute(Operation *op, size_t index) {
  if (isScalarArith(op)) {
    HostScalar scalar = evaluateScalarArith(
        op, [&](Value operand) { return integer(operand); });
    RuntimeValue &result = values[op->getResult(0)];
    result.integer = scalar.integer;
    result.real = scalar.real;
    return;
  }
  if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
    MemRefType type = alloc.getType();
    size_t bytes = type.getNumElements() * elementBytes(type.getElementType());
    allocations[index] = device.allocate(bytes);
    values[alloc.getMemref()].memref = memrefOfType(
        type, static_cast<char *>(allocations[index]), nullptr);
    return;
  }
  if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
    auto it = rootOf.find(dealloc.getMemref());
    if (it != rootOf.end() && allocations[it->second])
      freeAllocation(it->second);
    return;
  }
  if (isViewOp(op)) {
    const MemRef &source = memref(op->getOperand(0));
    MemRef view = memrefOfType(cast<MemRefType>(op->getResult(0).getType()),
                               source.base, &source);
    values[op->getResult(0)].memref = std::move(view);
    return;
  }
  if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
    MemRef global = memrefOfType(cast<MemRefType>(get.getType()),
                                 globals[get.getName()].data(), nullptr);
    global.onHost = true;
    values[get.getResult()].memref = std::move(global);
    return;
  }
  if (auto launchOp = dyn_cast<gpu::LaunchFuncOp>(op))
    return launch(launchOp);
  if (auto memcpyOp = dyn_cast<gpu::MemcpyOp>(op))
    return memcpy(memcpyOp);
  if (auto callOp = dyn_cast<func::CallOp>(op))
    return call(callOp);
  if (auto returnOp = dyn_cast<func::ReturnOp>(op)) {
    // A returned allocation becomes the result as it is, once; anything
    // else (an argument, a second use of the same buffer) is copied.
    for (Value operand : returnOp.getOperands()) {
      const MemRef &result = memref(operand);
      auto type = cast<MemRefType>(operand.getType());
      DType dtype = *dtypeOf(type.getElementType());
      Shape shape(result.sizes.begin(), result.sizes.end());
      auto root = rootOf.find(operand);
      if (root != rootOf.end() && allocations[root->second] &&
          result.offset == 0 && result.isContiguous()) {
        results.emplace_back(device, dtype, std::move(shape),
                             allocations[root->second]);
        allocations[root->second] = nullptr;
        continue;
      }
      if (!result.isContiguous())
        failAt(op, ErrorCode::InvalidArgument,
               "returns a non-contiguous memref");
      DeviceTensor copy(device, dtype, std::move(shape));
      device.copyOnDevice(copy.data(), result.begin(), copy.byteSize());
      results.push_back(std::move(copy));
    }
    return;
  }
  failAt(op, ErrorCode::InvalidArgument,
         "is not supported by the GPU executor");
}

std::vector<DeviceTensor>
GpuFunction::Impl::run(const std::vector<const DeviceTensor *> &args) {
  std::string name = "@" + function.getName().str();
  if (args.size() != function.getNumArguments())
    throw std::invalid_argument(name + " takes " +
                                std::to_string(function.getNumArguments()) +
                                " arguments, got " +
                                std::to_string(args.size()));

  std::lock_guard<std::recursive_mutex> lock(device.executionMutex());
  LibraryContext context(device);
  values.clear();
  results.clear();
  allocations.assign(ops.size(), nullptr);
  // Whatever happens, the buffers of this run go back to the allocator.
  struct Cleanup {
    Impl &impl;
    ~Cleanup() {
      for (size_t root = 0; root < impl.allocations.size(); ++root)
        if (impl.allocations[root])
          impl.freeAllocation(root);
      impl.values.clear();
    }
  } cleanup{*this};

  for (auto [index, arg] : llvm::enumerate(args)) {
    auto type = cast<MemRefType>(function.getArgumentTypes()[index]);
    DType dtype = *dtypeOf(type.getElementType());
    Shape shape(type.getShape().begin(), type.getShape().end());
    if (!arg || arg->device() != &device || arg->dtype() != dtype ||
        arg->shape() != shape)
      throw std::invalid_argument(
          name + " argument " + std::to_string(index) + " must be " +
          dtypeName(dtype) + shapeToString(shape) + " on " + device.name() +
          ", got " + (arg ? arg->typeString() : std::string("nothing")));
    values[function.getArgument(index)].memref =
        memrefOfType(type, static_cast<char *>(arg->data()), nullptr);
  }

  for (size_t index = 0; index < ops.size(); ++index) {
    execute(ops[index], index);
    for (size_t root : freeAfter[index])
      if (allocations[root])
        freeAllocation(root);
  }
  return std::move(results);
}

//===----------------------------------------------------------------------===//
// GpuFunction
//===----------------------------------------------------------------------===//

GpuFunction::GpuFunction(func::FuncOp function, Device &device)
    : impl(std::make_unique<Impl>(function, device)) {
  std::lock_guard<std::recursive_mutex> lock(device.executionMutex());
  impl->prepare();
}

GpuFunction::~GpuFunction() = default;

void GpuFunction::verify(func::FuncOp function) {
  verifyHostCode(function, libraryArity);
}

Device &GpuFunction::device() const { return impl->device; }

func::FuncOp GpuFunction::function() const { return impl->function; }

static std::string stringAttr(DictionaryAttr attrs, StringRef name) {
  if (!attrs)
    return "";
  if (auto value = attrs.getAs<StringAttr>(name))
    return value.str();
  return "";
}

std::string GpuFunction::feedName(unsigned index) const {
  return stringAttr(impl->function.getArgAttrDict(index), "dtf.feed");
}

std::string GpuFunction::variableName(unsigned index) const {
  return stringAttr(impl->function.getArgAttrDict(index), "dtf.variable");
}

std::string GpuFunction::gradientName(unsigned index) const {
  return stringAttr(impl->function.getResultAttrDict(index), "dtf.gradient");
}

std::vector<DeviceTensor>
GpuFunction::run(const std::vector<const DeviceTensor *> &args) {
  return impl->run(args);
}

std::vector<Tensor> GpuFunction::run(const std::vector<const Tensor *> &args) {
  std::vector<DeviceTensor> onDevice;
  onDevice.reserve(args.size());
  for (const Tensor *arg : args) {
    if (!arg)
      throw std::invalid_argument("@" + impl->function.getName().str() +
                                  ": missing argument");
    onDevice.push_back(DeviceTensor::fromHost(impl->device, *arg));
  }
  std::vector<const DeviceTensor *> pointers;
  for (const DeviceTensor &tensor : onDevice)
    pointers.push_back(&tensor);
  std::vector<Tensor> results;
  for (const DeviceTensor &result : impl->run(pointers))
    results.push_back(result.toHost());
  return results;
}

std::vector<Tensor>
GpuFunction::run(const std::map<std::string, Tensor> &feeds,
                 const std::map<std::string, Tensor> &variables) {
  std::vector<const Tensor *> args;
  for (unsigned index = 0; index < impl->function.getNumArguments(); ++index) {
    std::string feed = feedName(index), variable = variableName(index);
    const std::map<std::string, Tensor> &source = feed.empty() ? variables
                                                               : feeds;
    const std::string &key = feed.empty() ? variable : feed;
    if (key.empty())
      throw std::invalid_argument(
          "@" + impl->function.getName().str() + " argument " +
          std::to_string(index) +
          " has neither dtf.feed nor dtf.variable; pass it by position");
    auto it = source.find(key);
    if (it == source.end())
      throw std::invalid_argument(
          "@" + impl->function.getName().str() + " needs " +
          (feed.empty() ? "variable '" : "a feed for placeholder '") + key +
          "'");
    args.push_back(&it->second);
  }
  return run(args);
}

} // namespace dtf::cuda
