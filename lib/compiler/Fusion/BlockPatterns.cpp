//===- BlockPatterns.cpp - matching a transformer block's parts -----------===//

#include "BlockPatterns.h"

#include "LoopInstructions.h"
#include "PatternUtils.h"

#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace distc::fusion {

bool isBackwardOp(Operation *op) { return opRole(op) & pd::OpRole::Backward; }

Operation *forwardReader(Value value) {
  Operation *found = nullptr;
  for (Operation *user : value.getUsers()) {
    if (isBackwardOp(user) || user == found)
      continue;
    if (found)
      return nullptr;
    found = user;
  }
  return found;
}

Operation *nextOp(Value value, StringRef type, unsigned index) {
  Operation *next = forwardReader(value);
  if (!next || !isType(next, type) || next->getNumOperands() <= index ||
      next->getOperand(index) != value)
    return nullptr;
  return next;
}

bool isLinear(const Linear &l) {
  if (!isType(l.matmul, "matmul_v2") || !isType(l.add, "elementwise_add") ||
      l.add->getOperand(0) != l.matmul->getResult(0))
    return false;
  pd::OpAttributes attrs(l.matmul);
  if (attrs.getBool("trans_x") || attrs.getBool("trans_y") ||
      cast<RankedTensorType>(l.weight().getType()).getRank() != 2)
    return false;
  auto out = cast<RankedTensorType>(l.out().getType());
  auto bias = cast<RankedTensorType>(l.bias().getType());
  int64_t axis = pd::OpAttributes(l.add).getInt("axis");
  return bias.getRank() == 1 && bias.getDimSize(0) == out.getShape().back() &&
         (axis == -1 || axis == out.getRank() - 1);
}

void Linear::findBackward() {
  matmulGrad = userOfType(input(), "matmul_v2_grad", 0);
  addGrad = userOfType(matmul->getResult(0), "elementwise_add_grad", 0);
}

FailureOr<Linear> linearOf(Operation *matmul) {
  Linear l;
  l.matmul = matmul;
  l.add = matmul ? nextOp(matmul->getResult(0), "elementwise_add") : nullptr;
  if (!l.add || !isLinear(l))
    return failure();
  return l;
}

FailureOr<Linear> matchLinear(Value in) { return linearOf(nextOp(in, "matmul_v2")); }

FailureOr<Linear> linearDefining(Value out) {
  Linear l;
  l.add = out.getDefiningOp();
  l.matmul = l.add && l.add->getNumOperands() == 2 ? l.add->getOperand(0).getDefiningOp() : nullptr;
  if (!l.matmul || !isLinear(l))
    return failure();
  return l;
}

Operation *dropoutDefining(Value value) {
  Operation *def = value.getDefiningOp();
  return isType(def, "dropout") && def->getResult(0) == value ? def : nullptr;
}

Operation *dropoutGradOf(Operation *dropout) {
  if (!dropout || dropout->getNumResults() < 2)
    return nullptr;
  return userOfType(dropout->getResult(1), "dropout_grad", 0);
}

std::string whySeveralReaders(Value value) {
  SmallVector<Operation *> readers;
  for (Operation *user : value.getUsers())
    if (!isBackwardOp(user) && !llvm::is_contained(readers, user))
      readers.push_back(user);
  if (readers.size() < 2)
    return "";
  llvm::sort(readers, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return variableName(value) + " is read by " + describeOp(readers[0]) + " and " +
         describeOp(readers[1]);
}

Operation *layerNormGradOf(Operation *ln) {
  for (Operation *user : ln->getResult(1).getUsers())
    if (isType(user, "layer_norm_grad"))
      return user;
  return nullptr;
}

bool feeds(Value value, Operation *grad, unsigned index) {
  return grad && value.hasOneUse() && grad->getNumOperands() > index &&
         grad->getOperand(index) == value;
}

std::pair<SmallVector<Value, 1>, SmallVector<Value, 1>> layerNormParams(Operation *ln) {
  // layer_norm's Scale and Bias are its optional operand groups 1 and 2.
  auto segments = ln->getAttrOfType<DenseI32ArrayAttr>("operandSegmentSizes");
  SmallVector<Value, 1> scale, bias;
  if (segments && segments[1] > 0)
    scale.push_back(ln->getOperand(1));
  if (segments && segments[2] > 0)
    bias.push_back(ln->getOperand(1 + segments[1]));
  return {scale, bias};
}

std::string nameOfResult(Operation *op, unsigned index) {
  return op && op->getNumResults() > index ? variableName(op->getResult(index)) : "";
}

std::string whyInsideReadOutside(ArrayRef<Operation *> forward, ArrayRef<Operation *> backward,
                                 Value out) {
  auto member = [&](Operation *op) {
    return llvm::is_contained(forward, op) || llvm::is_contained(backward, op);
  };
  for (Operation *op : forward)
    for (Value result : op->getResults()) {
      if (result == out)
        continue;
      for (Operation *user : result.getUsers())
        if (!member(user))
          return variableName(result) + " is read by " + describeOp(user);
    }
  return "";
}

Operation *residualAddOf(Value branch, Value x, unsigned &side) {
  Operation *add = forwardReader(branch);
  if (!add || !isType(add, "elementwise_add"))
    return nullptr;
  side = add->getOperand(0) == branch ? 0 : 1;
  return add->getOperand(1 - side) == x ? add : nullptr;
}

Operation *sumOfShares(Value a, Value b) {
  Operation *sum = a.hasOneUse() ? *a.getUsers().begin() : nullptr;
  if (!sum || !isType(sum, "sum") || sum->getNumOperands() != 2 || !b.hasOneUse() ||
      *b.getUsers().begin() != sum)
    return nullptr;
  return sum;
}

bool GradientChain::step(Operation *grad, unsigned index, Value result) {
  if (d && !feeds(d, grad, index))
    return false;
  d = result;
  return true;
}

void eraseBlock(ArrayRef<Operation *> forward, ArrayRef<Operation *> backward) {
  for (Operation *op : llvm::reverse(backward))
    op->erase();
  for (Operation *op : llvm::reverse(forward))
    op->erase();
}

} // namespace distc::fusion
