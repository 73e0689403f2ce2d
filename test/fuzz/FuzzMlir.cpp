//===- FuzzMlir.cpp - libFuzzer target: parse and verify a model ----------===//
//
// What dtf-run does first with a model file it was given, on arbitrary
// bytes: parse it as MLIR with every dialect dtf tools register, and run
// the verifiers (the dtf ops' verifiers, shape functions, attribute and
// type parsers). Whatever the bytes, that must end in a diagnostic or a
// module, never a crash, a hang or a sanitizer report.
//
// The same bytes are also imported as a TensorFlow GraphDef, binary and
// text (dtf-translate --import-graphdef), which must end the same way.
//
// With DTF_FUZZ_PIPELINE=1 in the environment, a module that verifies is
// also compiled with dtf-run's training pipeline (autodiff, optimizer
// expansion, placement, replication) for a cluster of 2 PS and 2 workers.
//
// Built as a libFuzzer binary (dtf-fuzz-mlir, with clang's
// -fsanitize=fuzzer) where clang is available, and always as
// dtf-fuzz-mlir-replay, which runs the inputs named on its command line
// once each (ReplayMain.cpp).
//
//===----------------------------------------------------------------------===//

#include "dialects/dtf/IR/DTFDialect.h"
#include "passes/InitAll.h"
#include "translate/graphdef/GraphDefImport.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/stubs/logging.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

namespace {

/// dtf-run's pipeline (runtime/train/Compile.cpp) for 2 PS and 2 workers.
constexpr const char *kPipeline =
    "func.func(dtf-autodiff,dtf-expand-optimizer),"
    "dtf-place-variables{strategy=round-robin},"
    "dtf-replicate{mode=async replicas-to-aggregate=1 total-replicas=2}";

struct State {
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> context;
  unsigned runs = 0;
  bool pipeline = false;

  State() {
    // Protobuf logs what it rejects in a binary GraphDef; the fuzzer's
    // output is for crashes.
    google::protobuf::SetLogHandler(
        [](google::protobuf::LogLevel, const char *, int, const std::string &) {});
    dtf::ir::registerAllDialects(registry);
    dtf::ir::registerAllPasses();
    const char *flag = std::getenv("DTF_FUZZ_PIPELINE");
    pipeline = flag && *flag && *flag != '0';
  }

  mlir::MLIRContext &fresh() {
    // A context keeps every type and attribute it ever uniqued: start a new
    // one now and then so that a long run does not grow without bound.
    if (!context || ++runs % 500 == 0) {
      context = std::make_unique<mlir::MLIRContext>(
          registry, mlir::MLIRContext::Threading::DISABLED);
      context->loadAllAvailableDialects();
      context->allowUnregisteredDialects(false);
    }
    return *context;
  }
};

State &state() {
  static State instance;
  return instance;
}

} // namespace

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
// LLVM's headers poison the free part of BumpPtrAllocator slabs in an
// AddressSanitizer build, but libMLIR.so is not one: slabs poisoned by an
// instantiation in this binary are then written by libMLIR's inlined
// allocator, a false "use-after-poison". Manual poisoning is turned off;
// ASan still checks every heap access.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
#endif
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::MLIRContext &context = state().fresh();
  // Diagnostics are the expected outcome for most inputs; drop them.
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  // MLIR's lexer relies on the NUL after the buffer that a file read by
  // dtf-run (llvm::MemoryBuffer::getFile) has; libFuzzer's bytes have none.
  std::string text(reinterpret_cast<const char *>(data), size);
  llvm::StringRef source(text.c_str(), text.size());
  dtf::translate::GraphDefImportOptions options;
  options.outputs = {"accuracy"};
  for (const char *name : {"fuzz-input.pb", "fuzz-input.pbtxt"})
    (void)dtf::translate::importGraphDef(source, name, &context, options);
  mlir::ParserConfig config(&context, /*verifyAfterParse=*/true);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, config, "fuzz-input");
  if (!module || !state().pipeline)
    return 0;
  // dtf-run replaces the model's cluster with its own.
  mlir::Builder builder(&context);
  auto hosts = [&](int count, int base) {
    llvm::SmallVector<mlir::Attribute> names;
    for (int i = 0; i < count; ++i)
      names.push_back(
          builder.getStringAttr("localhost:" + std::to_string(base + i)));
    return builder.getArrayAttr(names);
  };
  (*module)->setAttr(dtf::ir::DTFDialect::getClusterAttrName(),
                     dtf::ir::ClusterAttr::get(&context, hosts(2, 2222),
                                                 hosts(2, 3333)));
  mlir::PassManager passManager(&context);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (mlir::succeeded(
          mlir::parsePassPipeline(kPipeline, passManager, errorStream)))
    (void)passManager.run(*module);
  return 0;
}
