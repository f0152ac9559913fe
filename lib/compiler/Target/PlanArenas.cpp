//===- PlanArenas.cpp - One planned arena per program ---------------------===//

#include "distc/Target/PlanArenas.h"

#include "distc/Artifact/ArenaLayout.h"
#include "distc/Memory/ArenaPlanner.h"

#include <map>

namespace distc::target {

using namespace artifact;

namespace {

int64_t alignUp(int64_t n) { return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

/// Plans `buffers` (lifetimes in calls, sizes in bytes or bytes per unit)
/// and returns the offsets and the region's size.
memory::ArenaPlan planRegion(const std::vector<memory::BufferLifetime> &buffers) {
  memory::PlanOptions options;
  options.alignment = kArenaAlignment;
  // A compile plans a dozen regions or so: the exact search may cost each
  // about 20 ms when it cannot reach the bound (programs whose greedy plan
  // is already at the bound, most of them, never search).
  options.searchWorkBudget = 20'000'000;
  return memory::planArena(buffers, options);
}

ArenaDesc planProgram(const ArtifactDesc &desc, const ProgramDesc &program) {
  std::vector<TempLifetime> lifetimes = tempLifetimesOf(desc, program);

  // Footprints; the scaled region takes the symbol with the most bytes.
  std::vector<ArenaFootprint> footprints;
  std::map<int32_t, int64_t> scaledBytes;
  for (const TempLifetime &t : lifetimes) {
    footprints.push_back(arenaFootprintOf(desc.buffers[size_t(t.buffer)]));
    if (footprints.back().kind == ArenaFootprint::Kind::Scaled)
      scaledBytes[footprints.back().symbol] += footprints.back().bytes;
  }
  int32_t symbol = -1;
  for (auto [sym, bytes] : scaledBytes)
    if (symbol < 0 || bytes > scaledBytes[symbol])
      symbol = sym;

  std::vector<memory::BufferLifetime> fixed, scaled;
  std::vector<int32_t> fixedBuffers, scaledBuffers;
  for (size_t i = 0; i < lifetimes.size(); ++i) {
    const ArenaFootprint &f = footprints[i];
    memory::BufferLifetime life{lifetimes[i].buffer, lifetimes[i].first, lifetimes[i].last + 1,
                                f.bytes};
    if (f.kind == ArenaFootprint::Kind::Static) {
      fixed.push_back(life);
      fixedBuffers.push_back(lifetimes[i].buffer);
    } else if (f.kind == ArenaFootprint::Kind::Scaled && f.symbol == symbol) {
      scaled.push_back(life);
      scaledBuffers.push_back(lifetimes[i].buffer);
    }
  }
  ArenaDesc arena;
  if (!fixed.empty()) {
    memory::ArenaPlan plan = planRegion(fixed);
    arena.staticBytes = alignUp(plan.arenaSize);
    for (size_t i = 0; i < fixed.size(); ++i)
      arena.slots.push_back({fixedBuffers[i], plan.offsets[i], false});
  }
  if (!scaled.empty()) {
    memory::ArenaPlan plan = planRegion(scaled);
    arena.scaledSymbol = symbol;
    arena.scaledUnitBytes = plan.arenaSize;
    for (size_t i = 0; i < scaled.size(); ++i)
      arena.slots.push_back({scaledBuffers[i], plan.offsets[i], true});
  }
  return arena;
}

} // namespace

void planArenas(ArtifactDesc &desc) {
  for (ProgramDesc &program : desc.programs)
    program.arena = planProgram(desc, program);
}

} // namespace distc::target
