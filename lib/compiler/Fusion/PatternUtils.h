//===- PatternUtils.h - what the pattern fusion passes share ----*- C++ -*-===//
//
// Private to lib/compiler/Fusion: finding candidate ops and their users
// for the passes that match fixed op patterns, and moving the write-backs
// of the ops they replace after the fused op.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_FUSION_PATTERNUTILS_H
#define DISTC_LIB_FUSION_PATTERNUTILS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace distc::fusion {

/// Whether `op` is `pd.<type>`.
bool isType(mlir::Operation *op, llvm::StringRef type);

/// The single user of `value` of type `type` reading it as operand
/// `index`, or null (none, or several).
mlir::Operation *userOfType(mlir::Value value, llvm::StringRef type, unsigned index);

/// Whether every user of `value` is one of `allowed`.
bool onlyUsedBy(mlir::Value value, llvm::ArrayRef<mlir::Operation *> allowed);

/// Why the readers of `member`'s results that run before `at`, other than
/// the ops of `group`, cannot wait until after it, or "". Only write-backs
/// (`pd.write_var`) can: of a variable no op between them and `at` reads
/// or writes.
std::string whyReadersCannotWait(mlir::Operation *member, mlir::Operation *at,
                                 llvm::ArrayRef<mlir::Operation *> group = {});

/// Moves the readers of `members`' results that run before `fused` (which
/// whyReadersCannotWait found able to wait), other than `members`
/// themselves, to just after it, in their order.
void deferReaders(llvm::ArrayRef<mlir::Operation *> members, mlir::Operation *fused);

/// The attribute `name` = `value`, as the fused ops' builders list them.
mlir::NamedAttribute namedAttr(mlir::MLIRContext *ctx, llvm::StringRef name, mlir::Attribute value);

/// Calls `visit` on every op of one of `types` in each main program, in
/// program order (collected first, so `visit` may rewrite). Fails when a
/// visit does.
mlir::LogicalResult
forEachCandidate(mlir::ModuleOp module, llvm::ArrayRef<llvm::StringRef> types,
                 llvm::function_ref<mlir::LogicalResult(mlir::Operation *)> visit);

} // namespace distc::fusion

#endif // DISTC_LIB_FUSION_PATTERNUTILS_H
