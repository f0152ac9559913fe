//===- LoopOps.cpp - ops as instructions of generated loops ---------------===//

#include "distc/Dialect/Pd/LoopOps.h"

#include "distc/Artifact/ElementwiseLoop.h"
#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace distc::pd {

const LoopOpSpec *lookupLoopOp(StringRef type) {
  static const llvm::StringMap<LoopOpSpec> specs = [] {
    const LoopOpSpec table[] = {
#include "distc/Dialect/Pd/PdLoopOps.inc"
    };
    llvm::StringMap<LoopOpSpec> byType;
    for (const LoopOpSpec &spec : table)
      byType[spec.type] = spec;
    return byType;
  }();
  auto it = specs.find(type);
  return it == specs.end() ? nullptr : &it->second;
}

bool fitsLoop(RankedTensorType type, RankedTensorType shape) {
  ArrayRef<int64_t> dims = type.getShape();
  while (!dims.empty() && dims.front() == 1)
    dims = dims.drop_front();
  ArrayRef<int64_t> loopDims = shape.getShape();
  return dims.size() <= loopDims.size() && dims == loopDims.take_back(dims.size());
}

LogicalResult expandFusionGroup(FusionGroupOp group) {
  MLIRContext *ctx = group.getContext();
  OpBuilder builder(group);
  SmallVector<Value> registers(group.getInputs().begin(), group.getInputs().end());
  ArrayRef<int64_t> code = group.getCode();
  ArrayRef<double> imms = group.getImms();
  for (auto [i, typeAttr] : llvm::enumerate(group.getFused())) {
    StringRef type = cast<StringAttr>(typeAttr).getValue();
    const LoopOpSpec *loop = lookupLoopOp(type);
    const OpSpec *spec = lookupOp(std::string_view(type.data(), type.size()));
    if (!loop || !spec)
      return group.emitOpError() << "fused op '" << type << "' has no loop instruction";
    const int64_t *in = code.data() + i * artifact::kLoopInstructionWidth;
    SmallVector<SmallVector<Value, 1>> operands(spec->inputs.size());
    for (auto [k, index] : llvm::enumerate(loop->operands))
      operands[index].push_back(registers[in[1 + k]]);
    SmallVector<NamedAttribute> attrs;
    auto setAttr = [&](std::string_view name, Attribute value) {
      attrs.push_back(
          NamedAttribute(StringAttr::get(ctx, StringRef(name.data(), name.size())), value));
    };
    for (size_t k = 0; k < loop->immediates.size(); ++k) {
      std::string_view name = loop->immediates[k];
      double value = imms[in[3] + k];
      bool isBool = llvm::any_of(spec->attrs, [&](const AttrSpec &a) {
        return a.name == name && a.kind == AttrKind::Boolean;
      });
      setAttr(name, isBool ? Attribute(BoolAttr::get(ctx, value != 0))
                           : Attribute(FloatAttr::get(Float32Type::get(ctx), value)));
    }
    if (!loop->variantAttr.empty())
      setAttr(loop->variantAttr,
              BoolAttr::get(ctx, artifact::loopOpInfo(in[0])->name == loop->variantOpcode));
    if (Attribute role = group->getAttr("op_role"))
      setAttr("op_role", role);
    std::string name = cast<StringAttr>(group.getNames()[i]).str();
    FailureOr<Operation *> op =
        buildCatalogOp(builder, group.getLoc(), type, operands, attrs, {name});
    if (failed(op))
      return failure();
    registers.push_back((*op)->getResult(0));
  }
  for (auto [result, reg] : llvm::zip(group.getOuts(), group.getOutputs()))
    result.replaceAllUsesWith(registers[reg]);
  group.erase();
  return success();
}

} // namespace distc::pd
