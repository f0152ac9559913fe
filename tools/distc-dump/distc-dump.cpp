//===- distc-dump.cpp - Print a distc artifact for humans -----------------===//
//
// distc-dump ARTIFACT
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
#include "distc/Runtime/ArtifactPrinter.h"

#include <CLI/CLI.hpp>

#include <cinttypes>
#include <cstdio>
#include <string>

using namespace distc;

int main(int argc, char **argv) {
  CLI::App app{"Prints a distc artifact: header, symbols, buffers and programs."};
  std::string path;
  app.add_option("artifact", path, "The artifact file written by distc")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::fprintf(stderr, "distc-dump: error: %s\n", e.what());
    return 1;
  }
  std::string error;
  auto loaded = artifact::LoadedArtifact::loadFile(path, error);
  if (!loaded) {
    std::fprintf(stderr, "distc-dump: error: %s\n", error.c_str());
    return 1;
  }
  runtime::printArtifact(*loaded, stdout);
  return 0;
}
