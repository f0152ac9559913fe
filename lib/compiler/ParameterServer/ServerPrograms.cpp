//===- ServerPrograms.cpp - get_pserver_program / get_startup_program -----===//
//
// Each server's programs, in a nested module of its own (`@pserver<i>`, with
// `pd.endpoint` and `pd.pserver_id`): the server's variables are declared
// there with the shapes it holds, so two servers may each hold a block of
// `fc_w`'s state under the state's own name (Paddle's pserver programs
// keep `momentum_1` for a block of it, resized).
//
// @train.main is one `pd.listen_and_serv`. Its regions are the optimize
// blocks, one per parameter block the server holds, in the order of the
// parameters' optimizer ops: in synchronous training with several trainers
// `sum` of the trainers' gradient blocks and `scale` by 1/trainers, then a
// copy of every optimize-role op that updates the parameter (decay,
// clipping, the optimizer op and its post-ops), reading the block and its
// state instead of the whole variables.
//
// @train.startup holds, for each variable the server has, a copy of the
// trainer startup program's initializer with the server's shape (Paddle
// sets `shape` of fill_constant and the random initializers): each server
// initializes its own blocks.
//
//===----------------------------------------------------------------------===//

#include "TranspilePlan.h"

#include "distc/Dialect/Pd/CatalogOpBuilder.h"
#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Transforms/ProgramUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <map>

using namespace mlir;

namespace distc::ps {
namespace {

/// Attributes the builder computes again for a copied op.
bool isRebuiltAttr(StringRef name) {
  return name == StringRef(pd::kOutNamesAttr.data(), pd::kOutNamesAttr.size()) ||
         name == "operandSegmentSizes" || name == "resultSegmentSizes";
}

/// The elements of one row (dim 0) of `type`.
int64_t rowWidth(RankedTensorType type) {
  return type.getRank() == 0 ? 1 : type.getNumElements() / std::max<int64_t>(type.getDimSize(0), 1);
}

class ServerBuilder {
public:
  ServerBuilder(ModuleOp module, const TranspilePlan &plan, int server)
      : module(module), plan(plan), server(server), b(module.getContext()), symbols(module) {}

  LogicalResult build(Operation *train, Operation *startup);

private:
  /// Declares `name` in the server's module (once; a second declaration
  /// must agree) and records it as the server's copy of trainer variable
  /// `original`.
  LogicalResult declare(Location loc, const std::string &name, RankedTensorType type,
                        bool persistable, bool parameter, const std::string &original);
  /// The server's variable for trainer variable `var`, read in an optimize
  /// block of `block` (the parameter's block, a state variable of the
  /// parameter's shape cut like it, or any other variable whole).
  FailureOr<std::string> serverVarFor(Location loc, StringRef var, const ParamPlan &param,
                                      const BlockPlan &block);
  LogicalResult buildOptimizeBlock(Block &body, const ParamPlan &param, const BlockPlan &block,
                                   int blockIndex, Operation *train);

