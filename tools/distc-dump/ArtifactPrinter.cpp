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
          std::string line = "  " + operands(c->outputs()) + " = " + str(c->kernel()) + "(" +
                             operands(c->inputs()) + ")";
          if (c->attrs() && c->attrs()->size()) {
            line += " {";
            for (uint32_t i = 0; i < c->attrs()->size(); ++i)
              line += (i ? ", " : "") + formatAttr(*c->attrs()->Get(i));
            line += "}";
          }
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
    }
}


} // namespace distc::runtime
