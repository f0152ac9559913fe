//===- Export.h - pd dialect to Paddle programs -----------------*- C++ -*-===//
//
// Writes a `pd.program` of a module back as a Paddle ProgramDesc (block 0):
//  * variables: the `feed`/`fetch` list variables (FEED_MINIBATCH /
//    FETCH_LIST, persistable) when the program feeds or fetches, every
//    `pd.var` (persistable, is_parameter, stop_gradient), and one LOD_TENSOR
//    VarDesc per named value (`?` written as -1);
//  * ops: `pd.feed`/`pd.fetch` as Paddle's feed/fetch ops, every catalog op
//    with all its slots and all its catalog attributes (with their Paddle
//    AttrType, defaults spelled out) plus its kept Paddle attributes, sorted
//    by name as Paddle writes them; `pd.read_var`/`pd.write_var` vanish into
//    variable names (an `assign` is written only where a value must be
//    copied to keep the meaning of the program).
// Names come from `pd.out_names`; values without one get fresh `tmp_N`
// names. Importing the exported program gives back the same IR.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_EXPORT_EXPORT_H
#define DISTC_EXPORT_EXPORT_H

#include "distc/ProgramDesc/ProgramDesc.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

namespace distc {

/// True when `module` holds `pd.program @programName`.
bool hasProgram(mlir::ModuleOp module, llvm::StringRef programName);

/// Exports `pd.program @programName` of `module` into `out`. Emits errors at
/// the offending op (an op outside the pd dialect, an attribute or element
/// type Paddle cannot represent) and fails.
mlir::LogicalResult exportProgram(mlir::ModuleOp module, llvm::StringRef programName,
                                  programdesc::ProgramDesc &out);

} // namespace distc

#endif // DISTC_EXPORT_EXPORT_H
