//===- GlooExchange.h - Point-to-point exchanges over Gloo ------*- C++ -*-===//
//
// Every collective of GlooCommunicator is one or two "exchanges": a set of
// sends and receives with distinct peers, all posted at once and then
// awaited. Each transfer gets its own Gloo unbound buffer, so a failure is
// attributed to the peer whose transfer failed, and no buffer ever has
// more than one operation pending (Gloo's rule). Gloo's pairs refer to
// buffers through weak pointers, so destroying the buffers on return, even
// after a failure, guarantees no late write into the caller's memory.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_COMM_GLOOEXCHANGE_H
#define DISTC_LIB_COMM_GLOOEXCHANGE_H

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gloo {
class Context;
}

namespace distc::comm::detail {

class PeerWatch;

struct Transfer {
  int peer = -1;
  void *ptr = nullptr;
  size_t bytes = 0;
};

/// The first transfer that failed.
struct PeerFailure {
  int peer = -1;
  bool timedOut = false;
  bool send = false;
  /// Gloo's message, without its source-location prefix.
  std::string what;
};

/// Posts every receive, then every send, all on `slot`, and waits for all
/// of them until `deadline`. Zero-byte transfers are skipped (both sides
/// compute the same sizes). Returns false and fills `failure` at the first
/// transfer that fails; never throws. With a `watch`, the waits are
/// aborted when another rank departs (PeerWatch.h).
bool exchange(gloo::Context &context, uint64_t slot, const std::vector<Transfer> &sends,
              const std::vector<Transfer> &recvs, std::chrono::steady_clock::time_point deadline,
              PeerWatch *watch, PeerFailure &failure);

/// Gloo's exception text without the "[file.cc:123] " prefix.
std::string stripGlooLocation(const std::string &what);

} // namespace distc::comm::detail

#endif // DISTC_LIB_COMM_GLOOEXCHANGE_H
