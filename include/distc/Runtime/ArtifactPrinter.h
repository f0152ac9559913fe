//===- ArtifactPrinter.h - readable form of a distc artifact --*- C++ -*-===//
//
// Prints a loaded artifact: header (format version, sizes, checksum),
// producer and source, symbols, buffers (dtype, dims over symbols, kind,
// view target) and every program's feeds, kernel calls and fetches, one call
// per line with the source op it came from; then, when the artifact has
// them, its training table (loss, optimizer and settings, rate and step
// variables, schedule, state-dict groups) and its inference payload.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_ARTIFACTPRINTER_H
#define DISTC_RUNTIME_ARTIFACTPRINTER_H

#include "distc/Artifact/ArtifactFile.h"

#include <cstdio>

namespace distc::runtime {

void printArtifact(const artifact::LoadedArtifact &loaded, std::FILE *out);

} // namespace distc::runtime

#endif // DISTC_RUNTIME_ARTIFACTPRINTER_H
