//===- PsRoleMaker.h - Paddle's role maker in parameter-server mode -*- C++ -*-===//
//
// What Paddle's RoleMakerBase answers for a process of a parameter-server
// job (fleet's is_server, server_index, barrier_all, ...), over the job's
// PsWorld: the role facts say who this process is (from dist-run's flags
// or Paddle's variables: TRAINING_ROLE, PADDLE_PSERVERS_IP_PORT_LIST,
// PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, POD_IP, PADDLE_PORT), the world
// connects them.
//
//   comm::RoleFacts facts;            comm::readRoleFacts(facts);
//   auto world = PsWorld::connect(...);
//   PsRoleMaker roles(facts, *world);
//   if (roles.isServer()) { serve(roles.serverIndex()); }
//   roles.barrierAll();               // every trainer and server
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PSERVER_PSROLEMAKER_H
#define DISTC_PSERVER_PSROLEMAKER_H

#include "distc/Comm/RoleMaker.h"
#include "distc/PServer/PsWorld.h"

#include <string>
#include <vector>

namespace distc::pserver {

class PsRoleMaker {
public:
  /// `world` must be this process's (its role and index those of `facts`)
  /// and outlive the role maker.
  PsRoleMaker(comm::RoleFacts facts, PsWorld &world) : facts_(std::move(facts)), world_(world) {}

  bool isServer() const { return world_.role() == PsRole::Server; }
  bool isWorker() const { return world_.role() == PsRole::Trainer; }
  bool isFirstWorker() const { return isWorker() && world_.index() == 0; }
  /// This server's index, or -1 on a trainer (Paddle's server_index()).
  int serverIndex() const { return isServer() ? world_.index() : -1; }
  /// This trainer's id, or -1 on a server (Paddle's worker_index()).
  int workerIndex() const { return isWorker() ? world_.index() : -1; }
  int serverNum() const { return world_.numServers(); }
  int workerNum() const { return world_.numTrainers(); }
  /// The servers' endpoints, in Paddle's order (get_pserver_endpoints()).
  const std::vector<std::string> &serverEndpoints() const { return facts_.serverEndpoints; }
  const comm::RoleFacts &facts() const { return facts_; }

  /// Paddle's barrier_all: returns once every trainer and every server
  /// has called it. Not while this process serves.
  Status barrierAll() { return world_.barrier(); }
  /// Paddle's barrier_worker: the trainers alone.
  Status barrierWorker();

private:
  comm::RoleFacts facts_;
  PsWorld &world_;
};

} // namespace distc::pserver

#endif // DISTC_PSERVER_PSROLEMAKER_H