  ModuleOp module;
  const TranspilePlan &plan;
  int server;
  OpBuilder b;
  SymbolTable symbols;
  ModuleOp serverModule;
  /// Where pd.var declarations go: before the programs.
  Operation *programsStart = nullptr;
  llvm::StringMap<RankedTensorType> declared;
  /// Trainer variable -> the server's variables that hold (parts of) it.
  std::map<std::string, std::vector<std::pair<std::string, RankedTensorType>>> copies;
  /// listen_and_serv's attributes, filled while the blocks are built.
  std::vector<std::string> receives;
  std::vector<std::string> gradToBlock;
  /// Per optimize block: the server's variable of each trainer variable
  /// (state variables of a parameter with two blocks here differ).
  llvm::StringMap<std::string> blockVars;
  /// The trainer variables the block's parameter's optimize ops write.
  llvm::StringSet<> stateWritten;
};

LogicalResult ServerBuilder::declare(Location loc, const std::string &name, RankedTensorType type,
                                     bool persistable, bool parameter,
                                     const std::string &original) {
  auto [it, inserted] = declared.try_emplace(name, type);
  if (!inserted) {
    if (it->second != type)
      return emitError(loc) << "server " << plan.settings.pservers[server] << " would hold '"
                            << name << "' as both " << it->second << " and " << type;
    return success();
  }
  OpBuilder vb(module.getContext());
  vb.setInsertionPoint(programsStart);
  OperationState state(loc, pd::VarOp::getOperationName());
  state.addAttribute("sym_name", vb.getStringAttr(name));
  state.addAttribute("type", TypeAttr::get(type));
  if (persistable)
    state.addAttribute("persistable", vb.getUnitAttr());
  if (parameter)
    state.addAttribute("is_parameter", vb.getUnitAttr());
  vb.create(state);
  copies[original].push_back({name, type});
  return success();
}

FailureOr<std::string> ServerBuilder::serverVarFor(Location loc, StringRef var,
                                                   const ParamPlan &param, const BlockPlan &block) {
  if (auto it = blockVars.find(var); it != blockVars.end())
    return it->second;
  auto decl = symbols.lookup<pd::VarOp>(var);
  if (!decl)
    return emitError(loc) << "the optimizer of '" << param.param << "' reads '" << var
                          << "', which is no variable of the program";
  auto type = cast<RankedTensorType>(decl.getType());
  std::string name = var.str();
  const bool isParam = var == param.param;
  // The parameter itself, or state cut like it (moments, velocity).
  const bool cut = isParam || type == param.type;
  const bool severalHere =
      llvm::count_if(param.blocks, [&](const BlockPlan &other) { return other.server == server; }) >
      1;
  if (isParam)
    name = block.paramName;
  else if (severalHere && (cut || stateWritten.contains(var)))
    // Each block updates its own copy: a beta power shared by two blocks
    // of one parameter would be advanced twice a step.
    name = var.str() + ".block" + std::to_string(block.block.index);
  if (cut)
    type = block.type;
  if (failed(declare(loc, name, type, /*persistable=*/true, isParam, var.str())))
    return failure();
  // Which rows of the whole variable the server's variable holds (-1: all
  // of it, a copy): what a server loads of a saved model, and what a
  // trainer's checkpoint reads and reassembles.
  auto declared = SymbolTable::lookupSymbolIn(serverModule, name);
  declared->setAttr("pd.block_of", b.getStringAttr(var));
  declared->setAttr("pd.block_row",
                    b.getI64IntegerAttr(cut ? block.block.offset /
                                                  std::max<int64_t>(rowWidth(param.type), 1)
                                            : -1));
  // A distributed table's block answers the trainers' prefetches.
  if (isParam && param.distributed)
    declared->setAttr("pd.prefetch_table", b.getUnitAttr());
  blockVars[var] = name;
  return name;
}

LogicalResult ServerBuilder::buildOptimizeBlock(Block &body, const ParamPlan &param,
                                                const BlockPlan &block, int blockIndex,
                                                Operation *train) {
  const TranspileSettings &s = plan.settings;
  Location loc = param.gradValue.getLoc();
  b.setInsertionPointToEnd(&body);
  blockVars.clear();
  NamedAttribute role = b.getNamedAttr("op_role", b.getI32IntegerAttr(pd::OpRole::Optimize));

  // The gradient block: every trainer's, summed and averaged, in
  // synchronous training with several trainers.
  Value grad;
  const RankedTensorType gradType = param.gradBlockType(block);
  if (s.trainerSuffix()) {
    SmallVector<Value, 1> parts;
    for (int k = 0; k < s.trainers; ++k) {
      std::string name = trainerVarName(block.gradName, k);
      if (failed(declare(loc, name, gradType, /*persistable=*/false, false, name)))
        return failure();
      receives.push_back(name);
      parts.push_back(pd::ReadVarOp::create(b, loc, gradType, name).getResult());
    }
    auto sum = pd::buildCatalogOp(b, loc, "sum", {parts}, {role}, {block.gradName});
    if (failed(sum))
      return failure();
    auto scale = pd::buildCatalogOp(
        b, loc, "scale", {{(*sum)->getResult(0)}},
        {b.getNamedAttr("scale", b.getF32FloatAttr(1.0f / static_cast<float>(s.trainers))), role},
        {block.gradName});
    if (failed(scale))
      return failure();
    grad = (*scale)->getResult(0);
  } else {
    if (failed(
            declare(loc, block.gradName, gradType, /*persistable=*/true, false, block.gradName)))
      return failure();
    receives.push_back(block.gradName);
    grad = pd::ReadVarOp::create(b, loc, gradType, block.gradName).getResult();
  }
  gradToBlock.push_back(block.gradName + ":" + std::to_string(blockIndex));

  // The parameter's optimize-role ops, on the block.
  DenseMap<Value, Value> mapped;
  mapped[param.gradValue] = grad;
  llvm::StringMap<Value> reads;
  auto operandFor = [&](Value value, Operation *user) -> FailureOr<Value> {
    if (Value known = mapped.lookup(value))
      return known;
    auto read = value.getDefiningOp<pd::ReadVarOp>();
    if (!read)
      return user->emitError() << "the optimizer of '" << param.param << "' reads '"
                               << variableName(value)
                               << "', which the trainer computes; a server cannot";
    FailureOr<std::string> var = serverVarFor(read.getLoc(), read.getVar(), param, block);
    if (failed(var))
      return failure();
    Value &cached = reads[*var];
    if (!cached)
      cached = pd::ReadVarOp::create(b, read.getLoc(), declared.lookup(*var), *var).getResult();
    return cached;
  };
  llvm::DenseSet<Operation *> group(param.optimizeOps.begin(), param.optimizeOps.end());
  stateWritten.clear();
  for (Operation &op : train->getRegion(0).front())
    if (auto write = dyn_cast<pd::WriteVarOp>(op);
        write && group.contains(write.getValue().getDefiningOp()))
      stateWritten.insert(write.getVar());
  for (Operation *op : param.optimizeOps) {
    const pd::OpSpec *spec = catalogSpecOf(op);
    if (!spec)
      return op->emitError("only Paddle ops can run on a parameter server");
    SmallVector<SmallVector<Value, 1>> operands;
    for (size_t slot = 0; slot < spec->inputs.size(); ++slot) {
      SmallVector<Value, 1> values;
      for (Value value : operandsOfSlot(op, *spec, static_cast<int>(slot))) {
        FailureOr<Value> operand = operandFor(value, op);
        if (failed(operand))
          return failure();
        values.push_back(*operand);
      }
      operands.push_back(std::move(values));
    }
    SmallVector<NamedAttribute> attrs;
    for (NamedAttribute attr : op->getAttrs())
      if (!isRebuiltAttr(attr.getName()))
        attrs.push_back(attr);
    std::vector<std::string> names;
    for (Value result : op->getResults()) {
      std::string name = variableName(result);
      if (auto it = blockVars.find(name); it != blockVars.end())
        name = it->second;
      else if (name == param.param)
        name = block.paramName;
      names.push_back(name);
    }
    auto copy = pd::buildCatalogOp(b, op->getLoc(), op->getName().getStringRef().drop_front(3),
                                   operands, attrs, names);
    if (failed(copy))
      return failure();
    for (auto [from, to] : llvm::zip_equal(op->getResults(), (*copy)->getResults()))
      mapped[from] = to;
  }
  // The variables the ops update: the block and its state.
  for (Operation &op : train->getRegion(0).front()) {
    auto write = dyn_cast<pd::WriteVarOp>(op);
    if (!write || !group.contains(write.getValue().getDefiningOp()))
      continue;
    FailureOr<std::string> var = serverVarFor(write.getLoc(), write.getVar(), param, block);
    if (failed(var))
      return failure();
    pd::WriteVarOp::create(b, write.getLoc(), *var, mapped.lookup(write.getValue()));
  }
  return success();
}

LogicalResult ServerBuilder::build(Operation *train, Operation *startup) {
  const TranspileSettings &s = plan.settings;
  const std::string &endpoint = s.pservers[server];
  Location loc = train->getLoc();
  b.setInsertionPointToEnd(module.getBody());
  serverModule = ModuleOp::create(b, loc, StringRef("pserver" + std::to_string(server)));
  serverModule->setAttr("pd.role", b.getStringAttr("pserver"));
  serverModule->setAttr("pd.endpoint", b.getStringAttr(endpoint));
  serverModule->setAttr("pd.pserver_id", b.getI32IntegerAttr(server));

  // The programs, empty; the variables go before them as blocks are built.
  b.setInsertionPointToEnd(serverModule.getBody());
  auto main = pd::ProgramOp::create(
      b, loc, train->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()).getValue());
  for (NamedAttribute attr : train->getDiscardableAttrs())
    main->setAttr(attr.getName(), attr.getValue());
  main->setAttr("pd.role", b.getStringAttr("pserver"));
  auto serverStartup = pd::ProgramOp::create(
      b, loc, startup->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()).getValue());
  for (NamedAttribute attr : startup->getDiscardableAttrs())
    serverStartup->setAttr(attr.getName(), attr.getValue());
  serverStartup->setAttr("pd.role", b.getStringAttr("pserver"));
  programsStart = main;

