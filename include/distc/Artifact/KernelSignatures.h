//===- KernelSignatures.h - The kernel vocabulary of an artifact -*- C++ -*-===//
//
// One table naming every kernel an artifact may call, with its operand
// arity and attributes. The loader validates calls against it and the
// runtime's kernel registry is checked against it, so the two can never
// disagree about what a kernel looks like. Semantics: docs/artifact.md.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_ARTIFACT_KERNELSIGNATURES_H
#define DISTC_ARTIFACT_KERNELSIGNATURES_H

#include "distc/Artifact/ArtifactDesc.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace distc::artifact {

/// Marks an unbounded operand count (variadic inputs or outputs).
constexpr int kVariadic = -1;

struct AttrSignature {
  const char *name;
  AttrType type;
  /// Required attributes must be present; optional ones fall back to the
  /// default the kernel documents (see docs/artifact.md).
  bool required;
};

struct KernelSignature {
  const char *name;
  int minInputs, maxInputs;   // maxInputs may be kVariadic
  int minOutputs, maxOutputs; // maxOutputs may be kVariadic
  /// Operand positions that may hold -1 (an absent optional operand).
  uint32_t optionalInputMask;
  uint32_t optionalOutputMask;
  std::vector<AttrSignature> attrs;
};

/// Every kernel of the artifact format, sorted by name.
const std::vector<KernelSignature> &kernelSignatures();

/// The signature named `name`, or null for an unknown kernel.
const KernelSignature *findKernelSignature(std::string_view name);

} // namespace distc::artifact

#endif // DISTC_ARTIFACT_KERNELSIGNATURES_H
