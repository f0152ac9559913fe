//===- LowerParameterServer.cpp - Trainers and servers of the pserver mode ===//
//
// A parameter server's nested module becomes an artifact of its own (its
// variables, its startup program and one Main program per optimize block),
// stored whole in the trainer's artifact with the slots the trainers
// exchange with it: the gradient blocks it receives (one buffer per trainer
// in synchronous training with several trainers) and the parameter blocks
// it serves, and its training state (each variable that holds a block of
// rows, or a copy, of a trainer's whole variable). The trainer's ops then
// name (server, slot) pairs:
//
//   send          -> ps_send {servers, slots} over the gradient blocks (with
//                    runtime split, views of the whole gradient's rows)
//   send_barrier  -> ps_send_barrier
//   recv          -> ps_recv {servers, slots} into the parameter blocks
//   fetch_barrier -> ps_fetch_barrier; its results are its operands' buffers
//   send of row-sparse blocks -> ps_send_rows {servers, slots} over each
//                    block's (row ids, values), merged (LowerSelectedRows.cpp)
//
// Control dependences (send's and send_barrier's results) are empty
// buffers no call reads: the calls run in program order.
//
//===----------------------------------------------------------------------===//

#include "ProgramLowering.h"

#include "distc/Artifact/ArtifactFile.h"
#include "distc/Dialect/Pd/OpAttributes.h"
#include "distc/Dialect/Pd/PdDialect.h"
#include "distc/Dialect/Pd/PdOps.h"
#include "distc/ParameterServer/VarSlicing.h"

#include "mlir/IR/SymbolTable.h"

#include <map>

using namespace mlir;

