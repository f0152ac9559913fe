//===- Exporter.cpp - pd dialect to Paddle programs -----------------------===//
//
// SSA values become Paddle variable names. A name is only valid while no
// later op overwrites the variable, so naming runs in two steps: pick the
// natural name of every value (the persistable it is written to, its
// `pd.out_names` entry, or a fresh one), then replay the program and give a
// fresh name to every value that is still used after its variable was
// overwritten (Paddle's in-place reuse, or a pass that moved ops). Reads of
// a persistable that must survive a later write become an explicit `assign`.
//
//===----------------------------------------------------------------------===//

#include "distc/Export/Export.h"

#include "distc/Dialect/Pd/CatalogSlots.h"
#include "distc/Dialect/Pd/LoopOps.h"
#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/OpCatalog.h"
#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/Import/Conversions.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <map>

using namespace mlir;

namespace distc {
namespace {

namespace proto = ::paddle::framework::proto;

constexpr llvm::StringLiteral kOutNames("pd.out_names");
constexpr const char *kFeedVar = "feed";
constexpr const char *kFetchVar = "fetch";

pd::ProgramOp findProgram(ModuleOp module, StringRef name) {
  for (auto program : module.getOps<pd::ProgramOp>())
    if (program.getSymName() == name)
      return program;
  return nullptr;
}

class ProgramExporter {
public:
  ProgramExporter(ModuleOp module, pd::ProgramOp program) : module(module), program(program) {}
  LogicalResult run(proto::ProgramDesc &out);

private:
  LogicalResult assignNames();
  void nameBlock(Block &body, llvm::StringMap<Type> &nameTypes);
  /// Replays `body`; returns the values used after their name was
  /// overwritten.
  llvm::DenseSet<Value> findClobbered(Block &body);
  std::string freshName();
  StringRef outName(Operation *op, unsigned index);

  LogicalResult emitVars(proto::BlockDesc &block);
  /// The variables an optimize block of a listen_and_serv computes (the
  /// server's persistables are block 0's).
  LogicalResult emitBlockVars(Block &body, proto::BlockDesc &block);
  LogicalResult emitOp(Operation *op, proto::BlockDesc &block);
  LogicalResult emitListenAndServ(pd::ListenAndServOp op, proto::BlockDesc &block);
  LogicalResult emitCatalogOp(Operation *op, const pd::OpSpec &spec, proto::OpDesc &desc);
  LogicalResult emitExtraAttrs(Operation *op, const llvm::StringSet<> &skip,
                               std::vector<proto::OpDesc::Attr> &attrs);
  void emitAssign(const std::string &from, const std::string &to, proto::BlockDesc &block);
  /// pd.fused_slices has no Paddle op: its results are the Output variables
  /// of the coalesce_tensor that made its operand's variable, which alias
  /// that variable. Checks that the names say exactly that.
  LogicalResult checkFusedSlices(pd::FusedSlicesOp slices);
  static void finishAttrs(std::vector<proto::OpDesc::Attr> &attrs, proto::OpDesc &desc);

