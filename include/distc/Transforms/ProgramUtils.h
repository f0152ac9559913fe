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
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <set>
#include <string>

namespace distc {

/// The `pd.program` named `name` in `module`, or null.
mlir::Operation *findProgram(mlir::ModuleOp module, llvm::StringRef name);

/// The value of `program` that defines Paddle variable `name`: the last
/// definition wins, as in a ProgramDesc where a name may be rewritten. Null
/// when no op defines it.
mlir::Value findVariable(mlir::Operation *program, llvm::StringRef name);

/// findVariable for every name at once, from one walk of `program`: passes
/// that look up a variable per parameter use it so that their cost stays
/// linear in the program's size.
llvm::StringMap<mlir::Value> variablesByName(mlir::Operation *program);

/// The Paddle variable name of `value`: its entry in the defining op's
/// `pd.out_names`, or the variable a `pd.read_var` reads; "" if unnamed.
std::string variableName(mlir::Value value);

/// The last top-level op of `block` that uses each value defined in it; a
/// use inside an op's regions counts as the op's. The memory passes'
/// liveness, as Paddle's (one op list per block).
llvm::DenseMap<mlir::Value, mlir::Operation *> lastUsesIn(mlir::Block &block);

/// Whether the memory passes may free or rename `value`: a named tensor of
/// rank > 0 that is not persistable (a read_var), not fetched, not written
/// to a persistable variable and not in `skip` (Paddle's skip_opt_set).
bool isMemoryPassCandidate(mlir::Value value, const llvm::StringSet<> &skip);

/// The memory passes' skip_opt_set as a set; fails, with an error on
/// `module` naming the first one, when a name of `skip` is no variable of
/// any program: a misspelt name would silently protect nothing.
mlir::FailureOr<llvm::StringSet<>> skipSetOf(mlir::ModuleOp module,
                                             llvm::ArrayRef<std::string> skip);

/// fn(block) for every block of the main programs of `module` (the memory
/// passes leave startup programs alone).
void forEachMainProgramBlock(mlir::ModuleOp module, llvm::function_ref<void(mlir::Block &)> fn);

/// The catalogue entry of a `pd.<type>` op, or null for structural ops.
const pd::OpSpec *catalogSpecOf(mlir::Operation *op);

/// The operands (results) of `op` that belong to input (output) slot `slot`
/// of its catalogue entry `spec` (pd::operandGroups); none when they do not
/// fit it.
llvm::SmallVector<mlir::Value, 1> operandsOfSlot(mlir::Operation *op, const pd::OpSpec &spec,
                                                 unsigned slot);
llvm::SmallVector<mlir::Value, 1> resultsOfSlot(mlir::Operation *op, const pd::OpSpec &spec,
                                                unsigned slot);

/// Index of the slot called `name` in `slots`, or -1.
int findSlot(const std::vector<pd::SlotSpec> &slots, llvm::StringRef name);

/// Names of the persistable variables `program` reads (`pd.read_var`), in
/// sorted order — the order of Paddle's combined parameter files.
std::set<std::string> readVariables(mlir::Operation *program);

/// Paddle's `op_role` of `op` (pd::OpRole bits; Forward when absent).
int opRole(mlir::Operation *op);

/// True for ops a training program adds to the forward pass: backward,
/// optimizer and learning-rate-schedule ops (by `op_role`).
bool isTrainingOp(mlir::Operation *op);

/// True when `program` already holds optimizer ops (op_role optimize), as a
/// training program Paddle wrote does. Backward ops alone (a program that
/// fetches gradients) do not make a training program.
bool hasOptimizerOps(mlir::Operation *program);

/// The Paddle type of the first collective op (`c_allreduce_sum`,
/// `c_broadcast`, ...) in `op` (a program or a module), in program order;
/// "" when it communicates with no other rank.
std::string firstCollectiveOp(mlir::Operation *op);

/// The loss a differentiated program seeds its backward pass from: the
/// variable whose `@GRAD` a backward|loss op (Paddle's fill_constant 1)
/// defines; "" when there is none.
std::string seededLoss(mlir::Operation *program);

} // namespace distc

#endif // DISTC_TRANSFORMS_PROGRAMUTILS_H
