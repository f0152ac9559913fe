//===- FusionLog.cpp - what a fusion pass did, for --explain-fusion -------===//

#include "FusionLog.h"

#include "LoopInstructions.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace distc::fusion {

/// The name of the program `op` is in ("train.main"), or "?".
static StringRef programOf(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp())
    if (parent->getName().getStringRef() == "pd.program")
      if (auto name = parent->getAttrOfType<StringAttr>("sym_name"))
        return name.getValue();
  return "?";
}

void FusionLog::start(Operation *op) { llvm::errs() << option << ": " << programOf(op) << ": "; }

void FusionLog::fused(ArrayRef<Operation *> ops, StringRef into) {
  if (!enabled)
    return;
  start(ops.front());
  llvm::errs() << "fused ";
  llvm::interleave(
      ops, llvm::errs(), [](Operation *op) { llvm::errs() << describeOp(op); }, " + ");
  llvm::errs() << " into " << into << "\n";
}

void FusionLog::left(Operation *op, const Twine &why) {
  if (!enabled)
    return;
  start(op);
  llvm::errs() << "left " << describeOp(op) << ": " << why << "\n";
}

void FusionLog::started(Operation *op, const Twine &why) {
  if (!enabled)
    return;
  start(op);
  llvm::errs() << "started a loop at " << describeOp(op) << ": " << why << "\n";
}

} // namespace distc::fusion
