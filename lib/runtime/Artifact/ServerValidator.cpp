//===- ServerValidator.cpp - The parameter servers of an artifact ---------===//
//
// What validateArtifact checks of the pserver mode (artifact.fbs,
// ParameterServer): every server's own artifact loads and validates, holds
// no servers of its own, and has the slots the trainers name; every slot's
// buffers are persistent buffers of that artifact; and every ps_send(_rows) /
// ps_recv call of the trainers' programs names a server and a slot that
// exist.
//
//===----------------------------------------------------------------------===//

#include "distc/Artifact/ArtifactFile.h"
#include "distc/Artifact/ArtifactValidator.h"

#include <optional>
#include <string>
#include <vector>

namespace distc::artifact {
namespace {

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

const fb::Attr *findAttr(const fb::KernelCall &call, const char *name) {
  return call.attrs() ? call.attrs()->LookupByKey(name) : nullptr;
}

class ServerChecker {
public:
  ServerChecker(const fb::Artifact &a, std::string &error) : a_(a), error_(error) {}

  bool run() {
    const uint32_t servers = a_.pservers() ? a_.pservers()->size() : 0;
    if (servers == 0)
      return checkCalls();
    if (a_.ps_trainers() < 1)
      return fail("parameter-server mode with " + std::to_string(a_.ps_trainers()) +
                  " trainers; it needs at least 1");
    for (uint32_t i = 0; i < servers; ++i)
      if (!checkServer(i))
        return false;
    return checkCalls();
  }

private:
  bool fail(std::string msg) {
    error_ = std::move(msg);
    return false;
  }

  bool checkServer(uint32_t index) {
    const fb::ParameterServer &server = *a_.pservers()->Get(index);
    std::string where =
        "parameter server " + std::to_string(index) + " (" + str(server.endpoint()) + ")";
    if (!server.endpoint() || server.endpoint()->size() == 0)
      return fail(where + " has no endpoint");
    if (!server.artifact() || server.artifact()->size() == 0)
      return fail(where + " has no programs");
    std::string why;
    std::unique_ptr<LoadedArtifact> own = LoadedArtifact::loadBytes(
        std::vector<uint8_t>(server.artifact()->begin(), server.artifact()->end()), where, why);
    if (!own)
      return fail(why);
    const fb::Artifact &inner = **own;
    if (inner.pservers() && inner.pservers()->size() != 0)
      return fail(where + "'s own artifact lists parameter servers");
    int32_t blocks = 0;
    if (inner.programs())
      for (const fb::Program *p : *inner.programs())
        if (p->kind() == fb::ProgramKind::Main)
          ++blocks;
    const bool perTrainer = a_.ps_sync_mode() && a_.ps_trainers() > 1;
    const uint32_t copies = perTrainer ? uint32_t(a_.ps_trainers()) : 1;
    auto checkSlots = [&](const flatbuffers::Vector<flatbuffers::Offset<fb::ServerSlot>> *slots,
                          const char *what, uint32_t wanted, bool needsBlock) {
      if (!slots)
        return true;
      for (const fb::ServerSlot *slot : *slots) {
        std::string label = where + " " + what + " '" + str(slot->name()) + "'";
        uint32_t n = slot->buffers() ? slot->buffers()->size() : 0;
        if (n != wanted)
          return fail(label + " has " + std::to_string(n) + " buffers, not " +
                      std::to_string(wanted));
        for (int32_t buffer : *slot->buffers()) {
          if (buffer < 0 || !inner.buffers() || uint32_t(buffer) >= inner.buffers()->size())
            return fail(label + " refers to out-of-range buffer " + std::to_string(buffer));
          if (inner.buffers()->Get(uint32_t(buffer))->kind() != fb::BufferKind::Persistent)
            return fail(label + " refers to buffer " + std::to_string(buffer) +
                        ", which is not persistent");
        }
        // Row-sparse: one int64 row-id buffer per values buffer, with as
        // many entries as the values buffer has rows.
        if (const auto *rowBuffers = slot->row_buffers()) {
          if (rowBuffers->size() != n)
            return fail(label + " has " + std::to_string(rowBuffers->size()) +
                        " row-id buffers for " + std::to_string(n) + " value buffers");
          for (uint32_t k = 0; k < n; ++k) {
            int32_t ids = rowBuffers->Get(k);
            if (ids < 0 || !inner.buffers() || uint32_t(ids) >= inner.buffers()->size())
              return fail(label + " refers to out-of-range row-id buffer " + std::to_string(ids));
            const fb::Buffer &idBuffer = *inner.buffers()->Get(uint32_t(ids));
            const fb::Buffer &values = *inner.buffers()->Get(uint32_t(slot->buffers()->Get(k)));
            auto idDims = fixedDims(idBuffer), valueDims = fixedDims(values);
            if (idBuffer.kind() != fb::BufferKind::Persistent ||
                idBuffer.dtype() != fb::DType::Int64 || !idDims || idDims->size() != 1 ||
                !valueDims || valueDims->empty() || (*idDims)[0] != (*valueDims)[0])
              return fail(label + ": row-id buffer " + std::to_string(ids) +
                          " must be a persistent int64 vector with one entry per row of its "
                          "values");
          }
        }
        if (needsBlock && (slot->block() < 1 || slot->block() > blocks))
          return fail(label + " feeds optimize block " + std::to_string(slot->block()) +
                      ", not one of the server's " + std::to_string(blocks));
      }
      return true;
    };
    return checkSlots(server.receives(), "received gradient", copies, true) &&
           checkSlots(server.serves(), "served parameter", 1, false) &&
           checkSlots(server.state(), "state", 1, false) && checkState(server, inner, where);
  }

