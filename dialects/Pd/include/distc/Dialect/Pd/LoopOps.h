//===- LoopOps.h - ops as instructions of generated loops -------*- C++ -*-===//
//
// Which ops may be an instruction of a generated element-wise loop
// (pd.fusion_group, distc/Artifact/ElementwiseLoop.h), and how: the table
// distc-tblgen generates from each op's `loopOp` fields in PdOps.td. The
// fusion pass reads it to build loops; the exporter reads it to write a
// loop back out as the ops it replaced, since Paddle has no such loop.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_DIALECT_PD_LOOPOPS_H
#define DISTC_DIALECT_PD_LOOPOPS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string_view>
#include <vector>

namespace distc::pd {

class FusionGroupOp;

/// One op's loop instruction: its opcode, the operands (ODS indices) that
/// are the instruction's registers, the attributes that are its
/// immediates, and the opcode taken instead when the Bool attribute
/// `variantAttr` is true.
struct LoopOpSpec {
  std::string_view type;
  std::string_view opcode;
  std::vector<int> operands;
  std::vector<std::string_view> immediates;
  std::string_view variantAttr;
  std::string_view variantOpcode;
};

/// The loop instruction of op type `type`, or null for an op that never
/// joins a loop.
const LoopOpSpec *lookupLoopOp(llvm::StringRef type);

/// Whether a value of `type` can be an input of a loop over `shape`: the
/// same shape, or a trailing part of it after leading 1s (a `?` matches a
/// `?`), broadcast over the leading dims.
bool fitsLoop(mlir::RankedTensorType type, mlir::RankedTensorType shape);

/// Replaces `group` by the ops it stands for, one per instruction, named by
/// its `names` (the inverse of the fusion).
mlir::LogicalResult expandFusionGroup(FusionGroupOp group);

} // namespace distc::pd

#endif // DISTC_DIALECT_PD_LOOPOPS_H
