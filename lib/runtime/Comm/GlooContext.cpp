//===- GlooContext.cpp - A Gloo transport device and context --------------===//

#include "GlooContext.h"

#include "distc/Comm/GlooStore.h"

#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>

namespace distc::comm::detail {

using std::chrono::milliseconds;

std::shared_ptr<gloo::transport::Device>
createGlooDevice(const std::string &host, const std::string &iface, const Store &store) {
  gloo::transport::tcp::attr attr;
  if (!host.empty())
    attr.hostname = host;
  else if (!iface.empty())
    attr.iface = iface;
  else
    attr.hostname = store.localAddress();
  return gloo::transport::tcp::CreateDevice(attr);
}

std::shared_ptr<gloo::rendezvous::Context>
connectGlooContext(int rank, int size, Store &store, const std::string &prefix,
                   std::shared_ptr<gloo::transport::Device> &device, milliseconds bound,
                   milliseconds timeout) {
  auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
  // Gloo waits five times its context timeout for a pair to connect (a
  // peer that died during setup would hold us that long); scale it so
  // setup as a whole stays within the bound.
  context->setTimeout(std::max<milliseconds>(bound / 5, milliseconds(1000)));
  GlooStore glooStore(store, prefix, bound);
  context->connectFullMesh(glooStore, device);
  context->setTimeout(timeout);
  return context;
}

} // namespace distc::comm::detail
