//===- PdOps.cpp - PaddlePaddle operators ---------------------------------===//
//
// Structural op logic (programs, variables and their accesses) and the
// verifier shared by all catalog ops, which checks declared result types
// against Paddle's shape and dtype inference.
//
//===----------------------------------------------------------------------===//

#include "distc/Dialect/Pd/PdOps.h"

#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/ShapeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace distc::pd;

//===----------------------------------------------------------------------===//
// Catalog op verification
//===----------------------------------------------------------------------===//

LogicalResult distc::pd::detail::getSlotCounts(Operation *op, unsigned &numInputs,
                                               unsigned &numOutputs) {
  const OpSpec *spec = lookupOp(op->getName().stripDialect().str());
  if (!spec)
    return op->emitOpError("has no entry in the Paddle op catalog");
  numInputs = spec->inputs.size();
  numOutputs = spec->outputs.size();
  return success();
}

LogicalResult
distc::pd::detail::verifyInferredResults(Operation *op,
                                         ArrayRef<SmallVector<Type, 1>> operandsBySlot,
                                         ArrayRef<SmallVector<Type, 1>> resultsBySlot) {
  StringRef opType = op->getName().stripDialect();
  const OpSpec *spec = lookupOp(opType.str());
  auto attrs = dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute());

  // A variadic output slot (split's Out) takes its count from the op when
  // the attributes leave it open.
  unsigned numVariadic = 0;
  for (auto [slot, types] : llvm::zip(spec->outputs, resultsBySlot))
    if (slot.variadic)
      numVariadic = types.size();

  SmallVector<SmallVector<Type, 1>> inferred;
  if (failed(inferResultTypes(op->getContext(), op->getLoc(), opType, operandsBySlot, attrs,
                              inferred, numVariadic, resultsBySlot)))
    return failure();

  for (auto [index, slot] : llvm::enumerate(spec->outputs)) {
    ArrayRef<Type> actual = resultsBySlot[index];
    ArrayRef<Type> expected = inferred[index];
    if (actual.size() != expected.size())
      return op->emitOpError() << "result slot '" << slot.name << "' has " << actual.size()
                               << " values but Paddle's inference gives " << expected.size();
    for (auto [i, pair] : llvm::enumerate(llvm::zip(actual, expected))) {
      auto [actualTy, expectedTy] = pair;
      if (isCompatibleWithInferred(actualTy, expectedTy))
        continue;
      InFlightDiagnostic diag = op->emitOpError() << "result slot '" << slot.name << "'";
      if (slot.variadic)
        diag << " #" << i;
      return diag << " has type " << actualTy << " but Paddle's inference gives " << expectedTy;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ProgramOp
//===----------------------------------------------------------------------===//

void ProgramOp::build(OpBuilder &builder, OperationState &state, StringRef name) {
  state.addAttribute(getSymNameAttrName(state.name), builder.getStringAttr(name));
  Region *body = state.addRegion();
  body->push_back(new Block());
}

ParseResult ProgramOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name), result.attributes) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, /*arguments=*/{}))
    return failure();
  // An empty program still owns its (empty) block, so passes can always
  // append to it.
  if (body->empty())
    body->push_back(new Block());
  return success();
}

void ProgramOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {getSymNameAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false, /*printBlockTerminators=*/false);
}

/// Checks `sharding` of a value of `type` against the mesh it names: the
/// mesh exists, there is one placement per mesh axis, and every split tensor
/// axis has a static size the mesh axis divides.
static LogicalResult verifyShardingOnMesh(Operation *op, ShardingAttr sharding, Type type,
                                          const llvm::DenseMap<StringAttr, MeshOp> &meshes,
                                          const llvm::Twine &what) {
  MeshOp mesh = meshes.lookup(sharding.getMesh().getAttr());
  if (!mesh)
    return op->emitOpError() << what << " names mesh " << sharding.getMesh()
                             << ", which is not a pd.mesh of the module";
  ArrayRef<int64_t> meshShape = mesh.getShape();
  if (sharding.getPlacements().size() != meshShape.size())
    return op->emitOpError() << what << " " << sharding.placementsString() << " has "
                             << sharding.getPlacements().size() << " placements for mesh "
                             << sharding.getMesh() << " of " << meshShape.size() << " axes";
  auto tensor = cast<RankedTensorType>(type); // checked by the dialect's attribute verifier
  // A partitioned module's types are local: a split axis holds one piece,
  // which need not divide again.
  if (mesh->getParentOfType<ModuleOp>()->hasAttr(kPartitionedAttr))
    tensor = RankedTensorType::get(
        SmallVector<int64_t>(tensor.getRank(), ShapedType::kDynamic), tensor.getElementType());
  if (llvm::Error err = sharding.verifyOnMesh(tensor, meshShape))
    return op->emitOpError() << what << " " << sharding.placementsString() << " on " << tensor
                             << ": " << llvm::toString(std::move(err));
  return success();
}

