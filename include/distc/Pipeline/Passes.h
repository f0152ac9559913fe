//===- Passes.h - distc pipeline passes -----------------------*- C++ -*-===//
//
// Passes of the pipeline layer, described with before/after examples in
// Passes.td. `registerDistcPipelinePasses` makes them available to
// distc-opt.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PIPELINE_PASSES_H
#define DISTC_PIPELINE_PASSES_H

#include "distc/Pipeline/TrainingOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>

namespace distc::pipeline {

#define GEN_PASS_DECL
#include "distc/Pipeline/Passes.h.inc"

/// distc-lower-to-artifact with training settings already resolved (distc
/// merges its flags over the config file): the `loss` and `config` options
/// are not read then.
std::unique_ptr<mlir::Pass> createLowerToArtifact(const LowerToArtifactOptions &options,
                                                  const TrainingOptions &training);

/// Registers every pipeline pass (defines `registerDistcPipelinePasses()`).
#define GEN_PASS_REGISTRATION
#include "distc/Pipeline/Passes.h.inc"

} // namespace distc::pipeline

#endif // DISTC_PIPELINE_PASSES_H
