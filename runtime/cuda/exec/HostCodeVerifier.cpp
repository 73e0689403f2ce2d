//===- HostCodeVerifier.cpp - Host code a GPU function may hold -----------===//

#include "runtime/cuda/exec/HostCodeVerifier.h"

#include "runtime/cuda/Device.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace dtf::cuda {

void failAt(Operation *op, ErrorCode code, const std::string &message) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getLoc() << ": '" << op->getName() << "' " << message;
  throw CudaError(code, os.str());
}

std::optional<DType> dtypeOf(Type elementType) {
  if (elementType.isF32())
    return DType::F32;
  if (elementType.isF64())
    return DType::F64;
  if (elementType.isInteger(1))
    return DType::Bool;
  if (elementType.isInteger(32))
    return DType::I32;
  if (elementType.isInteger(64))
    return DType::I64;
  return std::nullopt;
}

bool isScalarArith(Operation *op) {
  return isa<arith::ConstantOp, arith::IndexCastOp, arith::IndexCastUIOp,
             arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp,
             arith::DivUIOp, arith::RemSIOp, arith::RemUIOp, arith::CeilDivSIOp,
             arith::FloorDivSIOp, arith::MinSIOp, arith::MaxSIOp,
             arith::MinUIOp, arith::MaxUIOp, arith::CmpIOp, arith::SelectOp,
             arith::AndIOp, arith::OrIOp, arith::XOrIOp, arith::ExtSIOp,
             arith::ExtUIOp, arith::TruncIOp>(op);
}

bool isViewOp(Operation *op) {
  return isa<memref::CastOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
             memref::SubViewOp, memref::ReinterpretCastOp>(op);
}

static std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return os.str();
}

[[noreturn]] static void reject(Operation *op, const std::string &message) {
  failAt(op, ErrorCode::InvalidArgument, message);
}

void verifyHostCode(func::FuncOp function, LibraryArity libraryArity) {
  if (function.isExternal() || !function.getBody().hasOneBlock())
    throw CudaError(ErrorCode::InvalidArgument,
                    "@" + function.getName().str() +
                        " is not a single-block function lowered by "
                        "--dtf-lower-to-gpu");
  for (Type type : function.getArgumentTypes()) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || !memref.hasStaticShape() ||
        !memref.getLayout().isIdentity() || !dtypeOf(memref.getElementType()))
      throw CudaError(ErrorCode::InvalidArgument,
                      "@" + function.getName().str() + " takes a " +
                          typeToString(type) +
                          "; a GPU function takes identity-layout memrefs of "
                          "f32, f64, i1, i32 or i64 with static shapes");
  }
  for (Type type : function.getResultTypes()) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref || !memref.hasStaticShape() ||
        !dtypeOf(memref.getElementType()))
      throw CudaError(ErrorCode::InvalidArgument,
                      "@" + function.getName().str() + " returns a " +
                          typeToString(type) +
                          "; a GPU function returns memrefs of f32, f64, i1, "
                          "i32 or i64 with static shapes");
  }
  for (Operation &operation : function.getBody().front()) {
    Operation *op = &operation;
    bool known =
        isScalarArith(op) || isViewOp(op) ||
        isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp, gpu::LaunchFuncOp,
            func::CallOp, func::ReturnOp, memref::GetGlobalOp>(op);
    if (!known)
      reject(op, "is not supported by the GPU executor; runtime/ABI.md lists "
                 "the host ops of a function lowered by --dtf-lower-to-gpu");
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      if (!constant.getType().isIntOrIndexOrFloat())
        reject(op, "must be a scalar constant in host code");
    if (auto alloc = dyn_cast<gpu::AllocOp>(op))
      if (alloc.getAsyncToken() || !alloc.getType().hasStaticShape() ||
          alloc.getHostShared() || !dtypeOf(alloc.getType().getElementType()))
        reject(op, "must be a synchronous device allocation of a static "
                   "shape of f32, f64, i1, i32 or i64");
    if (auto asyncOp = dyn_cast<gpu::AsyncOpInterface>(op))
      if (!asyncOp.getAsyncDependencies().empty() || asyncOp.getAsyncToken())
        reject(op, "must be synchronous");
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      if (launch.hasClusterSize())
        reject(op, "uses thread block clusters, which the executor does not "
                   "launch");
      for (Value operand : launch.getKernelOperands()) {
        Type type = operand.getType();
        if (auto memrefType = dyn_cast<MemRefType>(type)) {
          if (!memrefType.hasStaticShape())
            reject(op, "passes a dynamically shaped memref to a kernel");
          continue;
        }
        if (!type.isIndex() && !type.isInteger(64) && !type.isInteger(32) &&
            !type.isF32() && !type.isF64())
          reject(op, "passes a " + typeToString(type) +
                         " to a kernel; kernel operands are memrefs, index, "
                         "i32, i64, f32 or f64");
      }
      if (!SymbolTable::lookupNearestSymbolFrom<gpu::BinaryOp>(
              function, launch.getKernelModuleName()))
        reject(op, "launches a kernel of @" +
                       launch.getKernelModuleName().str() +
                       ", which is not a gpu.binary (run "
                       "gpu-module-to-binary)");
    }
    if (auto get = dyn_cast<memref::GetGlobalOp>(op)) {
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          function, get.getNameAttr());
      if (!global || !global.getConstant() ||
          !isa_and_nonnull<DenseElementsAttr>(global.getInitialValueAttr()))
        reject(op, "reads @" + get.getName().str() +
                       ", which is not a constant memref.global with a dense "
                       "initial value");
    }
    if (auto callOp = dyn_cast<func::CallOp>(op)) {
      std::optional<unsigned> arity = libraryArity(callOp.getCallee());
      if (!arity)
        reject(op, "calls @" + callOp.getCallee().str() +
                       ", which is not a dtf_cuda_* library function");
      if (callOp.getNumOperands() != *arity || callOp.getNumResults() != 0)
        reject(op,
               "does not have the signature of @" + callOp.getCallee().str());
    }
  }
}

} // namespace dtf::cuda
