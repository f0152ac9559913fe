//===- SyncBatchNorm.cpp - batch_norm over every rank's batch -------------===//
//
// BuildStrategy.sync_batch_norm: in data parallelism each rank's batch_norm
// normalizes with its own shard's statistics and keeps its own running
// statistics (Paddle's default), so N ranks do not train as one serial run
// on the global batch does. Paddle's answer, and this pass, turn the train
// program's batch_norm ops in training form into sync_batch_norm, whose
// kernels all-reduce the per-channel sums (docs/data-parallel.md). It runs
// before distc-append-backward, so the gradients appended are
// sync_batch_norm_grad; gradient ops the program already holds are turned
// alike. The two ops have the same slots and attributes (PdNormOps.td), so
// the rewrite keeps operands, attributes and results as they are.
//
//===----------------------------------------------------------------------===//

#include "distc/Transforms/Passes.h"

#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"

namespace distc {
#define GEN_PASS_DEF_SYNCBATCHNORM
#include "distc/Transforms/Passes.h.inc"
} // namespace distc

using namespace mlir;

namespace distc {
namespace {

/// Whether `op` (batch_norm or its gradient) normalizes with the batch's
/// statistics in a train program: the rule of ProgramLowering's
/// usesGlobalStats (Paddle's batch_norm kernels), where the gradient takes
/// is_test alone as test mode.
bool usesBatchStatistics(Operation *op, bool isGrad) {
  pd::OpAttributes attrs(op);
  if (attrs.getBool("use_global_stats"))
    return false;
  return !attrs.getBool("is_test") || (!isGrad && attrs.getBool("trainable_statistics"));
}

/// Replaces `op` by an op named `name` with its operands, attributes
/// (inherent ones included) and result types.
void rename(Operation *op, StringRef name) {
  OpBuilder b(op);
  OperationState state(op->getLoc(), name);
  state.addOperands(op->getOperands());
  state.addTypes(op->getResultTypes());
  state.addAttributes(op->getAttrDictionary().getValue());
  Operation *renamed = b.create(state);
  op->replaceAllUsesWith(renamed->getResults());
  op->erase();
}

struct SyncBatchNormPass : impl::SyncBatchNormBase<SyncBatchNormPass> {
  using SyncBatchNormBase::SyncBatchNormBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Operation *train = findProgram(module, program);
    if (!train) {
      module.emitError() << "sync_batch_norm needs a train mode (no program '" << program << "')";
      return signalPassFailure();
    }
    SmallVector<Operation *> forward, backward;
    train->walk([&](Operation *op) {
      if (isa<pd::BatchNormOp>(op) && usesBatchStatistics(op, /*isGrad=*/false))
        forward.push_back(op);
      else if (isa<pd::BatchNormGradOp>(op) && usesBatchStatistics(op, /*isGrad=*/true))
        backward.push_back(op);
    });
    for (Operation *op : forward)
      rename(op, pd::SyncBatchNormOp::getOperationName());
    for (Operation *op : backward)
      rename(op, pd::SyncBatchNormGradOp::getOperationName());
  }
};

} // namespace
} // namespace distc
