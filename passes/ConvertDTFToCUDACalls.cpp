//===- ConvertDTFToCUDACalls.cpp - matmul/conv/pool to library calls -----===//
//
// Implements --dtf-convert-to-cuda-calls: dtf ops that cuBLAS and cuDNN
// implement become calls to the runtime's `dtf_cuda_*` functions on memrefs
// (runtime/ABI.md, "GPU library calls"). Everything else the calls need (a
// filter transpose to cuDNN's layout, explicit padding where TensorFlow's is
// asymmetric) is emitted as linalg/tensor ops, which the rest of the GPU
// pipeline turns into kernels.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace dtf::ir {
#define GEN_PASS_DEF_CONVERTDTFTOCUDACALLSPASS
#include "passes/Passes.h.inc"
} // namespace dtf::ir

using namespace mlir;
using namespace dtf::ir;

namespace {

/// TensorFlow's geometry of a window op along one spatial dimension.
struct WindowDim {
  int64_t output;
  int64_t padBefore;
  int64_t padAfter;
};

/// ceil(a / b) for a >= 0, b > 0.
int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

WindowDim windowDim(int64_t input, int64_t window, int64_t stride,
                    Padding padding) {
  if (padding == Padding::VALID)
    return {input < window ? 0 : ceilDiv(input - window + 1, stride), 0, 0};
  int64_t output = ceilDiv(input, stride);
  int64_t total = std::max<int64_t>((output - 1) * stride + window - input, 0);
  return {output, total / 2, total - total / 2};
}

/// The padding of a window op over an NHWC input: cuDNN's symmetric
/// (pad_h, pad_w) when TensorFlow's is symmetric, else the explicit
/// low/high padding to apply first.
struct WindowPadding {
  WindowDim h, w;
  bool symmetric() const {
    return h.padBefore == h.padAfter && w.padBefore == w.padAfter;
  }
};

WindowPadding windowPadding(RankedTensorType input, int64_t windowH,
                            int64_t windowW, ArrayRef<int64_t> strides,
                            Padding padding) {
  return {windowDim(input.getDimSize(1), windowH, strides[1], padding),
          windowDim(input.getDimSize(2), windowW, strides[2], padding)};
}

/// A convolution's dilations along H and W; absent, both are 1.
struct Dilations {
  int64_t h = 1, w = 1;
};

Dilations dilationsOf(std::optional<ArrayRef<int64_t>> dilations) {
  if (!dilations)
    return {};
  return {(*dilations)[1], (*dilations)[2]};
}

/// The padding of a convolution whose filter has filterH x filterW taps
/// `dilations` apart: TensorFlow pads for the input cells the taps span.
WindowPadding convolutionPadding(RankedTensorType input, int64_t filterH,
                                 int64_t filterW, ArrayRef<int64_t> strides,
                                 Dilations dilations, Padding padding) {
  return windowPadding(input, (filterH - 1) * dilations.h + 1,
                       (filterW - 1) * dilations.w + 1, strides, padding);
}

/// Emits the calls of one module, declaring the library functions on first
/// use.
class CallBuilder {
public:
  CallBuilder(ModuleOp module)
      : module(module), symbols(module), builder(module.getContext()) {}

  /// Fails with an error on `op` unless every tensor it uses or defines is
  /// a statically shaped f32 tensor.
  static LogicalResult checkOperands(Operation *op);

  LogicalResult rewrite(MatMulOp op);
  LogicalResult rewrite(Conv2DOp op);
  LogicalResult rewrite(Conv2DBackpropInputOp op);
  LogicalResult rewrite(Conv2DBackpropFilterOp op);
  LogicalResult rewrite(MaxPoolOp op);
  LogicalResult rewrite(MaxPoolGradOp op);

private:
  /// `%m = bufferization.to_memref %t read_only` cast to the dynamic shape
  /// the library functions take.
  Value toMemRef(Location loc, Value tensor);
  /// Allocates the output buffer of a call.
  Value allocate(Location loc, ArrayRef<int64_t> shape);
  /// The tensor a call wrote into `buffer`.
  Value toTensor(Location loc, Value buffer);
  /// Calls library function `name` (declared on first use) with memref and
  /// scalar `operands`; memrefs must be the cast results of toMemRef or
  /// allocate.
  void call(Location loc, StringRef name, ValueRange operands);
  Value index(Location loc, int64_t value) {
    return builder.create<arith::ConstantIntOp>(loc, value, 64);
  }

