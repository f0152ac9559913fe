//===- distc-dump.cpp - Print a distc artifact for humans -----------------===//
//
// distc-dump ARTIFACT
//
// Loads and validates the artifact like dist-run, then prints its header,
// symbols, buffers and every program as one line per kernel call:
//
//   predict/trainer/main
//     feeds: x = %0
//     %8 = matmul(%0, %2) {trans_a = 0, trans_b = 0}   // mul -> fc_0.tmp_0
//     fetches: probs = %13
//
// Exit status 0, or 1 with one line "distc-dump: error: ..." on any problem.
//
//===----------------------------------------------------------------------===//

#include "distc/Artifact/ArtifactFile.h"
#include "distc/Runtime/SymbolBinding.h"

#include <CLI/CLI.hpp>

#include <cinttypes>
#include <cstdio>
#include <string>

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

void dump(const artifact::LoadedArtifact &loaded) {
  const fb::Artifact &a = *loaded.artifact();
  std::printf("artifact: %s\n", loaded.name().c_str());
  std::printf("  format version: %u\n", loaded.formatVersion());
  std::printf("  size: %" PRIu64 " bytes (payload %" PRIu64 ")\n", loaded.fileSize(),
              loaded.payloadSize());
  std::printf("  checksum: 0x%016" PRIx64 " ok\n", loaded.checksum());
  std::printf("  producer: %s\n", str(a.producer()).c_str());
  std::printf("  source: %s\n", str(a.source()).c_str());

  std::printf("symbols:\n");
  if (a.symbols())
    for (uint32_t i = 0; i < a.symbols()->size(); ++i)
      std::printf("  $%u = %s\n", i, str(a.symbols()->Get(i)).c_str());

  std::printf("buffers:\n");
  if (a.buffers())
    for (uint32_t i = 0; i < a.buffers()->size(); ++i) {
      const fb::Buffer &b = *a.buffers()->Get(i);
      std::string line = "  %" + std::to_string(i) + " " + str(b.name()) + ": " +
                         runtime::formatBufferType(a, b, /*symbolNames=*/true) + " " +
                         kindName(b.kind());
      if (b.kind() == fb::BufferKind::View)
        line += " of %" + std::to_string(b.alias_of()) + " (" +
                str(a.buffers()->Get(b.alias_of())->name()) + ")";
      std::printf("%s\n", line.c_str());
    }

  std::printf("programs:\n");
  if (a.programs())
    for (const fb::Program *p : *a.programs()) {
      std::printf("%s/%s/%s\n", str(p->mode()).c_str(), str(p->role()).c_str(),
                  p->kind() == fb::ProgramKind::Startup ? "startup" : "main");
      if (p->feeds() && p->feeds()->size()) {
        std::string line = "  feeds:";
        for (uint32_t i = 0; i < p->feeds()->size(); ++i)
          line += std::string(i ? "," : "") + " " + str(p->feeds()->Get(i)->name()) + " = %" +
                  std::to_string(p->feeds()->Get(i)->buffer());
        std::printf("%s\n", line.c_str());
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
          std::printf("%s\n", line.c_str());
        }
      if (p->fetches() && p->fetches()->size()) {
        std::string line = "  fetches:";
        for (uint32_t i = 0; i < p->fetches()->size(); ++i)
          line += std::string(i ? "," : "") + " " + str(p->fetches()->Get(i)->name()) + " = %" +
                  std::to_string(p->fetches()->Get(i)->buffer());
        std::printf("%s\n", line.c_str());
      }
    }
}

} // namespace

int main(int argc, char **argv) {
  CLI::App app{"Prints a distc artifact: header, symbols, buffers and programs."};
  std::string path;
  app.add_option("artifact", path, "The artifact file written by distc")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::fprintf(stderr, "distc-dump: error: %s\n", e.what());
    return 1;
  }
  std::string error;
  auto loaded = artifact::LoadedArtifact::loadFile(path, error);
  if (!loaded) {
    std::fprintf(stderr, "distc-dump: error: %s\n", error.c_str());
    return 1;
  }
  dump(*loaded);
  return 0;
}
