//===- Passes.h - parameter-server passes -----------------------*- C++ -*-===//
//
// DistributeTranspiler's pserver mode (Passes.td describes it with an
// example). `registerDistcParameterServerPasses` makes it available to
// distc-opt.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PARAMETERSERVER_PASSES_H
#define DISTC_PARAMETERSERVER_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace distc::ps {

#define GEN_PASS_DECL
#include "distc/ParameterServer/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "distc/ParameterServer/Passes.h.inc"

} // namespace distc::ps

#endif // DISTC_PARAMETERSERVER_PASSES_H
