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

#include "FusionLog.h"
#include "PatternUtils.h"

#include "mlir/IR/BuiltinOps.h"
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

/// The elementwise_add alone reading `branch` (in the forward) whose
/// other operand is `x`: a residual connection, with `side` the operand
/// `branch` is; or null.
mlir::Operation *residualAddOf(mlir::Value branch, mlir::Value x, unsigned &side);

/// The sum op adding `a` and `b` alone, each read by it alone, or null.
mlir::Operation *sumOfShares(mlir::Value a, mlir::Value b);

/// A backward chain being followed: each gradient op must read the
/// previous one's result, alone, as its Out@GRAD operand.
struct GradientChain {
  mlir::Value d; // the gradient so far (null: the chain's start, any input)
  /// Whether `grad` reads `d` as operand `index` (and only it does); then
  /// `result` continues the chain.
  bool step(mlir::Operation *grad, unsigned index, mlir::Value result);
};

/// Erases a fused block's `forward` and `backward` ops (in program order),
/// last first, once their results' readers read the fused ops'.
void eraseBlock(llvm::ArrayRef<mlir::Operation *> forward,
                llvm::ArrayRef<mlir::Operation *> backward);

/// Runs a transformer-block fusion over `module`. A layer_norm starts a
/// pre-layer-norm block or ends a post one: at each, `matchPre` and then
/// `matchPost` look for the block's forward ops, `matchBackward` for their
/// gradients, and the block's values must be read inside it alone. A
/// match is rewritten; a candidate left is logged with the reason (the
/// post form's when it has one; none where no block is there at all).
/// `Block` has forward(), backward() and out().
template <typename Block>
mlir::LogicalResult
fuseBlocks(mlir::ModuleOp module, FusionLog &log,
           llvm::function_ref<mlir::FailureOr<Block>(mlir::Operation *, std::string &)> matchPre,
           llvm::function_ref<mlir::FailureOr<Block>(mlir::Operation *, std::string &)> matchPost,
           llvm::function_ref<mlir::LogicalResult(Block &, std::string &)> matchBackward,
           llvm::function_ref<mlir::LogicalResult(Block &, FusionLog &)> rewrite) {
  auto match = [&](mlir::Operation *ln, bool pre, std::string &why) -> mlir::FailureOr<Block> {
    mlir::FailureOr<Block> m = pre ? matchPre(ln, why) : matchPost(ln, why);
    if (mlir::failed(m) || mlir::failed(matchBackward(*m, why)))
      return mlir::failure();
    if (why = whyInsideReadOutside(m->forward(), m->backward(), m->out()); !why.empty())
      return mlir::failure();
    return m;
  };
  return forEachCandidate(module, {"layer_norm"}, [&](mlir::Operation *ln) -> mlir::LogicalResult {
    std::string why, postWhy;
    mlir::FailureOr<Block> m = match(ln, /*pre=*/true, why);
    if (mlir::failed(m))
      m = match(ln, /*pre=*/false, postWhy);
    if (mlir::succeeded(m))
      return rewrite(*m, log);
    if (!postWhy.empty())
      why = postWhy;
    if (!why.empty())
      log.left(ln, why);
    return mlir::success();
  });
}

} // namespace distc::fusion

#endif // DISTC_LIB_FUSION_BLOCKPATTERNS_H
