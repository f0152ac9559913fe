//===- BlockPatterns.h - matching a transformer block's parts ---*- C++ -*-===//
//
// Private to lib/compiler/Fusion: what fused_feedforward and
// fused_attention both match. A block's forward ops are found by following
// each value to its one forward reader; the backward ops by the forward
// values they read (a dropout_grad reads its dropout's Mask, a
// matmul_v2_grad its matmul's operands, a layer_norm_grad its Mean).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_FUSION_BLOCKPATTERNS_H
#define DISTC_LIB_FUSION_BLOCKPATTERNS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace distc::fusion {

/// matmul_v2 + elementwise_add of a bias row, and their gradients.
struct Linear {
  mlir::Operation *matmul = nullptr, *add = nullptr;
  mlir::Operation *matmulGrad = nullptr, *addGrad = nullptr;
  mlir::Value input() const { return matmul->getOperand(0); }
  mlir::Value weight() const { return matmul->getOperand(1); }
  mlir::Value bias() const { return add->getOperand(1); }
  mlir::Value out() const { return add->getResult(0); }
  /// Finds the gradients: matmul_v2_grad reading the input, and the add's
  /// elementwise_add_grad (either may stay null).
  void findBackward();
};

bool isBackwardOp(mlir::Operation *op);

/// The one forward reader of `value`, or null.
mlir::Operation *forwardReader(mlir::Value value);

/// The forward op of `type` alone reading `value`, as operand `index`.
mlir::Operation *nextOp(mlir::Value value, llvm::StringRef type, unsigned index = 0);

/// Whether `l` is a matmul_v2 (no transposes, 2-D weight) and the add of a
/// bias row to its result.
bool isLinear(const Linear &l);

/// Matches the linear whose matmul is `matmul`, or the one reading `in`.
mlir::FailureOr<Linear> linearOf(mlir::Operation *matmul);
mlir::FailureOr<Linear> matchLinear(mlir::Value in);

/// The linear whose bias add defines `out`.
mlir::FailureOr<Linear> linearDefining(mlir::Value out);

/// The dropout defining `value`, or null.
mlir::Operation *dropoutDefining(mlir::Value value);

/// The dropout_grad of `dropout` (null for none, or a dropout without a
/// Mask).
mlir::Operation *dropoutGradOf(mlir::Operation *dropout);

/// "V is read by A and B" when several forward ops read `value`, else "".
std::string whySeveralReaders(mlir::Value value);

/// The layer_norm_grad of `ln`: the one reading its Mean.
mlir::Operation *layerNormGradOf(mlir::Operation *ln);

/// Whether `value` is `grad`'s operand `index` and read by nothing else.
bool feeds(mlir::Value value, mlir::Operation *grad, unsigned index);

/// layer_norm `ln`'s Scale and Bias (each empty when absent), as the fused
/// ops' builders take operand groups.
std::pair<llvm::SmallVector<mlir::Value, 1>, llvm::SmallVector<mlir::Value, 1>>
layerNormParams(mlir::Operation *ln);

/// The name of `op`'s result `index` when it has one, else "".
std::string nameOfResult(mlir::Operation *op, unsigned index);

/// Why a result of `forward` other than `out` is read by an op outside
/// `forward` and `backward`, or "".
std::string whyInsideReadOutside(llvm::ArrayRef<mlir::Operation *> forward,
                                 llvm::ArrayRef<mlir::Operation *> backward, mlir::Value out);

/// The sum op adding `a` and `b` alone, each read by it alone, or null.
mlir::Operation *sumOfShares(mlir::Value a, mlir::Value b);

} // namespace distc::fusion

#endif // DISTC_LIB_FUSION_BLOCKPATTERNS_H
