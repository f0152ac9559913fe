//===- PatternUtils.cpp - what the pattern fusion passes share ------------===//

#include "PatternUtils.h"

#include "distc/Transforms/ProgramUtils.h"

using namespace mlir;

namespace distc::fusion {

bool isType(Operation *op, StringRef type) {
  return op && op->getName().getDialectNamespace() == "pd" && op->getName().stripDialect() == type;
}

Operation *userOfType(Value value, StringRef type, unsigned index) {
  Operation *found = nullptr;
  for (OpOperand &use : value.getUses())
    if (isType(use.getOwner(), type) && use.getOperandNumber() == index) {
      if (found)
        return nullptr;
      found = use.getOwner();
    }
  return found;
}

bool onlyUsedBy(Value value, ArrayRef<Operation *> allowed) {
  return llvm::all_of(value.getUsers(),
                      [&](Operation *user) { return llvm::is_contained(allowed, user); });
}

LogicalResult forEachCandidate(ModuleOp module, ArrayRef<StringRef> types,
                               function_ref<LogicalResult(Operation *)> visit) {
  bool failedAny = false;
  forEachMainProgramBlock(module, [&](Block &block) {
    SmallVector<Operation *> candidates;
    for (Operation &op : block)
      if (llvm::any_of(types, [&](StringRef type) { return isType(&op, type); }))
        candidates.push_back(&op);
    for (Operation *op : candidates)
      if (failed(visit(op)))
        failedAny = true;
  });
  return failure(failedAny);
}

} // namespace distc::fusion