  /// A buffer's fixed dims, or nullopt when one is symbolic.
  static std::optional<std::vector<int64_t>> fixedDims(const fb::Buffer &buffer) {
    std::vector<int64_t> dims;
    if (buffer.dims())
      for (const fb::Dim *d : *buffer.dims()) {
        if (d->sym() >= 0 || d->value() < 0)
          return std::nullopt;
        dims.push_back(d->value());
      }
    return dims;
  }

  /// The product of dims[from..], or -1 when it overflows.
  static int64_t product(const std::vector<int64_t> &dims, size_t from) {
    int64_t n = 1;
    for (size_t i = from; i < dims.size(); ++i)
      if (__builtin_mul_overflow(n, dims[i], &n))
        return -1;
    return n;
  }

  /// Each state slot is a block of rows (or a copy) of a whole persistent
  /// variable of the trainers, of its dtype: a trainer reads and writes the
  /// block in place in the whole variable's memory.
  bool checkState(const fb::ParameterServer &server, const fb::Artifact &inner,
                  const std::string &where) {
    if (!server.state())
      return true;
    for (const fb::ServerSlot *slot : *server.state()) {
      std::string label = where + " state '" + str(slot->name()) + "'";
      const fb::Buffer &mine = *inner.buffers()->Get(uint32_t(slot->buffers()->Get(0)));
      const fb::Buffer *whole = nullptr;
      if (a_.buffers())
        for (const fb::Buffer *b : *a_.buffers())
          if (b->kind() == fb::BufferKind::Persistent && str(b->name()) == str(slot->variable()))
            whole = b;
      if (!whole)
        return fail(label + " is a block of '" + str(slot->variable()) +
                    "', which is no persistent variable of the trainers");
      auto mineDims = fixedDims(mine), wholeDims = fixedDims(*whole);
      if (!mineDims || !wholeDims || whole->dtype() != mine.dtype())
        return fail(label + " and the trainers' '" + str(slot->variable()) +
                    "' need fixed shapes and one dtype");
      const int64_t count = product(*mineDims, 0);
      if (count < 0 || product(*wholeDims, 0) < 0)
        return fail(label + " or the trainers' '" + str(slot->variable()) +
                    "' has more elements than fit in 64 bits");
      if (slot->rows() < 0) {
        if (count != product(*wholeDims, 0))
          return fail(label + " holds " + std::to_string(count) + " elements, not the " +
                      std::to_string(product(*wholeDims, 0)) + " of '" + str(slot->variable()) +
                      "' it copies");
        continue;
      }
      const int64_t allRows = wholeDims->empty() ? 1 : (*wholeDims)[0];
      // In this order: no sum or product below can overflow.
      if (slot->row() < 0 || slot->row() > allRows || slot->rows() > allRows - slot->row() ||
          count != slot->rows() * product(*wholeDims, 1))
        return fail(label + " does not hold rows " + std::to_string(slot->row()) + " .. " +
                    std::to_string(slot->row() + slot->rows() - 1) + " of '" +
                    str(slot->variable()) + "'");
    }
    return true;
  }

  /// ps_send / ps_recv calls name (server, slot) pairs by index.
  bool checkCalls() {
    if (!a_.programs())
      return true;
    const uint32_t servers = a_.pservers() ? a_.pservers()->size() : 0;
    for (const fb::Program *p : *a_.programs()) {
      if (!p->calls())
        continue;
      for (const fb::KernelCall *call : *p->calls()) {
        std::string kernel = str(call->kernel());
        const bool rows = kernel == "ps_send_rows";
        const bool send = kernel == "ps_send" || rows;
        if (!send && kernel != "ps_recv")
          continue;
        std::string where = "call '" + kernel + "' (" + str(call->origin()) + ")";
        if (servers == 0)
          return fail(where + " talks to parameter servers, but the artifact has none");
        const fb::Attr *serverAttr = findAttr(*call, "servers");
        const fb::Attr *slotAttr = findAttr(*call, "slots");
        uint32_t n = serverAttr && serverAttr->ints() ? serverAttr->ints()->size() : 0;
        if (!slotAttr || !slotAttr->ints() || slotAttr->ints()->size() != n || n == 0)
          return fail(where + " needs as many 'slots' as 'servers', at least one");
        for (uint32_t i = 0; i < n; ++i) {
          int64_t server = serverAttr->ints()->Get(i);
          int64_t slot = slotAttr->ints()->Get(i);
          if (server < 0 || uint64_t(server) >= servers)
            return fail(where + " names server " + std::to_string(server) + " of " +
                        std::to_string(servers));
          const fb::ParameterServer &ps = *a_.pservers()->Get(uint32_t(server));
          auto *slots = send ? ps.receives() : ps.serves();
          uint32_t count = slots ? slots->size() : 0;
          if (slot < 0 || uint64_t(slot) >= count)
            return fail(where + " names slot " + std::to_string(slot) + " of server " +
                        std::to_string(server) + ", which has " + std::to_string(count));
          // Rows go to a row-sparse receive, whole blocks to a dense one.
          if (send) {
            const fb::ServerSlot &target = *slots->Get(uint32_t(slot));
            const bool sparse = target.row_buffers() && target.row_buffers()->size() != 0;
            if (sparse != rows)
              return fail(where + " sends " + (rows ? "rows" : "a dense block") + " to '" +
                          str(target.name()) + "' of server " + std::to_string(server) +
                          ", which receives " + (sparse ? "rows" : "dense blocks"));
          }
        }
      }
    }
    return true;
  }

  const fb::Artifact &a_;
  std::string &error_;
};

} // namespace

bool validateParameterServers(const fb::Artifact &artifact, std::string &error) {
  return ServerChecker(artifact, error).run();
}

} // namespace distc::artifact
