//===- distc-dump.cpp - Print a distc artifact for humans -----------------===//
//
// distc-dump ARTIFACT
// distc-dump --kernel-reference     (the kernel reference, docs/kernels.md)
//
// Loads and validates the artifact like dist-run, then prints its header,
// symbols, buffers and every program as one line per kernel call:
//
//   predict/trainer/main
//     feeds: x = %0
//     %8 = matmul(%0, %2) {trans_a = 0, trans_b = 0}   // mul -> fc_0.tmp_0
//     fetches: probs = %13
//
// Exit status 0, or 1 with one line "distc-dump: error: ..." on any problem.
//
//===----------------------------------------------------------------------===//

#include "distc/Artifact/ArtifactFile.h"
#include "distc/Artifact/MemoryReport.h"
#include "distc/Artifact/KernelSignatures.h"
#include "distc/Runtime/ArtifactPrinter.h"
#include "distc/Support/ToolOutput.h"

#include <CLI/CLI.hpp>

#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <string>

using namespace distc;

/// Exit status 0 only when the printout reached standard output.
static int finishOutput() {
  std::string problem = distc::standardOutputError();
  if (problem.empty())
    return 0;
  std::fprintf(stderr, "distc-dump: error: cannot write to standard output: %s\n", problem.c_str());
  return 1;
}

int main(int argc, char **argv) {
  CLI::App app{"Prints a distc artifact: header, symbols, buffers and programs."};
  std::string path;
  bool kernelReference = false;
  auto *artifactOption = app.add_option("artifact", path, "The artifact file written by distc");
  app.add_flag("--kernel-reference", kernelReference,
               "Print the reference of every kernel an artifact may call (Markdown)")
      ->excludes(artifactOption);
  bool memoryReport = false;
  app.add_flag("--memory-report", memoryReport,
               "Print what each program holds in memory instead of the artifact: temporaries "
               "with no reuse, the planned arena, the liveness lower bound, persistent bytes")
      ->needs(artifactOption);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::fprintf(stderr, "distc-dump: error: %s\n", distc::printableLine(e.what()).c_str());
    return 1;
  }
  if (kernelReference) {
    artifact::printKernelReference(std::cout);
    return finishOutput();
  }
  if (path.empty()) {
    std::fprintf(stderr, "distc-dump: error: artifact is required\n");
    return 1;
  }
  std::string error;
  auto loaded = artifact::LoadedArtifact::loadFile(path, error);
  if (!loaded) {
    std::fprintf(stderr, "distc-dump: error: %s\n", distc::printableLine(error).c_str());
    return 1;
  }
  if (memoryReport)
    std::cout << artifact::formatMemoryReport(*loaded->artifact()) << std::flush;
  else
    runtime::printArtifact(*loaded, stdout);
  return finishOutput();
}
