//===- MemoryReport.h - What an artifact's programs hold in memory -*- C++ -*-===//
//
// `distc --memory-report` and `distc-dump --memory-report`: before anything
// runs, per program (and per parameter server), the bytes of its
// temporaries with no reuse, the arena planned for them, the liveness lower
// bound (the most bytes live at once, which no plan can beat) and the
// arena's ratio to it; then the persistent bytes every rank holds,
// parameters and optimizer state apart. Temporaries with a batch dim count
// per unit of the scaled symbol ("+ 4.0 KiB per x.dim0"), so the figures
// hold for any batch size; a program's static and scaled regions are
// planned, bounded and compared apart. Every artifact runs one program per
// rank, so the figures are per rank.
//
//   memory (per rank):
//     program                 temps  no reuse                 arena                  lower bound            arena/bound
//     train/trainer/main         41  1.2 MiB + 9.0 KiB/x.dim0  512 KiB + 3.0 KiB/...  ...                    1.000, 1.000
//   persistent: 7.5 MiB parameters (6), 15 MiB optimizer state (13), 8 B other (1)
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_ARTIFACT_MEMORYREPORT_H
#define DISTC_ARTIFACT_MEMORYREPORT_H

#include <string>

namespace distc::fb {
struct Artifact;
}

namespace distc::artifact {

/// The report of `artifact` (a validated one), with a section per
/// parameter server it carries.
std::string formatMemoryReport(const fb::Artifact &artifact);

} // namespace distc::artifact

#endif // DISTC_ARTIFACT_MEMORYREPORT_H
