//===- ServerState.h - A trainer's view of its servers' state ---*- C++ -*-===//
//
// In parameter-server mode the servers hold the training state: each
// server keeps blocks of rows of the parameters and of their optimizer
// state (moments, velocities), and whole copies of small variables (beta
// powers, the learning rate). The artifact's `state` slots (artifact.fbs,
// ParameterServer) say which block of which whole variable each server
// variable is. A trainer declares every such variable whole; these calls
// move the blocks between the servers and the trainer's whole variables,
// in place, through the session's ParameterServerChannel:
//
// * pullServerState: every whole variable the servers hold is read from
//   them (a copied variable from the first server that has it), so that
//   state_dict, checkpoints and save_persistables see the servers' values
//   (Paddle's save_persistables on a trainer, which fetches the servers'
//   slices with recv_save and writes the whole variables);
// * pushServerState: the blocks of the named whole variables are written
//   to every server that holds them (a resumed run's state, or
//   --init-from's parameters).
//
// Both are no-ops for a session without parameter servers.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_RUNTIME_SERVERSTATE_H
#define DISTC_RUNTIME_SERVERSTATE_H

#include "distc/Runtime/Session.h"

#include <set>
#include <string>

namespace distc::runtime {

/// True when the session trains against parameter servers that hold state.
bool hasServerState(const Session &session);

/// Reads every whole variable the servers hold into the trainer's copy.
Status pullServerState(Session &session);

/// Writes the servers' blocks of the variables `names` (others are
/// ignored) from the trainer's copies.
Status pushServerState(Session &session, const std::set<std::string> &names);

} // namespace distc::runtime

#endif // DISTC_RUNTIME_SERVERSTATE_H