  /// TensorFlow's HWIO filter as cuDNN's OHWI (KRSC), and back.
  Value hwioToOhwi(Location loc, Value filter);
  Value ohwiToHwio(Location loc, Value filter);
  /// Pads the H and W dimensions of an NHWC tensor with `value`.
  Value pad(Location loc, Value input, const WindowPadding &padding,
            double value);
  /// The part of a padded NHWC tensor that corresponds to the unpadded one.
  Value unpad(Location loc, Value padded, const WindowPadding &padding,
              RankedTensorType unpaddedType);

  /// The input of a max_pool or max_pool_grad library call and the padding
  /// to pass with it.
  struct PoolInput {
    Value input;
    WindowPadding padding;
    int64_t padH, padW;
  };
  /// cuDNN pads symmetrically, so TensorFlow's uneven SAME padding is
  /// applied to the input explicitly, with -inf: padding cells never win
  /// the max.
  PoolInput poolInput(Location loc, Value input, ArrayRef<int64_t> window,
                      ArrayRef<int64_t> strides, Padding padding);

  ModuleOp module;
  SymbolTable symbols;
  OpBuilder builder;
};

} // namespace

LogicalResult CallBuilder::checkOperands(Operation *op) {
  auto check = [&](Type type) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return success();
    if (!tensor.hasStaticShape())
      return op->emitOpError("needs static shapes to run on a GPU, got ")
             << tensor;
    if (!tensor.getElementType().isF32())
      return op->emitOpError("runs on a GPU with f32 elements only, got ")
             << tensor;
    return success();
  };
  for (Type type : op->getOperandTypes())
    if (failed(check(type)))
      return failure();
  for (Type type : op->getResultTypes())
    if (failed(check(type)))
      return failure();
  return success();
}

static MemRefType dynamicMemRefType(ShapedType type) {
  return MemRefType::get(
      SmallVector<int64_t>(type.getRank(), ShapedType::kDynamic),
      type.getElementType());
}

Value CallBuilder::toMemRef(Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value memref = builder.create<bufferization::ToMemrefOp>(
      loc, memrefType, tensor, /*read_only=*/true);
  return builder.create<memref::CastOp>(loc, dynamicMemRefType(memrefType),
                                        memref);
}

Value CallBuilder::allocate(Location loc, ArrayRef<int64_t> shape) {
  return builder.create<memref::AllocOp>(
      loc, MemRefType::get(shape, builder.getF32Type()));
}

Value CallBuilder::toTensor(Location loc, Value buffer) {
  return builder.create<bufferization::ToTensorOp>(loc, buffer,
                                                   /*restrict=*/true,
                                                   /*writable=*/true);
}

void CallBuilder::call(Location loc, StringRef name, ValueRange operands) {
  SmallVector<Value> arguments;
  for (Value operand : operands) {
    auto memrefType = dyn_cast<MemRefType>(operand.getType());
    if (memrefType && memrefType.hasStaticShape())
      operand = builder.create<memref::CastOp>(
          loc, dynamicMemRefType(memrefType), operand);
    arguments.push_back(operand);
  }
  auto function = symbols.lookup<func::FuncOp>(name);
  if (!function) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    function = builder.create<func::FuncOp>(
        module.getLoc(), name,
        builder.getFunctionType(ValueRange(arguments).getTypes(), {}));
    function.setPrivate();
    function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                      builder.getUnitAttr());
    symbols.insert(function);
  }
  builder.create<func::CallOp>(loc, function, arguments);
}

Value CallBuilder::hwioToOhwi(Location loc, Value filter) {
  auto type = cast<RankedTensorType>(filter.getType());
  ArrayRef<int64_t> hwio = type.getShape();
  Value init = builder.create<tensor::EmptyOp>(
      loc, ArrayRef<int64_t>{hwio[3], hwio[0], hwio[1], hwio[2]},
      type.getElementType());
  return builder
      .create<linalg::TransposeOp>(loc, filter, init,
                                   ArrayRef<int64_t>{3, 0, 1, 2})
      ->getResult(0);
}

Value CallBuilder::ohwiToHwio(Location loc, Value filter) {
  auto type = cast<RankedTensorType>(filter.getType());
  ArrayRef<int64_t> ohwi = type.getShape();
  Value init = builder.create<tensor::EmptyOp>(
      loc, ArrayRef<int64_t>{ohwi[1], ohwi[2], ohwi[3], ohwi[0]},
      type.getElementType());
  return builder
      .create<linalg::TransposeOp>(loc, filter, init,
                                   ArrayRef<int64_t>{1, 2, 3, 0})
      ->getResult(0);
}

