//===- EvalModel.cpp - A model's results for given variables and feeds ----===//
//
// The DTF side of comparing an imported GraphDef with TensorFlow
// (test/integration/graphdef.py): evaluates a model's results, as
// Session.run of its fetches, with the variables and the batch TensorFlow
// used, by the reference interpreter in one process.
//
//   dtf-eval-model --variables=VARS.npz --feed=NAME=FILE.npy ... --out=DIR
//       model.mlir
//   dtf-eval-model --variables=VARS.npz --feed=NAME=FILE.npy ... --training
//       --expect=EXPECTED.npz model.mlir
//
// Variables are members of the .npz by name (the others keep their initial
// values); a model with a dynamic batch is compiled for the feeds' batch
// (--dtf-specialize-batch). The learning phase is false (inference) unless
// --training. Result K is written to DIR/result-K.bin as its raw
// little-endian elements, or compared with member `result_K` of
// --expect's .npz (TensorFlow's values, as a fixture holds them): every
// element within --tolerance, relative to max(1, |expected|).
//
//===----------------------------------------------------------------------===//

#include "passes/InitAll.h"
#include "passes/Passes.h"
#include "runtime/data/Npy.h"
#include "runtime/exec/Interpreter.h"

#include "dialects/dtf/IR/DTFOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>

namespace {

namespace cl = llvm::cl;

cl::opt<std::string> modelPath(cl::Positional, cl::Required,
                               cl::desc("<model.mlir>"));
cl::opt<std::string> variablesPath("variables", cl::Required,
                                   cl::desc(".npz of variable values"));
cl::list<std::string> feedList("feed", cl::desc("NAME=FILE.npy"),
                               cl::OneOrMore);
cl::opt<std::string> outDir("out", cl::desc("Directory for result-K.bin"));
cl::opt<bool> training("training",
                       cl::desc("Evaluate with the learning phase true"));
cl::opt<std::string>
    expectPath("expect", cl::desc(".npz whose result_K is result K's value"));
cl::opt<double> tolerance("tolerance",
                          cl::desc("Largest error --expect accepts, relative "
                                   "to max(1, |expected|)"),
                          cl::init(1e-5));

dtf::Tensor toTensor(const dtf::data::Array &array) {
  dtf::DType dtype;
  switch (array.type) {
  case dtf::data::ElementType::F32:
    dtype = dtf::DType::F32;
    break;
  case dtf::data::ElementType::F64:
    dtype = dtf::DType::F64;
    break;
  case dtf::data::ElementType::I32:
    dtype = dtf::DType::I32;
    break;
  case dtf::data::ElementType::I64:
    dtype = dtf::DType::I64;
    break;
  default:
    throw std::invalid_argument(array.source + ": " +
                                dtf::data::elementTypeName(array.type) +
                                " arrays are not model values");
  }
  dtf::Tensor tensor(dtype, array.shape);
  std::memcpy(tensor.rawData(), array.bytes.data(), array.bytes.size());
  return tensor;
}

/// 0 where every result equals --expect's within --tolerance; prints each
/// result's largest error.
int compareWithExpected(const std::vector<dtf::Tensor> &results) {
  bool equal = true;
  for (size_t index = 0; index < results.size(); ++index) {
    std::string member = "result_" + std::to_string(index);
    dtf::Tensor expected =
        toTensor(dtf::data::readNpzMember(expectPath, member));
    const dtf::Tensor &actual = results[index];
    if (expected.dtype() != dtf::DType::F32 ||
        actual.dtype() != dtf::DType::F32 ||
        expected.shape() != actual.shape()) {
      std::cout << member << ": expected " << expected.typeString() << ", got "
                << actual.typeString() << "\n";
      equal = false;
      continue;
    }
    double worst = 0;
    for (int64_t i = 0; i < actual.numElements(); ++i) {
      double e = expected.data<float>()[i], a = actual.data<float>()[i];
      double error = std::fabs(a - e) / std::max(1.0, std::fabs(e));
      if (!(error <= tolerance)) {
        std::cout << member << "[" << i << "]: expected " << e << ", got " << a
                  << "\n";
        equal = false;
      }
      worst = std::max(worst, error);
    }
    std::cout << member << ": " << actual.typeString()
              << ", largest relative error " << worst << "\n";
  }
  std::cout << (equal ? "equal to the expected values"
                      : "DIFFERENT from the expected values")
            << " (tolerance " << tolerance << ")\n";
  return equal ? 0 : 1;
}

int run() {
  mlir::DialectRegistry registry;
  dtf::ir::registerAllDialects(registry);
  dtf::ir::registerAllPasses();
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(modelPath.getValue(), sourceMgr,
                                            &context);
  if (!module)
    return 1;

  dtf::exec::FeedMap feeds;
  int64_t batch = 0;
  for (const std::string &feed : feedList) {
    size_t equals = feed.find('=');
    if (equals == std::string::npos)
      throw std::invalid_argument("--feed=" + feed + ": not NAME=FILE.npy");
    dtf::Tensor value = toTensor(dtf::data::readNpy(feed.substr(equals + 1)));
    if (value.rank() > 0)
      batch = value.dim(0);
    feeds[feed.substr(0, equals)] = std::move(value);
  }
  mlir::PassManager passManager(&context);
  dtf::ir::SpecializeBatchPassOptions specialization;
  specialization.batchSize = batch;
  passManager.addNestedPass<mlir::func::FuncOp>(
      dtf::ir::createSpecializeBatchPass(specialization));
  if (failed(passManager.run(*module)))
    return 1;
  auto function = *module->getOps<mlir::func::FuncOp>().begin();

  dtf::exec::VariableStore variables;
  function.walk([&](dtf::ir::VariableOp variable) {
    std::string name = variable.getName().str();
    try {
      variables[name] =
          toTensor(dtf::data::readNpzMember(variablesPath, name));
    } catch (const std::runtime_error &) {
      // Not in the archive: the variable keeps its initial value.
    }
  });
  dtf::exec::Interpreter interpreter(variables);
  interpreter.setTraining(training);
  auto returned = llvm::cast<mlir::func::ReturnOp>(
      function.getBody().back().getTerminator());
  std::vector<dtf::Tensor> results = interpreter.runAndFetch(
      function, feeds, llvm::to_vector(returned.getOperands()));
  if (!expectPath.empty())
    return compareWithExpected(results);
  if (outDir.empty())
    throw std::invalid_argument("give --out or --expect");
  for (size_t index = 0; index < results.size(); ++index) {
    std::ofstream out(outDir + "/result-" + std::to_string(index) + ".bin",
                      std::ios::binary);
    out.write(static_cast<const char *>(results[index].rawData()),
              static_cast<std::streamsize>(results[index].byteSize()));
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "evaluates a dtf model's results for given "
                              "variables and feeds\n");
  try {
    return run();
  } catch (const std::exception &error) {
    std::cerr << "dtf-eval-model: " << error.what() << "\n";
    return 1;
  }
}