  ModuleOp module;
  pd::ProgramOp program;
  /// The program's blocks: its body, then the optimize blocks of its
  /// listen_and_serv (a pserver program), which are blocks 1.. in order.
  SmallVector<Block *> blocks;
  Block emptyBlock;
  llvm::StringMap<pd::VarOp> persistables;
  SmallVector<pd::VarOp> varOrder;
  llvm::StringSet<> taken;
  unsigned nextFresh = 0;
  llvm::DenseMap<Value, std::string> names;
  /// read_var results whose value must be copied out before a later write.
  llvm::DenseSet<Value> copiedReads;
};

std::string ProgramExporter::freshName() {
  while (true) {
    std::string name = "tmp_" + std::to_string(nextFresh++);
    if (taken.insert(name).second)
      return name;
  }
}

StringRef ProgramExporter::outName(Operation *op, unsigned index) {
  auto names = op->getAttrOfType<ArrayAttr>(kOutNames);
  if (!names || index >= names.size())
    return "";
  auto name = dyn_cast<StringAttr>(names[index]);
  return name ? name.getValue() : StringRef();
}

LogicalResult ProgramExporter::assignNames() {
  taken.insert(kFeedVar);
  taken.insert(kFetchVar);
  for (auto &[name, var] : persistables)
    taken.insert(name);
  // An empty optimize block is a null entry of `blocks`.
  for (Block *body : blocks)
    for (Operation &op : body ? *body : emptyBlock)
      for (unsigned i = 0; i < op.getNumResults(); ++i)
        if (!outName(&op, i).empty())
          taken.insert(outName(&op, i));

  llvm::StringMap<Type> nameTypes;
  for (Block *body : blocks)
    if (body)
      nameBlock(*body, nameTypes);

  // Replay until every use sees its own value under its name. Each round
  // gives clobbered values unique names, so at most a couple are needed.
  for (int round = 0; round < 4; ++round) {
    llvm::DenseSet<Value> clobbered;
    for (Block *body : blocks) {
      if (!body)
        continue;
      llvm::DenseSet<Value> inBlock = findClobbered(*body);
      clobbered.insert(inBlock.begin(), inBlock.end());
    }
    if (clobbered.empty())
      return success();
    for (Value value : clobbered) {
      if (isa_and_nonnull<pd::ReadVarOp>(value.getDefiningOp()))
        copiedReads.insert(value);
      names[value] = freshName();
    }
  }
  return program.emitError() << "cannot find consistent variable names for export";
}

void ProgramExporter::nameBlock(Block &body, llvm::StringMap<Type> &nameTypes) {
  auto usable = [&](StringRef name, Type type) {
    if (name.empty() || persistables.count(name) || name == kFeedVar || name == kFetchVar)
      return false;
    auto [it, inserted] = nameTypes.try_emplace(name, type);
    return inserted || it->second == type; // one VarDesc per name
  };

  for (Operation &op : body) {
    if (auto read = dyn_cast<pd::ReadVarOp>(op)) {
      names[read.getResult()] = read.getVar().str();
      continue;
    }
    if (isa<pd::WriteVarOp, pd::FetchOp>(op))
      continue;
    bool variadicResults = false;
    if (!isa<pd::FeedOp>(op))
      if (const pd::OpSpec *spec = pd::lookupOp(op.getName().stripDialect().str()))
        variadicResults =
            llvm::any_of(spec->outputs, [](const pd::SlotSpec &s) { return s.variadic; });
    for (unsigned i = 0; i < op.getNumResults(); ++i) {
      Value result = op.getResult(i);
      // A value written to a persistable is produced under its name.
      pd::WriteVarOp firstWrite;
      for (Operation *user : result.getUsers())
        if (auto write = dyn_cast<pd::WriteVarOp>(user))
          if (write.getValue() == result && write->getBlock() == &body &&
              (!firstWrite || write->isBeforeInBlock(firstWrite)))
            firstWrite = write;
      if (firstWrite && !isa<pd::FeedOp>(op) && persistables.count(firstWrite.getVar()) &&
          persistables.lookup(firstWrite.getVar()).getType() == result.getType()) {
        names[result] = firstWrite.getVar().str();
        continue;
      }
      StringRef natural = outName(&op, i);
      if (usable(natural, result.getType()))
        names[result] = natural.str();
      else if (!result.use_empty() || variadicResults || isa<pd::FeedOp>(op) || !natural.empty())
        names[result] = freshName();
      else
        names[result] = ""; // an output slot the program leaves empty
    }
  }
}

llvm::DenseSet<Value> ProgramExporter::findClobbered(Block &body) {
  llvm::DenseSet<Value> clobbered;
  llvm::StringMap<Value> holder;
  // Values produced under a persistable's name before their write_var: a
  // read of that persistable in between would see them too early.
  llvm::StringMap<Value> pendingWrite;
  for (Operation &op : body) {
    for (Value operand : op.getOperands()) {
      auto it = names.find(operand);
      if (it == names.end() || it->second.empty())
        continue;
      auto held = holder.find(it->second);
      if (held == holder.end() || held->second != operand)
        clobbered.insert(operand);
    }
    if (auto read = dyn_cast<pd::ReadVarOp>(op)) {
      auto pending = pendingWrite.find(read.getVar());
      if (pending != pendingWrite.end()) {
        clobbered.insert(pending->second);
        pendingWrite.erase(pending);
      }
      // A copied read defines its own fresh name from the variable's
      // current content; a plain read is the variable itself.
      holder[names[read.getResult()]] = read.getResult();
      continue;
    }
    if (auto write = dyn_cast<pd::WriteVarOp>(op)) {
      StringRef var = write.getVar();
      if (names[write.getValue()] != var)
        holder[var] = write.getValue(); // an assign copies it in
      pendingWrite.erase(var);
      continue;
    }
    for (Value result : op.getResults()) {
      const std::string &name = names[result];
      if (name.empty())
        continue;
      holder[name] = result;
      if (persistables.count(name))
        pendingWrite[name] = result;
    }
  }
  return clobbered;
}

/// A sharded value's dist attribute, as VarDesc attributes in Paddle's
/// names (TensorDistAttr's `dims_mapping`, its process mesh's `shape`,
/// `process_ids` and `dim_names`, and the mesh axes it is partial over):
/// VarDesc has no dist_attr field, and its attributes carry them within
/// Paddle's schema.
void exportDistAttr(proto::VarDesc &desc, Attribute attr, Type type, Operation *anchor) {
  auto sharding = dyn_cast_or_null<pd::ShardingAttr>(attr);
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!sharding || !tensor)
    return;
  auto mesh = SymbolTable::lookupNearestSymbolFrom<pd::MeshOp>(anchor, sharding.getMesh());
  llvm::Expected<sharding::TensorDistAttr> dist = sharding.toDistAttr(tensor.getRank());
  if (!mesh || !dist) {
    if (!dist)
      llvm::consumeError(dist.takeError());
    return;
  }
  sharding::ProcessMesh processMesh = mesh.getProcessMesh();
  auto ints = [&](const char *name, llvm::ArrayRef<int64_t> values) {
    proto::VarDesc::Attr *a = desc.add_attrs();
    a->set_name(name);
    a->set_type(proto::INTS);
    for (int64_t v : values)
      a->add_ints(static_cast<int32_t>(v));
  };
  ints("dims_mapping", dist->dimsMapping);
  ints("process_mesh", processMesh.shape);
  ints("process_ids", processMesh.processIds);
  std::string names;
  for (const std::string &n : processMesh.dimNames)
    names += (names.empty() ? "" : ",") + n;
  proto::VarDesc::Attr *a = desc.add_attrs();
  a->set_name("dim_names");
  a->set_type(proto::STRING);
  a->set_s(names);
  if (dist->isPartial())
    ints("partial_dims", dist->partialDims());
}

LogicalResult ProgramExporter::emitVars(proto::BlockDesc &block) {
  Block &body = program.getBody().front();
  bool feeds = !body.getOps<pd::FeedOp>().empty();
  bool fetches = !body.getOps<pd::FetchOp>().empty();
  auto listVar = [&](const char *name, proto::VarType::Type type) {
    proto::VarDesc *var = block.add_vars();
    var->set_name(name);
    var->mutable_type()->set_type(type);
    var->set_persistable(true);
  };
  if (feeds)
    listVar(kFeedVar, proto::VarType::FEED_MINIBATCH);
  if (fetches)
    listVar(kFetchVar, proto::VarType::FETCH_LIST);

  // The main program declares every persistable, as Paddle's do; any other
  // program those it touches.
  // A server program (listen_and_serv) declares all of the server's
  // variables too, its received gradients not persistable.
  bool serverProgram = !body.getOps<pd::ListenAndServOp>().empty();
  bool isMain = program.getSymName() == "main" || serverProgram;
  llvm::StringSet<> touched;
  for (Operation &op : body) {
    if (auto read = dyn_cast<pd::ReadVarOp>(op))
      touched.insert(read.getVar());
    else if (auto write = dyn_cast<pd::WriteVarOp>(op))
      touched.insert(write.getVar());
  }
  for (pd::VarOp var : varOrder) {
    if (!isMain && !touched.contains(var.getSymName()))
      continue;
    proto::VarDesc *desc = block.add_vars();
    desc->set_name(var.getSymName().str());
    std::string error;
    if (!importer::exportVarType(var.getType(), *desc->mutable_type(), error))
      return var.emitError() << "variable '" << var.getSymName() << "' " << error;
    desc->set_persistable(!serverProgram || var.getPersistable());
    if (var.getIsParameter())
      desc->set_is_parameter(true);
    if (var.getStopGradient())
      desc->set_stop_gradient(true);
    exportDistAttr(*desc, var->getAttr(pd::kVarShardingAttr), var.getType(), var);
  }

  llvm::StringSet<> declared;
  for (Operation &op : body) {
    for (Value result : op.getResults()) {
      const std::string &name = names[result];
      if (name.empty() || persistables.count(name) || !declared.insert(name).second)
        continue;
      proto::VarDesc *desc = block.add_vars();
      desc->set_name(name);
      if (isa<pd::CGenNcclIdOp>(op)) {
        // The communicator id: a persistable RAW variable, as Paddle's
        // collective transpiler creates it.
        desc->mutable_type()->set_type(proto::VarType::RAW);
        desc->set_persistable(true);
        continue;
      }
      std::string error;
      if (!importer::exportVarType(result.getType(), *desc->mutable_type(), error))
        return op.emitError() << "result '" << name << "' " << error;
      if (isa<pd::FeedOp>(op) || copiedReads.contains(result)) {
        if (isa<pd::FeedOp>(op))
          desc->set_need_check_feed(true);
      }
      if (auto all = op.getAttrOfType<ArrayAttr>(pd::kShardingsAttr))
        if (unsigned i = cast<OpResult>(result).getResultNumber(); i < all.size())
          exportDistAttr(*desc, all[i], result.getType(), &op);
    }
  }
  return success();
}

void ProgramExporter::finishAttrs(std::vector<proto::OpDesc::Attr> &attrs, proto::OpDesc &desc) {
  // Paddle writes op attributes sorted by name. Names are unique within an
  // op, so a plain sort is stable enough (and std::stable_sort draws a
  // libstdc++ deprecation warning from clang).
  std::sort(attrs.begin(), attrs.end(),
            [](const auto &a, const auto &b) { return a.name() < b.name(); });
  for (auto &attr : attrs)
    *desc.add_attrs() = std::move(attr);
}

LogicalResult ProgramExporter::emitExtraAttrs(Operation *op, const llvm::StringSet<> &skip,
                                              std::vector<proto::OpDesc::Attr> &attrs) {
  for (NamedAttribute attr : op->getDiscardableAttrs()) {
    StringRef name = attr.getName().getValue();
    // Dialect attributes (`pd.out_names`, placements, ...) describe the IR,
    // not the Paddle op.
    if (name.contains('.') || skip.contains(name))
      continue;
    std::optional<pd::AttrKind> kind = importer::genericKindOf(attr.getValue());
    if (!kind)
      return op->emitError() << "attribute '" << name
                             << "' has no Paddle attribute type; it cannot be exported";
    proto::OpDesc::Attr out;
    out.set_name(name.str());
    std::string error;
    if (!importer::exportAttr(attr.getValue(), *kind, out, error))
      return op->emitError() << "attribute '" << name << "': " << error;
    attrs.push_back(std::move(out));
  }
  return success();
}

void ProgramExporter::emitAssign(const std::string &from, const std::string &to,
                                 proto::BlockDesc &block) {
  proto::OpDesc *assign = block.add_ops();
  assign->set_type("assign");
  auto *in = assign->add_inputs();
  in->set_parameter("X");
  in->add_arguments(from);
  auto *out = assign->add_outputs();
  out->set_parameter("Out");
  out->add_arguments(to);
}

LogicalResult ProgramExporter::checkFusedSlices(pd::FusedSlicesOp slices) {
  const std::string &fused = names[slices.getFused()];
  // The latest coalesce_tensor whose FusedOutput is that variable, and
  // whether its Output variables were written again since.
  pd::CoalesceTensorOp coalesce;
  llvm::StringSet<> rewritten;
  for (Operation *op = slices->getPrevNode(); op && !coalesce; op = op->getPrevNode()) {
    auto candidate = dyn_cast<pd::CoalesceTensorOp>(op);
    if (candidate && names[candidate.getFusedOutput()] == fused) {
      coalesce = candidate;
      break;
    }
    for (Value result : op->getResults())
      rewritten.insert(names[result]);
  }
  auto fail = [&]() {
    return slices.emitError() << "cannot export the slices of '" << fused
                              << "': Paddle reads them through the Output variables of the "
                                 "coalesce_tensor that made it, and ";
  };
  if (!coalesce)
    return fail() << "no coalesce_tensor made it";
  if (coalesce.getOutput().size() != slices.getSlices().size())
    return fail() << "that op has " << coalesce.getOutput().size() << " of them, not "
                  << slices.getSlices().size();
  int64_t offset = 0;
  for (auto [i, pair] : llvm::enumerate(llvm::zip(coalesce.getOutput(), slices.getSlices()))) {
    auto [output, slice] = pair;
    const std::string &name = names[output];
    if (name.empty() || name != names[slice] || output.getType() != slice.getType() ||
        slices.getOffsets()[i] != offset)
      return fail() << "slice #" << i << " ('" << names[slice] << "') is not its Output #" << i
                    << " ('" << name << "')";
    if (rewritten.contains(name))
      return fail() << "'" << name << "' was written again in between";
    offset += cast<RankedTensorType>(output.getType()).getNumElements();
  }
  return success();
}

LogicalResult ProgramExporter::emitCatalogOp(Operation *op, const pd::OpSpec &spec,
                                             proto::OpDesc &desc) {
  desc.set_type(std::string(spec.type));
  std::string why;
  auto inputs = pd::operandGroups(op, spec, why);
  if (failed(inputs))
    return op->emitError() << why;
  auto outputs = pd::resultGroups(op, spec, why);
  if (failed(outputs))
    return op->emitError() << why;
  for (auto [slot, group] : llvm::zip_equal(spec.inputs, *inputs)) {
    auto *var = desc.add_inputs();
    var->set_parameter(std::string(slot.name));
    for (unsigned i = 0; i < group.second; ++i)
      var->add_arguments(names[op->getOperand(group.first + i)]);
  }
  for (auto [slot, group] : llvm::zip_equal(spec.outputs, *outputs)) {
    auto *var = desc.add_outputs();
    var->set_parameter(std::string(slot.name));
    for (unsigned i = 0; i < group.second; ++i) {
      const std::string &name = names[op->getResult(group.first + i)];
      if (!name.empty())
        var->add_arguments(name);
    }
  }

  std::vector<proto::OpDesc::Attr> attrs;
  llvm::StringSet<> catalogNames;
  pd::OpAttributes attributes(op);
  for (const pd::AttrSpec &attrSpec : spec.attrs) {
    catalogNames.insert(attrSpec.name);
    Attribute value = attributes.get(StringRef(attrSpec.name.data(), attrSpec.name.size()));
    if (!value)
      return op->emitError() << "attribute '" << attrSpec.name << "' has no value";
    proto::OpDesc::Attr out;
    out.set_name(std::string(attrSpec.name));
    std::string error;
    if (!importer::exportAttr(value, attrSpec.kind, out, error))
      return op->emitError() << "attribute '" << attrSpec.name << "': " << error;
    attrs.push_back(std::move(out));
  }
  if (failed(emitExtraAttrs(op, catalogNames, attrs)))
    return failure();
  finishAttrs(attrs, desc);
  return success();
}

LogicalResult ProgramExporter::emitOp(Operation *op, proto::BlockDesc &block) {
  if (auto read = dyn_cast<pd::ReadVarOp>(op)) {
    if (copiedReads.contains(read.getResult()))
      emitAssign(read.getVar().str(), names[read.getResult()], block);
    return success();
  }
  if (auto write = dyn_cast<pd::WriteVarOp>(op)) {
    const std::string &from = names[write.getValue()];
    if (from != write.getVar())
      emitAssign(from, write.getVar().str(), block);
    return success();
  }
  auto colAttr = [](Operation *op) {
    proto::OpDesc::Attr col;
    col.set_name("col");
    col.set_type(proto::INT);
    auto value = op->getAttrOfType<IntegerAttr>("col");
    col.set_i(value ? static_cast<int32_t>(value.getInt()) : 0);
    return col;
  };
  if (auto feed = dyn_cast<pd::FeedOp>(op)) {
    proto::OpDesc *desc = block.add_ops();
    desc->set_type("feed");
    auto *in = desc->add_inputs();
    in->set_parameter("X");
    in->add_arguments(kFeedVar);
    auto *out = desc->add_outputs();
    out->set_parameter("Out");
    out->add_arguments(names[feed.getResult()]);
    std::vector<proto::OpDesc::Attr> attrs{colAttr(op)};
    if (failed(emitExtraAttrs(op, {"col"}, attrs)))
      return failure();
    finishAttrs(attrs, *desc);
    return success();
  }
  if (auto fetch = dyn_cast<pd::FetchOp>(op)) {
    proto::OpDesc *desc = block.add_ops();
    desc->set_type("fetch");
    auto *in = desc->add_inputs();
    in->set_parameter("X");
    in->add_arguments(names[fetch.getX()]);
    auto *out = desc->add_outputs();
    out->set_parameter("Out");
    out->add_arguments(kFetchVar);
    std::vector<proto::OpDesc::Attr> attrs{colAttr(op)};
    if (failed(emitExtraAttrs(op, {"col"}, attrs)))
      return failure();
    finishAttrs(attrs, *desc);
    return success();
  }
  if (auto slices = dyn_cast<pd::FusedSlicesOp>(op))
    return checkFusedSlices(slices);
  if (auto listen = dyn_cast<pd::ListenAndServOp>(op))
    return emitListenAndServ(listen, block);
  if (!isa<pd::PdDialect>(op->getDialect()))
    return op->emitError() << "op '" << op->getName()
                           << "' is not a pd op; only pd programs can be exported";
  const pd::OpSpec *spec = pd::lookupOp(op->getName().stripDialect().str());
  if (!spec)
    return op->emitError() << "op '" << op->getName() << "' has no Paddle counterpart";
  proto::OpDesc desc;
  if (failed(emitCatalogOp(op, *spec, desc)))
    return failure();
  *block.add_ops() = std::move(desc);
  return success();
}

LogicalResult ProgramExporter::emitBlockVars(Block &body, proto::BlockDesc &block) {
  llvm::StringSet<> declared;
  for (Operation &op : body)
    for (Value result : op.getResults()) {
      const std::string &name = names[result];
      if (name.empty() || persistables.count(name) || !declared.insert(name).second)
        continue;
      proto::VarDesc *desc = block.add_vars();
      desc->set_name(name);
      std::string error;
      if (!importer::exportVarType(result.getType(), *desc->mutable_type(), error))
        return op.emitError() << "result '" << name << "' " << error;
    }
  return success();
}

/// Paddle's listen_and_serv: X are the variables the trainers send,
/// `optimize_blocks` the blocks after block 0, in order.
LogicalResult ProgramExporter::emitListenAndServ(pd::ListenAndServOp op, proto::BlockDesc &block) {
  proto::OpDesc *desc = block.add_ops();
  desc->set_type("listen_and_serv");
  auto *in = desc->add_inputs();
  in->set_parameter("X");
  for (Attribute var : op.getX())
    in->add_arguments(cast<FlatSymbolRefAttr>(var).getValue().str());
  std::vector<proto::OpDesc::Attr> attrs;
  auto attr = [&](const char *name, proto::AttrType type) -> proto::OpDesc::Attr & {
    attrs.emplace_back();
    attrs.back().set_name(name);
    attrs.back().set_type(type);
    return attrs.back();
  };
  proto::OpDesc::Attr &optimizeBlocks = attr("optimize_blocks", proto::BLOCKS);
  for (unsigned i = 0; i < op.getOptimizeBlocks().size(); ++i)
    optimizeBlocks.add_blocks_idx(static_cast<int32_t>(i + 1));
  attr("endpoint", proto::STRING).set_s(op.getEndpoint().str());
  attr("pserver_id", proto::INT).set_i(op.getPserverId());
  attr("Fanin", proto::INT).set_i(op.getFanin());
  attr("sync_mode", proto::BOOLEAN).set_b(op.getSyncMode());
  attr("distributed_mode", proto::INT).set_i(op.getDistributedMode());
  attr("lr_decay_block_id", proto::INT).set_i(static_cast<int32_t>(op.getLrDecayBlockId()));
  auto strings = [&](const char *name, ArrayAttr values) {
    proto::OpDesc::Attr &a = attr(name, proto::STRINGS);
    for (Attribute value : values)
      a.add_strings(cast<StringAttr>(value).getValue().str());
  };
  strings("grad_to_block_id", op.getGradToBlockId());
  strings("sparse_grad_to_param", op.getSparseGradToParam());
  llvm::StringSet<> inherent;
  for (StringRef name : pd::ListenAndServOp::getAttributeNames())
    inherent.insert(name);
  if (failed(emitExtraAttrs(op, inherent, attrs)))
    return failure();
  finishAttrs(attrs, *desc);
  return success();
}

LogicalResult ProgramExporter::run(proto::ProgramDesc &out) {
  for (auto var : module.getOps<pd::VarOp>()) {
    persistables[var.getSymName()] = var;
    varOrder.push_back(var);
  }
  blocks.push_back(&program.getBody().front());
  for (auto listen : program.getBody().front().getOps<pd::ListenAndServOp>())
    for (Region &region : listen.getOptimizeBlocks())
      blocks.push_back(region.empty() ? nullptr : &region.front());
  if (failed(assignNames()))
    return failure();
  out.Clear();
  for (auto [index, body] : llvm::enumerate(blocks)) {
    proto::BlockDesc *block = out.add_blocks();
    block->set_idx(static_cast<int32_t>(index));
    block->set_parent_idx(index == 0 ? -1 : 0);
    if (!body)
      continue; // an empty optimize block
    if (failed(index == 0 ? emitVars(*block) : emitBlockVars(*body, *block)))
      return failure();
    for (Operation &op : *body)
      if (failed(emitOp(&op, *block)))
        return failure();
  }
  return success();
}

} // namespace

bool hasProgram(ModuleOp module, StringRef programName) {
  return static_cast<bool>(findProgram(module, programName));
}

LogicalResult exportProgram(ModuleOp module, StringRef programName, proto::ProgramDesc &out) {
  pd::ProgramOp program = findProgram(module, programName);
  if (!program)
    return module.emitError() << "the module has no pd.program @" << programName;
  // Paddle's fusion_group holds device code: a generated loop is written
  // back out as the ops it replaced, from a copy of the module.
  if (!program.getBody().getOps<pd::FusionGroupOp>().empty()) {
    OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
    pd::ProgramOp copied = findProgram(*copy, programName);
    for (pd::FusionGroupOp group :
         llvm::make_early_inc_range(copied.getBody().getOps<pd::FusionGroupOp>()))
      if (failed(pd::expandFusionGroup(group)))
        return failure();
    return ProgramExporter(*copy, copied).run(out);
  }
  return ProgramExporter(module, program).run(out);
}

} // namespace distc
