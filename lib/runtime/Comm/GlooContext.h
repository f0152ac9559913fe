//===- GlooContext.h - A Gloo transport device and context ------*- C++ -*-===//
//
// How a process joins a Gloo full mesh through the rendezvous store: one
// TCP device per process (its event-loop thread and listening address),
// then one context per group of ranks that exchanges addresses under a
// store prefix and connects a pair to every other rank. GlooCommunicator
// (its world and each sub-group) and the parameter-server world
// (distc/PServer/PsWorld.h) are both built this way.
//
// Both functions throw Gloo's exceptions; their callers turn them into
// failure reports. Call them under a SigpipeGuard: the device's event-loop
// thread inherits the calling thread's signal mask.
//
//===----------------------------------------------------------------------===//

#ifndef DISTC_LIB_COMM_GLOOCONTEXT_H
#define DISTC_LIB_COMM_GLOOCONTEXT_H

#include "distc/Comm/Store.h"

#include <chrono>
#include <memory>
#include <string>

namespace gloo {
namespace rendezvous {
class Context;
}
namespace transport {
class Device;
}
} // namespace gloo

namespace distc::comm::detail {

/// A TCP device bound to `host`, or else to interface `iface`, or else to
/// the local address of `store`'s connection (an address of this host on
/// the network that reaches the store).
std::shared_ptr<gloo::transport::Device>
createGlooDevice(const std::string &host, const std::string &iface, const Store &store);

/// Connects rank `rank` of `size` over `device` to every other rank,
/// exchanging addresses under `prefix` in `store`, all within `bound`;
/// afterwards the context's timeout is `timeout`.
std::shared_ptr<gloo::rendezvous::Context>
connectGlooContext(int rank, int size, Store &store, const std::string &prefix,
                   std::shared_ptr<gloo::transport::Device> &device,
                   std::chrono::milliseconds bound, std::chrono::milliseconds timeout);

} // namespace distc::comm::detail

#endif // DISTC_LIB_COMM_GLOOCONTEXT_H
