//===- Diagnostics.cpp - Program-oriented diagnostic printing -------------===//

#include "distc/Import/Diagnostics.h"

#include "distc/Support/ToolOutput.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace distc {
namespace {

std::string formatLoc(Location loc, int depth) {
  if (depth > 8)
    return "";
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    std::string out = file.getFilename().str();
    if (file.getLine() != 0)
      out += ":" + std::to_string(file.getLine()) + ":" + std::to_string(file.getColumn());
    return out;
  }
  if (auto name = dyn_cast<NameLoc>(loc)) {
    std::string child = formatLoc(name.getChildLoc(), depth + 1);
    return child.empty() ? name.getName().str() : child + ": " + name.getName().str();
  }
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return formatLoc(callSite.getCallee(), depth + 1);
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations()) {
      std::string out = formatLoc(inner, depth + 1);
      if (!out.empty())
        return out;
    }
  }
  return "";
}

const char *severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

void printOne(llvm::raw_ostream &os, llvm::StringRef toolName, Location loc,
              DiagnosticSeverity severity, const std::string &message) {
  std::string where = formatProgramLocation(loc);
  if (!where.empty())
    os << printableLine(where) << ": ";
  else if (!toolName.empty())
    os << toolName << ": ";
  os << severityName(severity) << ": " << printableLine(message) << "\n";
}

} // namespace

std::string formatProgramLocation(Location loc) { return formatLoc(loc, 0); }

ProgramDiagnosticHandler::ProgramDiagnosticHandler(MLIRContext *ctx, llvm::raw_ostream &os,
                                                   llvm::StringRef toolName)
    : ScopedDiagnosticHandler(ctx) {
  setHandler([this, &os, tool = toolName.str()](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      ++errors;
    printOne(os, tool, diag.getLocation(), diag.getSeverity(), diag.str());
    for (Diagnostic &note : diag.getNotes())
      printOne(os, tool, note.getLocation(), note.getSeverity(), note.str());
    os.flush();
    return success();
  });
}

} // namespace distc
