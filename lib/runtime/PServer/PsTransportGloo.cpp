//===- PsTransportGloo.cpp - The parameter-server world over Gloo ---------===//
//
// One TCP device and one full-mesh context per process, as a
// GlooCommunicator's (GlooContext.h), and a departure watch that aborts
// waits when a process that matters leaves (PsWorld::Impl::matters).
//
// Gloo closes every pair of a context when a wait times out, so a timeout
// here is always the end of the world; the waits never use one as a poll.
//
//===----------------------------------------------------------------------===//

#include "FailureReport.h"
#include "GlooContext.h"
#include "GlooExchange.h"
#include "PeerWatch.h"
#include "PsWorldImpl.h"
#include "SigpipeGuard.h"

#include <gloo/rendezvous/context.h>
#include <gloo/transport/device.h>
#include <gloo/transport/unbound_buffer.h>

#include <exception>

namespace distc::pserver::detail {

using comm::detail::PeerWatch;
using comm::detail::SigpipeGuard;
using comm::detail::stripGlooLocation;
using std::chrono::milliseconds;

namespace {

/// Gloo reads a zero timeout as "wait forever"; never pass it one.
milliseconds left(Clock::time_point deadline) {
  auto ms = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
  return ms.count() < 1 ? milliseconds(1) : ms;
}

class GlooTransport;

class GlooXfer final : public Xfer {
public:
  GlooXfer(GlooTransport &transport, std::unique_ptr<gloo::transport::UnboundBuffer> buffer)
      : transport_(transport), buffer_(std::move(buffer)) {}

  bool send(int peer, uint64_t slot, size_t bytes, PeerFailure &failure) override {
    return post(true, peer, failure, [&] { buffer_->send(peer, slot, 0, bytes); });
  }
  bool recv(int peer, uint64_t slot, size_t bytes, PeerFailure &failure) override {
    return post(false, peer, failure, [&] { buffer_->recv(peer, slot, 0, bytes); });
  }
  bool recvAny(const std::vector<int> &peers, uint64_t slot, size_t bytes,
               PeerFailure &failure) override {
    return post(false, -1, failure, [&] { buffer_->recv(peers, slot, 0, bytes); });
  }
  bool wait(Clock::time_point deadline, int *peer, PeerFailure &failure) override;

private:
  template <typename Fn> bool post(bool send, int peer, PeerFailure &failure, Fn &&fn) {
    sending_ = send;
    peer_ = peer;
    SigpipeGuard guard;
    try {
      fn();
      return true;
    } catch (const std::exception &e) {
      failure.peer = peer;
      failure.send = send;
      failure.what = stripGlooLocation(e.what());
      return false;
    }
  }

  GlooTransport &transport_;
  std::unique_ptr<gloo::transport::UnboundBuffer> buffer_;
  bool sending_ = false;
  int peer_ = -1;
};

class GlooTransport final : public Transport {
public:
  std::unique_ptr<Xfer> buffer(void *ptr, size_t bytes) override {
    // Gloo wants a buffer of at least one byte even for no transfer.
    static char none;
    if (!ptr || bytes == 0) {
      ptr = &none;
      bytes = 1;
    }
    return std::make_unique<GlooXfer>(*this, context->createUnboundBuffer(ptr, bytes));
  }

  bool tripped() const override { return watch->tripped(); }

  void closeConnections() override {
    SigpipeGuard guard;
    try {
      context->closeConnections();
    } catch (const std::exception &) {
    }
  }

  bool barrier(uint64_t slot, Clock::time_point deadline, PeerFailure &failure) override {
    std::vector<char> tokens(size_t(context->size), 1);
    std::vector<comm::detail::Transfer> sends, recvs;
    for (int peer = 0; peer < context->size; ++peer) {
      if (peer == context->rank)
        continue;
      sends.push_back({peer, &tokens[size_t(context->rank)], 1});
      recvs.push_back({peer, &tokens[size_t(peer)], 1});
    }
    SigpipeGuard guard;
    return comm::detail::exchange(*context, slot, sends, recvs, deadline, watch.get(), failure);
  }

  bool exchange(const std::vector<int> &peers, uint64_t slot, const void *mine,
                const std::vector<void *> &theirs, size_t bytes, Clock::time_point deadline,
                PeerFailure &failure) override {
    std::vector<comm::detail::Transfer> sends, recvs;
    for (size_t i = 0; i < peers.size(); ++i) {
      if (peers[i] == context->rank)
        continue;
      // Gloo reads what it sends without writing it.
      sends.push_back({peers[i], const_cast<void *>(mine), bytes});
      recvs.push_back({peers[i], theirs[i], bytes});
    }
    SigpipeGuard guard;
    return comm::detail::exchange(*context, slot, sends, recvs, deadline, watch.get(), failure);
  }

  std::shared_ptr<gloo::transport::Device> device;
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::unique_ptr<PeerWatch> watch;
};

bool GlooXfer::wait(Clock::time_point deadline, int *peer, PeerFailure &failure) {
  failure.peer = peer_;
  failure.send = sending_;
  if (transport_.tripped()) {
    failure.what = "a process it needed has left";
    return false;
  }
  PeerWatch &watch = *transport_.watch;
  struct Unwatch {
    PeerWatch &watch;
    ~Unwatch() { watch.unwatchAll(); }
  } unwatch{watch};
  watch.watch(buffer_.get(), sending_);
  SigpipeGuard guard;
  int from = -1;
  try {
    bool done = sending_ ? buffer_->waitSend(&from, left(deadline))
                         : buffer_->waitRecv(&from, left(deadline));
    if (!done) {
      failure.what = "the transfer was aborted";
      return false;
    }
  } catch (const std::exception &e) {
    failure.what = stripGlooLocation(e.what());
    failure.timedOut = failure.what.find("Timed out") != std::string::npos;
    return false;
  }
  if (peer)
    *peer = from;
  return true;
}

} // namespace

std::unique_ptr<Transport> connectTransport(PsWorld::Impl &world, std::string &error) {
  auto transport = std::make_unique<GlooTransport>();
  const PsWorldOptions &o = world.options;
  SigpipeGuard guard; // also covers the device's event-loop thread
  try {
    transport->device = comm::detail::createGlooDevice(o.host, o.iface, *world.store);
    transport->context =
        comm::detail::connectGlooContext(world.rank, world.size, *world.store, o.prefix + "/gloo",
                                         transport->device, o.connectTimeout, o.timeout);
  } catch (const std::exception &e) {
    PeerFailure failure;
    failure.what = stripGlooLocation(e.what());
    error = world.fail("connecting the parameter-server world", failure, o.connectTimeout, false)
                .message();
    return nullptr;
  }
  PsWorld::Impl *w = &world;
  transport->watch = PeerWatch::start(
      *world.store, [w](const comm::Departure &d) { return w->matters(d); }, world.departuresBefore,
      milliseconds(0), error);
  if (!transport->watch)
    return nullptr;
  return transport;
}

} // namespace distc::pserver::detail
