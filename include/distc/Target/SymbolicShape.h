//===- SymbolicShape.h - buffer shapes over feed symbols ------*- C++ -*-===//
//
// The artifact keeps unknown batch dims symbolic: a dim is static or
// `symbol * value / div`. These helpers do the little algebra the lowering
// needs (products, quotients) and refuse what the form cannot express (two
// different symbols in one dim), so the lowering can report it by name.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TARGET_SYMBOLICSHAPE_H
#define DISTC_TARGET_SYMBOLICSHAPE_H

#include "distc/Artifact/ArtifactDesc.h"

#include <optional>
#include <string>
#include <vector>

namespace distc::target {

using artifact::DimDesc;
using SymShape = std::vector<DimDesc>;

/// Reduces value/div by their gcd; a symbolic dim with value 0 becomes 0.
DimDesc normalize(DimDesc d);
bool sameDim(const DimDesc &a, const DimDesc &b);
bool isOne(const DimDesc &d);

/// a * b, or nullopt when both are symbolic.
std::optional<DimDesc> multiply(const DimDesc &a, const DimDesc &b);
/// The product of all dims (1 for an empty list), or nullopt.
std::optional<DimDesc> product(const SymShape &dims);
/// a / b where b is static and non-zero, or a symbolic b that is a's own
/// symbol; nullopt when not expressible or not exact for static dims.
std::optional<DimDesc> divide(const DimDesc &a, const DimDesc &b);

/// Renders a dim for messages: `64`, `x.dim0`, `8*x.dim0`, `x.dim0/2`.
std::string toString(const DimDesc &d, const std::vector<std::string> &symbols);
std::string toString(const SymShape &dims, const std::vector<std::string> &symbols);

} // namespace distc::target

#endif // DISTC_TARGET_SYMBOLICSHAPE_H
