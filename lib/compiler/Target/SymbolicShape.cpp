//===- SymbolicShape.cpp - buffer shapes over feed symbols ----------------===//

#include "distc/Target/SymbolicShape.h"

#include <numeric>

namespace distc::target {

DimDesc normalize(DimDesc d) {
  if (d.isStatic())
    return DimDesc::fixed(d.value);
  if (d.value == 0)
    return DimDesc::fixed(0);
  int64_t g = std::gcd(d.value, d.div);
  if (g > 1) {
    d.value /= g;
    d.div /= g;
  }
  return d;
}

bool sameDim(const DimDesc &a, const DimDesc &b) {
  DimDesc x = normalize(a), y = normalize(b);
  return x.sym == y.sym && x.value == y.value && (x.isStatic() || x.div == y.div);
}

bool isOne(const DimDesc &d) { return d.isStatic() && d.value == 1; }

std::optional<DimDesc> multiply(const DimDesc &a, const DimDesc &b) {
  if (a.isStatic() && b.isStatic())
    return DimDesc::fixed(a.value * b.value);
  if (!a.isStatic() && !b.isStatic())
    return std::nullopt;
  const DimDesc &sym = a.isStatic() ? b : a;
  int64_t k = a.isStatic() ? a.value : b.value;
  return normalize(DimDesc::symbolic(sym.sym, sym.value * k, sym.div));
}

std::optional<DimDesc> product(const SymShape &dims) {
  DimDesc acc = DimDesc::fixed(1);
  for (const DimDesc &d : dims) {
    auto next = multiply(acc, d);
    if (!next)
      return std::nullopt;
    acc = *next;
  }
  return acc;
}

std::optional<DimDesc> divide(const DimDesc &a, const DimDesc &b) {
  if (b.isStatic()) {
    if (b.value == 0)
      return std::nullopt;
    if (a.isStatic())
      return a.value % b.value == 0 ? std::optional(DimDesc::fixed(a.value / b.value)) : std::nullopt;
    return normalize(DimDesc::symbolic(a.sym, a.value, a.div * b.value));
  }
  // (s * p / q) / (s * r / t) = (p * t) / (q * r), static.
  if (a.isStatic() || a.sym != b.sym)
    return std::nullopt;
  int64_t num = a.value * b.div, den = a.div * b.value;
  if (den == 0 || num % den != 0)
    return std::nullopt;
  return DimDesc::fixed(num / den);
}

std::string toString(const DimDesc &d, const std::vector<std::string> &symbols) {
  if (d.isStatic())
    return std::to_string(d.value);
  std::string name = d.sym < static_cast<int32_t>(symbols.size()) ? symbols[d.sym]
                                                                   : "s" + std::to_string(d.sym);
  std::string text = d.value == 1 ? name : std::to_string(d.value) + "*" + name;
  if (d.div != 1)
    text += "/" + std::to_string(d.div);
  return text;
}

std::string toString(const SymShape &dims, const std::vector<std::string> &symbols) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + toString(dims[i], symbols);
  return text + "]";
}

} // namespace distc::target
