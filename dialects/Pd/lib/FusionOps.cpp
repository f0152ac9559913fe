//===- FusionOps.cpp - Verifiers of the ops the fusion passes write -------===//

#include "distc/Dialect/Pd/PdOps.h"

#include "distc/Artifact/ElementwiseLoop.h"

using namespace mlir;
using namespace distc::pd;
namespace loop = distc::artifact;

/// Whether `operand` fits a loop over `shape`: the same shape, or a
/// trailing part of it after leading 1s (a `?` matches a `?`).
static bool fitsLoop(RankedTensorType operand, RankedTensorType shape) {
  ArrayRef<int64_t> dims = operand.getShape();
  while (!dims.empty() && dims.front() == 1)
    dims = dims.drop_front();
  ArrayRef<int64_t> loopDims = shape.getShape();
  if (dims.size() > loopDims.size())
    return false;
  return dims == loopDims.take_back(dims.size());
}

LogicalResult FusionGroupOp::verify() {
  ArrayRef<int64_t> code = getCode();
  const int64_t numInputs = getInputs().size();
  if (code.empty() || code.size() % loop::kLoopInstructionWidth != 0)
    return emitOpError() << "code has " << code.size() << " integers; it must be a nonzero "
                         << "multiple of " << loop::kLoopInstructionWidth;
  const int64_t numInstructions = code.size() / loop::kLoopInstructionWidth;
  if (int64_t(getFused().size()) != numInstructions ||
      int64_t(getNames().size()) != numInstructions)
    return emitOpError() << "names " << getFused().size() << " fused ops and " << getNames().size()
                         << " variables for " << numInstructions << " instructions";
  for (int64_t i = 0; i < numInstructions; ++i) {
    const int64_t *instruction = code.data() + i * loop::kLoopInstructionWidth;
    const loop::LoopOpInfo *info = loop::loopOpInfo(instruction[0]);
    if (!info)
      return emitOpError() << "instruction " << i << " has unknown opcode " << instruction[0];
    for (int k = 0; k < 2; ++k) {
      const int64_t reg = instruction[1 + k];
      if (k < info->operands ? reg < 0 || reg >= numInputs + i : reg != -1)
        return emitOpError() << "instruction " << i << " (" << info->name << ") operand " << k
                             << " is register " << reg << "; "
                             << (k < info->operands ? "it must be defined before it"
                                                    : "an unused operand must be -1");
    }
    const int64_t imm = instruction[3];
    if (info->immediates ? imm < 0 || imm + info->immediates > int64_t(getImms().size())
                         : imm != -1)
      return emitOpError() << "instruction " << i << " (" << info->name << ") reads "
                           << int(info->immediates) << " immediates at " << imm << " of "
                           << getImms().size();
  }
  if (getOutputs().size() != getOuts().size() || getOuts().empty())
    return emitOpError() << "has " << getOutputs().size() << " output registers for "
                         << getOuts().size() << " results";
  for (int64_t reg : getOutputs())
    if (reg < numInputs || reg >= numInputs + numInstructions)
      return emitOpError() << "output register " << reg << " is no instruction's";

  auto shape = cast<RankedTensorType>(getOuts().front().getType());
  if (!isa<FloatType>(shape.getElementType()))
    return emitOpError() << "loops over " << shape.getElementType() << "; only floats";
  for (Value out : getOuts())
    if (out.getType() != shape)
      return emitOpError() << "results differ in type: " << out.getType() << " and " << shape;
  bool fullInput = false;
  for (Value input : getInputs()) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getElementType() != shape.getElementType() || !fitsLoop(type, shape))
      return emitOpError() << "input of type " << type << " does not fit the loop over " << shape;
    fullInput |= type.getShape() == shape.getShape();
  }
  if (!fullInput)
    return emitOpError() << "no input has the loop's shape " << shape;
  return success();
}