LogicalResult ProgramOp::verifyRegions() {
  auto module = (*this)->getParentOfType<ModuleOp>();
  if (!module)
    return success();
  llvm::DenseMap<StringAttr, MeshOp> meshes;
  SmallVector<VarOp> shardedVars;
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto mesh = dyn_cast<MeshOp>(op))
      meshes[mesh.getSymNameAttr()] = mesh;
    else if (auto var = dyn_cast<VarOp>(op); var && var->hasAttr(kVarShardingAttr))
      shardedVars.push_back(var);
  }
  for (VarOp var : shardedVars)
    if (auto sharding = dyn_cast<ShardingAttr>(var->getAttr(kVarShardingAttr)))
      if (failed(verifyShardingOnMesh(var, sharding, var.getType(), meshes, "the sharding")))
        return failure();
  WalkResult walk = getBody().walk([&](Operation *op) {
    auto shardings = op->getAttrOfType<ArrayAttr>(kShardingsAttr);
    if (!shardings || shardings.size() != op->getNumResults())
      return WalkResult::advance();
    for (auto [i, attr] : llvm::enumerate(shardings))
      if (auto sharding = dyn_cast<ShardingAttr>(attr))
        if (failed(verifyShardingOnMesh(op, sharding, op->getResult(i).getType(), meshes,
                                        "the sharding of result " + llvm::Twine(i))))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

/// The mesh as written: names and ids only where given.
static distc::sharding::ProcessMesh meshAsWritten(MeshOp op) {
  distc::sharding::ProcessMesh mesh;
  mesh.shape.assign(op.getShape().begin(), op.getShape().end());
  if (std::optional<ArrayAttr> names = op.getDimNames())
    for (Attribute name : *names)
      mesh.dimNames.push_back(cast<StringAttr>(name).getValue().str());
  if (std::optional<ArrayRef<int64_t>> ids = op.getProcessIds())
    mesh.processIds.assign(ids->begin(), ids->end());
  return mesh;
}

distc::sharding::ProcessMesh MeshOp::getProcessMesh() {
  distc::sharding::ProcessMesh mesh = meshAsWritten(*this);
  mesh.fillDefaults();
  return mesh;
}

LogicalResult MeshOp::verify() {
  if (llvm::Error err = meshAsWritten(*this).verify())
    return emitOpError() << "mesh @" << getSymName() << ": " << llvm::toString(std::move(err));
  return success();
}

//===----------------------------------------------------------------------===//
// VarOp, ReadVarOp, WriteVarOp
//===----------------------------------------------------------------------===//

LogicalResult VarOp::verify() {
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type)
    return emitOpError() << "variable @" << getSymName() << " must have a ranked tensor type";
  if (!type.hasStaticShape())
    return emitOpError() << "variable @" << getSymName()
                         << " must have a static shape (persistable variables are "
                            "allocated once), got "
                         << type;
  return success();
}

/// Finds the `pd.var` that `user` refers to and checks its type.
static LogicalResult verifyVarAccess(Operation *user, SymbolTableCollection &symbolTable,
                                     FlatSymbolRefAttr var, Type valueType, StringRef what) {
  auto decl = symbolTable.lookupNearestSymbolFrom<VarOp>(user, var.getAttr());
  if (!decl)
    return user->emitOpError() << "refers to undefined variable " << var
                               << " (declare it with pd.var at module level)";
  if (decl.getType() != valueType)
    return user->emitOpError() << what << " type " << valueType << " does not match variable "
                               << var << " of type " << decl.getType();
  return success();
}

LogicalResult ReadVarOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyVarAccess(*this, symbolTable, getVarAttr(), getResult().getType(), "result");
}

LogicalResult WriteVarOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyVarAccess(*this, symbolTable, getVarAttr(), getValue().getType(), "value");
}

//===----------------------------------------------------------------------===//
// FusedSlicesOp
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// ListenAndServOp
//===----------------------------------------------------------------------===//

LogicalResult ListenAndServOp::verify() {
  if (getEndpoint().empty())
    return emitOpError() << "needs an endpoint";
  if (getFanin() < 1)
    return emitOpError() << "Fanin = " << getFanin() << " must be at least 1 trainer";
  if (getOptimizeBlocks().empty())
    return emitOpError() << "needs at least one optimize block (Paddle's server requires one, "
                            "if empty)";
  int64_t blocks = static_cast<int64_t>(getOptimizeBlocks().size());
  for (Attribute entry : getGradToBlockId()) {
    StringRef text = cast<StringAttr>(entry).getValue();
    auto [grad, id] = text.rsplit(':');
    int64_t index = 0;
    if (grad.empty() || id.getAsInteger(10, index) || index < 1 || index > blocks)
      return emitOpError() << "grad_to_block_id entry '" << text
                           << "' is not '<gradient>:<optimize block 1.." << blocks << ">'";
  }
  int64_t lrBlock = static_cast<int32_t>(getLrDecayBlockId());
  if (lrBlock != -1 && (lrBlock < 1 || lrBlock > blocks))
    return emitOpError() << "lr_decay_block_id = " << lrBlock << " is not an optimize block";
  return success();
}

LogicalResult FusedSlicesOp::verify() {
  auto fused = cast<RankedTensorType>(getFused().getType());
  if (fused.getRank() != 1)
    return emitOpError() << "fused buffer must be 1-D, got " << fused;
  ArrayRef<int64_t> offsets = getOffsets();
  if (offsets.size() != getSlices().size())
    return emitOpError() << "has " << offsets.size() << " offsets for " << getSlices().size()
                         << " slices";
  for (auto [i, slice] : llvm::enumerate(getSlices())) {
    auto type = cast<RankedTensorType>(slice.getType());
    if (!type.hasStaticShape())
      return emitOpError() << "slice #" << i << " needs a static shape, got " << type;
    if (type.getElementType() != fused.getElementType())
      return emitOpError() << "slice #" << i << " has element type " << type.getElementType()
                           << " but the fused buffer " << fused.getElementType();
    if (offsets[i] < 0 ||
        (!fused.isDynamicDim(0) && offsets[i] + type.getNumElements() > fused.getDimSize(0)))
      return emitOpError() << "slice #" << i << " (" << type.getNumElements()
                           << " elements at offset " << offsets[i] << ") is outside the fused "
                           << fused;
  }
  return success();
}

#define GET_OP_CLASSES
#include "distc/Dialect/Pd/PdOps.cpp.inc"
