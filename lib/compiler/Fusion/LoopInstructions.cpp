//===- LoopInstructions.cpp - ops as instructions of a generated loop -----===//

#include "LoopInstructions.h"

#include "distc/Dialect/Pd/LoopOps.h"
#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Transforms/ProgramUtils.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <string_view>
#include <vector>

using namespace mlir;

namespace distc::fusion {
namespace {

std::string shapeText(RankedTensorType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(type.getShape(), os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  return text + "]";
}

std::string nameOr(Value value, StringRef fallback) {
  std::string name = variableName(value);
  return name.empty() ? fallback.str() : name;
}

} // namespace

std::string describeOp(Operation *op) {
  std::string text = op->getName().stripDialect().str();
  if (op->getNumResults() > 0)
    if (std::string name = variableName(op->getResult(0)); !name.empty())
      text += " (" + name + ")";
  return text;
}

FailureOr<LoopInstruction> loopInstructionOf(Operation *op, std::string &whyNot) {
  const pd::LoopOpSpec *found = pd::lookupLoopOp(op->getName().stripDialect());
  if (!found) {
    whyNot.clear(); // not element-wise: no candidate
    return failure();
  }
  const pd::LoopOpSpec &spec = *found;
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!result || !isa<Float32Type, Float64Type>(result.getElementType())) {
    whyNot = "its result is not a float32 or float64 tensor";
    return failure();
  }
  pd::OpAttributes attrs(op);
  std::string_view opcode = spec.opcode;
  if (!spec.variantAttr.empty() && attrs.getBool(spec.variantAttr))
    opcode = spec.variantOpcode;
  LoopInstruction instruction;
  instruction.info = artifact::findLoopOp(opcode);
  if (!instruction.info) {
    whyNot = "its loop opcode '" + std::string(opcode) + "' is unknown to the runtime";
    return failure();
  }
  // Paddle's element-wise `axis` aligns a lower-rank operand at `axis`; a
  // loop broadcasts only over leading dims, so it must be aligned at the end.
  auto axis = op->getAttrOfType<IntegerAttr>("axis");
  for (int index : spec.operands) {
    Value operand = op->getOperand(index);
    auto type = cast<RankedTensorType>(operand.getType());
    if (type.getElementType() != result.getElementType() || !pd::fitsLoop(type, result)) {
      whyNot = "operand " + nameOr(operand, "#" + std::to_string(index)) + " " + shapeText(type) +
               " is neither the loop's shape " + shapeText(result) + " nor a trailing part of it";
      return failure();
    }
    if (axis && axis.getInt() != -1 && type.getRank() < result.getRank() &&
        axis.getInt() != result.getRank() - type.getRank()) {
      whyNot = "operand " + nameOr(operand, "#" + std::to_string(index)) + " " + shapeText(type) +
               " is aligned at axis " + std::to_string(axis.getInt()) + ", not at the end of " +
               shapeText(result);
      return failure();
    }
    instruction.operands.push_back(operand);
    instruction.operandNumbers.push_back(unsigned(index));
  }
  for (std::string_view name : spec.immediates)
    instruction.immediates.push_back(attrs.getFloat(name));
  return instruction;
}

Operation *buildFusionGroup(ArrayRef<Operation *> ops, ArrayRef<LoopInstruction> instructions) {
  llvm::SmallPtrSet<Operation *, 16> members(ops.begin(), ops.end());
  // The operands as the ops hold them now: a group built before this one
  // may have replaced some (LoopInstruction::operands can be stale).
  SmallVector<SmallVector<Value, 2>> operands;
  for (auto [op, instruction] : llvm::zip(ops, instructions)) {
    SmallVector<Value, 2> &current = operands.emplace_back();
    for (unsigned number : instruction.operandNumbers)
      current.push_back(op->getOperand(number));
  }
  // Registers: the inputs first (each outside value once), then one per op.
  llvm::MapVector<Value, int64_t> inputs;
  for (const SmallVector<Value, 2> &values : operands)
    for (Value operand : values)
      if (!members.contains(operand.getDefiningOp()))
        inputs.insert({operand, int64_t(inputs.size())});
  llvm::DenseMap<Value, int64_t> registerOf;
  for (auto [value, reg] : inputs)
    registerOf[value] = reg;
  const int64_t numInputs = inputs.size();

  SmallVector<int64_t> code;
  SmallVector<double> imms;
  SmallVector<Attribute> fused, valueNames;
  MLIRContext *ctx = ops.front()->getContext();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(ops, instructions))) {
    auto [op, instruction] = pair;
    code.push_back(int64_t(instruction.info->op));
    for (int k = 0; k < 2; ++k)
      code.push_back(k < int(operands[i].size()) ? registerOf.lookup(operands[i][k]) : -1);
    code.push_back(instruction.immediates.empty() ? -1 : int64_t(imms.size()));
    llvm::append_range(imms, instruction.immediates);
    registerOf[op->getResult(0)] = numInputs + int64_t(i);
    fused.push_back(StringAttr::get(ctx, op->getName().stripDialect()));
    valueNames.push_back(StringAttr::get(ctx, variableName(op->getResult(0))));
  }

  // Results: the values other ops read.
  SmallVector<Value> outputs;
  for (Operation *op : ops)
    if (llvm::any_of(op->getResult(0).getUsers(),
                     [&](Operation *user) { return !members.contains(user); }))
      outputs.push_back(op->getResult(0));
  if (outputs.empty())
    outputs.push_back(ops.back()->getResult(0));

  Operation *last = ops.back();
  OpBuilder builder(last);
  SmallVector<Type> types;
  SmallVector<int64_t> outputRegisters;
  SmallVector<Attribute> names;
  for (Value output : outputs) {
    types.push_back(output.getType());
    outputRegisters.push_back(registerOf.lookup(output));
    names.push_back(StringAttr::get(ctx, variableName(output)));
  }
  SmallVector<Value> inputValues;
  for (auto [value, reg] : inputs)
    inputValues.push_back(value);
  auto group = pd::FusionGroupOp::create(builder, last->getLoc(), types, inputValues, code, imms,
                                         outputRegisters, builder.getArrayAttr(fused),
                                         builder.getArrayAttr(valueNames));
  group->setAttr(StringRef(pd::kOutNamesAttr), builder.getArrayAttr(names));
  if (Attribute role = last->getAttr("op_role"))
    group->setAttr("op_role", role);
  for (auto [output, result] : llvm::zip(outputs, group.getOuts()))
    output.replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(ops))
    op->erase();
  return group;
}

} // namespace distc::fusion
