//===- ServerState.cpp - A trainer's view of its servers' state -----------===//

#include "distc/Runtime/ServerState.h"

#include <vector>

namespace distc::runtime {
namespace {

std::string str(const flatbuffers::String *s) { return s ? s->str() : std::string(); }

/// The blocks of the servers' state in the trainer's whole variables: for
/// `pull`, one block per element of each variable (the first copy of a
/// copied one); else every block of the variables in `names`.
Status stateBlocks(Session &session, bool pull, const std::set<std::string> *names,
                   std::vector<ParameterServerChannel::Block> &blocks) {
  const fb::Artifact &a = *session.artifact();
  std::set<std::string> copied;
  for (uint32_t s = 0; a.pservers() && s < a.pservers()->size(); ++s) {
    const fb::ParameterServer &server = *a.pservers()->Get(s);
    if (!server.state())
      continue;
    for (uint32_t k = 0; k < server.state()->size(); ++k) {
      const fb::ServerSlot &slot = *server.state()->Get(k);
      const std::string whole = str(slot.variable());
      if (names && !names->count(whole))
        continue;
      if (pull && slot.rows() < 0 && !copied.insert(whole).second)
        continue;
      Tensor t = session.persistent(whole);
      if (!t.defined())
        return Status::error("parameter server " + std::to_string(s) + " holds a block of '" +
                             whole + "', which the trainer does not declare");
      const int64_t allRows = t.shape().empty() ? 1 : t.shape()[0];
      const size_t rowBytes = allRows > 0 ? t.byteSize() / size_t(allRows) : 0;
      ParameterServerChannel::Block block;
      block.server = int(s);
      block.slot = int(k);
      if (slot.rows() < 0) {
        block.data = t.data();
        block.bytes = t.byteSize();
      } else {
        // The validator checked the rows lie within the variable.
        block.data = static_cast<char *>(t.data()) + size_t(slot.row()) * rowBytes;
        block.bytes = size_t(slot.rows()) * rowBytes;
      }
      blocks.push_back(block);
    }
  }
  return Status::success();
}

} // namespace

bool hasServerState(const Session &session) {
  const fb::Artifact &a = *session.artifact();
  if (!session.parameterServers() || !a.pservers())
    return false;
  for (const fb::ParameterServer *server : *a.pservers())
    if (server->state() && server->state()->size() != 0)
      return true;
  return false;
}

Status pullServerState(Session &session) {
  if (!hasServerState(session))
    return Status::success();
  std::vector<ParameterServerChannel::Block> blocks;
  if (Status s = stateBlocks(session, /*pull=*/true, nullptr, blocks); !s.ok())
    return s;
  if (Status s = session.parameterServers()->getState(blocks); !s.ok())
    return Status::error("reading the parameter servers' state: " + s.message());
  return Status::success();
}

Status pushServerState(Session &session, const std::set<std::string> &names) {
  if (!hasServerState(session))
    return Status::success();
  std::vector<ParameterServerChannel::Block> blocks;
  if (Status s = stateBlocks(session, /*pull=*/false, &names, blocks); !s.ok())
    return s;
  if (blocks.empty())
    return Status::success();
  if (Status s = session.parameterServers()->setState(blocks); !s.ok())
    return Status::error("writing the parameter servers' state: " + s.message());
  return Status::success();
}

} // namespace distc::runtime
