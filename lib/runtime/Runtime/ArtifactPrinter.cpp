//===- ArtifactPrinter.cpp - readable form of a distc artifact ------------===//
//
// Shared by distc-dump and `distc --compile-to=artifact`.
//
//===----------------------------------------------------------------------===//

#include "distc/Runtime/ArtifactPrinter.h"

#include "distc/Runtime/SymbolBinding.h"

#include <cinttypes>
#include <cstdlib>
#include <string>

namespace distc::runtime {

using namespace distc;

namespace {

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

std::string number(double v) {
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

/// "a, b, c", or "(none)".
std::string nameList(const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *names) {
  std::string s;
  if (names)
    for (const flatbuffers::String *n : *names)
      s += (s.empty() ? "" : ", ") + n->str();
  return s.empty() ? "(none)" : s;
}

std::string formatAttr(const fb::Attr &a) {
  std::string s = str(a.name()) + " = ";
  switch (a.type()) {
  case fb::AttrType::Int:
    return s + std::to_string(a.i());
  case fb::AttrType::Float:
    return s + number(a.f());
  case fb::AttrType::String:
    return s + "\"" + str(a.s()) + "\"";
  case fb::AttrType::Ints: {
    s += "[";
    if (a.ints())
      for (uint32_t i = 0; i < a.ints()->size(); ++i)
        s += (i ? ", " : "") + std::to_string(a.ints()->Get(i));
    return s + "]";
  }
  case fb::AttrType::Floats: {
    s += "[";
    if (a.floats())
      for (uint32_t i = 0; i < a.floats()->size(); ++i)
        s += (i ? ", " : "") + number(a.floats()->Get(i));
    return s + "]";
  }
  }
  return s + "?";
}

std::string operands(const flatbuffers::Vector<int32_t> *ops) {
  std::string s;
  if (ops)
    for (uint32_t i = 0; i < ops->size(); ++i) {
      int32_t b = ops->Get(i);
      s += (i ? ", " : "") + (b < 0 ? std::string("none") : "%" + std::to_string(b));
    }
  return s;
}

const char *kindName(fb::BufferKind k) {
  switch (k) {
  case fb::BufferKind::Temp:
    return "temp";
  case fb::BufferKind::Persistent:
    return "persistent";
  case fb::BufferKind::Feed:
    return "feed";
  case fb::BufferKind::View:
    return "view";
  }
  return "?";
}

} // namespace

void printArtifact(const artifact::LoadedArtifact &loaded, std::FILE *out) {
  const fb::Artifact &a = *loaded.artifact();
  std::fprintf(out, "artifact: %s\n", loaded.name().c_str());
  std::fprintf(out, "  format version: %u\n", loaded.formatVersion());
  std::fprintf(out, "  size: %" PRIu64 " bytes (payload %" PRIu64 ")\n", loaded.fileSize(),
              loaded.payloadSize());
  std::fprintf(out, "  checksum: 0x%016" PRIx64 " ok\n", loaded.checksum());
  std::fprintf(out, "  producer: %s\n", str(a.producer()).c_str());
  std::fprintf(out, "  source: %s\n", str(a.source()).c_str());
  if (a.world_size() != 1) // serial artifacts print as they always did
    std::fprintf(out, "  world size: %d ranks\n", a.world_size());
  // One line per ring, its groups in order: "ring 1: [0, 2] [1, 3]".
  if (a.rings())
    for (const fb::Ring *r : *a.rings()) {
      std::string line = "  ring " + std::to_string(r->id()) + ":";
      const uint32_t n = r->ranks() ? r->ranks()->size() : 0;
      const uint32_t g = r->group_size() > 0 ? uint32_t(r->group_size()) : n;
      for (uint32_t k = 0; k < n; ++k)
        line += std::string(k % g == 0 ? " [" : ", ") + std::to_string(r->ranks()->Get(k)) +
                (k % g == g - 1 || k + 1 == n ? "]" : "");
      std::fprintf(out, "%s\n", line.c_str());
    }
  if (a.data_ring() != 0)
    std::fprintf(out, "  data replicas: %s\n",
                 a.data_ring() < 0 ? "one (every rank reads the whole batch)"
                                   : ("ring " + std::to_string(a.data_ring())).c_str());

  std::fprintf(out, "symbols:\n");
  if (a.symbols())
    for (uint32_t i = 0; i < a.symbols()->size(); ++i)
      std::fprintf(out, "  $%u = %s\n", i, str(a.symbols()->Get(i)).c_str());

  std::fprintf(out, "buffers:\n");
  if (a.buffers())
    for (uint32_t i = 0; i < a.buffers()->size(); ++i) {
      const fb::Buffer &b = *a.buffers()->Get(i);
      std::string line = "  %" + std::to_string(i) + " " + str(b.name()) + ": " +
                         runtime::formatBufferType(a, b, /*symbolNames=*/true) + " " +
                         kindName(b.kind());
      if (b.kind() == fb::BufferKind::View)
        line += " of %" + std::to_string(b.alias_of()) + " (" +
                str(a.buffers()->Get(b.alias_of())->name()) + ")";
      if (b.offset() != 0)
        line += " at offset " + std::to_string(b.offset());
      // "split [ring 2, -]": which ring's groups split each dim.
      if (b.split_rings() && b.split_rings()->size() != 0) {
        line += " split [";
        for (uint32_t d = 0; d < b.split_rings()->size(); ++d) {
          int32_t r = b.split_rings()->Get(d);
          line += std::string(d ? ", " : "") + (r < 0 ? "-" : "ring " + std::to_string(r));
        }
        line += "]";
      }
      std::fprintf(out, "%s\n", line.c_str());
    }

  std::fprintf(out, "programs:\n");
  if (a.programs())
    for (const fb::Program *p : *a.programs()) {
      std::fprintf(out, "%s/%s/%s\n", str(p->mode()).c_str(), str(p->role()).c_str(),
                  p->kind() == fb::ProgramKind::Startup ? "startup" : "main");
      if (p->feeds() && p->feeds()->size()) {
        std::string line = "  feeds:";
        for (uint32_t i = 0; i < p->feeds()->size(); ++i)
          line += std::string(i ? "," : "") + " " + str(p->feeds()->Get(i)->name()) + " = %" +
                  std::to_string(p->feeds()->Get(i)->buffer());
        std::fprintf(out, "%s\n", line.c_str());
      }
      if (p->calls())
        for (const fb::KernelCall *c : *p->calls()) {
          // A call without outputs (c_comm_check) is written without `=`.
          std::string results = operands(c->outputs());
          std::string line = "  " + (results.empty() ? "" : results + " = ") + str(c->kernel()) +
                             "(" + operands(c->inputs()) + ")";
          if (c->attrs() && c->attrs()->size()) {
            line += " {";
            for (uint32_t i = 0; i < c->attrs()->size(); ++i)
              line += (i ? ", " : "") + formatAttr(*c->attrs()->Get(i));
            line += "}";
          }
          if (c->rank() >= 0)
            line += " [rank " + std::to_string(c->rank()) + " only]";
          if (c->origin())
            line += "   // " + str(c->origin());
          std::fprintf(out, "%s\n", line.c_str());
        }
      if (p->fetches() && p->fetches()->size()) {
        std::string line = "  fetches:";
        for (uint32_t i = 0; i < p->fetches()->size(); ++i)
          line += std::string(i ? "," : "") + " " + str(p->fetches()->Get(i)->name()) + " = %" +
                  std::to_string(p->fetches()->Get(i)->buffer());
        std::fprintf(out, "%s\n", line.c_str());
      }
      // "arena: 4096 bytes + 512 per x.dim0, 3 temporaries: %3 @0, %5 @1024, %7 @x.dim0*0"
      if (const fb::Arena *arena = p->arena(); arena && arena->slots()) {
        std::string symbol =
            arena->scaled_symbol() >= 0 && a.symbols() &&
                    uint32_t(arena->scaled_symbol()) < a.symbols()->size()
                ? str(a.symbols()->Get(uint32_t(arena->scaled_symbol())))
                : "?";
        std::string line = "  arena: " + std::to_string(arena->static_bytes()) + " bytes";
        if (arena->scaled_symbol() >= 0)
          line += " + " + std::to_string(arena->scaled_unit_bytes()) + " per " + symbol;
        line += ", " + std::to_string(arena->slots()->size()) + " temporaries:";
        for (uint32_t i = 0; i < arena->slots()->size(); ++i) {
          const fb::ArenaSlot *slot = arena->slots()->Get(i);
          line += std::string(i ? "," : "") + " %" + std::to_string(slot->buffer()) + " @" +
                  (slot->scaled() ? symbol + "*" : "") + std::to_string(slot->offset());
        }
        std::fprintf(out, "%s\n", line.c_str());
      }
    }

  if (const fb::Training *t = a.training()) {
    std::fprintf(out, "training:\n");
    auto field = [&](const char *name, const flatbuffers::String *value) {
      std::fprintf(out, "  %s: %s\n", name, value && value->size() ? value->c_str() : "(none)");
    };
    field("loss", t->loss());
    field("optimizer", t->optimizer());
    field("config", t->config());
    field("learning_rate_var", t->learning_rate_var());
    field("step_var", t->step_var());
    if (const fb::LRSchedule *sc = t->schedule()) {
      std::string kind = str(sc->kind());
      std::string line = "  schedule: " + kind;
      if (kind == "piecewise") {
        line += " boundaries [";
        if (sc->boundaries())
          for (uint32_t i = 0; i < sc->boundaries()->size(); ++i)
            line += (i ? ", " : "") + std::to_string(sc->boundaries()->Get(i));
        line += "] values [";
        if (sc->values())
          for (uint32_t i = 0; i < sc->values()->size(); ++i)
            line += (i ? ", " : "") + number(sc->values()->Get(i));
        line += "]";
      } else {
        line += " base_lr " + number(sc->base_lr());
      }
      if (kind == "step")
        line += " step_size " + std::to_string(sc->step_size()) + " gamma " + number(sc->gamma());
      if (kind == "cosine")
        line +=
            " decay_steps " + std::to_string(sc->decay_steps()) + " end_lr " + number(sc->end_lr());
      if (sc->warmup_steps() > 0)
        line += "; warmup " + std::to_string(sc->warmup_steps()) + " steps from " +
                number(sc->warmup_start_lr());
      std::fprintf(out, "%s\n", line.c_str());
    } else {
      std::fprintf(out, "  schedule: (none; the rate is the variable's value)\n");
    }
    std::fprintf(out, "  parameters: %s\n", nameList(t->parameters()).c_str());
    std::fprintf(out, "  optimizer_state: %s\n", nameList(t->optimizer_state()).c_str());
    if (const auto *owners = t->optimizer_state_owner()) {
      std::string line;
      for (uint32_t i = 0; i < owners->size() && t->optimizer_state(); ++i)
        if (owners->Get(i) >= 0)
          line += (line.empty() ? "" : ", ") + str(t->optimizer_state()->Get(i)) + " on rank " +
                  std::to_string(owners->Get(i));
      if (!line.empty())
        std::fprintf(out, "  optimizer_state_owner: %s\n", line.c_str());
    }
  }
  if (const fb::InferenceModel *m = a.inference()) {
    std::fprintf(out, "inference:\n");
    std::fprintf(out, "  program: %u bytes\n", m->program() ? m->program()->size() : 0u);
    std::fprintf(out, "  parameters: %s\n", nameList(m->parameters()).c_str());
  }
  // Parameter-server mode: each server's slots, then its own artifact.
  if (a.pservers() && a.pservers()->size() != 0) {
    std::fprintf(out, "parameter servers: %u, %d trainers, %s\n", a.pservers()->size(),
                 a.ps_trainers(), a.ps_sync_mode() ? "synchronous" : "asynchronous");
    for (uint32_t i = 0; i < a.pservers()->size(); ++i) {
      const fb::ParameterServer &ps = *a.pservers()->Get(i);
      std::fprintf(out, "pserver %u: %s\n", i, str(ps.endpoint()).c_str());
      auto slots = [&](const char *what, const auto *list) {
        if (!list)
          return;
        for (uint32_t k = 0; k < list->size(); ++k) {
          const fb::ServerSlot &slot = *list->Get(k);
          std::string line = "  " + std::string(what) + " " + std::to_string(k) + ": " +
                             str(slot.name()) + " in %";
          for (uint32_t j = 0; slot.buffers() && j < slot.buffers()->size(); ++j)
            line += (j ? ", %" : "") + std::to_string(slot.buffers()->Get(j));
          if (const auto *ids = slot.row_buffers(); ids && ids->size()) {
            line += " (row-sparse; row ids in %";
            for (uint32_t j = 0; j < ids->size(); ++j)
              line += (j ? ", %" : "") + std::to_string(ids->Get(j));
            line += ")";
          }
          if (slot.block() > 0)
            line += " -> block " + std::to_string(slot.block());
          if (slot.variable() && slot.variable()->size() && slot.rows() < 0 &&
              std::string(what) == "state")
            line += " (a copy of " + str(slot.variable()) + ")";
          else if (slot.variable() && slot.variable()->size())
            line += " (rows from " + std::to_string(slot.row()) + " of " + str(slot.variable()) +
                    ")";
          std::fprintf(out, "%s\n", line.c_str());
        }
      };
      slots("receives", ps.receives());
      slots("serves", ps.serves());
      slots("state", ps.state());
      std::string error;
      auto own = artifact::LoadedArtifact::loadBytes(
          std::vector<uint8_t>(ps.artifact()->begin(), ps.artifact()->end()),
          loaded.name() + " pserver " + std::to_string(i), error);
      if (own)
        printArtifact(*own, out);
      else
        std::fprintf(out, "  %s\n", error.c_str());
    }
  }
}

} // namespace distc::runtime
