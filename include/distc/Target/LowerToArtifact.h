//===- LowerToArtifact.h - pd programs to kernel-call lists ---*- C++ -*-===//
//
// The last compiler phase: every `pd.program` of a module in mode form (see
// the distc-derive-modes pass) becomes a flat list of kernel calls over
// typed buffers, as docs/artifact.md specifies. All of Paddle's op semantics
// (broadcast axis, x_num_col_dims, reshape's 0/-1, dropout at inference,
// initializer seeds) are decided here so the runtime does no graph work.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TARGET_LOWERTOARTIFACT_H
#define DISTC_TARGET_LOWERTOARTIFACT_H

#include "distc/Artifact/ArtifactDesc.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace distc::target {

/// The persistent i64 [1] variable holding the optimizer step, which
/// train-time dropout reads (Training.step_var in the artifact).
inline constexpr const char *kStepCounterName = "@STEP_COUNTER@";
/// The persistent Int64 buffer of row ids beside a row-sparse variable's
/// values: `<variable>@ROWS`.
inline constexpr llvm::StringLiteral kRowIdsSuffix = "@ROWS";

struct LoweringOptions {
  /// Paddle's program random_seed: seeds initializers whose `seed` is 0.
  uint64_t programSeed = 0;
  /// Recorded in the artifact for diagnostics (the input file name).
  std::string source;
  /// Give every program a planned arena (PlanArenas.h); without one every
  /// temporary has storage of its own.
  bool planArenas = true;
  /// BuildStrategy enable_inplace: unary and binary element-wise kernels
  /// write their result over their first input when nothing reads that
  /// input's storage afterwards.
  bool inplace = true;
};

/// Lowers every mode program of `module`. Emits diagnostics at the failing
/// op (naming the variable) and returns failure on unsupported input.
mlir::FailureOr<artifact::ArtifactDesc> lowerToArtifact(mlir::ModuleOp module,
                                                       const LoweringOptions &options);

} // namespace distc::target

#endif // DISTC_TARGET_LOWERTOARTIFACT_H
