//===- ReleaseMemory.cpp - delete_var after each variable's last use ------===//
//
// Paddle's release_memory in SSA form. Paddle runs a liveness analysis over
// its op list and, after op i, deletes the variables live into op i and
// not out of it; in a block of SSA values that is each value's last use
// (a use inside an op's regions counts as a use by that op). Like Paddle it
// keeps persistable variables, variables of no shape (rank 0) and those in
// the skip set; and, as distc promises, fetched ones and the new values of
// persistable variables.
//
//===----------------------------------------------------------------------===//

#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Transforms/Passes.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"

namespace distc {
#define GEN_PASS_DEF_RELEASEMEMORY
#include "distc/Transforms/Passes.h.inc"
} // namespace distc

using namespace mlir;

namespace distc {
namespace {

/// Inserts the delete_vars of one program's block; returns how many.
int releaseBlock(Block &block, const llvm::StringSet<> &skip) {
  llvm::DenseMap<Value, Operation *> lastUse = lastUsesIn(block);
  // In each op's operand order, as Paddle lists an op's inputs.
  llvm::DenseMap<Operation *, llvm::SetVector<Value>> dying;
  for (Operation &op : block)
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (operand.getParentBlock() == &block && lastUse.lookup(operand) == &op &&
            isMemoryPassCandidate(operand, skip))
          dying[&op].insert(operand);
    });
  int inserted = 0;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto it = dying.find(&op);
    if (it == dying.end())
      continue;
    OpBuilder builder(op.getContext());
    builder.setInsertionPointAfter(&op);
    pd::DeleteVarOp::create(builder, op.getLoc(), it->second.getArrayRef());
    ++inserted;
  }
  return inserted;
}

struct ReleaseMemoryPass : impl::ReleaseMemoryBase<ReleaseMemoryPass> {
  using ReleaseMemoryBase::ReleaseMemoryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<llvm::StringSet<>> skipSet = skipSetOf(module, llvm::to_vector(skip));
    if (failed(skipSet))
      return signalPassFailure();
    forEachMainProgramBlock(module, [&](Block &block) { releaseBlock(block, *skipSet); });
  }
};

} // namespace
} // namespace distc