namespace distc::target {
namespace {

/// A gradient block's name without the sending trainer's `.trainer_<k>`.
std::string withoutTrainer(StringRef name) {
  size_t pos = name.find(".trainer_");
  return (pos == StringRef::npos ? name : name.take_front(pos)).str();
}

/// The persistent buffer of `name` in a lowered server, or -1.
int32_t persistentBuffer(const artifact::ArtifactDesc &desc, StringRef name) {
  for (auto [i, buffer] : llvm::enumerate(desc.buffers))
    if (buffer.kind == BufferKind::Persistent && buffer.name == name)
      return static_cast<int32_t>(i);
  return -1;
}

LogicalResult lowerServer(ModuleOp server, ArtifactState &state, int32_t index) {
  pd::ListenAndServOp listen;
  server.walk([&](pd::ListenAndServOp op) { listen = op; });
  if (!listen)
    return server.emitError("parameter server module has no listen_and_serv");
  FailureOr<artifact::ArtifactDesc> own = lowerToArtifact(server, state.options);
  if (failed(own))
    return failure();

  artifact::ParameterServerDesc desc;
  desc.endpoint = listen.getEndpoint().str();
  // Received gradients: X grouped by block (each trainer's copy in turn).
  std::map<std::string, int32_t> blockOf;
  for (Attribute entry : listen.getGradToBlockId()) {
    auto [grad, block] = cast<StringAttr>(entry).getValue().rsplit(':');
    int32_t id = 0;
    (void)block.getAsInteger(10, id);
    blockOf[grad.str()] = id;
  }
  std::map<std::string, size_t> slotOf;
  for (Attribute x : listen.getX()) {
    StringRef name = cast<FlatSymbolRefAttr>(x).getValue();
    std::string base = withoutTrainer(name);
    auto [it, inserted] = slotOf.try_emplace(base, desc.receives.size());
    if (inserted) {
      artifact::ServerSlotDesc slot;
      slot.name = base;
      slot.block = blockOf.count(base) ? blockOf[base] : -1;
      desc.receives.push_back(slot);
      state.psReceives[base] = {index, static_cast<int32_t>(it->second)};
    }
    int32_t buffer = persistentBuffer(*own, name);
    if (buffer < 0)
      return listen.emitError() << "received variable '" << name << "' has no buffer";
    desc.receives[it->second].buffers.push_back(buffer);
    // A row-sparse gradient block arrives as row ids and their values.
    auto var = dyn_cast_or_null<pd::VarOp>(SymbolTable::lookupSymbolIn(server, name));
    if (var && pd::isSelectedRows(var.getType())) {
      int32_t rows = persistentBuffer(*own, (name + kRowIdsSuffix).str());
      if (rows < 0)
        return listen.emitError() << "received row-sparse variable '" << name
                                  << "' has no row-id buffer";
      desc.receives[it->second].rowBuffers.push_back(rows);
    }
  }
  // Served parameter blocks: the server's parameters.
  for (auto var : server.getOps<pd::VarOp>()) {
    if (!var.getIsParameter())
      continue;
    artifact::ServerSlotDesc slot;
    slot.name = var.getSymName().str();
    slot.buffers.push_back(persistentBuffer(*own, slot.name));
    if (auto whole = var->getAttrOfType<StringAttr>("pd.block_of"))
      slot.variable = whole.getValue().str();
    if (auto row = var->getAttrOfType<IntegerAttr>("pd.block_row"))
      slot.row = row.getInt();
    slot.prefetch = var->hasAttr("pd.prefetch_table");
    state.psServeSlots[{slot.name, index}] = static_cast<int32_t>(desc.serves.size());
    state.psServes[slot.name] = {index, static_cast<int32_t>(desc.serves.size())};
    state.psServeRows[slot.name] = cast<RankedTensorType>(var.getType()).getDimSize(0);
    desc.serves.push_back(std::move(slot));
  }
  // The training state: every variable that holds (a block of) one of the
  // trainers' whole variables.
  for (auto var : server.getOps<pd::VarOp>()) {
    auto whole = var->getAttrOfType<StringAttr>("pd.block_of");
    auto row = var->getAttrOfType<IntegerAttr>("pd.block_row");
    if (!whole || !row)
      continue;
    artifact::ServerSlotDesc slot;
    slot.name = var.getSymName().str();
    slot.buffers.push_back(persistentBuffer(*own, slot.name));
    if (slot.buffers.back() < 0)
      return var.emitError() << "server state '" << slot.name << "' has no buffer";
    slot.variable = whole.getValue().str();
    slot.row = row.getInt();
    auto type = cast<RankedTensorType>(var.getType());
    slot.rows = slot.row < 0 ? -1 : (type.getRank() == 0 ? 1 : type.getDimSize(0));
    if (slot.row < 0)
      slot.row = 0;
    desc.state.push_back(std::move(slot));
  }
  desc.artifact = artifact::makeArtifactFileBytes(artifact::serializeArtifact(*own));
  state.desc.psTrainers = static_cast<int32_t>(listen.getFanin());
  state.desc.psSyncMode = listen.getSyncMode();
  state.desc.pservers.push_back(std::move(desc));
  return success();
}

} // namespace

LogicalResult lowerParameterServers(ModuleOp module, ArtifactState &state) {
  SmallVector<ModuleOp> servers;
  for (ModuleOp nested : module.getOps<ModuleOp>()) {
    auto role = nested->getAttrOfType<StringAttr>("pd.role");
    if (role && role.getValue() == "pserver")
      servers.push_back(nested);
  }
  for (auto [i, server] : llvm::enumerate(servers)) {
    auto id = server->getAttrOfType<IntegerAttr>("pd.pserver_id");
    if (!id || id.getInt() != static_cast<int64_t>(i))
      return server.emitError() << "parameter server modules must come in pserver_id order";
    if (failed(lowerServer(server, state, static_cast<int32_t>(i))))
      return failure();
  }
  return success();
}

LogicalResult ProgramLowering::lowerParameterServerOp(Operation *op) {
  StringRef type = op->getName().getStringRef().drop_front(3);
  pd::OpAttributes attrs(op);
  // Control dependences get empty buffers: the ops that take them as
  // operands need one, no call reads them.
  auto defineControl = [&](Value control) {
    return defineResult(control, SymShape{DimDesc::fixed(0)});
  };
  if (type == "send_barrier") {
    if (failed(defineControl(op->getResult(0))))
      return failure();
    emit("ps_send_barrier", {}, {}, {AttrDesc::ofInt("half_async", attrs.getBool("half_async"))});
    return success();
  }
  if (type == "fetch_barrier") {
    // The blocks stay where recv put them; the call only waits.
    for (auto [operand, result] : llvm::zip_equal(op->getOperands(), op->getResults()))
      bind(result, bufferOf(operand));
    emit("ps_fetch_barrier", {}, {});
    return success();
  }
  if (type == "prefetch")
    return lowerPrefetch(op);
  bool send = type == "send";
  if (!send && type != "recv")
    return error(op) << "no lowering for parameter-server op '" << type << "'";
  if (send && llvm::any_of(op->getOperands(), [&](Value v) { return isRowSparse(v); }))
    return lowerSendRows(op);

  // The blocks and their names: the operands (send) or results (recv), or,
  // split at run time, views of the rows of the one whole variable.
  std::vector<int32_t> blocks;
  std::vector<std::string> names;
  if (auto given = dyn_cast_or_null<ArrayAttr>(attrs.get(send ? "send_varnames" : "recv_varnames")))
    for (Attribute name : given)
      names.push_back(cast<StringAttr>(name).getValue().str());
  Value whole = send ? op->getOperand(0) : op->getResult(0);
  if (!send)
    for (Value result : op->getResults()) {
      auto tensor = cast<RankedTensorType>(result.getType());
      SymShape dims;
      for (int64_t d : tensor.getShape())
        dims.push_back(DimDesc::fixed(d));
      if (failed(defineResult(result, dims)))
        return failure();
    }
  if (!names.empty()) {
    int32_t base = bufferOf(whole);
    auto tensor = cast<RankedTensorType>(whole.getType());
    int64_t width = tensor.getNumElements() / std::max<int64_t>(tensor.getDimSize(0), 1);
    std::vector<int64_t> rows = attrs.getInts("sections");
    if (!send) {
      // recv's blocks have the rows their servers hold.
      rows.clear();
      for (const std::string &name : names) {
        auto it = state.psServeRows.find(name);
        if (it == state.psServeRows.end())
          return error(op) << "no parameter server serves '" << name << "'";
        rows.push_back(it->second);
      }
    }
    if (rows.size() != names.size())
      return error(op) << "needs one row count per block of '" << nameOf(whole) << "'";
    int64_t offset = 0;
    for (auto [name, count] : llvm::zip_equal(names, rows)) {
      SymShape dims;
      dims.push_back(DimDesc::fixed(count));
      for (int64_t d : tensor.getShape().drop_front())
        dims.push_back(DimDesc::fixed(d));
      blocks.push_back(sliceView(base, offset, dims, name));
      offset += count * width;
    }
  } else {
    for (Value value : send ? ValueRange(op->getOperands()) : ValueRange(op->getResults())) {
      blocks.push_back(bufferOf(value));
      names.push_back(send ? withoutTrainer(nameOf(value)) : nameOf(value));
    }
  }

  std::vector<int64_t> servers, slots;
  for (const std::string &name : names) {
    auto &table = send ? state.psReceives : state.psServes;
    auto it = table.find(name);
    if (it == table.end())
      return error(op) << "no parameter server " << (send ? "receives" : "serves") << " '" << name
                       << "'";
    servers.push_back(it->second.first);
    slots.push_back(it->second.second);
  }
  std::vector<AttrDesc> callAttrs = {AttrDesc::ofInts("servers", servers),
                                     AttrDesc::ofInts("slots", slots)};
  if (send) {
    if (failed(defineControl(op->getResult(0))))
      return failure();
    emit("ps_send", blocks, {}, callAttrs);
  }
  else
    emit("ps_recv", {}, blocks, callAttrs);
  return success();
}

LogicalResult ProgramLowering::lowerPrefetch(Operation *op) {
  pd::OpAttributes attrs(op);
  auto strings = [&](StringRef name) {
    std::vector<std::string> out;
    if (auto list = dyn_cast_or_null<ArrayAttr>(attrs.get(name)))
      for (Attribute a : list)
        out.push_back(cast<StringAttr>(a).getValue().str());
    return out;
  };
  std::vector<std::string> epmap = strings("epmap");
  std::vector<std::string> tables = strings("table_names");
  if (epmap.size() != op->getNumOperands() || tables.size() != op->getNumOperands() ||
      op->getNumResults() != op->getNumOperands())
    return error(op) << "needs one endpoint, table and row block per id list";
  std::vector<int32_t> ids, rows;
  std::vector<int64_t> servers, slots;
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    auto type = cast<RankedTensorType>(result.getType());
    SymShape dims;
    for (int64_t d : type.getShape())
      dims.push_back(DimDesc::fixed(d));
    FailureOr<int32_t> out = defineResult(result, dims);
    if (failed(out))
      return failure();
    rows.push_back(*out);
    ids.push_back(bufferOf(op->getOperand(unsigned(i))));
    int32_t server = -1;
    for (auto [k, desc] : llvm::enumerate(state.desc.pservers))
      if (desc.endpoint == epmap[i])
        server = static_cast<int32_t>(k);
    auto slot = state.psServeSlots.find({tables[i], server});
    if (server < 0 || slot == state.psServeSlots.end() ||
        !state.desc.pservers[size_t(server)].serves[size_t(slot->second)].prefetch)
      return error(op) << "no parameter server at " << epmap[i] << " holds distributed table '"
                       << tables[i] << "'";
    servers.push_back(server);
    slots.push_back(slot->second);
  }
  emit("ps_prefetch", ids, rows,
       {AttrDesc::ofInts("servers", servers), AttrDesc::ofInts("slots", slots)});
  return success();
}

LogicalResult ProgramLowering::lowerSendRows(Operation *op) {
  std::vector<int32_t> blocks;
  std::vector<int64_t> servers, slots;
  for (Value value : op->getOperands()) {
    if (!isRowSparse(value))
      return error(op) << "sends row-sparse and dense blocks together ('" << nameOf(value)
                       << "' is dense)";
    FailureOr<std::vector<int32_t>> merged = mergedRowsOf(value);
    if (failed(merged))
      return error(op) << "row-sparse block '" << nameOf(value) << "' needs a static shape";
    blocks.insert(blocks.end(), merged->begin(), merged->end());
    std::string name = withoutTrainer(nameOf(value));
    auto it = state.psReceives.find(name);
    if (it == state.psReceives.end())
      return error(op) << "no parameter server receives '" << name << "'";
    servers.push_back(it->second.first);
    slots.push_back(it->second.second);
  }
  if (failed(defineResult(op->getResult(0), SymShape{DimDesc::fixed(0)})))
    return failure();
  emit("ps_send_rows", blocks, {},
       {AttrDesc::ofInts("servers", servers), AttrDesc::ofInts("slots", slots)});
  return success();
}

} // namespace distc::target
