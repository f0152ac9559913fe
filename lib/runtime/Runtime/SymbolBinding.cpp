//===- SymbolBinding.cpp - Feed shapes to buffer shapes -------------------===//

#include "distc/Runtime/SymbolBinding.h"

namespace distc::runtime {
namespace {

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

std::string symbolName(const fb::Artifact &a, int32_t sym) {
  if (a.symbols() && sym >= 0 && uint32_t(sym) < a.symbols()->size())
    return str(a.symbols()->Get(sym));
  return "sym" + std::to_string(sym);
}

uint32_t numDims(const fb::Buffer &b) { return b.dims() ? b.dims()->size() : 0; }

} // namespace

std::string formatDim(const fb::Artifact &a, const fb::Dim &d) {
  if (d.sym() < 0)
    return std::to_string(d.value());
  std::string s = symbolName(a, d.sym());
  if (d.value() != 1)
    s = std::to_string(d.value()) + "*" + s;
  if (d.div() != 1)
    s += "/" + std::to_string(d.div());
  return s;
}

std::string formatBufferType(const fb::Artifact &a, const fb::Buffer &b, bool symbolNames) {
  std::string s = dtypeName(static_cast<DType>(b.dtype()));
  s += '[';
  for (uint32_t i = 0; i < numDims(b); ++i) {
    const fb::Dim *d = b.dims()->Get(i);
    s += i ? "," : "";
    s += d->sym() < 0 || symbolNames ? formatDim(a, *d) : "?";
  }
  return s + ']';
}

Status bindSymbols(const fb::Artifact &a, const fb::Program &program, const TensorMap &feeds,
                   SymbolBindings &bindings) {
  uint32_t numSymbols = a.symbols() ? a.symbols()->size() : 0;
  bindings.assign(numSymbols, kUnbound);
  // Which feed (and dim) first bound each symbol, for conflict messages.
  std::vector<std::pair<std::string, uint32_t>> boundBy(numSymbols);

  std::vector<std::string> programFeeds;
  if (program.feeds())
    for (const fb::Feed *f : *program.feeds())
      programFeeds.push_back(str(f->name()));
  for (const auto &[name, tensor] : feeds) {
    bool known = false;
    for (const std::string &p : programFeeds)
      known |= p == name;
    if (!known) {
      std::string list;
      for (const std::string &p : programFeeds)
        list += (list.empty() ? "" : ", ") + p;
      return Status::error("unknown feed '" + name +
                           "'; the program's feeds are: " + (list.empty() ? "(none)" : list));
    }
  }

  if (!program.feeds())
    return Status::success();
  for (const fb::Feed *f : *program.feeds()) {
    std::string name = str(f->name());
    const fb::Buffer &buf = *a.buffers()->Get(f->buffer());
    std::string expected = formatBufferType(a, buf);
    auto it = feeds.find(name);
    if (it == feeds.end())
      return Status::error("missing feed '" + name + "' (expected " + expected + ")");
    const Tensor &t = it->second;
    if (!t.defined())
      return Status::error("feed '" + name + "' is an undefined tensor (expected " + expected +
                           ")");
    if (t.dtype() != static_cast<DType>(buf.dtype()) || uint32_t(t.rank()) != numDims(buf))
      return Status::error("feed '" + name + "' is " + t.typeString() +
                           " but the program expects " + expected);
    for (uint32_t d = 0; d < numDims(buf); ++d) {
      const fb::Dim &dim = *buf.dims()->Get(d);
      int64_t fed = t.shape()[d];
      std::string where = "feed '" + name + "' dim " + std::to_string(d);
      if (dim.sym() < 0) {
        if (fed != dim.value())
          return Status::error(where + " is " + std::to_string(fed) + " but the program expects " +
                               std::to_string(dim.value()) + " (" + expected + ")");
        continue;
      }
      // fed == binding * value / div, solved for binding and checked exactly.
      int64_t value = dim.value(), div = dim.div();
      int64_t binding = fed * div / value;
      if (binding < 0 || binding * value / div != fed || (binding * value) % div != 0)
        return Status::error(where + " is " + std::to_string(fed) + ", which no value of " +
                             symbolName(a, dim.sym()) + " gives for " + formatDim(a, dim));
      int64_t &slot = bindings[dim.sym()];
      if (slot == kUnbound) {
        slot = binding;
        boundBy[dim.sym()] = {name, d};
      } else if (slot != binding) {
        const auto &[otherFeed, otherDim] = boundBy[dim.sym()];
        return Status::error(where + " is " + std::to_string(fed) + ", giving " +
                             symbolName(a, dim.sym()) + " = " + std::to_string(binding) +
                             ", but feed '" + otherFeed + "' dim " + std::to_string(otherDim) +
                             " gave " + symbolName(a, dim.sym()) + " = " + std::to_string(slot));
      }
    }
  }
  return Status::success();
}

Status resolveShape(const fb::Artifact &a, const fb::Buffer &buf, const SymbolBindings &bindings,
                    Shape &shape) {
  shape.clear();
  for (uint32_t d = 0; d < numDims(buf); ++d) {
    const fb::Dim &dim = *buf.dims()->Get(d);
    if (dim.sym() < 0) {
      shape.push_back(dim.value());
      continue;
    }
    int64_t b = uint32_t(dim.sym()) < bindings.size() ? bindings[dim.sym()] : kUnbound;
    std::string where = "buffer '" + str(buf.name()) + "' dim " + std::to_string(d);
    if (b == kUnbound)
      return Status::error(where + " depends on symbol " + symbolName(a, dim.sym()) +
                           ", which no feed of this program binds");
    if ((b * dim.value()) % dim.div() != 0)
      return Status::error(where + " = " + formatDim(a, dim) + " is not an integer for " +
                           symbolName(a, dim.sym()) + " = " + std::to_string(b));
    shape.push_back(b * dim.value() / dim.div());
  }
  return Status::success();
}

} // namespace distc::runtime
