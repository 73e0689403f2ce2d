//===- dtf-translate.cpp - Models of other frameworks as dtf modules ------===//
//
// An mlir-translate-style driver with one translation:
//
//   dtf-translate --import-graphdef model.pbtxt [--outputs=a,b]
//       [--auc=predictions,labels] [--max-ids-per-example=L,NAME=L,...]
//       [-o out.mlir]
//
// Reads a TensorFlow GraphDef (binary, or text when named *.pbtxt) and
// prints the dtf module. Errors are one line each, "file:line:col: error:
// ...", with the node at fault; a graph with ops DTF does not import fails
// with one line that lists them all.
//
//   dtf-translate --list-graphdef-ops > docs/tf-ops.md
//
// Prints the TensorFlow ops --import-graphdef imports, as a markdown page.
//
//   dtf-translate --export-saved-model model.mlir [--outputs=logits]
//       [-o saved_model.pbtxt]
//
// Prints, in protobuf's text format, the SavedModel of the model's
// inference graph (SavedModelExport.h), its variables frozen as their
// initial values, which must be constants (a trained model's are: dtf-run
// --export_saved_model writes the binary SavedModel directory with a
// checkpoint's values). An op it cannot export is one error line naming it.
//
//===----------------------------------------------------------------------===//

#include "translate/graphdef/GraphDefImport.h"
#include "translate/graphdef/SavedModelExport.h"

#include "dialects/dtf/IR/DTFDialect.h"
#include "dialects/dtf/IR/OneLineDiagnostics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <google/protobuf/stubs/logging.h>

namespace cl = llvm::cl;

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input file>"),
                                          cl::init("-"));
static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::value_desc("filename"),
                                           cl::init("-"));
static cl::opt<bool>
    importGraphDef("import-graphdef",
                   cl::desc("Import a TensorFlow GraphDef (.pb, or text "
                            ".pbtxt) as a dtf module"));
static cl::opt<bool> listGraphDefOps(
    "list-graphdef-ops",
    cl::desc("Print the TensorFlow ops --import-graphdef imports, and what "
             "each becomes, as markdown (docs/tf-ops.md)"));
static cl::opt<bool> exportSavedModel(
    "export-saved-model",
    cl::desc("Print the SavedModel of a dtf model's inference graph in "
             "protobuf's text format (variables frozen as their constant "
             "initial values)"));
static cl::list<std::string> outputs(
    "outputs",
    cl::desc("--import-graphdef: nodes whose values the imported function "
             "returns after the loss, e.g. the batch accuracy; "
             "--export-saved-model: the values the signature returns "
             "(logits, the default; result:K; an op's location name) "
             "(comma-separated)"),
    cl::CommaSeparated);
static cl::list<std::string>
    auc("auc",
        cl::desc("The predictions and the 0/1 labels (two nodes, "
                 "comma-separated) whose AUC validation reports: returned "
                 "after --outputs and named by the function's dtf.auc"),
        cl::CommaSeparated);
static cl::list<std::string> maxIdsPerExample(
    "max-ids-per-example",
    cl::desc("L of the [batch, L] int64 placeholder, ids padded with -1, "
             "that each SparseTensor input (tf.sparse_placeholder) becomes; "
             "NAME=L entries (comma-separated) give one input its own L"),
    cl::CommaSeparated);

/// --export-saved-model: the text of the SavedModel of the model in
/// `input`, to -o.
static int exportToText(std::unique_ptr<llvm::MemoryBuffer> input,
                        mlir::MLIRContext &context) {
  context.loadDialect<dtf::ir::DTFDialect, mlir::func::FuncDialect>();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> model =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!model)
    return 1;
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "dtf-translate: " << error << "\n";
    return 1;
  }
  std::vector<std::string> names(outputs.begin(), outputs.end());
  if (failed(dtf::translate::printSavedModel(*model, names, output->os())))
    return 1;
  output->keep();
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Protobuf's own log line about a malformed binary GraphDef (invalid
  // UTF-8 in a name) would come before the importer's one error line.
  google::protobuf::SetLogHandler(
      [](google::protobuf::LogLevel, const char *, int, const std::string &) {});
  cl::ParseCommandLineOptions(argc, argv, "dtf translation tool\n");
  if (listGraphDefOps) {
    dtf::translate::printImportedOps(llvm::outs());
    return 0;
  }
  if (importGraphDef == exportSavedModel) {
    llvm::errs() << "dtf-translate: choose one translation "
                    "(--import-graphdef or --export-saved-model)\n";
    return 1;
  }
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &error);
  if (!input) {
    llvm::errs() << "dtf-translate: " << error << "\n";
    return 1;
  }
  mlir::MLIRContext context;
  context.printOpOnDiagnostic(false);
  dtf::ir::OneLineDiagnostics diagnostics(&context);
  if (exportSavedModel)
    return exportToText(std::move(input), context);
  dtf::translate::GraphDefImportOptions options;
  options.outputs.assign(outputs.begin(), outputs.end());
  for (llvm::StringRef entry : maxIdsPerExample) {
    auto [name, value] = entry.rsplit('=');
    if (value.empty())
      std::swap(name, value);
    int64_t ids = 0;
    if (value.getAsInteger(10, ids) || ids < 1) {
      llvm::errs() << "dtf-translate: --max-ids-per-example: '" << entry
                   << "' is not L or NAME=L with L >= 1\n";
      return 1;
    }
    if (name.empty())
      options.maxIdsPerExample = ids;
    else
      options.maxIdsPerInput[name.str()] = ids;
  }
  if (!auc.empty() && auc.size() != 2) {
    llvm::errs() << "dtf-translate: --auc takes two nodes, the predictions "
                    "and the labels\n";
    return 1;
  }
  options.auc.assign(auc.begin(), auc.end());
  mlir::OwningOpRef<mlir::ModuleOp> module = dtf::translate::importGraphDef(
      input->getBuffer(), inputFilename, &context, options);
  if (!module)
    return 1;
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << "dtf-translate: " << error << "\n";
    return 1;
  }
  module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}
