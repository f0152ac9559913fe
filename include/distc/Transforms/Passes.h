//===- Passes.h - distc program transforms --------------------*- C++ -*-===//
//
// Passes over `pd` modules; each is described with a before/after example
// in Passes.td. `registerDistcPasses` makes them available to distc-opt.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TRANSFORMS_PASSES_H
#define DISTC_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace distc {

#define GEN_PASS_DECL
#include "distc/Transforms/Passes.h.inc"

/// The optimizers distc-apply-optimizer appends, by their Paddle op type:
/// sgd, momentum, adam, adamw, adagrad, decayed_adagrad, rmsprop, ftrl.
llvm::ArrayRef<llvm::StringRef> knownOptimizers();

/// Paddle's Python default of a hyper-parameter that several optimizers
/// take under one name, for `optimizer`: epsilon (Adam and AdamW 1e-8;
/// Adagrad, DecayedAdagrad and RMSProp 1e-6) and momentum (Momentum's mu
/// 0.9, RMSProp's 0).
double optimizerDefaultEpsilon(llvm::StringRef optimizer);
double optimizerDefaultMomentum(llvm::StringRef optimizer);

/// Erases ops of `program` (a pd.program) that no fetch or variable write
/// transitively needs.
void pruneDeadOps(mlir::Operation *program);

/// Registers every distc pass (defines `registerDistcPasses()`).
#define GEN_PASS_REGISTRATION
#include "distc/Transforms/Passes.h.inc"

} // namespace distc

#endif // DISTC_TRANSFORMS_PASSES_H
