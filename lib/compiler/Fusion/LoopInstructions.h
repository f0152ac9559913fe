//===- LoopInstructions.h - ops as instructions of a generated loop -*- C++ -*-===//
//
// Private to lib/compiler/Fusion. Which ops may join a generated
// element-wise loop, and as what instruction, comes from their declarations
// in PdOps.td (`loopOp`, distc/Dialect/Pd/LoopOps.h); this file checks an
// op against its loop's shape and builds `pd.fusion_group` programs from
// groups of ops.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_FUSION_LOOPINSTRUCTIONS_H
#define DISTC_LIB_FUSION_LOOPINSTRUCTIONS_H

#include "distc/Artifact/ElementwiseLoop.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace distc::fusion {

/// One op as an instruction: its opcode, the values its registers hold (and
/// the op's operand numbers of them) and its immediates.
struct LoopInstruction {
  const artifact::LoopOpInfo *info = nullptr;
  llvm::SmallVector<mlir::Value, 2> operands;
  llvm::SmallVector<unsigned, 2> operandNumbers;
  llvm::SmallVector<double, 3> immediates;
};

/// `op` as a loop instruction over the shape of its result, or failure with
/// `whyNot` saying why it cannot be one (not a float, an operand that is
/// not the loop's shape or a trailing part of it), empty for an op that is
/// not element-wise at all.
mlir::FailureOr<LoopInstruction> loopInstructionOf(mlir::Operation *op, std::string &whyNot);

/// Replaces `ops` (in program order, each with its loop instruction) by one
/// `pd.fusion_group` at the last one, whose results are the values of
/// `ops` read by other ops (or, if none is, the last op's). Returns it.
mlir::Operation *buildFusionGroup(llvm::ArrayRef<mlir::Operation *> ops,
                                  llvm::ArrayRef<LoopInstruction> instructions);

/// "elementwise_add (fc_0.tmp_1)": an op as explanations name it.
std::string describeOp(mlir::Operation *op);

} // namespace distc::fusion

#endif // DISTC_LIB_FUSION_LOOPINSTRUCTIONS_H
