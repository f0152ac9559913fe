//===- ArenaLayout.cpp - What a program's arena holds ---------------------===//

#include "distc/Artifact/ArenaLayout.h"

#include "distc/Artifact/ArtifactDesc.h"
#include "distc/Artifact/artifact_generated.h"

#include <cstddef>
#include <limits>

namespace distc::artifact {

namespace {

/// a * b, or false when it overflows int64 (both non-negative).
bool multiply(int64_t a, int64_t b, int64_t &out) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a)
    return false;
  out = a * b;
  return true;
}

} // namespace

ArenaFootprint arenaFootprint(const std::vector<DimTerm> &dims, int64_t elementBytes) {
  ArenaFootprint f;
  int64_t bytes = elementBytes;
  int32_t symbol = -1;
  for (const DimTerm &d : dims) {
    if (d.value <= 0 || d.div <= 0)
      return f;
    if (d.sym >= 0) {
      // One symbolic dim, a whole multiple of its symbol.
      if (symbol >= 0 || d.div != 1)
        return f;
      symbol = d.sym;
    }
    if (!multiply(bytes, d.value, bytes))
      return f;
  }
  if (bytes <= 0)
    return f;
  f.kind = symbol >= 0 ? ArenaFootprint::Kind::Scaled : ArenaFootprint::Kind::Static;
  f.symbol = symbol;
  f.bytes = bytes;
  return f;
}

std::vector<TempLifetime> tempLifetimes(const std::vector<int32_t> &rootOf,
                                        const std::vector<char> &isTemp,
                                        const std::vector<std::vector<int32_t>> &callBuffers) {
  std::vector<int64_t> first(rootOf.size(), -1), last(rootOf.size(), -1);
  for (size_t c = 0; c < callBuffers.size(); ++c)
    for (int32_t b : callBuffers[c]) {
      if (b < 0)
        continue;
      int32_t root = rootOf[size_t(b)];
      if (root < 0 || !isTemp[size_t(root)])
        continue;
      if (first[size_t(root)] < 0)
        first[size_t(root)] = int64_t(c);
      last[size_t(root)] = int64_t(c);
    }
  std::vector<TempLifetime> out;
  for (size_t b = 0; b < rootOf.size(); ++b)
    if (first[b] >= 0)
      out.push_back({int32_t(b), first[b], last[b]});
  return out;
}

std::vector<TempLifetime> tempLifetimesOf(const fb::Artifact &a, const fb::Program &p) {
  const uint32_t n = a.buffers() ? a.buffers()->size() : 0;
  std::vector<int32_t> roots(n);
  std::vector<char> isTemp(n);
  for (uint32_t b = 0; b < n; ++b) {
    int32_t root = int32_t(b);
    while (a.buffers()->Get(uint32_t(root))->kind() == fb::BufferKind::View)
      root = a.buffers()->Get(uint32_t(root))->alias_of();
    roots[b] = root;
    isTemp[b] = a.buffers()->Get(b)->kind() == fb::BufferKind::Temp;
  }
  std::vector<std::vector<int32_t>> callBuffers;
  if (p.calls())
    for (const fb::KernelCall *call : *p.calls()) {
      std::vector<int32_t> used;
      if (call->inputs())
        used.assign(call->inputs()->begin(), call->inputs()->end());
      if (call->outputs())
        used.insert(used.end(), call->outputs()->begin(), call->outputs()->end());
      callBuffers.push_back(std::move(used));
    }
  callBuffers.emplace_back();
  if (p.fetches())
    for (const fb::Fetch *fetch : *p.fetches())
      callBuffers.back().push_back(fetch->buffer());
  return tempLifetimes(roots, isTemp, callBuffers);
}

std::vector<TempLifetime> tempLifetimesOf(const ArtifactDesc &desc, const ProgramDesc &program) {
  const size_t n = desc.buffers.size();
  std::vector<int32_t> roots(n);
  std::vector<char> isTemp(n);
  for (size_t b = 0; b < n; ++b) {
    int32_t root = int32_t(b);
    // Views chain to their base; lowering never makes a cycle.
    for (size_t hops = 0; desc.buffers[size_t(root)].kind == BufferKind::View && hops < n; ++hops)
      root = desc.buffers[size_t(root)].aliasOf;
    roots[b] = root;
    isTemp[b] = desc.buffers[b].kind == BufferKind::Temp;
  }
  std::vector<std::vector<int32_t>> callBuffers;
  for (const KernelCallDesc &call : program.calls) {
    std::vector<int32_t> used = call.inputs;
    used.insert(used.end(), call.outputs.begin(), call.outputs.end());
    callBuffers.push_back(std::move(used));
  }
  callBuffers.emplace_back();
  for (const NamedBuffer &fetch : program.fetches)
    callBuffers.back().push_back(fetch.buffer);
  return tempLifetimes(roots, isTemp, callBuffers);
}

ArenaFootprint arenaFootprintOf(const BufferDesc &buffer) {
  std::vector<DimTerm> dims;
  for (const DimDesc &d : buffer.dims)
    dims.push_back({d.sym, d.value, d.div});
  return arenaFootprint(dims, elementBytes(buffer.dtype));
}

ArenaFootprint arenaFootprintOf(const fb::Artifact &a, uint32_t buffer) {
  const fb::Buffer &b = *a.buffers()->Get(buffer);
  std::vector<DimTerm> dims;
  if (b.dims())
    for (const fb::Dim *d : *b.dims())
      dims.push_back({d->sym(), d->value(), d->div()});
  return arenaFootprint(dims, elementBytes(DType(b.dtype())));
}

} // namespace distc::artifact
