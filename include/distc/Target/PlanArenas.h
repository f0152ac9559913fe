//===- PlanArenas.h - One planned arena per program -------------*- C++ -*-===//
//
// After lowering, gives every program of an artifact its arena
// (artifact.fbs, Arena; docs/artifact.md, "Arena"): each temporary the
// program uses gets an offset, and temporaries whose uses overlap never
// share bytes, so a run allocates one block and nothing per buffer.
// Static temporaries are planned in bytes; temporaries with one batch-like
// symbolic dim in bytes per unit of the symbol that covers the most of
// them, so the plan holds for every batch size; the rest keep storage of
// their own. The plans come from the runtime's planner (ArenaPlanner.h).
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TARGET_PLANARENAS_H
#define DISTC_TARGET_PLANARENAS_H

#include "distc/Artifact/ArtifactDesc.h"

namespace distc::target {

/// Plans the arena of every program of `desc` (replacing any plan).
void planArenas(artifact::ArtifactDesc &desc);

} // namespace distc::target

#endif // DISTC_TARGET_PLANARENAS_H