  // The parameter blocks this server holds, in the parameters' order.
  std::vector<std::pair<const ParamPlan *, const BlockPlan *>> held;
  for (const ParamPlan &param : plan.params)
    for (const BlockPlan &block : param.blocks)
      if (block.server == server)
        held.push_back({&param, &block});

  b.setInsertionPointToEnd(&main.getBody().front());
  OperationState state(loc, pd::ListenAndServOp::getOperationName());
  for (size_t i = 0; i < std::max<size_t>(held.size(), 1); ++i)
    state.addRegion()->emplaceBlock();
  auto listen = cast<pd::ListenAndServOp>(b.create(state));
  for (auto [i, pair] : llvm::enumerate(held))
    if (failed(buildOptimizeBlock(listen.getOptimizeBlocks()[i].front(), *pair.first, *pair.second,
                                  static_cast<int>(i) + 1, train)))
      return failure();
  if (held.empty())
    emitWarning(loc) << "parameter server " << endpoint
                     << " holds no parameter block: its optimize block is empty";

  SmallVector<Attribute> x;
  for (const std::string &name : receives)
    x.push_back(FlatSymbolRefAttr::get(b.getContext(), name));
  SmallVector<StringRef> gradRefs(gradToBlock.begin(), gradToBlock.end());
  listen.setXAttr(b.getArrayAttr(x));
  listen.setEndpoint(endpoint);
  listen.setPserverId(server);
  listen.setFanin(s.trainers);
  listen.setSyncMode(s.syncMode);
  // Paddle's DistributedMode: SYNC 0, ASYNC 1 (runtime split), HALF_ASYNC 2.
  listen.setDistributedMode(s.syncMode ? 0 : (s.runtimeSplitSendRecv ? 1 : 2));
  listen.setGradToBlockIdAttr(b.getStrArrayAttr(gradRefs));

