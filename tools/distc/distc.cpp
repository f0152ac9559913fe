//===- distc.cpp - the distc compiler driver ------------------------------===//
//
//   distc PROGRAM [--startup FILE] [--loss VAR] -o OUT.distc
//
// Phases, each of which `--compile-to` can stop after (printing its IR):
//   import    the serial program as `pd` IR (verified)
//   modes     per-mode main/startup programs (distc-derive-modes)
//   artifact  kernel-call lists over buffers (printed like distc-dump)
// `--emit=program-json` prints a program of the chosen phase as Paddle's
// ProgramDesc JSON instead (`--mode`, `--program main|startup`).
//
//===----------------------------------------------------------------------===//

#include "CompilerDiagnostics.h"

#include "distc/Artifact/ArtifactFile.h"
#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Export/Export.h"
#include "distc/Import/Import.h"
#include "distc/ProgramDesc/ProgramDesc.h"
#include "distc/Runtime/ArtifactPrinter.h"
#include "distc/Target/LowerToArtifact.h"
#include "distc/Transforms/Passes.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

#include <iostream>

using namespace mlir;

namespace {

struct Options {
  std::string input;
  std::string startup;
  std::string output;
  std::string loss;
  std::string compileTo;
  std::string emit;
  std::string mode;
  std::string program = "main";
  uint64_t seed = 0;
};

/// The program a `--emit=program-json` request names in `module`: before the
/// modes phase `@main`/`@startup`, after it `@<mode>.<program>`. Empty (after
/// reporting what exists) when there is none.
std::string selectProgram(ModuleOp module, const Options &options, bool modesDerived) {
  std::string name = modesDerived ? (options.mode.empty() ? "predict" : options.mode) + "." +
                                        options.program
                                  : options.program;
  for (Operation &op : module.getBody()->getOperations())
    if (op.getName().getStringRef() == "pd.program" && SymbolTable::getSymbolName(&op) == name)
      return name;
  std::string available;
  for (Operation &op : module.getBody()->getOperations())
    if (op.getName().getStringRef() == "pd.program")
      available += (available.empty() ? "" : ", ") + SymbolTable::getSymbolName(&op).str();
  distc::reportError("no program '" + name + "' at this phase (have: " + available + ")");
  return "";
}

int emitProgramJson(ModuleOp module, llvm::StringRef program) {
  distc::programdesc::ProgramDesc desc;
  if (failed(distc::exportProgram(module, program, desc)))
    return 1;
  std::string json, error;
  if (!distc::programdesc::programToJson(desc, json, error)) {
    distc::reportError(error);
    return 1;
  }
  std::cout << json;
  if (!json.empty() && json.back() != '\n')
    std::cout << '\n';
  return 0;
}

/// Stops after a phase: prints IR, or the chosen program as JSON.
int finishAt(ModuleOp module, const Options &options, bool modesDerived) {
  if (options.emit == "program-json") {
    std::string program = selectProgram(module, options, modesDerived);
    return program.empty() ? 1 : emitProgramJson(module, program);
  }
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}

int compile(const Options &options) {
  DialectRegistry registry;
  registry.insert<distc::pd::PdDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics name the op and variable themselves; a dump of the whole
  // program after every error would bury them.
  context.printOpOnDiagnostic(false);
  distc::OneLineDiagnostics diagnostics(context);

  std::optional<std::string> startup;
  if (!options.startup.empty())
    startup = options.startup;
  OwningOpRef<ModuleOp> module = distc::importProgramFile(context, options.input, startup);
  if (!module)
    return 1;
  if (options.compileTo == "import")
    return finishAt(*module, options, /*modesDerived=*/false);

  PassManager pm(&context);
  distc::DeriveModesOptions modeOptions;
  modeOptions.loss = options.loss;
  pm.addPass(distc::createDeriveModes(modeOptions));
  if (failed(pm.run(*module)))
    return 1;
  if (options.compileTo == "modes" || (options.emit == "program-json" && options.compileTo.empty()))
    return finishAt(*module, options, /*modesDerived=*/true);

  distc::target::LoweringOptions lowering;
  lowering.programSeed = options.seed;
  lowering.source = options.input;
  FailureOr<distc::artifact::ArtifactDesc> artifact = distc::target::lowerToArtifact(*module, lowering);
  if (failed(artifact))
    return 1;
  std::vector<uint8_t> payload = distc::artifact::serializeArtifact(*artifact);

  // Check our own output with the runtime's loader: a bug here should fail
  // at compile time, not on a cluster.
  std::string error;
  auto loaded = distc::artifact::LoadedArtifact::loadBytes(
      distc::artifact::makeArtifactFileBytes(payload), options.output.empty() ? "<artifact>" : options.output, error);
  if (!loaded) {
    distc::reportError("internal: produced an invalid artifact: " + error);
    return 1;
  }
  if (options.compileTo == "artifact") {
    std::cout.flush();
    distc::runtime::printArtifact(*loaded, stdout);
    return 0;
  }
  if (!distc::artifact::writeArtifactFile(options.output, payload, error)) {
    distc::reportError(error);
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"distc: compile a serial Paddle program into a distributed artifact"};
  Options options;
  app.add_option("program", options.input,
                 "Main program: Paddle ProgramDesc (binary __model__/.pdmodel or its JSON form) "
                 "or pd dialect .mlir")
      ->required();
  app.add_option("--startup", options.startup, "Startup program (parameter initializers)");
  app.add_option("-o,--output", options.output, "Artifact file to write");
  app.add_option("--loss", options.loss, "Loss variable; adds the eval mode");
  app.add_option("--seed", options.seed,
                 "Program random seed for initializers whose seed attribute is 0");
  app.add_option("--compile-to", options.compileTo, "Stop after a phase and print it")
      ->check(CLI::IsMember({"import", "modes", "artifact"}));
  app.add_option("--emit", options.emit, "Print the program of the phase in another form")
      ->check(CLI::IsMember({"program-json"}));
  app.add_option("--mode", options.mode, "Mode of the program to emit (predict, eval)")
      ->check(CLI::IsMember({"train", "eval", "predict"}));
  app.add_option("--program", options.program, "Which program to emit")
      ->check(CLI::IsMember({"main", "startup"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  if (options.output.empty() && options.compileTo.empty() && options.emit.empty()) {
    distc::reportError("nothing to do: give -o FILE, --compile-to PHASE or --emit FORM");
    return 1;
  }
  if (options.emit == "program-json" && options.compileTo == "artifact") {
    // The artifact is kernel calls over buffers, not a program: there is no
    // ProgramDesc to print for it.
    distc::reportError("--emit=program-json prints a program; the artifact phase has none "
                       "(use --compile-to=import or modes, or distc-dump for the artifact)");
    return 1;
  }
  return compile(options);
}
