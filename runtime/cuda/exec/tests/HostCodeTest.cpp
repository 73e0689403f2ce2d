//===- HostCodeTest.cpp - The host code verifier and scalar interpreter ---===//
//
// What GpuFunction checks and evaluates on the host, without a GPU: host
// ops it does not run are rejected by name as InvalidArgument, and the
// scalar arithmetic of host code follows arith's semantics.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/exec/HostCodeVerifier.h"
#include "runtime/cuda/exec/HostScalarInterpreter.h"

#include "runtime/cuda/Device.h"

#include "passes/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/DenseMap.h"

#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

namespace dtf::cuda {
namespace {

class HostCodeTest : public ::testing::Test {
protected:
  HostCodeTest() {
    mlir::DialectRegistry registry;
    dtf::ir::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The function @f of `source`.
  mlir::func::FuncOp parse(const char *source) {
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    if (!module) {
      ADD_FAILURE() << "the test module does not parse";
      return nullptr;
    }
    return module->lookupSymbol<mlir::func::FuncOp>("f");
  }

  /// The code and message of the CudaError that verifyHostCode throws for
  /// @f of `source`, whose only library function is dtf_cuda_gemm_f32.
  CudaError verifyError(const char *source) {
    mlir::func::FuncOp function = parse(source);
    try {
      verifyHostCode(function, [](llvm::StringRef callee) {
        return callee == "dtf_cuda_gemm_f32" ? std::optional<unsigned>(5)
                                             : std::nullopt;
      });
    } catch (const CudaError &error) {
      return error;
    }
    ADD_FAILURE() << "expected a CudaError";
    return CudaError(ErrorCode::Unknown, "");
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST_F(HostCodeTest, RejectsWhatTheExecutorDoesNotRun) {
  CudaError floatArith = verifyError(R"mlir(
    func.func @f(%a: memref<4xf32>) -> memref<4xf32> {
      %c = arith.constant 1.0 : f32
      %d = arith.addf %c, %c : f32
      return %a : memref<4xf32>
    })mlir");
  EXPECT_EQ(floatArith.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(floatArith.what(),
                       "'arith.addf' is not supported by the GPU executor"))
      << floatArith.what();

  CudaError call = verifyError(R"mlir(
    func.func private @helper()
    func.func @f(%a: memref<4xf32>) -> memref<4xf32> {
      func.call @helper() : () -> ()
      return %a : memref<4xf32>
    })mlir");
  EXPECT_EQ(call.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(call.what(), "calls @helper, which is not a dtf_cuda_* "
                                    "library function"))
      << call.what();

  CudaError signature = verifyError(R"mlir(
    func.func @f(%a: memref<?xf32>) {
      return
    })mlir");
  EXPECT_EQ(signature.code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(contains(signature.what(), "@f takes a memref<?xf32>"))
      << signature.what();
}

TEST_F(HostCodeTest, EvaluatesScalarArithmetic) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @f() {
      %seven = arith.constant 7 : index
      %minus2 = arith.constant -2 : index
      %half = arith.constant 0.5 : f32
      %true = arith.constant true
      %ceil = arith.ceildivsi %seven, %minus2 : index
      %floor = arith.floordivsi %seven, %minus2 : index
      %rem = arith.remsi %seven, %minus2 : index
      %max = arith.maxui %seven, %minus2 : index
      %less = arith.cmpi slt, %minus2, %seven : index
      %pick = arith.select %less, %ceil, %floor : index
      return
    })mlir");
  ASSERT_TRUE(function);
  llvm::DenseMap<mlir::Value, HostScalar> values;
  std::vector<HostScalar> results;
  for (mlir::Operation &op : function.getBody().front()) {
    if (!isScalarArith(&op))
      continue;
    results.push_back(evaluateScalarArith(
        &op, [&](mlir::Value operand) { return values[operand].integer; }));
    values[op.getResult(0)] = results.back();
  }
  ASSERT_EQ(results.size(), 10u);
  EXPECT_EQ(results[1].integer, -2);
  EXPECT_EQ(results[2].real, 0.5);
  EXPECT_EQ(results[3].integer, 1);
  EXPECT_EQ(results[4].integer, -3); // ceil(-3.5)
  EXPECT_EQ(results[5].integer, -4); // floor(-3.5)
  EXPECT_EQ(results[6].integer, 1);  // 7 rem -2
  EXPECT_EQ(results[7].integer, -2); // unsigned max
  EXPECT_EQ(results[8].integer, 1);  // -2 < 7
  EXPECT_EQ(results[9].integer, -3); // the ceiling
}

TEST_F(HostCodeTest, DivisionByZeroNamesTheOp) {
  mlir::func::FuncOp function = parse(R"mlir(
    func.func @f(%n: index) {
      %zero = arith.constant 0 : index
      %q = arith.divui %n, %zero : index
      return
    })mlir");
  ASSERT_TRUE(function);
  mlir::Operation *divide = &*std::next(function.getBody().front().begin());
  try {
    evaluateScalarArith(divide, [](mlir::Value) -> int64_t { return 0; });
    ADD_FAILURE() << "expected a CudaError";
  } catch (const CudaError &error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(error.what(), "'arith.divui' divides by zero"))
        << error.what();
  }
}

} // namespace
} // namespace dtf::cuda
