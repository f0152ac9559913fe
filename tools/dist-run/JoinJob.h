//===- JoinJob.h - A dist-run worker joins its data-parallel job -*- C++ -*-===//
//
// A dist-run process started by a launcher (dist-run's own, mpirun, srun,
// torchrun, paddle.distributed.launch: RoleMaker.h reads which) is one
// worker of the job. joinJob forms the workers' communicator through the
// rendezvous (Rendezvous.h), with the artifact's checksum as the
// fingerprint every rank must share, and installs it as the session's
// collectives: Gloo between CPU processes, NCCL between GPUs (one process
// per GPU, on the CUDA backend). A process alone (no launch environment,
// or one worker) needs nothing.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_TOOLS_DISTRUN_JOINJOB_H
#define DISTC_TOOLS_DISTRUN_JOINJOB_H

#include "distc/Comm/Communicator.h"
#include "distc/Comm/RoleMaker.h"
#include "distc/Runtime/DistModel.h"

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace distc::launch {

/// How the workers communicate.
enum class JobComm {
  Gloo, ///< host memory (the CPU backend)
  Nccl, ///< device memory of CUDA device `device` (the CUDA backend)
};

/// Joins the job `facts` describes with `model`'s artifact, within
/// `connectTimeout` for the whole rendezvous. Every rank must give the
/// same `settings` (AgreedSettings.h): dist-run's launchers compared them
/// between nodes already, but ranks that another launcher started meet
/// only here. On success the model's session runs its collectives through
/// the communicator, which it keeps. With `copyPerRank` the artifact need
/// not be compiled for the job's ranks: each rank runs its own copy and the
/// caller communicates (Reptile's outer update, Reptile.h).
runtime::Status joinJob(const comm::RoleFacts &facts, runtime::DistModel &model,
                        std::chrono::milliseconds connectTimeout, JobComm how, int device,
                        std::vector<std::pair<std::string, std::string>> settings,
                        bool copyPerRank = false);

} // namespace distc::launch

#endif // DISTC_TOOLS_DISTRUN_JOINJOB_H
