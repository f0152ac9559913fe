//===- PatternUtils.cpp - what the pattern fusion passes share ------------===//

#include "PatternUtils.h"

#include "LoopInstructions.h"

#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Transforms/ProgramUtils.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

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

std::string whyReadersCannotWait(Operation *member, Operation *at, ArrayRef<Operation *> group) {
  for (Operation *user : member->getUsers()) {
    if (user->getBlock() != at->getBlock() || !user->isBeforeInBlock(at) ||
        llvm::is_contained(group, user))
      continue;
    auto write = dyn_cast<pd::WriteVarOp>(user);
    if (!write)
      return describeOp(user) + " reads " + variableName(member->getResult(0)) + " before";
    for (Operation *op = user->getNextNode(); op != at; op = op->getNextNode()) {
      auto read = dyn_cast<pd::ReadVarOp>(op);
      auto other = dyn_cast<pd::WriteVarOp>(op);
      if ((read && read.getVar() == write.getVar()) || (other && other.getVar() == write.getVar()))
        return "@" + write.getVar().str() + " is read or written before";
    }
  }
  return "";
}

void deferReaders(ArrayRef<Operation *> members, Operation *fused) {
  llvm::SetVector<Operation *> waiting;
  for (Operation *op : members)
    for (Operation *user : op->getUsers())
      if (user->getBlock() == fused->getBlock() && user->isBeforeInBlock(fused) &&
          !llvm::is_contained(members, user))
        waiting.insert(user);
  SmallVector<Operation *> readers = waiting.takeVector();
  llvm::sort(readers, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  for (Operation *reader : llvm::reverse(readers))
    reader->moveAfter(fused);
}

NamedAttribute namedAttr(MLIRContext *ctx, StringRef name, Attribute value) {
  return NamedAttribute(StringAttr::get(ctx, name), value);
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
