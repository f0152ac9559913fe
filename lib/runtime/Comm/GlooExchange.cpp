//===- GlooExchange.cpp - Point-to-point exchanges over Gloo --------------===//

#include "GlooExchange.h"
#include "PeerWatch.h"

#include <gloo/context.h>
#include <gloo/transport/unbound_buffer.h>

#include <exception>
#include <memory>

namespace distc::comm::detail {

using Clock = std::chrono::steady_clock;

std::string stripGlooLocation(const std::string &what) {
  if (!what.empty() && what[0] == '[') {
    size_t end = what.find("] ");
    if (end != std::string::npos)
      return what.substr(end + 2);
  }
  return what;
}

namespace {

/// Gloo reads a zero timeout as "wait forever"; never pass it one.
std::chrono::milliseconds left(Clock::time_point deadline) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return ms.count() < 1 ? std::chrono::milliseconds(1) : ms;
}

struct Posted {
  int peer;
  bool send;
  std::unique_ptr<gloo::transport::UnboundBuffer> buffer;
};

bool isTimeout(const std::string &what) { return what.find("Timed out") != std::string::npos; }

} // namespace

bool exchange(gloo::Context &context, uint64_t slot, const std::vector<Transfer> &sends,
              const std::vector<Transfer> &recvs, Clock::time_point deadline, PeerWatch *watch,
              PeerFailure &failure) {
  std::vector<Posted> posted;
  // Declared after `posted`, so the buffers are unregistered before they go.
  struct Unwatch {
    PeerWatch *watch;
    ~Unwatch() {
      if (watch)
        watch->unwatchAll();
    }
  } unwatch{watch};
  auto fail = [&](int peer, bool send, const std::string &what, bool timedOut) {
    failure.peer = peer;
    failure.send = send;
    failure.timedOut = timedOut;
    failure.what = stripGlooLocation(what);
    return false;
  };
  // Posting fails at once when the pair already broke (the peer died
  // before this collective); a transfer that was never posted must not be
  // awaited, or we would wait for the timeout instead.
  for (int pass = 0; pass < 2; ++pass) {
    bool send = pass == 1;
    for (const Transfer &t : send ? sends : recvs) {
      if (t.bytes == 0)
        continue;
      try {
        auto buffer = context.createUnboundBuffer(t.ptr, t.bytes);
        if (send)
          buffer->send(t.peer, slot, 0, t.bytes);
        else
          buffer->recv(t.peer, slot, 0, t.bytes);
        if (watch)
          watch->watch(buffer.get(), send);
        posted.push_back({t.peer, send, std::move(buffer)});
      } catch (const std::exception &e) {
        return fail(t.peer, send, e.what(), false);
      }
    }
  }
  for (Posted &p : posted) {
    try {
      bool done = p.send ? p.buffer->waitSend(nullptr, left(deadline))
                         : p.buffer->waitRecv(nullptr, left(deadline));
      if (!done)
        return fail(p.peer, p.send, "the transfer was aborted", false);
    } catch (const std::exception &e) {
      return fail(p.peer, p.send, e.what(), isTimeout(e.what()));
    }
  }
  return true;
}

} // namespace distc::comm::detail
