//===- ShapeInference.h - Paddle shape and dtype inference ----*- C++ -*-===//
//
// Paddle's InferShape/InferMeta rules for every catalogued op, on MLIR
// types. One function serves the importer (to type results of ops whose
// output variables are not declared) and the op verifiers (to check that
// declared result types agree with what Paddle would compute).
//
// Dynamic dimensions (`?`, Paddle's -1) propagate: ? vs 1 -> ?, ? vs n -> n,
// ? vs ? -> ?. Reductions to a scalar (mean, reduce_* over all dims, slice
// decreasing every axis) infer a 0-D tensor as Paddle >= 2.5 does; the
// verifiers also accept the static [1] of older programs (docs/dialect.md).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_SHAPEINFERENCE_H
#define DISTC_DIALECT_PD_SHAPEINFERENCE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace distc::pd {

/// Operand types grouped by catalog input slot (an absent optional slot is
/// an empty group). `attrs` holds inherent attributes by Paddle name;
/// missing ones take the catalog default. On success fills one group per
/// catalog output slot. On failure emits one error at `loc` naming the op
/// type, the slot(s) and the offending shapes/attr, and returns failure.
/// `numVariadicResults` is the expected count for a variadic output slot
/// (split's Out) when the attributes do not fix it (num = 0 and no sections).
/// `declaredResults`, when given, are the result types the op already has:
/// the few ops whose results no input determines (recv: what a server
/// sends) take them from there; every other rule ignores them.
mlir::LogicalResult
inferResultTypes(mlir::MLIRContext *ctx, mlir::Location loc, llvm::StringRef opType,
                 llvm::ArrayRef<llvm::SmallVector<mlir::Type, 1>> operandsBySlot,
                 mlir::DictionaryAttr attrs,
                 llvm::SmallVectorImpl<llvm::SmallVector<mlir::Type, 1>> &resultsBySlot,
                 unsigned numVariadicResults = 0,
                 llvm::ArrayRef<llvm::SmallVector<mlir::Type, 1>> declaredResults = {});

/// True when a value of type `actual` may stand where inference gives
/// `inferred`: same element type and compatible shapes (a dynamic dim matches
/// any size), or a scalar written the other way ([1] for 0-D and vice versa).
bool isCompatibleWithInferred(mlir::Type actual, mlir::Type inferred);

} // namespace distc::pd

#endif // DISTC_DIALECT_PD_SHAPEINFERENCE_H
