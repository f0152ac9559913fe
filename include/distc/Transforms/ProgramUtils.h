//===- ProgramUtils.h - Finding things in pd programs -----------*- C++ -*-===//
//
// Small queries over `pd.program` ops that several passes share: programs
// by symbol, values by Paddle variable name, and a catalogue op's operands
// and results grouped by Paddle slot.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRANSFORMS_PROGRAMUTILS_H
#define DISTC_TRANSFORMS_PROGRAMUTILS_H

#include "distc/Dialect/Pd/OpCatalog.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace distc {

/// The `pd.program` named `name` in `module`, or null.
mlir::Operation *findProgram(mlir::ModuleOp module, llvm::StringRef name);

/// The value of `program` that defines Paddle variable `name`: the last
/// definition wins, as in a ProgramDesc where a name may be rewritten. Null
/// when no op defines it.
mlir::Value findVariable(mlir::Operation *program, llvm::StringRef name);

/// The Paddle variable name of `value`: its entry in the defining op's
/// `pd.out_names`, or the variable a `pd.read_var` reads; "" if unnamed.
std::string variableName(mlir::Value value);

/// The catalogue entry of a `pd.<type>` op, or null for structural ops.
const pd::OpSpec *catalogSpecOf(mlir::Operation *op);

/// The operands (results) of `op` that belong to input (output) slot `slot`
/// of its catalogue entry `spec`.
llvm::SmallVector<mlir::Value, 1> operandsOfSlot(mlir::Operation *op, const pd::OpSpec &spec,
                                                 unsigned slot);
llvm::SmallVector<mlir::Value, 1> resultsOfSlot(mlir::Operation *op, const pd::OpSpec &spec,
                                                unsigned slot);

/// Index of the slot called `name` in `slots`, or -1.
int findSlot(const std::vector<pd::SlotSpec> &slots, llvm::StringRef name);

} // namespace distc

#endif // DISTC_TRANSFORMS_PROGRAMUTILS_H
