//===- Emit.h - printing a phase's programs ---------------------*- C++ -*-===//

#ifndef DISTC_LIB_PIPELINE_EMIT_H
#define DISTC_LIB_PIPELINE_EMIT_H

#include "distc/Pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"

namespace distc::pipeline {

/// Prints what a phase left in `module` (which holds programs, named as
/// `result` says): the IR, or with `--emit=program-json` the chosen program
/// as ProgramDesc JSON. Returns the process exit code.
int emitPrograms(mlir::ModuleOp module, const CompileOptions &options, PhaseResult result);

} // namespace distc::pipeline

#endif // DISTC_LIB_PIPELINE_EMIT_H
