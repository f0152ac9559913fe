//===- Import.h - Paddle programs to the pd dialect -------------*- C++ -*-===//
//
// Turns a Paddle ProgramDesc (main program, optional startup program) into a
// module of the `pd` dialect:
//
//   pd.var @fc_0.w_0 persistable is_parameter : tensor<64x32xf32>
//   pd.program @main {
//     %x = pd.feed {col = 0 : i32, pd.out_names = ["x"]} : tensor<?x64xf32>
//     %w = pd.read_var @fc_0.w_0 : tensor<64x32xf32>
//     %y = pd.mul %x, %w {...} : (...) -> tensor<?x32xf32>
//     pd.fetch %y {col = 0 : i32} : tensor<?x32xf32>
//   }
//   pd.program @startup { ... pd.write_var @fc_0.w_0, %init ... }
//
// See docs/programs.md for the full mapping and the errors it reports.
// Diagnostics go to the context's diagnostic engine at locations that read
// `prog.json: op #7 'elementwise_add' (output fc_0.tmp_1)`; install a
// ProgramDiagnosticHandler (Diagnostics.h) to print them that way.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_IMPORT_IMPORT_H
#define DISTC_IMPORT_IMPORT_H

#include "distc/ProgramDesc/ProgramDesc.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace distc {

/// Imports `main` (and `startup` when given) into a new verified module.
/// `mainSource` / `startupSource` name the programs in diagnostics (usually
/// their file names). `mainOpOrigins`, when given, names where each op of
/// `main` comes from in diagnostics instead of its index (a PIR program's
/// `op #5 'pd_op.matmul'`, PirImport.h). Returns null after emitting errors
/// on failure.
mlir::OwningOpRef<mlir::ModuleOp> importProgram(mlir::MLIRContext &ctx,
                                                const programdesc::ProgramDesc &main,
                                                const programdesc::ProgramDesc *startup,
                                                llvm::StringRef mainSource,
                                                llvm::StringRef startupSource = "startup",
                                                llvm::ArrayRef<std::string> mainOpOrigins = {});

/// Loads a program file — Paddle JSON, binary protobuf (`.pdmodel`,
/// `__model__`) or `pd` dialect text (`.mlir`), told apart by content — and
/// imports it. `startupPath` adds a startup program (JSON or binary); it is
/// an error together with an MLIR input, which holds its own `@startup`.
mlir::OwningOpRef<mlir::ModuleOp>
importProgramFile(mlir::MLIRContext &ctx, const std::string &path,
                  const std::optional<std::string> &startupPath = std::nullopt);

/// Registers and loads what imported modules need (the `pd` dialect).
void loadImportDialects(mlir::MLIRContext &ctx);

} // namespace distc

#endif // DISTC_IMPORT_IMPORT_H
