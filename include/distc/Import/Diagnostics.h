//===- Diagnostics.h - Program-oriented diagnostic printing -----*- C++ -*-===//
//
// Imported ops carry locations `NameLoc("op #7 'elementwise_add' (output
// fc_0.tmp_1)", FileLineColLoc("prog.json", 0, 0))`: a ProgramDesc has no
// line numbers, so the op index and its first output identify the op. This
// handler prints such diagnostics as one line
//   prog.json: op #7 'elementwise_add' (output fc_0.tmp_1): error: ...
// and ordinary source locations as `file:line:col: error: ...`; a diagnostic
// without a location is `<tool>: error: ...` when a tool name is given.
// Control characters in messages (a NUL in a variable name, say) are
// escaped so the line stays whole and printable.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_IMPORT_DIAGNOSTICS_H
#define DISTC_IMPORT_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace distc {

/// "prog.json: op #7 'relu' (output x)", "prog.mlir:3:5", "prog.json", or ""
/// for an unknown location.
std::string formatProgramLocation(mlir::Location loc);

/// Prints every diagnostic of the context (and its notes) as one line each
/// to `os` while alive.
class ProgramDiagnosticHandler : public mlir::ScopedDiagnosticHandler {
public:
  ProgramDiagnosticHandler(mlir::MLIRContext *ctx, llvm::raw_ostream &os,
                           llvm::StringRef toolName = "");
  bool sawError() const { return errors > 0; }

private:
  int errors = 0;
};

} // namespace distc

#endif // DISTC_IMPORT_DIAGNOSTICS_H