  // The startup program: each of the server's variables initialized as
  // the trainer's startup program initializes the variable it copies.
  b.setInsertionPointToEnd(&serverStartup.getBody().front());
  for (Operation &op : startup->getRegion(0).front()) {
    auto write = dyn_cast<pd::WriteVarOp>(op);
    if (!write)
      continue;
    auto it = copies.find(write.getVar().str());
    if (it == copies.end())
      continue;
    Operation *init = write.getValue().getDefiningOp();
    const pd::OpSpec *spec = init ? catalogSpecOf(init) : nullptr;
    if (!spec || init->getNumOperands() != 0)
      return write.emitError() << "the servers initialize '" << write.getVar()
                               << "' from the startup program, which must compute it with one "
                                  "initializer op (fill_constant, uniform_random, ...)";
    for (const auto &[name, type] : it->second) {
      SmallVector<NamedAttribute> attrs;
      for (NamedAttribute attr : init->getAttrs()) {
        if (isRebuiltAttr(attr.getName()))
          continue;
        if (attr.getName() == "shape") {
          if (isa<DenseI32ArrayAttr>(attr.getValue())) {
            SmallVector<int32_t> dims(type.getShape().begin(), type.getShape().end());
            attrs.push_back(b.getNamedAttr("shape", b.getDenseI32ArrayAttr(dims)));
          } else {
            attrs.push_back(b.getNamedAttr("shape", b.getDenseI64ArrayAttr(type.getShape())));
          }
          continue;
        }
        attrs.push_back(attr);
      }
      auto copy = pd::buildCatalogOp(
          b, init->getLoc(), init->getName().getStringRef().drop_front(3), {}, attrs, {name});
      if (failed(copy))
        return failure();
      if ((*copy)->getResult(0).getType() != type)
        return init->emitError() << "initializes '" << write.getVar() << "' without a `shape` "
                                 << "attribute, so the servers cannot initialize its block " << name
                                 << " (" << type << ")";
      pd::WriteVarOp::create(b, write.getLoc(), name, (*copy)->getResult(0));
    }
  }
  return success();
}

} // namespace

LogicalResult buildServerModules(ModuleOp module, Operation *train, Operation *startup,
                                 const TranspilePlan &plan) {
  for (size_t i = 0; i < plan.settings.pservers.size(); ++i) {
    ServerBuilder server(module, plan, static_cast<int>(i));
    if (failed(server.build(train, startup)))
      return failure();
  }
  return success();
}

} // namespace distc::ps
