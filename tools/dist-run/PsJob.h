//===- PsJob.h - A process of a parameter-server job ------------*- C++ -*-===//
//
// An artifact compiled with `distc --transpiler pserver` runs as W trainers
// and S servers (`dist-run --server-num S --worker-num W`, or Paddle's role
// variables under another launcher). Every process joins one PsWorld
// through the job's store, speaking for its world rank (trainer id, or W +
// server index):
//
// * a server runs its programs (DistcPServer's runParameterServer) until
//   every trainer has completed;
// * a trainer gets a channel to the servers for its ps_* kernels, reads
//   its share (1/W) of every global batch, trains, and completes.
//
// The launch environment must match the artifact: as many servers, at the
// same endpoints, and as many trainers as it was transpiled for.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TOOLS_DISTRUN_PSJOB_H
#define DISTC_TOOLS_DISTRUN_PSJOB_H

#include "Launcher.h"

#include "distc/Comm/RoleMaker.h"
#include "distc/Runtime/DistModel.h"

#include <chrono>
#include <memory>

namespace distc::launch {

/// True when `model` is a parameter-server artifact.
bool isParameterServerArtifact(const runtime::DistModel &model);

/// The launcher's layout for `model`: --server-num and --worker-num
/// (default: the artifact's), which must be the artifact's, and the
/// servers' endpoints; the node then starts W + S processes. An error
/// message, or "".
std::string setParameterServerLayout(const runtime::DistModel &model,
                                     const std::string &artifactName, LaunchOptions &options);

/// A trainer's membership in the job, alive while it trains.
class PsTrainer {
public:
  virtual ~PsTrainer() = default;
  /// Tells every server this trainer is done (Paddle's stop_worker).
  virtual runtime::Status complete() = 0;
};

/// Joins the job as a trainer and connects `model`'s session to the
/// servers; null with `status` set on failure.
std::unique_ptr<PsTrainer> joinAsTrainer(const comm::RoleFacts &facts, runtime::DistModel &model,
                                         std::chrono::milliseconds connectTimeout,
                                         runtime::Status &status);

/// Joins the job as a server and serves until every trainer completes.
/// With `initFrom` (a directory or file of whole parameters, as the
/// trainers' --init-from), the server's blocks start from their rows.
runtime::Status serveAsServer(const comm::RoleFacts &facts, runtime::DistModel &model,
                              std::chrono::milliseconds connectTimeout,
                              const std::string &initFrom);

} // namespace distc::launch

#endif // DISTC_TOOLS_DISTRUN_PSJOB_H
