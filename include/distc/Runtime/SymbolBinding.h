//===- SymbolBinding.h - Feed shapes to buffer shapes -----------*- C++ -*-===//
//
// Buffers have Dims that are static or symbolic (binding[sym] * value / div,
// docs/artifact.md). Feeding a batch binds the symbols: for every symbolic
// dim of every feed, the fed extent must be reproduced exactly by
// binding * value / div; every symbol must get one value across all feeds.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_SYMBOLBINDING_H
#define DISTC_RUNTIME_SYMBOLBINDING_H

#include "distc/Artifact/artifact_generated.h"
#include "distc/Runtime/Status.h"
#include "distc/Runtime/Tensor.h"

#include <string>
#include <vector>

namespace distc::runtime {

/// Value of each symbol; kUnbound where no feed determined it.
using SymbolBindings = std::vector<int64_t>;
constexpr int64_t kUnbound = -1;

/// Binds the artifact's symbols from `feeds` for `program`. Every feed of the
/// program must be present with the buffer's dtype and rank; a feed name the
/// program does not have is an error too. Messages name the feed and the
/// expected type like "f32[?,64]".
Status bindSymbols(const distc::fb::Artifact &artifact, const distc::fb::Program &program,
                   const TensorMap &feeds, SymbolBindings &bindings);

/// Resolves `buffer`'s dims under `bindings`.
Status resolveShape(const distc::fb::Artifact &artifact, const distc::fb::Buffer &buffer,
                    const SymbolBindings &bindings, Shape &shape);

/// One dim for humans: "64", "x.dim0", "2*x.dim0", "x.dim0/2".
std::string formatDim(const distc::fb::Artifact &artifact, const distc::fb::Dim &dim);

/// A buffer's type for humans. With `symbolNames` symbolic dims print as in
/// formatDim, else as "?": "f32[?,64]".
std::string formatBufferType(const distc::fb::Artifact &artifact, const distc::fb::Buffer &buffer,
                             bool symbolNames = false);

} // namespace distc::runtime

#endif // DISTC_RUNTIME_SYMBOLBINDING_H
