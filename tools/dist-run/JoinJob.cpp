//===- JoinJob.cpp - A dist-run worker joins its data-parallel job --------===//

#include "JoinJob.h"

#include "distc/Comm/CommCollectives.h"
#include "distc/Comm/Rendezvous.h"

#include <cstdlib>

namespace distc::launch {

using runtime::Status;

Status joinJob(const comm::RoleFacts &facts, runtime::DistModel &model,
               std::chrono::milliseconds connectTimeout, JobComm how, int device,
               std::vector<std::pair<std::string, std::string>> settings, bool copyPerRank) {
  if (facts.isServer())
    return Status::error("this process is a parameter server (" + facts.toString() +
                         "); dist-run runs trainers only");
  const int artifactRanks = model.artifact()->world_size();
  auto mismatch = [&](int ranks) {
    std::string how = artifactRanks == 1
                          ? "recompile it with distc --nranks " + std::to_string(ranks)
                      : model.artifact()->data_ring() != 0
                          ? "start it with dist-run --nproc-per-node " +
                                std::to_string(artifactRanks) +
                                " (or recompile it with a mesh of " + std::to_string(ranks) +
                                " ranks in --placements)"
                          : "start it with dist-run --nproc-per-node " +
                                std::to_string(artifactRanks) + " (or as many ranks in all)";
    return Status::error(model.artifact().name() + " is compiled for " +
                         std::to_string(artifactRanks) + (artifactRanks == 1 ? " rank" : " ranks") +
                         " but the job has " + std::to_string(ranks) + ": " + how);
  };
  if (facts.workerNum == 1)
    return artifactRanks == 1 || copyPerRank ? Status::success() : mismatch(1);
  comm::RendezvousOptions options = comm::rendezvousOptionsFor(facts);
  options.connectTimeout = connectTimeout;
  options.fingerprint = model.artifact().checksumHex();
  options.settings = std::move(settings);
  // dist-run's launcher serves the store itself; under other launchers
  // rank 0 does.
  options.serveStore = std::getenv("DISTC_LAUNCHER") == nullptr;
  std::string error;
  std::shared_ptr<runtime::Collectives> collectives;
  if (how == JobComm::Nccl) {
    std::unique_ptr<comm::NcclCommunicator> nccl;
    if (!comm::connectNccl(options, device, nccl, error))
      return Status::error(error);
    collectives = std::make_shared<comm::NcclCollectives>(std::move(nccl));
  } else {
    std::unique_ptr<comm::Communicator> gloo;
    if (!comm::connect(options, gloo, error))
      return Status::error(error);
    collectives = std::make_shared<comm::CommCollectives>(std::move(gloo));
  }
  // After the rendezvous, which fails every rank alike when they disagree
  // on the world size or run different artifacts.
  if (artifactRanks != facts.workerNum && !copyPerRank)
    return mismatch(facts.workerNum);
  // Forms the communicators of the artifact's rings, if it has any.
  return model.session().setCollectives(std::move(collectives));
}

} // namespace distc::launch
