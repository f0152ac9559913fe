//===- PdDialect.h - PaddlePaddle program dialect -------------*- C++ -*-===//
//
// The `pd` dialect (class distc::pd::PdDialect). See PdOps.h for its ops and
// docs/dialect.md for the IR conventions.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_PDDIALECT_H
#define DISTC_DIALECT_PD_PDDIALECT_H

#include "mlir/IR/Dialect.h"

#include "distc/Dialect/Pd/PdDialect.h.inc"

#endif // DISTC_DIALECT_PD_PDDIALECT_H
