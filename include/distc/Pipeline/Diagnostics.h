//===- Diagnostics.h - one-line diagnostics for distc ---------*- C++ -*-===//
//
// MLIR diagnostics printed as `distc: error: <location>: <message>` lines,
// one per diagnostic (notes included), so scripts and lit can match them.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PIPELINE_DIAGNOSTICS_H
#define DISTC_PIPELINE_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

namespace distc {

class OneLineDiagnostics {
public:
  explicit OneLineDiagnostics(mlir::MLIRContext &context);
  bool sawError() const { return errors > 0; }

private:
  mlir::ScopedDiagnosticHandler handler;
  int errors = 0;
};

/// Prints an error that has no MLIR location, in the same format.
void reportError(llvm::StringRef message);

} // namespace distc

#endif // DISTC_PIPELINE_DIAGNOSTICS_H
