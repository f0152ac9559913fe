//===- MemoryReport.cpp - What an artifact's programs hold in memory ------===//

#include "distc/Artifact/MemoryReport.h"

#include "distc/Artifact/ArenaLayout.h"
#include "distc/Artifact/ArtifactDesc.h"
#include "distc/Artifact/ArtifactFile.h"
#include "distc/Memory/ArenaPlanner.h"
#include "distc/Artifact/artifact_generated.h"

#include <cstdio>
#include <map>
#include <set>

namespace distc::artifact {

namespace {

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

/// "512 B", "3.0 KiB", "1.25 MiB", "2.00 GiB".
std::string bytesText(double n) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (n >= 1024 && u < 4) {
    n /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%.0f %s", n, units[u]);
  else
    std::snprintf(buf, sizeof buf, n < 10 ? "%.2f %s" : "%.1f %s", n, units[u]);
  return buf;
}

/// A static part and a per-unit part of a figure.
struct Bytes {
  int64_t fixed = 0, perUnit = 0;
};

std::string text(const Bytes &b, const std::string &symbol) {
  std::string s = bytesText(double(b.fixed));
  if (b.perUnit)
    s += " + " + bytesText(double(b.perUnit)) + "/" + symbol;
  return s;
}

std::string ratioText(int64_t arena, int64_t bound) {
  if (bound <= 0)
    return "-";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.3f", double(arena) / double(bound));
  return buf;
}

struct ProgramFigures {
  std::string name;
  int temps = 0, unplanned = 0;
  std::string symbol;
  Bytes noReuse, arena, bound;
};

ProgramFigures figuresOf(const fb::Artifact &a, const fb::Program &p) {
  ProgramFigures f;
  f.name = str(p.mode()) + "/" + str(p.role()) + "/" +
           (p.kind() == fb::ProgramKind::Startup ? "startup" : "main");
  // The symbol: the arena's, else the one most temporaries scale with.
  std::map<int32_t, int> counts;
  std::vector<std::pair<TempLifetime, ArenaFootprint>> temps;
  for (const TempLifetime &t : tempLifetimesOf(a, p)) {
    temps.push_back({t, arenaFootprintOf(a, uint32_t(t.buffer))});
    if (temps.back().second.kind == ArenaFootprint::Kind::Scaled)
      ++counts[temps.back().second.symbol];
  }
  int32_t symbol = p.arena() ? p.arena()->scaled_symbol() : -1;
  for (auto [sym, count] : counts)
    if (symbol < 0 || count > counts[symbol])
      symbol = sym;
  if (symbol >= 0 && a.symbols() && uint32_t(symbol) < a.symbols()->size())
    f.symbol = str(a.symbols()->Get(uint32_t(symbol)));
  std::vector<memory::BufferLifetime> fixed, scaled;
  for (const auto &[t, fp] : temps) {
    ++f.temps;
    memory::BufferLifetime life{t.buffer, t.first, t.last + 1, fp.bytes};
    if (fp.kind == ArenaFootprint::Kind::Static) {
      f.noReuse.fixed += fp.bytes;
      fixed.push_back(life);
    } else if (fp.kind == ArenaFootprint::Kind::Scaled && fp.symbol == symbol) {
      f.noReuse.perUnit += fp.bytes;
      scaled.push_back(life);
    } else {
      ++f.unplanned;
    }
  }
  f.bound = {memory::livenessLowerBound(fixed), memory::livenessLowerBound(scaled)};
  if (p.arena() && p.arena()->slots() && p.arena()->slots()->size())
    f.arena = {p.arena()->static_bytes(), p.arena()->scaled_unit_bytes()};
  else
    f.arena = f.noReuse; // every temporary has its own storage
  return f;
}

void appendArtifact(const fb::Artifact &a, const std::string &indent, std::string &out) {
  std::vector<ProgramFigures> rows;
  if (a.programs())
    for (const fb::Program *p : *a.programs())
      rows.push_back(figuresOf(a, *p));
  // Columns as wide as their widest cell, two spaces apart; counts right-aligned.
  std::vector<std::vector<std::string>> cells = {
      {"program", "temps", "no reuse", "arena", "lower bound", "arena/bound"}};
  for (const ProgramFigures &r : rows) {
    std::string ratio = ratioText(r.arena.fixed, r.bound.fixed);
    if (r.bound.perUnit)
      ratio += ", " + ratioText(r.arena.perUnit, r.bound.perUnit) + "/" + r.symbol;
    cells.push_back({r.name, std::to_string(r.temps), text(r.noReuse, r.symbol),
                     text(r.arena, r.symbol), text(r.bound, r.symbol), ratio});
  }
  std::vector<size_t> widths(cells[0].size(), 0);
  for (const auto &row : cells)
    for (size_t c = 0; c < row.size(); ++c)
      widths[c] = std::max(widths[c], row[c].size());
  for (size_t i = 0; i < cells.size(); ++i) {
    std::string line = indent;
    for (size_t c = 0; c < cells[i].size(); ++c) {
      const std::string &cell = cells[i][c];
      std::string fill(widths[c] - cell.size(), ' ');
      if (c == cells[i].size() - 1)
        line += cell;
      else
        line += (c == 1 ? fill + cell : cell + fill) + "  ";
    }
    out += line + "\n";
    if (i > 0 && rows[i - 1].unplanned)
      out += indent + "  " + std::to_string(rows[i - 1].unplanned) +
             " temporaries of other shapes (several symbolic dims) have storage of their own\n";
  }
  // Persistent variables, by what the Training table says they are.
  std::set<std::string> params, state;
  if (const fb::Training *t = a.training()) {
    if (t->parameters())
      for (const flatbuffers::String *s : *t->parameters())
        params.insert(s->str());
    if (t->optimizer_state())
      for (const flatbuffers::String *s : *t->optimizer_state())
        state.insert(s->str());
  }
  int64_t bytes[3] = {0, 0, 0};
  int count[3] = {0, 0, 0};
  if (a.buffers())
    for (uint32_t i = 0; i < a.buffers()->size(); ++i) {
      const fb::Buffer *b = a.buffers()->Get(i);
      if (b->kind() != fb::BufferKind::Persistent)
        continue;
      ArenaFootprint fp = arenaFootprintOf(a, i);
      int k = params.count(str(b->name())) ? 0 : state.count(str(b->name())) ? 1 : 2;
      bytes[k] += fp.bytes;
      ++count[k];
    }
  out += indent + "persistent: " + bytesText(double(bytes[0])) + " parameters (" +
         std::to_string(count[0]) + "), " + bytesText(double(bytes[1])) + " optimizer state (" +
         std::to_string(count[1]) + "), " + bytesText(double(bytes[2])) + " other (" +
         std::to_string(count[2]) + ")\n";
}

} // namespace

std::string formatMemoryReport(const fb::Artifact &a) {
  std::string out = "memory (per rank):\n";
  appendArtifact(a, "  ", out);
  if (a.pservers())
    for (uint32_t i = 0; i < a.pservers()->size(); ++i) {
      const fb::ParameterServer &server = *a.pservers()->Get(i);
      out += "parameter server " + std::to_string(i) + " (" + str(server.endpoint()) + "):\n";
      std::string error;
      std::vector<uint8_t> bytes;
      if (server.artifact())
        bytes.assign(server.artifact()->begin(), server.artifact()->end());
      auto loaded = LoadedArtifact::loadBytes(std::move(bytes), "server", error);
      if (!loaded) {
        out += "  (its artifact does not load: " + error + ")\n";
        continue;
      }
      appendArtifact(*loaded->artifact(), "  ", out);
    }
  return out;
}

} // namespace distc::artifact
