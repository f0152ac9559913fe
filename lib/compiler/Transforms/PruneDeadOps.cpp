//===- PruneDeadOps.cpp - drop ops no fetch or write needs ----------------===//

#include "distc/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace distc {
#define GEN_PASS_DEF_PRUNEDEADOPS
#include "distc/Transforms/Passes.h.inc"
} // namespace distc

using namespace mlir;

namespace distc {

/// Ops with an effect outside the program's SSA values (c_comm_init sets up
/// the communicator): everything else is pure in the pd dialect, so it is
/// dead unless a root transitively uses it.
static bool isRoot(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return name == "pd.fetch" || name == "pd.write_var" || name == "pd.c_comm_init";
}

void pruneDeadOps(Operation *program) {
  llvm::SmallPtrSet<Operation *, 32> live;
  llvm::SmallVector<Operation *> worklist;
  program->walk([&](Operation *op) {
    if (op != program && isRoot(op) && live.insert(op).second)
      worklist.push_back(op);
  });
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (live.insert(def).second)
          worklist.push_back(def);
  }
  // Erase in reverse order so users go before their producers.
  llvm::SmallVector<Operation *> dead;
  for (Region &region : program->getRegions())
    for (Block &block : region)
      for (Operation &op : block)
        if (!live.contains(&op))
          dead.push_back(&op);
  for (Operation *op : llvm::reverse(dead))
    op->erase();
}

namespace {
struct PruneDeadOpsPass : impl::PruneDeadOpsBase<PruneDeadOpsPass> {
  void runOnOperation() override {
    for (Operation &op : getOperation().getBody()->getOperations())
      if (op.getName().getStringRef() == "pd.program")
        pruneDeadOps(&op);
  }
};
} // namespace
} // namespace distc
