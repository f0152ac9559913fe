//===- AgreedSettings.h - Settings every node of a job must share -*- C++ -*-===//
//
// The ranks of one node run the same command line, so they agree by
// construction; the nodes of a job are started separately and may not. A
// setting that decides which rows a rank takes, how many steps it runs or
// which collectives it calls must be the same on every node, or the job
// deadlocks at the step where one stops or quietly trains on inconsistent
// global batches. The launchers compare these when they meet
// (Launcher.h) and refuse a difference, naming the flag and both values.
//
// Not compared: where rank 0 alone writes (--metrics,
// --save-inference-model; of --checkpoint-dir and --save-persistables only
// whether they are given, since that decides the collectives of saving),
// --log-dir, --rendezvous-timeout and --collective-timeout (each node's
// own bounds). The compiled gradient settings (reduce strategy, gradient
// scale, fused buckets, clipping) are part of the artifact, compared by
// its checksum.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TOOLS_DISTRUN_AGREEDSETTINGS_H
#define DISTC_TOOLS_DISTRUN_AGREEDSETTINGS_H

#include "distc/Training/TrainLoop.h"

#include <string>
#include <utility>
#include <vector>

namespace distc::launch {

/// (flag, value) for every setting of a training job the nodes must share,
/// in the order they are compared: the artifact's checksum, --mode,
/// --backend, the data, batching, targets, evaluation, initialization and
/// saving.
std::vector<std::pair<std::string, std::string>>
agreedSettings(const training::TrainOptions &train, const std::string &mode,
               const std::string &backend, const std::string &artifactChecksum);

} // namespace distc::launch

#endif // DISTC_TOOLS_DISTRUN_AGREEDSETTINGS_H
