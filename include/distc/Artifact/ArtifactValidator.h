//===- ArtifactValidator.h - Structural checks of an artifact ---*- C++ -*-===//
//
// Checks, before anything runs, the invariants the runtime relies on so that
// executing a validated artifact cannot index out of range:
//   * every buffer index (call operands, feeds, fetches, alias_of) is in range;
//   * every View resolves, through alias_of, to a non-View buffer of the same
//     dtype without a cycle;
//   * every Dim has div != 0, a non-negative static size, a symbol in range;
//   * every kernel is known (KernelSignatures.h), with a valid operand count,
//     -1 only in optional positions, and its required attributes present
//     with the right type (an attribute of a wrong type is rejected too);
//   * feeds point at Feed buffers;
//   * every ring of the ring table has a positive id of its own and
//     partitions the world's ranks into groups of its group size (each
//     rank exactly once), and every call's `ring_id` names 0 or one of them.
// Shapes (element counts of views, kernel-specific shape rules) depend on
// symbol bindings and are checked by the runtime when a batch is fed.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_ARTIFACT_ARTIFACTVALIDATOR_H
#define DISTC_ARTIFACT_ARTIFACTVALIDATOR_H

#include "distc/Artifact/artifact_generated.h"

#include <string>

namespace distc::artifact {

/// Returns true if `artifact` is structurally valid; otherwise sets `error`
/// to a one-line message naming the program, call or buffer at fault.
bool validateArtifact(const distc::fb::Artifact &artifact, std::string &error);

/// The part of validateArtifact that checks the parameter servers and the
/// trainers' calls to them (ServerValidator.cpp).
bool validateParameterServers(const distc::fb::Artifact &artifact, std::string &error);

} // namespace distc::artifact

#endif // DISTC_ARTIFACT_ARTIFACTVALIDATOR_H
