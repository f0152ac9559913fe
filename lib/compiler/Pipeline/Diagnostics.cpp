//===- Diagnostics.cpp - one-line diagnostics for distc -------------------===//

#include "distc/Pipeline/Diagnostics.h"

#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

namespace distc {

static llvm::StringRef severityName(mlir::DiagnosticSeverity severity) {
  switch (severity) {
  case mlir::DiagnosticSeverity::Error:
    return "error";
  case mlir::DiagnosticSeverity::Warning:
    return "warning";
  case mlir::DiagnosticSeverity::Note:
    return "note";
  case mlir::DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

static void printOne(mlir::Diagnostic &diag) {
  std::string location;
  llvm::raw_string_ostream os(location);
  if (!mlir::isa<mlir::UnknownLoc>(diag.getLocation()))
    os << diag.getLocation();
  std::string text = diag.str();
  // Keep the promise of one line per diagnostic.
  for (char &c : text)
    if (c == '\n')
      c = ' ';
  llvm::errs() << "distc: " << severityName(diag.getSeverity()) << ": ";
  if (!location.empty())
    llvm::errs() << location << ": ";
  llvm::errs() << text << "\n";
}

OneLineDiagnostics::OneLineDiagnostics(mlir::MLIRContext &context)
    : handler(&context, [this](mlir::Diagnostic &diag) {
        if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
          ++errors;
        printOne(diag);
        for (mlir::Diagnostic &note : diag.getNotes())
          printOne(note);
        return mlir::success();
      }) {}

void reportError(llvm::StringRef message) { llvm::errs() << "distc: error: " << message << "\n"; }

} // namespace distc
