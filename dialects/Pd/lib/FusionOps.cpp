//===- FusionOps.cpp - Verifiers of the ops the fusion passes write -------===//

#include "distc/Dialect/Pd/LoopOps.h"
#include "distc/Dialect/Pd/PdOps.h"

#include "distc/Artifact/ElementwiseLoop.h"

using namespace mlir;
using namespace distc::pd;
namespace loop = distc::artifact;

LogicalResult FusionGroupOp::verify() {
  ArrayRef<int64_t> code = getCode(), outputs = getOutputs();
  std::string error = loop::loopProgramError(code.data(), code.size(), getInputs().size(),
                                             getImms().size(), outputs.data(), outputs.size());
  if (!error.empty())
    return emitOpError() << error;
  const int64_t numInstructions = code.size() / loop::kLoopInstructionWidth;
  if (int64_t(getFused().size()) != numInstructions ||
      int64_t(getNames().size()) != numInstructions)
    return emitOpError() << "names " << getFused().size() << " fused ops and " << getNames().size()
                         << " variables for " << numInstructions << " instructions";
  if (outputs.size() != getOuts().size() || getOuts().empty())
    return emitOpError() << "has " << outputs.size() << " output registers for " << getOuts().size()
                         << " results";

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
