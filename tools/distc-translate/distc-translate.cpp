//===- distc-translate.cpp - Paddle programs <-> pd IR --------------------===//
//
//   distc-translate --import prog.json [--startup startup.json]   > prog.mlir
//   distc-translate --export-json prog.mlir -o prog.json [--startup-output s.json]
//   distc-translate --export-pb   prog.json -o prog.pdmodel
//
// Inputs may be Paddle JSON, binary protobuf or pd-dialect text, told apart
// by content. Errors are one line each on stderr; the exit status is 1.
//
//===----------------------------------------------------------------------===//

#include "distc/Export/Export.h"
#include "distc/Import/Diagnostics.h"
#include "distc/Import/Import.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;

namespace {

cl::OptionCategory category("distc-translate options");

enum class Action { Import, ExportJson, ExportPb };

cl::opt<Action>
    action(cl::desc("Action:"), cl::Required, cl::cat(category),
           cl::values(clEnumValN(Action::Import, "import", "Print the input as pd-dialect IR"),
                      clEnumValN(Action::ExportJson, "export-json", "Write a Paddle JSON program"),
                      clEnumValN(Action::ExportPb, "export-pb",
                                 "Write a binary Paddle program (.pdmodel)")));

cl::opt<std::string> inputPath(cl::Positional, cl::Required, cl::desc("<program file>"),
                               cl::cat(category));
cl::opt<std::string> startupPath("startup", cl::desc("Startup program of a JSON/binary input"),
                                 cl::value_desc("file"), cl::cat(category));
cl::opt<std::string> outputPath("o", cl::desc("Output file ('-' for stdout)"),
                                cl::value_desc("file"), cl::init("-"), cl::cat(category));
cl::opt<std::string> programName("program", cl::desc("Program to export (default: main)"),
                                 cl::init("main"), cl::cat(category));
cl::opt<std::string> startupOutput("startup-output",
                                   cl::desc("Also export pd.program @startup to this file"),
                                   cl::value_desc("file"), cl::cat(category));

bool writeOutput(const std::string &path, const std::string &bytes) {
  if (path == "-") {
    outs() << bytes;
    outs().flush();
    return true;
  }
  std::string error;
  if (!distc::programdesc::writeFileBytes(path, bytes, error)) {
    errs() << "error: " << error << "\n";
    return false;
  }
  return true;
}

bool exportOne(mlir::ModuleOp module, StringRef name, const std::string &path) {
  distc::programdesc::ProgramDesc program;
  if (mlir::failed(distc::exportProgram(module, name, program)))
    return false;
  std::string bytes, error;
  bool ok = action == Action::ExportJson
                ? distc::programdesc::programToJson(program, bytes, error)
                : distc::programdesc::programToBinary(program, bytes, error);
  if (!ok) {
    errs() << "error: " << error << "\n";
    return false;
  }
  return writeOutput(path, bytes);
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "Paddle programs <-> pd-dialect IR\n");

  mlir::MLIRContext ctx;
  // One line per error: no dump of the offending op after it.
  ctx.printOpOnDiagnostic(false);
  distc::ProgramDiagnosticHandler diagnostics(&ctx, errs());
  std::optional<std::string> startup;
  if (!startupPath.empty())
    startup = startupPath;
  mlir::OwningOpRef<mlir::ModuleOp> module = distc::importProgramFile(ctx, inputPath, startup);
  if (!module)
    return 1;

  if (action == Action::Import) {
    std::string text;
    raw_string_ostream os(text);
    module->print(os);
    return writeOutput(outputPath, text) ? 0 : 1;
  }
  if (!exportOne(*module, programName, outputPath))
    return 1;
  if (!startupOutput.empty() && !exportOne(*module, "startup", startupOutput))
    return 1;
  return 0;
}
