//===- Roles.cpp - A trainer and a server of a pserver artifact -----------===//

#include "distc/PServer/Roles.h"

#include "distc/Runtime/Session.h"

#include <algorithm>
#include <cstring>

#include <map>

namespace distc::pserver {
namespace {

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

using Slots = flatbuffers::Vector<flatbuffers::Offset<distc::fb::ServerSlot>>;

std::vector<std::string> slotNames(const Slots *slots) {
  std::vector<std::string> names;
  if (slots)
    for (const distc::fb::ServerSlot *slot : *slots)
      names.push_back(str(slot->name()));
  return names;
}

} // namespace

TrainerChannel::TrainerChannel(const distc::fb::Artifact &artifact, int trainer, PsClient &client)
    : client_(client) {
  // Synchronous training with several trainers: each sends its own copy,
  // `<block>.trainer_<id>`, which the server sums.
  if (artifact.ps_sync_mode() && artifact.ps_trainers() > 1)
    suffix_ = ".trainer_" + std::to_string(trainer);
  if (artifact.pservers())
    for (const distc::fb::ParameterServer *server : *artifact.pservers()) {
      receives_.push_back(slotNames(server->receives()));
      serves_.push_back(slotNames(server->serves()));
      state_.push_back(slotNames(server->state()));
    }
}

Status TrainerChannel::named(bool send, const Block &block, std::string &name) const {
  const auto &table = send ? receives_ : serves_;
  if (block.server < 0 || size_t(block.server) >= table.size() || block.slot < 0 ||
      size_t(block.slot) >= table[size_t(block.server)].size())
    return Status::error("no slot " + std::to_string(block.slot) + " on parameter server " +
                         std::to_string(block.server));
  name = table[size_t(block.server)][size_t(block.slot)];
  if (send)
    name += suffix_;
  return Status::success();
}

Status TrainerChannel::send(const std::vector<Block> &blocks) {
  std::vector<PsRequest> requests;
  for (const Block &block : blocks) {
    std::string name;
    if (Status st = named(true, block, name); !st.ok())
      return st;
    requests.push_back(PsRequest::send(block.server, name, block.data, block.bytes));
  }
  return client_.run(requests);
}

Status TrainerChannel::sendRows(const std::vector<RowsBlock> &blocks) {
  std::vector<PsRequest> requests;
  for (const RowsBlock &block : blocks) {
    std::string name;
    if (Status st = named(true, Block{block.server, block.slot, nullptr, 0}, name); !st.ok())
      return st;
    requests.push_back(PsRequest::sendRows(block.server, name, block.rows, block.numRows,
                                           block.values, block.valueBytes));
  }
  return client_.run(requests);
}

Status TrainerChannel::prefetch(const std::vector<PrefetchBlock> &blocks) {
  std::vector<PsRequest> requests;
  for (const PrefetchBlock &block : blocks) {
    std::string name;
    if (Status st = named(false, Block{block.server, block.slot, nullptr, 0}, name); !st.ok())
      return st;
    requests.push_back(PsRequest::prefetch(block.server, name, block.ids, block.numIds,
                                           block.rows, block.numIds * block.rowBytes));
  }
  return client_.run(requests);
}

Status TrainerChannel::recv(const std::vector<Block> &blocks) {
  std::vector<PsRequest> requests;
  for (const Block &block : blocks) {
    std::string name;
    if (Status st = named(false, block, name); !st.ok())
      return st;
    requests.push_back(PsRequest::get(block.server, name, block.data, block.bytes));
  }
  return client_.run(requests);
}

Status TrainerChannel::stateRequests(bool set, const std::vector<Block> &blocks) {
  std::vector<PsRequest> requests;
  for (const Block &block : blocks) {
    if (block.server < 0 || size_t(block.server) >= state_.size() || block.slot < 0 ||
        size_t(block.slot) >= state_[size_t(block.server)].size())
      return Status::error("no state slot " + std::to_string(block.slot) +
                           " on parameter server " + std::to_string(block.server));
    const std::string &name = state_[size_t(block.server)][size_t(block.slot)];
    requests.push_back(set ? PsRequest::setState(block.server, name, block.data, block.bytes)
                           : PsRequest::getState(block.server, name, block.data, block.bytes));
  }
  return client_.run(requests);
}

Status TrainerChannel::getState(const std::vector<Block> &blocks) {
  return stateRequests(false, blocks);
}

Status TrainerChannel::setState(const std::vector<Block> &blocks) {
  return stateRequests(true, blocks);
}

Status TrainerChannel::sendBarrier() { return client_.sendBarrier(); }

Status TrainerChannel::fetchBarrier() { return client_.fetchBarrier(); }

Status runParameterServer(const artifact::LoadedArtifact &artifact, int index, PsWorld &world,
                          const ServerRunOptions &options) {
  const distc::fb::Artifact &a = *artifact;
  const uint32_t servers = a.pservers() ? a.pservers()->size() : 0;
  if (index < 0 || uint32_t(index) >= servers)
    return Status::error(artifact.name() + " has no parameter server " + std::to_string(index) +
                         " (it has " + std::to_string(servers) + ")");
  const distc::fb::ParameterServer &ps = *a.pservers()->Get(uint32_t(index));
  const std::string where =
      "parameter server " + std::to_string(index) + " (" + str(ps.endpoint()) + ")";
  std::string error;
  std::unique_ptr<artifact::LoadedArtifact> own = artifact::LoadedArtifact::loadBytes(
      std::vector<uint8_t>(ps.artifact()->begin(), ps.artifact()->end()),
      artifact.name() + ": " + where, error);
  if (!own)
    return Status::error(error);
  std::unique_ptr<runtime::Session> session =
      runtime::Session::create(std::move(own), nullptr, error);
  if (!session)
    return Status::error(error);
  session->setRole("pserver");
  // Paddle's pserver startup program: the server's blocks and their state.
  if (Status st = session->initialize("train"); !st.ok())
    return Status::error(where + ": startup: " + st.message());

  // init_server(model_dir): each block takes its rows of the whole
  // parameter.
  if (options.initial && ps.serves())
    for (const distc::fb::ServerSlot *slot : *ps.serves()) {
      const std::string block = str(slot->name()), whole = str(slot->variable());
      auto it = options.initial->find(whole);
      if (it == options.initial->end())
        return Status::error(where + ": the initial parameters have no '" + whole + "'");
      runtime::Tensor mine = session->persistent(block);
      const runtime::Tensor &all = it->second;
      const int64_t rows = mine.shape().empty() ? 1 : mine.shape()[0];
      const int64_t allRows = all.shape().empty() ? 1 : all.shape()[0];
      const size_t rowBytes = rows ? mine.byteSize() / size_t(rows) : 0;
      if (all.dtype() != mine.dtype() || slot->row() < 0 || slot->row() + rows > allRows ||
          all.byteSize() != rowBytes * size_t(allRows))
        return Status::error(where + ": initial '" + whole + "' " + all.typeString() +
                             " does not hold block '" + block + "' " + mine.typeString() +
                             " at row " + std::to_string(slot->row()));
      runtime::Tensor part = session->backend().allocate(mine.dtype(), mine.shape());
      std::memcpy(part.data(), static_cast<const char *>(all.data()) + size_t(slot->row()) * rowBytes,
                  part.byteSize());
      if (Status st = session->setPersistent(block, part); !st.ok())
        return st;
    }

  const distc::fb::Artifact &inner = *session->artifact().artifact();
  auto bufferName = [&](int32_t buffer) {
    return str(inner.buffers()->Get(uint32_t(buffer))->name());
  };
  PsServerOptions serverOptions;
  serverOptions.sync = a.ps_sync_mode();
  serverOptions.timeout = options.timeout;
  PsServer server(world, serverOptions);
  // Received gradient blocks: each trainer's own copy in synchronous
  // training with several trainers, else one the trainers share.
  std::map<std::string, int32_t> blockOf;
  // Row-sparse receives: the rows past those received are marked unused
  // (-1) before a block reads them.
  struct SparseSlot {
    int64_t *rows;
    size_t capacity;
    size_t count = 0;
    void pad() { std::fill(rows + count, rows + capacity, int64_t(-1)); }
  };
  std::map<std::string, SparseSlot> sparseSlots; // by variable; addresses stay put
  if (ps.receives())
    for (const distc::fb::ServerSlot *slot : *ps.receives()) {
      const std::string name = str(slot->name());
      blockOf[name] = slot->block();
      const uint32_t copies = slot->buffers() ? slot->buffers()->size() : 0;
      for (uint32_t k = 0; k < copies; ++k) {
        std::string var = bufferName(slot->buffers()->Get(k));
        runtime::Tensor t = session->persistent(var);
        // Zero, and initialized: a round reads every trainer's copy.
        runtime::Tensor zeros = session->backend().allocate(t.dtype(), t.shape());
        std::memset(zeros.data(), 0, zeros.byteSize());
        if (Status st = session->setPersistent(var, zeros); !st.ok())
          return st;
        int trainer = copies > 1 ? int(k) : -1;
        if (slot->row_buffers()) {
          const std::string rowsVar = bufferName(slot->row_buffers()->Get(k));
          runtime::Tensor rows = session->backend().allocate(runtime::DType::Int64,
                                                             session->persistent(rowsVar).shape());
          std::fill_n(rows.data<int64_t>(), rows.numel(), int64_t(-1));
          if (Status st = session->setPersistent(rowsVar, rows); !st.ok())
            return st;
          rows = session->persistent(rowsVar);
          const size_t capacity = size_t(rows.numel());
          SparseSlot &sparse = sparseSlots[var] = {rows.data<int64_t>(), capacity};
          if (Status st = server.addSparseReceivable(var, trainer, sparse.rows, t.data(),
                                                     capacity ? t.byteSize() / capacity : 0,
                                                     capacity, &sparse.count);
              !st.ok())
            return Status::error(where + ": " + st.message());
          continue;
        }
        if (Status st = server.addReceivable(var, trainer, t.data(), t.byteSize()); !st.ok())
          return Status::error(where + ": " + st.message());
      }
    }
  // A distributed table's block answers PREFETCH with its rows.
  struct PrefetchTable {
    const char *data;
    int64_t rows;
    size_t rowBytes;
  };
  std::map<std::string, PrefetchTable> prefetchTables;
  if (ps.serves())
    for (const distc::fb::ServerSlot *slot : *ps.serves()) {
      runtime::Tensor t = session->persistent(bufferName(slot->buffers()->Get(0)));
      if (Status st = server.addServable(str(slot->name()), t.data(), t.byteSize()); !st.ok())
        return Status::error(where + ": " + st.message());
      if (!slot->prefetch())
        continue;
      const int64_t rows = t.shape().empty() ? 1 : t.shape()[0];
      const size_t rowBytes = rows > 0 ? t.byteSize() / size_t(rows) : 0;
      prefetchTables[str(slot->name())] = {static_cast<const char *>(t.data()), rows, rowBytes};
      if (Status st = server.addPrefetchTable(str(slot->name()), rowBytes, size_t(rows));
          !st.ok())
        return Status::error(where + ": " + st.message());
    }
  server.setPrefetch([&](const std::string &table, const int64_t *ids, size_t n,
                         void *rowsOut) -> Status {
    auto it = prefetchTables.find(table);
    if (it == prefetchTables.end())
      return Status::error("no distributed table '" + table + "'");
    const PrefetchTable &t = it->second;
    for (size_t i = 0; i < n; ++i) {
      if (ids[i] < 0 || ids[i] >= t.rows)
        return Status::error("row " + std::to_string(ids[i]) + " of '" + table +
                             "' asked for; the block holds " + std::to_string(t.rows));
      std::memcpy(static_cast<char *>(rowsOut) + i * t.rowBytes,
                  t.data + size_t(ids[i]) * t.rowBytes, t.rowBytes);
    }
    return Status::success();
  });
  // The training state: read for checkpoints, written on resume.
  std::map<std::string, std::string> stateVariable; // slot name -> its variable
  if (ps.state())
    for (const distc::fb::ServerSlot *slot : *ps.state()) {
      const std::string var = bufferName(slot->buffers()->Get(0));
      runtime::Tensor t = session->persistent(var);
      if (Status st = server.addState(str(slot->name()), t.data(), t.byteSize()); !st.ok())
        return Status::error(where + ": " + st.message());
      stateVariable[str(slot->name())] = var;
    }
  // A state variable a trainer wrote holds a value now.
  server.setOnStateWritten([&](const std::string &name) -> Status {
    auto it = stateVariable.find(name);
    return it == stateVariable.end()
               ? Status::success()
               : session->setPersistent(it->second, session->persistent(it->second));
  });
  auto runBlock = [&](int block) -> Status {
    runtime::TensorMap fetches;
    Status st = session->run("block" + std::to_string(block), {}, fetches);
    return st.ok() ? st
                   : Status::error(where + ": optimize block " + std::to_string(block) + ": " +
                                   st.message());
  };
  const int blocks = static_cast<int>(session->modes().size());
  if (a.ps_sync_mode()) {
    server.setOptimize([&]() -> Status {
      for (auto &entry : sparseSlots)
        entry.second.pad();
      for (int block = 1; block <= blocks; ++block)
        if (Status st = runBlock(block); !st.ok())
          return st;
      return Status::success();
    });
  } else {
    server.setOnArrival([&](const std::string &name, int) -> Status {
      if (auto sparse = sparseSlots.find(name); sparse != sparseSlots.end())
        sparse->second.pad();
      auto it = blockOf.find(name);
      return it == blockOf.end() || it->second < 1 ? Status::success() : runBlock(it->second);
    });
  }
  return server.serve();
}

} // namespace distc::pserver
