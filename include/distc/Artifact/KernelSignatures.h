//===- KernelSignatures.h - The kernel vocabulary of an artifact -*- C++ -*-===//
//
// One table declaring every kernel an artifact may call: its operands, its
// attributes with their defaults, and what it computes. The loader
// validates calls against it, the runtime's kernels take their attribute
// defaults from it and its kernel registry is checked against it, and
// docs/kernels.md is printed from it, so none of them can disagree about
// what a kernel looks like.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_ARTIFACT_KERNELSIGNATURES_H
#define DISTC_ARTIFACT_KERNELSIGNATURES_H

#include "distc/Artifact/ArtifactDesc.h"

#include <cstdint>
#include <iosfwd>
#include <string_view>
#include <vector>

namespace distc::artifact {

/// Marks an unbounded operand count (variadic inputs or outputs).
constexpr int kVariadic = -1;

struct AttrSignature {
  const char *name;
  AttrType type;
  /// Required attributes must be present; an optional one takes
  /// `defaultValue` when absent.
  bool required;
  /// The default of an optional attribute, as the literal of its type
  /// ("0", "-100", "1e-5"); null for a required one.
  const char *defaultValue;
};

struct KernelSignature {
  const char *name;
  /// "Forward", "Training" or "Collective": its section of the reference.
  const char *family;
  /// The operands, comma-separated: `name?` is optional (may be -1),
  /// `name...` any number of at least one.
  const char *inputNames;
  const char *outputNames;
  std::vector<AttrSignature> attrs;
  /// What it computes (a line of docs/kernels.md).
  const char *semantics;

  // Derived from the operand lists.
  int minInputs = 0, maxInputs = 0;   // maxInputs may be kVariadic
  int minOutputs = 0, maxOutputs = 0; // maxOutputs may be kVariadic
  /// Operand positions that may hold -1 (an absent optional operand).
  uint32_t optionalInputMask = 0;
  uint32_t optionalOutputMask = 0;

  /// The attribute named `attrName`, or null.
  const AttrSignature *findAttr(std::string_view attrName) const;
};

/// Every kernel of the artifact format, sorted by name.
const std::vector<KernelSignature> &kernelSignatures();

/// The signature named `name`, or null for an unknown kernel.
const KernelSignature *findKernelSignature(std::string_view name);

/// Prints the kernel reference (docs/kernels.md) as Markdown.
void printKernelReference(std::ostream &os);

} // namespace distc::artifact

#endif // DISTC_ARTIFACT_KERNELSIGNATURES_H
