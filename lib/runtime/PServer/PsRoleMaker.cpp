//===- PsRoleMaker.cpp - Paddle's role maker in parameter-server mode -----===//

#include "distc/PServer/PsRoleMaker.h"

namespace distc::pserver {

Status PsRoleMaker::barrierWorker() {
  if (!isWorker())
    return Status::error("barrier_worker is the trainers' barrier; server " +
                         std::to_string(serverIndex()) + " takes no part");
  // An exchange among the trainers alone returns once every one is in.
  std::vector<double> none(1, 0.0);
  return world_.sumOverTrainers(none);
}

} // namespace distc::pserver
