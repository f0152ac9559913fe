//===- Passes.h - BuildStrategy's fusion passes -----------------*- C++ -*-===//
//
// One pass per BuildStrategy fusion option (Passes.td describes each with
// an example). `registerDistcFusionPasses` makes them available to
// distc-opt.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_FUSION_PASSES_H
#define DISTC_FUSION_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace distc::fusion {

#define GEN_PASS_DECL
#include "distc/Fusion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "distc/Fusion/Passes.h.inc"

} // namespace distc::fusion

#endif // DISTC_FUSION_PASSES_H
