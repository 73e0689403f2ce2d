//===- HostScalarInterpreter.cpp - Scalar arithmetic of host code ---------===//

#include "runtime/cuda/exec/HostScalarInterpreter.h"

#include "runtime/cuda/exec/HostCodeVerifier.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;

namespace dtf::cuda {

HostScalar evaluateScalarArith(Operation *op,
                               llvm::function_ref<int64_t(Value)> integerOf) {
  HostScalar result;
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    if (auto value = dyn_cast<IntegerAttr>(constant.getValue()))
      result.integer = value.getType().isInteger(1)
                           ? value.getValue().getZExtValue()
                           : value.getValue().getSExtValue();
    else
      result.real = cast<FloatAttr>(constant.getValue()).getValueAsDouble();
    return result;
  }
  auto a = [&] { return integerOf(op->getOperand(0)); };
  auto b = [&] { return integerOf(op->getOperand(1)); };
  auto unsignedOf = [](int64_t x) { return static_cast<uint64_t>(x); };
  auto divisor = [&](int64_t d) {
    if (d == 0)
      failAt(op, ErrorCode::InvalidArgument, "divides by zero");
    return d;
  };
  result.integer =
      llvm::TypeSwitch<Operation *, int64_t>(op)
          .Case<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
                arith::ExtUIOp, arith::TruncIOp>([&](auto) { return a(); })
          .Case([&](arith::AddIOp) { return a() + b(); })
          .Case([&](arith::SubIOp) { return a() - b(); })
          .Case([&](arith::MulIOp) { return a() * b(); })
          .Case([&](arith::DivSIOp) { return a() / divisor(b()); })
          .Case([&](arith::DivUIOp) {
            return static_cast<int64_t>(unsignedOf(a()) /
                                        unsignedOf(divisor(b())));
          })
          .Case([&](arith::RemSIOp) { return a() % divisor(b()); })
          .Case([&](arith::RemUIOp) {
            return static_cast<int64_t>(unsignedOf(a()) %
                                        unsignedOf(divisor(b())));
          })
          .Case([&](arith::CeilDivSIOp) {
            int64_t d = divisor(b());
            int64_t q = a() / d;
            return (a() % d != 0 && (a() < 0) == (d < 0)) ? q + 1 : q;
          })
          .Case([&](arith::FloorDivSIOp) {
            int64_t d = divisor(b());
            int64_t q = a() / d;
            return (a() % d != 0 && (a() < 0) != (d < 0)) ? q - 1 : q;
          })
          .Case([&](arith::MinSIOp) { return std::min(a(), b()); })
          .Case([&](arith::MaxSIOp) { return std::max(a(), b()); })
          .Case([&](arith::MinUIOp) {
            return static_cast<int64_t>(
                std::min(unsignedOf(a()), unsignedOf(b())));
          })
          .Case([&](arith::MaxUIOp) {
            return static_cast<int64_t>(
                std::max(unsignedOf(a()), unsignedOf(b())));
          })
          .Case([&](arith::AndIOp) { return a() & b(); })
          .Case([&](arith::OrIOp) { return a() | b(); })
          .Case([&](arith::XOrIOp) { return a() ^ b(); })
          .Case([&](arith::SelectOp select) {
            return integerOf(select.getCondition())
                       ? integerOf(select.getTrueValue())
                       : integerOf(select.getFalseValue());
          })
          .Case([&](arith::CmpIOp cmp) -> int64_t {
            int64_t x = a(), y = b();
            switch (cmp.getPredicate()) {
            case arith::CmpIPredicate::eq:
              return x == y;
            case arith::CmpIPredicate::ne:
              return x != y;
            case arith::CmpIPredicate::slt:
              return x < y;
            case arith::CmpIPredicate::sle:
              return x <= y;
            case arith::CmpIPredicate::sgt:
              return x > y;
            case arith::CmpIPredicate::sge:
              return x >= y;
            case arith::CmpIPredicate::ult:
              return unsignedOf(x) < unsignedOf(y);
            case arith::CmpIPredicate::ule:
              return unsignedOf(x) <= unsignedOf(y);
            case arith::CmpIPredicate::ugt:
              return unsignedOf(x) > unsignedOf(y);
            case arith::CmpIPredicate::uge:
              return unsignedOf(x) >= unsignedOf(y);
            }
            return 0;
          })
          .Default([&](Operation *) -> int64_t {
            failAt(op, ErrorCode::InvalidArgument,
                   "is not supported by the GPU executor");
          });
  return result;
}

} // namespace dtf::cuda
