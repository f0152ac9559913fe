//===- Roles.h - A trainer and a server of a pserver artifact ---*- C++ -*-===//
//
// The two ends of an artifact compiled with `distc --transpiler pserver`
// (docs/parameter-server.md), over a PsWorld:
//
// * TrainerChannel is the ParameterServerChannel a trainer's Session uses:
//   the ps_* kernels name blocks by (server, slot) and the channel sends
//   them as the variables the artifact's ParameterServer table names.
//
// * runParameterServer runs server `index`: it opens the server's own
//   artifact (its startup program and one program per optimize block) in a
//   Session of role "pserver", registers the gradient blocks it receives
//   and the parameter blocks it serves, and serves (Paddle's
//   listen_and_serv) until every trainer has completed. In synchronous
//   training every optimize block runs, in order, after every trainer's
//   send_barrier; in asynchronous training a block runs when its gradient
//   arrives. Its training state (the artifact's `state` slots) can be read
//   and overwritten by the trainers between rounds.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_PSERVER_ROLES_H
#define DISTC_PSERVER_ROLES_H

#include "distc/Artifact/ArtifactFile.h"
#include "distc/PServer/PsClient.h"
#include "distc/PServer/PsServer.h"
#include "distc/Runtime/ParameterServerChannel.h"
#include "distc/Runtime/Tensor.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace distc::pserver {

class TrainerChannel final : public runtime::ParameterServerChannel {
public:
  /// `artifact` names the slots; this is trainer `trainer`; `client` must
  /// outlive the channel.
  TrainerChannel(const distc::fb::Artifact &artifact, int trainer, PsClient &client);

  Status send(const std::vector<Block> &blocks) override;
  Status sendRows(const std::vector<RowsBlock> &blocks) override;
  Status prefetch(const std::vector<PrefetchBlock> &blocks) override;
  Status recv(const std::vector<Block> &blocks) override;
  Status sendBarrier() override;
  Status fetchBarrier() override;
  Status getState(const std::vector<Block> &blocks) override;
  Status setState(const std::vector<Block> &blocks) override;

private:
  /// Per server, the names of its receives, serves and state.
  std::vector<std::vector<std::string>> receives_, serves_, state_;
  Status stateRequests(bool set, const std::vector<Block> &blocks);
  std::string suffix_;
  PsClient &client_;
  Status named(bool send, const Block &block, std::string &name) const;
};

struct ServerRunOptions {
  /// How long the server waits for a trainer.
  std::chrono::milliseconds timeout{std::chrono::seconds(300)};
  /// Paddle's init_server(model_dir): whole parameters (by name) whose rows
  /// the server's blocks start from instead of its startup program's
  /// values; null: the startup program's.
  const runtime::TensorMap *initial = nullptr;
};

/// Runs parameter server `index` of `artifact` in `world` (a server's
/// world) until every trainer has completed; an error names what failed.
Status runParameterServer(const artifact::LoadedArtifact &artifact, int index, PsWorld &world,
                          const ServerRunOptions &options);

} // namespace distc::pserver

#endif // DISTC_PSERVER_ROLES_H
