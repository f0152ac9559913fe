//===- Diagnostics.h - one-line diagnostics for distc ---------*- C++ -*-===//
//
// distc prints MLIR diagnostics through the program-oriented handler of
// distc/Import/Diagnostics.h (`prog.json: op #7 'relu' (output y): error:
// ...`); errors with no location at all read `distc: error: ...`.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PIPELINE_DIAGNOSTICS_H
#define DISTC_PIPELINE_DIAGNOSTICS_H

#include "distc/Import/Diagnostics.h"

#include "llvm/ADT/StringRef.h"

namespace distc {

/// Prints an error that has no MLIR location, in the same format.
void reportError(llvm::StringRef message);

} // namespace distc

#endif // DISTC_PIPELINE_DIAGNOSTICS_H
