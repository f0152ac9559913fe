//===- Passes.h - the sharding component's passes ---------------*- C++ -*-===//
//
// Propagation and partitioning (Passes.td describes each with an example).
// `registerDistcShardingPasses` makes them available to distc-opt.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_SHARDING_PASSES_H
#define DISTC_SHARDING_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace distc::sharding {

#define GEN_PASS_DECL
#include "distc/Sharding/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "distc/Sharding/Passes.h.inc"

} // namespace distc::sharding

#endif // DISTC_SHARDING_PASSES_H