Value CallBuilder::pad(Location loc, Value input, const WindowPadding &padding,
                       double value) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[1] += padding.h.padBefore + padding.h.padAfter;
  shape[2] += padding.w.padBefore + padding.w.padAfter;
  SmallVector<OpFoldResult> low = {
      builder.getIndexAttr(0), builder.getIndexAttr(padding.h.padBefore),
      builder.getIndexAttr(padding.w.padBefore), builder.getIndexAttr(0)};
  SmallVector<OpFoldResult> high = {
      builder.getIndexAttr(0), builder.getIndexAttr(padding.h.padAfter),
      builder.getIndexAttr(padding.w.padAfter), builder.getIndexAttr(0)};
  Value padValue = builder.create<arith::ConstantFloatOp>(
      loc, APFloat(static_cast<float>(value)), builder.getF32Type());
  return builder.create<tensor::PadOp>(
      loc, RankedTensorType::get(shape, type.getElementType()), input, low,
      high, padValue);
}

Value CallBuilder::unpad(Location loc, Value padded,
                         const WindowPadding &padding,
                         RankedTensorType unpaddedType) {
  SmallVector<OpFoldResult> offsets = {
      builder.getIndexAttr(0), builder.getIndexAttr(padding.h.padBefore),
      builder.getIndexAttr(padding.w.padBefore), builder.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes, strides;
  for (int64_t size : unpaddedType.getShape()) {
    sizes.push_back(builder.getIndexAttr(size));
    strides.push_back(builder.getIndexAttr(1));
  }
  return builder.create<tensor::ExtractSliceOp>(loc, unpaddedType, padded,
                                                offsets, sizes, strides);
}

/// The symmetric (pad_h, pad_w) to hand cuDNN: TensorFlow's padding when it
/// is symmetric, none when the input has been padded explicitly.
static std::pair<int64_t, int64_t> libraryPadding(const WindowPadding &p) {
  if (!p.symmetric())
    return {0, 0};
  return {p.h.padBefore, p.w.padBefore};
}

LogicalResult CallBuilder::rewrite(MatMulOp op) {
  builder.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto resultType = cast<RankedTensorType>(op.getType());
  Value out = allocate(loc, resultType.getShape());
  call(loc, "dtf_cuda_gemm_f32",
       {toMemRef(loc, op.getA()), toMemRef(loc, op.getB()), out,
        index(loc, op.getTransposeA()), index(loc, op.getTransposeB())});
  op.replaceAllUsesWith(toTensor(loc, out));
  op.erase();
  return success();
}

LogicalResult CallBuilder::rewrite(Conv2DOp op) {
  builder.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto filterType = cast<RankedTensorType>(op.getFilter().getType());
  ArrayRef<int64_t> strides = op.getStrides();
  Dilations dilations = dilationsOf(op.getDilations());
  WindowPadding padding = convolutionPadding(
      inputType, filterType.getDimSize(0), filterType.getDimSize(1), strides,
      dilations, op.getPadding());
  Value input = op.getInput();
  if (!padding.symmetric())
    input = pad(loc, input, padding, 0.0);
  auto [padH, padW] = libraryPadding(padding);
  Value out = allocate(loc, cast<RankedTensorType>(op.getType()).getShape());
  call(loc, "dtf_cuda_conv2d_f32",
       {toMemRef(loc, input), toMemRef(loc, hwioToOhwi(loc, op.getFilter())),
        out, index(loc, strides[1]), index(loc, strides[2]), index(loc, padH),
        index(loc, padW), index(loc, dilations.h), index(loc, dilations.w)});
  op.replaceAllUsesWith(toTensor(loc, out));
  op.erase();
  return success();
}

LogicalResult CallBuilder::rewrite(Conv2DBackpropInputOp op) {
  builder.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto resultType = cast<RankedTensorType>(op.getType());
  auto filterType = cast<RankedTensorType>(op.getFilter().getType());
  ArrayRef<int64_t> strides = op.getStrides();
  Dilations dilations = dilationsOf(op.getDilations());
  WindowPadding padding = convolutionPadding(
      resultType, filterType.getDimSize(0), filterType.getDimSize(1), strides,
      dilations, op.getPadding());
  SmallVector<int64_t> shape(resultType.getShape());
  if (!padding.symmetric()) {
    shape[1] += padding.h.padBefore + padding.h.padAfter;
    shape[2] += padding.w.padBefore + padding.w.padAfter;
  }
  auto [padH, padW] = libraryPadding(padding);
  Value out = allocate(loc, shape);
  call(loc, "dtf_cuda_conv2d_backprop_input_f32",
       {toMemRef(loc, hwioToOhwi(loc, op.getFilter())),
        toMemRef(loc, op.getDy()), out, index(loc, strides[1]),
        index(loc, strides[2]), index(loc, padH), index(loc, padW),
        index(loc, dilations.h), index(loc, dilations.w)});
  Value result = toTensor(loc, out);
  if (!padding.symmetric())
    result = unpad(loc, result, padding, resultType);
  op.replaceAllUsesWith(result);
  op.erase();
  return success();
}

LogicalResult CallBuilder::rewrite(Conv2DBackpropFilterOp op) {
  builder.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  auto resultType = cast<RankedTensorType>(op.getType());
  ArrayRef<int64_t> hwio = resultType.getShape();
  ArrayRef<int64_t> strides = op.getStrides();
  Dilations dilations = dilationsOf(op.getDilations());
  WindowPadding padding = convolutionPadding(
      inputType, hwio[0], hwio[1], strides, dilations, op.getPadding());
  Value input = op.getInput();
  if (!padding.symmetric())
    input = pad(loc, input, padding, 0.0);
  auto [padH, padW] = libraryPadding(padding);
  Value out = allocate(loc, {hwio[3], hwio[0], hwio[1], hwio[2]});
  call(loc, "dtf_cuda_conv2d_backprop_filter_f32",
       {toMemRef(loc, input), toMemRef(loc, op.getDy()), out,
        index(loc, strides[1]), index(loc, strides[2]), index(loc, padH),
        index(loc, padW), index(loc, dilations.h), index(loc, dilations.w)});
  op.replaceAllUsesWith(ohwiToHwio(loc, toTensor(loc, out)));
  op.erase();
  return success();
}

CallBuilder::PoolInput CallBuilder::poolInput(Location loc, Value input,
                                              ArrayRef<int64_t> window,
                                              ArrayRef<int64_t> strides,
                                              Padding tfPadding) {
  WindowPadding padding =
      windowPadding(cast<RankedTensorType>(input.getType()), window[1],
                    window[2], strides, tfPadding);
  if (!padding.symmetric())
    input = pad(loc, input, padding, -INFINITY);
  auto [padH, padW] = libraryPadding(padding);
  return {input, padding, padH, padW};
}

LogicalResult CallBuilder::rewrite(MaxPoolOp op) {
  builder.setInsertionPoint(op);
  Location loc = op.getLoc();
  ArrayRef<int64_t> window = op.getKsize();
  ArrayRef<int64_t> strides = op.getStrides();
  auto [input, padding, padH, padW] =
      poolInput(loc, op.getInput(), window, strides, op.getPadding());
  Value out = allocate(loc, cast<RankedTensorType>(op.getType()).getShape());
  call(loc, "dtf_cuda_max_pool_f32",
       {toMemRef(loc, input), out, index(loc, window[1]),
        index(loc, window[2]), index(loc, strides[1]), index(loc, strides[2]),
        index(loc, padH), index(loc, padW)});
  op.replaceAllUsesWith(toTensor(loc, out));
  op.erase();
  return success();
}

LogicalResult CallBuilder::rewrite(MaxPoolGradOp op) {
  builder.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto inputType = cast<RankedTensorType>(op.getInput().getType());
  ArrayRef<int64_t> window = op.getKsize();
  ArrayRef<int64_t> strides = op.getStrides();
  auto [input, padding, padH, padW] =
      poolInput(loc, op.getInput(), window, strides, op.getPadding());
  Value out =
      allocate(loc, cast<RankedTensorType>(input.getType()).getShape());
  call(loc, "dtf_cuda_max_pool_grad_f32",
       {toMemRef(loc, input), toMemRef(loc, op.getOutputValue()),
        toMemRef(loc, op.getDy()), out, index(loc, window[1]),
        index(loc, window[2]), index(loc, strides[1]), index(loc, strides[2]),
        index(loc, padH), index(loc, padW)});
  Value result = toTensor(loc, out);
  if (!padding.symmetric())
    result = unpad(loc, result, padding, inputType);
  op.replaceAllUsesWith(result);
  op.erase();
  return success();
}

namespace {
struct ConvertDTFToCUDACallsPass
    : public dtf::ir::impl::ConvertDTFToCUDACallsPassBase<
          ConvertDTFToCUDACallsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<MatMulOp, Conv2DOp, Conv2DBackpropInputOp,
              Conv2DBackpropFilterOp, MaxPoolOp, MaxPoolGradOp>(op))
        ops.push_back(op);
    });
    CallBuilder calls(getOperation());
    for (Operation *op : ops) {
      if (failed(CallBuilder::checkOperands(op)))
        return signalPassFailure();
      LogicalResult rewritten =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case<MatMulOp, Conv2DOp, Conv2DBackpropInputOp,
                    Conv2DBackpropFilterOp, MaxPoolOp, MaxPoolGradOp>(
                  [&](auto op) { return calls.rewrite(op); });
      if (failed(rewritten))
        return signalPassFailure();
    }
  }
};
} // namespace
